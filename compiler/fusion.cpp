// Peephole fusion of row-program steps, the part of torch.compile's work that matters on
// a NeuronCore: each rule removes one instruction per tile (and its intermediate tile)
// by using a free feature of another instruction (reference section 3):
//   square/copy activation + add-reduce        -> the activation's free accumulator
//   that accumulator * c (mean's 1/D)           -> folded into the activation's scale
//   (t + c) or (t * c) feeding an activation    -> the activation's bias or scale
//   tensor_scalar feeding a tensor_tensor       -> one scalar_tensor_tensor
//   tensor_scalar feeding a tensor_scalar       -> the second op slot (op1)
// A rule only fires when the intermediate has one reader and is not stored.
#include <cmath>

#include "compiler/row_program.hpp"

namespace neuronsim::compiler {

namespace {

using isa::ActFunc;
using isa::AluOp;

int readers(const RowProgram& p, int v) {
  int n = 0;
  for (const auto& s : p.steps)
    for (int r : s.reads())
      n += r == v;
  return n;
}

int writer(const RowProgram& p, int v) {
  for (std::size_t i = 0; i < p.steps.size(); ++i)
    for (int w : p.steps[i].writes())
      if (w == v) return static_cast<int>(i);
  return -1;
}

// The only reader of v is one step and v is not stored.
bool private_value(const RowProgram& p, int v) {
  return !p.values[v].output && !p.values[v].input && readers(p, v) == 1;
}

bool plain_tensor_scalar(const Step& s) {
  return s.kind == StepKind::tensor_scalar && !s.has_op1 && s.reduce_dst < 0;
}

bool commutes(AluOp op) {
  return op == AluOp::add || op == AluOp::multiply || op == AluOp::max || op == AluOp::min;
}

// Rule: reduce(add) of an activation's result -> the activation's accumulator.
bool fuse_reduce_into_activation(RowProgram& p, std::size_t i) {
  const Step& red = p.steps[i];
  if (red.kind != StepKind::reduce || red.reduce_op != AluOp::add || red.negate) return false;
  const int w = writer(p, red.a);
  if (w < 0) return false;
  Step& act = p.steps[w];
  if (act.kind != StepKind::activation || act.reduce_dst >= 0 || act.dst != red.a) return false;
  act.reduce_dst = red.dst;
  act.nodes.insert(act.nodes.end(), red.nodes.begin(), red.nodes.end());
  p.steps.erase(p.steps.begin() + i);
  return true;
}

// Rule: accumulator * c -> scale of the activation (its element results must be unused).
bool fold_scale_into_accumulator(RowProgram& p, std::size_t i) {
  const Step& ts = p.steps[i];
  if (!plain_tensor_scalar(ts) || ts.op0 != AluOp::multiply || ts.arg0.is_value()) return false;
  const int w = writer(p, ts.a);
  if (w < 0 || !private_value(p, ts.a)) return false;
  Step& act = p.steps[w];
  if (act.kind != StepKind::activation || act.reduce_dst != ts.a || act.has_bias ||
      act.scale.is_value())
    return false;
  if (readers(p, act.dst) > 0 || p.values[act.dst].output) return false;
  const float c = ts.arg0.imm;
  if (act.func == ActFunc::copy) {
    act.scale.imm *= c;  // sum(x * s * c) = c * sum(x * s)
  } else if (act.func == ActFunc::square && c > 0.0f) {
    act.scale.imm *= std::sqrt(c);  // sum((x * s * sqrt(c))^2) = c * sum((x * s)^2)
  } else {
    return false;
  }
  act.reduce_dst = ts.dst;
  act.nodes.insert(act.nodes.end(), ts.nodes.begin(), ts.nodes.end());
  p.steps.erase(p.steps.begin() + i);
  return true;
}

// u - max(u) feeds an activation as a bias: the max reduction can produce -max for free.
bool negate_max(RowProgram& p, int v) {
  const int w = writer(p, v);
  if (w < 0 || !private_value(p, v)) return false;
  Step& red = p.steps[w];
  if (red.kind != StepKind::reduce || red.reduce_op != AluOp::max || red.negate) return false;
  red.negate = true;
  return true;
}

// Rule: an activation of (u + c), (u - c) or (u * c) -> f(u * scale + bias).
bool fold_into_activation_input(RowProgram& p, std::size_t i) {
  Step& act = p.steps[i];
  if (act.kind != StepKind::activation || act.has_bias || act.scale.is_value()) return false;
  const int w = writer(p, act.a);
  if (w < 0 || !private_value(p, act.a)) return false;
  const Step& ts = p.steps[w];
  if (!plain_tensor_scalar(ts) || ts.reverse0) return false;
  const float s = act.scale.imm;
  if (ts.op0 == AluOp::multiply) {
    if (ts.arg0.is_value()) {
      if (s != 1.0f) return false;
      act.scale = ts.arg0;  // f(u * v), v a per-row [P,1] scale
    } else {
      act.scale.imm = s * ts.arg0.imm;
    }
  } else if (ts.op0 == AluOp::add || ts.op0 == AluOp::subtract) {
    if (ts.arg0.is_value()) {
      if (s != 1.0f) return false;
      if (ts.op0 == AluOp::subtract && !negate_max(p, ts.arg0.value)) return false;
      act.bias = ts.arg0;  // f(u + v) or f(u - max) as f(u + (-max)), a per-row bias
    } else {
      const float c = ts.op0 == AluOp::add ? ts.arg0.imm : -ts.arg0.imm;
      act.bias = Arg::number(c * s);  // f((u + c) * s) = f(u * s + c * s)
    }
    act.has_bias = true;
  } else {
    return false;
  }
  act.a = ts.a;
  act.nodes.insert(act.nodes.begin(), ts.nodes.begin(), ts.nodes.end());
  p.steps.erase(p.steps.begin() + w);
  return true;
}

// Rule: tensor_tensor((a op0 s), b) -> scalar_tensor_tensor(a, s, op0, b, op1).
bool fuse_into_scalar_tensor_tensor(RowProgram& p, std::size_t i) {
  Step& tt = p.steps[i];
  if (tt.kind != StepKind::tensor_tensor) return false;
  for (int side = 0; side < 2; ++side) {
    const int v = side == 0 ? tt.a : tt.b;
    if (side == 1 && !commutes(tt.op0)) break;
    const int w = writer(p, v);
    if (w < 0 || !private_value(p, v) || (tt.a == tt.b)) continue;
    const Step& ts = p.steps[w];
    if (!plain_tensor_scalar(ts) || ts.reverse0) continue;
    const int other = side == 0 ? tt.b : tt.a;
    Step stt;
    stt.kind = StepKind::scalar_tensor_tensor;
    stt.dst = tt.dst;
    stt.a = ts.a;
    stt.b = other;
    stt.op0 = ts.op0;
    stt.arg0 = ts.arg0;
    stt.op1 = tt.op0;
    stt.has_op1 = false;  // op1 of an stt combines with b, not an immediate
    stt.nodes = ts.nodes;
    stt.nodes.insert(stt.nodes.end(), tt.nodes.begin(), tt.nodes.end());
    p.steps[i] = stt;
    p.steps.erase(p.steps.begin() + w);
    return true;
  }
  return false;
}

// Rule: tensor_scalar(tensor_scalar(a, op0, x), op, y) -> one tensor_scalar with op1.
bool merge_tensor_scalars(RowProgram& p, std::size_t i) {
  Step& second = p.steps[i];
  if (!plain_tensor_scalar(second)) return false;
  const int w = writer(p, second.a);
  if (w < 0 || !private_value(p, second.a)) return false;
  const Step& first = p.steps[w];
  if (!plain_tensor_scalar(first)) return false;
  Step merged = first;
  merged.dst = second.dst;
  merged.has_op1 = true;
  merged.op1 = second.op0;
  merged.arg1 = second.arg0;
  merged.reverse1 = second.reverse0;
  merged.nodes.insert(merged.nodes.end(), second.nodes.begin(), second.nodes.end());
  p.steps[i] = merged;
  p.steps.erase(p.steps.begin() + w);
  return true;
}

}  // namespace

void fuse_steps(RowProgram& p) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (std::size_t i = 0; i < p.steps.size() && !changed; ++i)
      changed = fuse_reduce_into_activation(p, i) || fold_scale_into_accumulator(p, i) ||
                fold_into_activation_input(p, i) || fuse_into_scalar_tensor_tensor(p, i) ||
                merge_tensor_scalars(p, i);
  }
  for (std::size_t v = 0; v < p.values.size(); ++v) {
    Value& val = p.values[v];
    val.scratch = !val.input && !val.output && readers(p, static_cast<int>(v)) == 0;
    val.unused = val.scratch && writer(p, static_cast<int>(v)) < 0;
    // A discarded result keeps the source's width, as a hand-written kernel would.
    if (val.scratch) {
      const int w = writer(p, static_cast<int>(v));
      if (w >= 0 && p.steps[w].a >= 0) val.dtype = p.values[p.steps[w].a].dtype;
    }
  }
}

}  // namespace neuronsim::compiler

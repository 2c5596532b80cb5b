// Planning fused mode around matmuls (compiler/matmul_fusion.hpp, docs/compiler.md
// "Fusion around matmuls"). Every rule keeps the graph's values: a node is taken into a
// matmul's launch only when nothing else reads it and it is not an output, and the
// tensors an epilogue or mask reads come from earlier launches or the inputs.
#include "compiler/matmul_fusion.hpp"

#include <algorithm>
#include <cmath>

#include "base/error.hpp"

namespace neuronsim::compiler {

namespace {

using isa::ActFunc;
using isa::AluOp;

class Planner {
 public:
  Planner(const Graph& g, const std::set<std::string>& live, const params::TargetLimits& l)
      : g_(g), live_(live), l_(l) {
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
      index_[g.nodes[i].id] = i;
  }

  MatmulFusion run() {
    for (const auto& n : g_.nodes)
      if (live_.count(n.id) && n.op == OpKind::matmul && !out_.absorbed.count(n.id)) plan(n);
    decide_layout_nodes();
    place_concats();
    merge_heads();
    return std::move(out_);
  }

 private:
  std::vector<const Node*> readers(const std::string& id) const {
    std::vector<const Node*> r;
    for (const auto& n : g_.nodes)
      if (live_.count(n.id) && std::any_of(n.args.begin(), n.args.end(),
                                           [&](const Operand& a) { return a.tensor == id; }))
        r.push_back(&n);
    return r;
  }
  // The only reader of `id`, when it has one and is not an output (so it can stay on chip).
  const Node* sole_reader(const std::string& id) const {
    if (g_.is_output(id)) return nullptr;
    const auto r = readers(id);
    return r.size() == 1 ? r[0] : nullptr;
  }
  bool is_layout(const Node* n) const {
    return n && (n->op == OpKind::slice || n->op == OpKind::transpose);
  }

  // An operand a launch reads from HBM, seen through a slice when it is one: the tensor
  // holding it and the view. False when it cannot be read that way.
  bool view_of(const std::string& operand, const std::string& reader, std::string& tensor,
               GemmView& v) {
    const Node* n = g_.node(operand);
    if (!n || n->op != OpKind::slice) {
      tensor = operand;
      v = GemmView{};
      return !is_layout(n);  // a transpose read where it cannot be absorbed: materialised
    }
    const Node* parent = g_.node(n->args[0].tensor);
    if (is_layout(parent) || g_.type_of(n->args[0].tensor).shape.size() != 2) return false;
    tensor = n->args[0].tensor;
    v.shape = g_.type_of(tensor).shape;
    v.col0 = n->start;
    absorbed_by_[operand].insert(reader);
    return true;
  }

  // A tensor the launch of matmul `m` may read: an input, or an earlier node whose result
  // is stored (not one kept inside another launch).
  bool available(const std::string& t, const Node& m) const {
    if (g_.is_input(t)) return true;
    const Node* n = g_.node(t);
    if (!n || in_launch_.count(t) || is_layout(n)) return false;
    // Computed where its launch is: a matmul launch's result at the matmul.
    const auto r = result_of_.find(t);
    const std::size_t at = index_.at(r != result_of_.end() ? r->second : t);
    return at < index_.at(m.id);
  }

  void plan(const Node& m) {
    if (plan_attention(m)) return;
    MatmulLaunch L;
    GemmSpec& s = L.gemm;
    const TensorType& a = g_.type_of(m.args[0].tensor);
    const TensorType& b = g_.type_of(m.args[1].tensor);
    s.in_dtype = a.dtype;
    s.m = static_cast<std::uint32_t>(a.shape[0]);
    s.k = static_cast<std::uint32_t>(a.shape[1]);
    s.n = static_cast<std::uint32_t>(b.shape[1]);
    if (!view_of(m.args[0].tensor, m.id, s.a_name, s.a_view)) {
      s.a_name = m.args[0].tensor;
      s.a_view = {};
    }
    const Node* bn = g_.node(m.args[1].tensor);
    bool b_done = false;
    if (bn && bn->op == OpKind::transpose) {
      GemmSpec t = s;
      t.b_transposed = true;
      if (view_of(bn->args[0].tensor, bn->id, t.b_name, t.b_view) && fits(t)) {
        s = t;
        absorbed_by_[bn->id].insert(m.id);
        b_done = true;
      }
    }
    if (!b_done && !view_of(m.args[1].tensor, m.id, s.b_name, s.b_view)) {
      s.b_name = m.args[1].tensor;
      s.b_view = {};
    }
    L.nodes = {m.id};
    std::string result = m.id;
    std::vector<EpilogueStep> steps;
    std::vector<std::string> chain;
    for (const Node* r = sole_reader(result); r; r = sole_reader(result)) {
      EpilogueStep st;
      if (r->type.shape != m.type.shape || !epilogue_step(*r, result, m, st)) break;
      steps.push_back(st);
      chain.push_back(r->id);
      result = r->id;
    }
    fold(steps);
    GemmSpec with = s;
    with.epilogue = steps;
    with.out_dtype = g_.type_of(result).dtype;
    if (!steps.empty() && fits(with)) {
      s = with;
      for (const auto& id : chain) {
        L.nodes.push_back(id);
        out_.absorbed.insert(id);
      }
      for (std::size_t i = 0; i + 1 < L.nodes.size(); ++i)
        in_launch_.insert(L.nodes[i]);
    } else {
      result = m.id;
      s.out_dtype = m.type.dtype;
    }
    s.c_name = result;
    L.reads = {s.a_name, s.b_name};
    for (const auto& st : s.epilogue)
      if (st.kind == EpilogueStep::Kind::tensor) L.reads.push_back(st.tensor);
    result_of_[result] = m.id;
    out_.launches[m.id] = std::move(L);
  }

  bool fits(const GemmSpec& s) const {
    try {
      plan_gemm(s, l_);
      return true;
    } catch (const Error&) {
      return false;
    }
  }

  static bool activation_of(const Node& r, ActFunc& f) {
    switch (r.op) {
      case OpKind::square:
        f = ActFunc::square;
        return true;
      case OpKind::exp:
        f = ActFunc::exp;
        return true;
      case OpKind::silu:
        f = ActFunc::silu;
        return true;
      case OpKind::log:
        f = ActFunc::log;
        return true;
      case OpKind::relu:
        f = ActFunc::relu;
        return true;
      case OpKind::sigmoid:
        f = ActFunc::sigmoid;
        return true;
      case OpKind::tanh:
        f = ActFunc::tanh;
        return true;
      case OpKind::sin:
        f = ActFunc::sin;
        return true;
      case OpKind::abs:
        f = ActFunc::abs;
        return true;
      case OpKind::gelu:
        f = r.gelu_tanh ? ActFunc::gelu_apprx_tanh : ActFunc::gelu;
        return true;
      case OpKind::rsqrt:
        f = ActFunc::rsqrt;
        return true;
      case OpKind::sqrt:
        f = ActFunc::sqrt;
        return true;
      case OpKind::reciprocal:
        f = ActFunc::reciprocal;
        return true;
      case OpKind::pow:
        if (r.exponent == 2)
          f = ActFunc::square;
        else if (r.exponent == 0.5)
          f = ActFunc::sqrt;
        else if (r.exponent == -0.5)
          f = ActFunc::rsqrt;
        else if (r.exponent == -1)
          f = ActFunc::reciprocal;
        else if (r.exponent == 1)
          f = ActFunc::copy;
        else
          return false;
        return true;
      default:
        return false;
    }
  }

  // Node r applied to the running value `cur` of matmul m's epilogue, as one step.
  bool epilogue_step(const Node& r, const std::string& cur, const Node& m, EpilogueStep& st) {
    ActFunc f;
    if (activation_of(r, f)) {
      st.kind = EpilogueStep::Kind::activation;
      st.func = f;
      return true;
    }
    if (r.op != OpKind::add && r.op != OpKind::sub && r.op != OpKind::mul && r.op != OpKind::div)
      return false;
    const bool first = r.args[0].tensor == cur;
    const Operand& other = first ? r.args[1] : r.args[0];
    if (other.tensor == cur) return false;  // cur op cur
    const AluOp op = r.op == OpKind::add   ? AluOp::add
                     : r.op == OpKind::sub ? AluOp::subtract
                     : r.op == OpKind::mul ? AluOp::multiply
                                           : AluOp::divide;
    if (!other.is_tensor()) {
      st.kind = EpilogueStep::Kind::scalar;
      st.op = op;
      st.imm = static_cast<float>(other.number);
      st.reverse = !first;
      if (first && op == AluOp::subtract) {  // x - c = x + (-c)
        st.op = AluOp::add;
        st.imm = -st.imm;
      }
      if (first && op == AluOp::divide) {  // x / c = x * (1/c), as torch's true division
        st.op = AluOp::multiply;
        st.imm = static_cast<float>(1.0 / other.number);
      }
      if (!first && (op == AluOp::add || op == AluOp::multiply)) st.reverse = false;
      return true;
    }
    if (!available(other.tensor, m)) return false;
    const TensorType& t = g_.type_of(other.tensor);
    const std::uint64_t n = m.type.shape[1];
    st.kind = EpilogueStep::Kind::tensor;
    st.op = op;
    st.reverse = !first && (op == AluOp::subtract || op == AluOp::divide);
    st.tensor = other.tensor;
    st.tensor_dtype = t.dtype;
    st.tensor_shape = t.shape;
    if (t.shape == m.type.shape) {
      st.column = false;
    } else if (t.shape == std::vector<std::uint64_t>{n} ||
               t.shape == std::vector<std::uint64_t>{1, n}) {
      st.column = true;
    } else {
      return false;
    }
    return true;
  }

  // x * c or x + c before an activation becomes its scale or bias; a first step x * c or
  // x + c alone becomes a Scalar copy with that scale or bias (it reads PSUM either way).
  static void fold(std::vector<EpilogueStep>& steps) {
    auto affine = [](const EpilogueStep& s) {
      return s.kind == EpilogueStep::Kind::scalar && !s.reverse &&
             (s.op == AluOp::multiply || s.op == AluOp::add);
    };
    for (std::size_t i = 0; i + 1 < steps.size();) {
      EpilogueStep& act = steps[i + 1];
      if (affine(steps[i]) && act.kind == EpilogueStep::Kind::activation) {
        // act((x * c) * scale + bias) = act(x * (c scale) + bias);
        // act((x + c) * scale + bias) = act(x * scale + (c scale + bias)).
        if (steps[i].op == AluOp::multiply)
          act.scale *= steps[i].imm;
        else
          act.bias += steps[i].imm * act.scale;
        steps.erase(steps.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      ++i;
    }
    if (!steps.empty() && affine(steps[0])) {
      EpilogueStep a;
      a.kind = EpilogueStep::Kind::activation;
      a.func = ActFunc::copy;
      if (steps[0].op == AluOp::multiply)
        a.scale = steps[0].imm;
      else
        a.bias = steps[0].imm;
      steps[0] = a;
    }
  }

  bool plan_attention(const Node& m1) {
    const Node* kt = g_.node(m1.args[1].tensor);
    if (!kt || kt->op != OpKind::transpose || !sole_reader(kt->id)) return false;
    std::vector<std::string> nodes{m1.id};
    AttentionSpec a;
    std::string cur = m1.id;
    const Node* r = sole_reader(cur);
    if (r && (r->op == OpKind::mul || r->op == OpKind::div) && r->args[0].tensor == cur &&
        !r->args[1].is_tensor()) {
      a.scale =
          static_cast<float>(r->op == OpKind::mul ? r->args[1].number : 1.0 / r->args[1].number);
      nodes.push_back(r->id);
      cur = r->id;
      r = sole_reader(cur);
    }
    if (r && r->op == OpKind::add && r->type.shape == m1.type.shape) {
      const Operand& other = r->args[0].tensor == cur ? r->args[1] : r->args[0];
      if (!other.is_tensor() || other.tensor == cur || !available(other.tensor, m1) ||
          g_.type_of(other.tensor).shape != m1.type.shape)
        return false;
      a.mask = other.tensor;
      a.mask_dtype = g_.type_of(a.mask).dtype;
      a.mask_shape = g_.type_of(a.mask).shape;
      nodes.push_back(r->id);
      cur = r->id;
      r = sole_reader(cur);
    }
    if (!r || r->op != OpKind::softmax) return false;
    nodes.push_back(r->id);
    cur = r->id;
    const Node* m2 = sole_reader(cur);
    if (!m2 || m2->op != OpKind::matmul || m2->args[0].tensor != cur) return false;
    nodes.push_back(m2->id);
    const TensorType& q = g_.type_of(m1.args[0].tensor);
    const TensorType& v = g_.type_of(m2->args[1].tensor);
    a.dtype = q.dtype;
    a.out_dtype = m2->type.dtype;
    a.sq = static_cast<std::uint32_t>(q.shape[0]);
    a.d = static_cast<std::uint32_t>(q.shape[1]);
    a.sk = static_cast<std::uint32_t>(m1.type.shape[1]);
    a.dv = static_cast<std::uint32_t>(v.shape[1]);
    AttentionHead head;
    a.heads = {head};  // attention_fits checks the shapes
    if (!view_of(m1.args[0].tensor, m1.id, head.q, head.q_view) ||
        !view_of(kt->args[0].tensor, kt->id, head.k, head.k_view) ||
        !view_of(m2->args[1].tensor, m2->id, head.v, head.v_view) || !attention_fits(a, l_))
      return false;
    absorbed_by_[kt->id].insert(m1.id);
    head.out = m2->id;
    a.heads = {head};
    MatmulLaunch L;
    L.attention = true;
    L.attn = a;
    L.nodes = nodes;
    L.reads = {head.q, head.k, head.v};
    if (!a.mask.empty()) L.reads.push_back(a.mask);
    for (std::size_t i = 1; i < nodes.size(); ++i)
      out_.absorbed.insert(nodes[i]);
    for (std::size_t i = 0; i + 1 < nodes.size(); ++i)
      in_launch_.insert(nodes[i]);
    result_of_[m2->id] = m1.id;
    out_.launches[m1.id] = std::move(L);
    return true;
  }

  // A slice or transpose is left out when it is not an output and every reader took it in
  // (read its source through a view); otherwise it is a kernel of its own, and so is any
  // slice such a transpose reads. Last nodes first, so a transpose is decided before its
  // source.
  void decide_layout_nodes() {
    for (auto n = g_.nodes.rbegin(); n != g_.nodes.rend(); ++n) {
      if (!live_.count(n->id) || !is_layout(&*n)) continue;
      bool keep = g_.is_output(n->id);
      for (const Node* r : readers(n->id)) {
        const auto it = absorbed_by_.find(n->id);
        const bool took = it != absorbed_by_.end() && it->second.count(r->id) &&
                          (!is_layout(r) || out_.absorbed.count(r->id));
        keep = keep || !took;
      }
      if (!keep) out_.absorbed.insert(n->id);
    }
  }

  // A concat of launch results that nothing else reads: each launch stores its result into
  // the concat's columns.
  void place_concats() {
    for (const auto& n : g_.nodes) {
      if (!live_.count(n.id) || n.op != OpKind::concat) continue;
      bool all = true;
      for (const auto& a : n.args)
        all = all && result_of_.count(a.tensor) && sole_reader(a.tensor) == &n &&
              std::count_if(n.args.begin(), n.args.end(),
                            [&](const Operand& o) { return o.tensor == a.tensor; }) == 1;
      if (!all) continue;
      std::uint64_t at = 0;
      for (const auto& a : n.args) {
        MatmulLaunch& L = out_.launches.at(result_of_.at(a.tensor));
        GemmView& v = L.attention ? L.attn.heads[0].out_view : L.gemm.c_view;
        (L.attention ? L.attn.heads[0].out : L.gemm.c_name) = n.id;
        v.shape = n.type.shape;
        v.col0 = at;
        at += g_.type_of(a.tensor).shape.back();
        in_launch_.insert(a.tensor);
        L.nodes.push_back(n.id);
      }
      out_.absorbed.insert(n.id);
    }
  }

  // Attention launches of one shape, mask and scale become one launch of several heads,
  // placed at the first one, when every later head's inputs are there by then (the heads
  // of a layer all read q, k, v and the mask, computed before the first head).
  void merge_heads() {
    const MatmulLaunch* first = nullptr;
    std::string first_key;
    for (const auto& n : g_.nodes) {
      auto it = out_.launches.find(n.id);
      if (it == out_.launches.end() || !it->second.attention) continue;
      MatmulLaunch& L = it->second;
      const bool joins =
          first && L.attn.sq == first->attn.sq && L.attn.sk == first->attn.sk &&
          L.attn.d == first->attn.d && L.attn.dv == first->attn.dv &&
          L.attn.dtype == first->attn.dtype && L.attn.out_dtype == first->attn.out_dtype &&
          L.attn.mask == first->attn.mask && L.attn.scale == first->attn.scale &&
          std::all_of(L.reads.begin(), L.reads.end(),
                      [&](const std::string& t) { return available(t, *g_.node(first_key)); });
      if (!joins) {
        first = &L;
        first_key = n.id;
        continue;
      }
      MatmulLaunch& F = out_.launches.at(first_key);
      F.attn.heads.push_back(L.attn.heads[0]);
      for (const auto& id : L.nodes)
        if (std::find(F.nodes.begin(), F.nodes.end(), id) == F.nodes.end()) F.nodes.push_back(id);
      for (const auto& t : L.reads)
        if (std::find(F.reads.begin(), F.reads.end(), t) == F.reads.end()) F.reads.push_back(t);
      out_.absorbed.insert(n.id);
      out_.launches.erase(it);
      first = &F;
    }
  }

  const Graph& g_;
  const std::set<std::string>& live_;
  const params::TargetLimits& l_;
  MatmulFusion out_;
  std::map<std::string, std::size_t> index_;
  std::set<std::string> in_launch_;  // kept on chip inside a launch: no HBM tensor
  std::map<std::string, std::set<std::string>> absorbed_by_;  // layout node -> readers
  std::map<std::string, std::string> result_of_;              // result -> launch key
};

}  // namespace

MatmulFusion plan_matmul_fusion(const Graph& g, const std::set<std::string>& live,
                                const params::TargetLimits& limits) {
  return Planner(g, live, limits).run();
}

}  // namespace neuronsim::compiler

// Instruction selection for row-wise nodes: one or a few engine steps per graph node, on
// the engine a kernel writer would pick (reference section 3): Scalar activations for
// transcendental functions and squares, Vector for elementwise arithmetic and reductions.
#include <cmath>

#include "base/error.hpp"
#include "compiler/row_program.hpp"

namespace neuronsim::compiler {

namespace {

using isa::ActFunc;
using isa::AluOp;
using isa::DType;

class Selector {
 public:
  Selector(const Graph& g, RowProgram& p, const std::vector<std::string>& outputs,
           const ColumnViews& views)
      : g_(g), p_(p), outputs_(outputs), views_(views) {}

  [[noreturn]] void fail(const Node& n, const std::string& reason) const {
    throw Error(g_.source + ": node '" + n.id + "': " + reason);
  }

  void lower(const Node& n) {
    node_ = &n;
    if (p_.rows == 0) p_.rows = flat_rows(n.type.shape);
    switch (n.op) {
      case OpKind::square:
        act(n, ActFunc::square);
        break;
      case OpKind::rsqrt:
        act(n, ActFunc::rsqrt);
        break;
      case OpKind::sqrt:
        act(n, ActFunc::sqrt);
        break;
      case OpKind::exp:
        act(n, ActFunc::exp);
        break;
      case OpKind::reciprocal:
        act(n, ActFunc::reciprocal);
        break;
      case OpKind::silu:
        act(n, ActFunc::silu);
        break;
      case OpKind::log:
        act(n, ActFunc::log);
        break;
      case OpKind::relu:
        act(n, ActFunc::relu);
        break;
      case OpKind::sigmoid:
        act(n, ActFunc::sigmoid);
        break;
      case OpKind::tanh:
        act(n, ActFunc::tanh);
        break;
      case OpKind::sin:
        act(n, ActFunc::sin);
        break;
      case OpKind::abs:
        act(n, ActFunc::abs);
        break;
      case OpKind::gelu:
        act(n, n.gelu_tanh ? ActFunc::gelu_apprx_tanh : ActFunc::gelu);
        break;
      case OpKind::pow:
        lower_pow(n);
        break;
      case OpKind::to:
        // A copy into the result, rounded when it is stored in its dtype; a value kept on
        // chip stays fp32 (a fused kernel does not round at a conversion inside it, as
        // inductor's default, emulate_precision_casts off).
        act(n, ActFunc::copy);
        break;
      case OpKind::sum:
        reduce(n, AluOp::add, result(n));
        break;
      case OpKind::max:
        reduce(n, AluOp::max, result(n));
        break;
      case OpKind::mean:
        lower_mean(n);
        break;
      case OpKind::softmax:
        lower_softmax(n);
        break;
      case OpKind::add:
        binary(n, AluOp::add);
        break;
      case OpKind::sub:
        binary(n, AluOp::subtract);
        break;
      case OpKind::mul:
        binary(n, AluOp::multiply);
        break;
      case OpKind::div:
        binary(n, AluOp::divide);
        break;
      case OpKind::matmul:
      case OpKind::transpose:
      case OpKind::slice:
      case OpKind::concat:
        fail(n, op_name(n.op) + " is not a row-wise op (internal: it has its own kernel)");
    }
  }

 private:
  bool is_output(const std::string& t) const {
    for (const auto& o : outputs_)
      if (o == t) return true;
    return false;
  }

  // Rows are the leading dimensions flattened. The program tiles the rows of its nodes'
  // results; a one-row operand of a many-row program is broadcast to every partition: a
  // [D] (or [1, D]) column vector, or a [1] scalar.
  ValueKind kind_of(const std::string& tensor, const TensorType& t) {
    const std::uint64_t rows = flat_rows(t.shape);
    if (rows == 1 && p_.rows != 1) return ValueKind::col;
    if (rows != p_.rows)
      fail(*node_, "tensor '" + tensor + "' " + shape_text(t.shape) + " has " +
                       std::to_string(rows) + " rows, but this kernel tiles " +
                       std::to_string(p_.rows) +
                       " rows (broadcasting over leading dimensions is not supported)");
    return t.shape.back() == 1 ? ValueKind::stat : ValueKind::row;
  }

  // A [128, 1] value: a per-partition scalar operand (tensor_scalar's arg).
  bool per_partition(int v) const {
    const Value& val = p_.values[v];
    return val.kind == ValueKind::stat || (val.kind == ValueKind::col && val.cols == 1);
  }

  static std::uint32_t cols_of(const TensorType& t) {
    return static_cast<std::uint32_t>(t.shape.back());
  }

  // The value of a tensor operand; a tensor made outside this program is loaded.
  int operand(const std::string& tensor) {
    const int v = p_.find(tensor);
    if (v >= 0) return v;
    const TensorType& t = g_.type_of(tensor);
    Value val;
    val.name = tensor;
    val.kind = kind_of(tensor, t);
    val.cols = cols_of(t);
    val.dtype = t.dtype;
    val.shape = t.shape;
    val.input = true;
    if (auto view = views_.find(tensor); view != views_.end()) {
      val.source = view->second.source;
      val.source_shape = g_.type_of(view->second.source).shape;
      val.source_col0 = view->second.col0;
    }
    p_.values.push_back(val);
    return static_cast<int>(p_.values.size()) - 1;
  }

  // The value of node n's result: the graph's dtype when stored, fp32 on chip otherwise
  // (the engines compute in fp32, docs/compiler.md).
  int result(const Node& n) {
    Value val;
    val.name = n.id;
    val.kind = kind_of(n.id, n.type);
    if (val.kind == ValueKind::col)  // unreachable: the program tiles its results' rows
      fail(n, "a result of shape " + shape_text(n.type.shape) + " in a kernel of " +
                  std::to_string(p_.rows) + " rows");
    val.cols = cols_of(n.type);
    val.output = is_output(n.id);
    val.shape = n.type.shape;
    val.dtype = val.output ? n.type.dtype : DType::fp32;
    p_.values.push_back(val);
    return static_cast<int>(p_.values.size()) - 1;
  }

  int temp(const Node& n, const std::string& part, ValueKind kind, std::uint32_t cols) {
    Value val;
    val.name = n.id + "_" + part;
    val.kind = kind;
    val.cols = cols;
    p_.values.push_back(val);
    return static_cast<int>(p_.values.size()) - 1;
  }

  Step& push(StepKind kind, int dst, int a) {
    Step s;
    s.kind = kind;
    s.dst = dst;
    s.a = a;
    s.nodes = {node_->id};
    p_.steps.push_back(s);
    return p_.steps.back();
  }

  void act(const Node& n, ActFunc f) {
    const int a = operand(n.args[0].tensor);
    check_not_col(n, a);
    push(StepKind::activation, result(n), a).func = f;
  }

  // A one-row operand of a unary op makes a one-row result, so the program tiles one row
  // and the operand is not broadcast; reaching this would be a partitioning bug.
  void check_not_col(const Node& n, int v) const {
    if (p_.values[v].kind == ValueKind::col)
      fail(n, "operand '" + p_.values[v].name + "' is broadcast, but " + op_name(n.op) +
                  " has no other operand");
  }

  void lower_pow(const Node& n) {
    const double e = n.exponent;
    if (e == 2.0) return act(n, ActFunc::square);
    if (e == 0.5) return act(n, ActFunc::sqrt);
    if (e == -0.5) return act(n, ActFunc::rsqrt);
    if (e == -1.0) return act(n, ActFunc::reciprocal);
    if (e == 1.0) return act(n, ActFunc::copy);
    const int a = operand(n.args[0].tensor);
    check_not_col(n, a);
    Step& s = push(StepKind::tensor_scalar, result(n), a);
    s.op0 = AluOp::pow;
    s.arg0 = Arg::number(static_cast<float>(e));
  }

  void reduce(const Node& n, AluOp op, int dst, bool negate = false) {
    const int a = operand(n.args[0].tensor);
    check_not_col(n, a);
    Step& s = push(StepKind::reduce, dst, a);
    s.reduce_op = op;
    s.negate = negate;
  }

  // mean = sum * (1/D): a Vector reduction and a scale, which fusion may fold into a
  // Scalar activation's accumulator and scale.
  void lower_mean(const Node& n) {
    const std::uint32_t d = cols_of(g_.type_of(n.args[0].tensor));
    const int total = temp(n, "sum", ValueKind::stat, 1);
    reduce(n, AluOp::add, total);
    Step& s = push(StepKind::tensor_scalar, result(n), total);
    s.op0 = AluOp::multiply;
    s.arg0 = Arg::number(1.0f / static_cast<float>(d));
  }

  // softmax = exp(x - max) / sum(exp(x - max)): the max negated on Vector, exp with that
  // bias and its free add-reduce on Scalar, 1/sum and the scaling on Vector.
  void lower_softmax(const Node& n) {
    const int a = operand(n.args[0].tensor);
    check_not_col(n, a);
    const std::uint32_t d = p_.values[a].cols;
    const int neg_max = temp(n, "negmax", ValueKind::stat, 1);
    const int total = temp(n, "sum", ValueKind::stat, 1);
    const int e = temp(n, "exp", ValueKind::row, d);
    const int inv = temp(n, "inv", ValueKind::stat, 1);
    Step& m = push(StepKind::reduce, neg_max, a);
    m.reduce_op = AluOp::max;
    m.negate = true;
    Step& x = push(StepKind::activation, e, a);
    x.func = ActFunc::exp;
    x.has_bias = true;
    x.bias = Arg::of(neg_max);
    x.reduce_dst = total;
    Step& r = push(StepKind::tensor_scalar, inv, total);
    r.op0 = AluOp::divide;
    r.arg0 = Arg::number(1.0f);
    r.reverse0 = true;
    Step& y = push(StepKind::tensor_scalar, result(n), e);
    y.op0 = AluOp::multiply;
    y.arg0 = Arg::of(inv);
  }

  static bool commutes(AluOp op) { return op == AluOp::add || op == AluOp::multiply; }

  void binary(const Node& n, AluOp op) {
    const Operand& l = n.args[0];
    const Operand& r = n.args[1];
    if (op == AluOp::multiply && l.is_tensor() && r.is_tensor() && l.tensor == r.tensor)
      return act(n, ActFunc::square);        // x * x is a square, one Scalar pass
    if (!l.is_tensor() || !r.is_tensor()) {  // tensor and Python number
      const bool number_first = !l.is_tensor();
      const int a = operand(number_first ? r.tensor : l.tensor);
      check_not_col(n, a);
      Step& s = push(StepKind::tensor_scalar, result(n), a);
      s.op0 = op;
      s.arg0 = Arg::number(static_cast<float>(number_first ? l.number : r.number));
      s.reverse0 = number_first && !commutes(op);
      return;
    }
    const int a = operand(l.tensor), b = operand(r.tensor);
    const ValueKind ka = p_.values[a].kind, kb = p_.values[b].kind;
    if (ka == ValueKind::col && kb == ValueKind::col)  // unreachable: a one-row program
      fail(n, "both operands are broadcast over " + std::to_string(p_.rows) + " rows");
    const bool sa = per_partition(a), sb = per_partition(b);
    if (sa && !sb) {  // [N,1] or [1] with [N,D] or [D]
      Step& s = push(StepKind::tensor_scalar, result(n), b);
      s.op0 = op;
      s.arg0 = Arg::of(a);
      s.reverse0 = !commutes(op);
      return;
    }
    if (sb && !sa) {
      Step& s = push(StepKind::tensor_scalar, result(n), a);
      s.op0 = op;
      s.arg0 = Arg::of(b);
      return;
    }
    Step& s = push(StepKind::tensor_tensor, result(n), a);  // same kinds, or row with col
    s.b = b;
    s.op0 = op;
  }

  const Graph& g_;
  RowProgram& p_;
  const std::vector<std::string>& outputs_;
  const ColumnViews& views_;
  const Node* node_ = nullptr;
};

}  // namespace

std::vector<int> Step::reads() const {
  std::vector<int> r;
  auto add = [&](int v) {
    if (v >= 0) r.push_back(v);
  };
  add(a);
  add(b);
  if (kind == StepKind::activation) {
    add(scale.value);
    if (has_bias) add(bias.value);
  } else {
    add(arg0.value);
    if (has_op1) add(arg1.value);
  }
  return r;
}

std::vector<int> Step::writes() const {
  std::vector<int> w{dst};
  if (reduce_dst >= 0) w.push_back(reduce_dst);
  return w;
}

int RowProgram::find(const std::string& name) const {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i].name == name) return static_cast<int>(i);
  return -1;
}

RowProgram select_row_program(const Graph& g, const std::string& name,
                              const std::vector<const Node*>& nodes,
                              const std::vector<std::string>& outputs, const ColumnViews& views) {
  RowProgram p;
  p.name = name;
  Selector sel(g, p, outputs, views);
  for (const Node* n : nodes) {
    sel.lower(*n);
    p.nodes.push_back(n->id);
  }
  fuse_steps(p);
  return p;
}

}  // namespace neuronsim::compiler

// Parsing and shape inference of the graph format (docs/graph.md).
#include "compiler/graph.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/json_text.hpp"
#include "base/limits.hpp"

namespace neuronsim::compiler {

namespace {

using nlohmann::json;

struct OpInfo {
  OpKind op;
  const char* name;
};
constexpr OpInfo kOps[] = {
    {OpKind::square, "square"},
    {OpKind::pow, "pow"},
    {OpKind::mean, "mean"},
    {OpKind::sum, "sum"},
    {OpKind::max, "max"},
    {OpKind::add, "add"},
    {OpKind::sub, "sub"},
    {OpKind::mul, "mul"},
    {OpKind::div, "div"},
    {OpKind::rsqrt, "rsqrt"},
    {OpKind::sqrt, "sqrt"},
    {OpKind::exp, "exp"},
    {OpKind::reciprocal, "reciprocal"},
    {OpKind::matmul, "matmul"},
    {OpKind::softmax, "softmax"},
    {OpKind::silu, "silu"},
    {OpKind::gelu, "gelu"},
    {OpKind::transpose, "transpose"},
    {OpKind::slice, "slice"},
    {OpKind::concat, "concat"},
    {OpKind::to, "to"},
    {OpKind::log, "log"},
    {OpKind::relu, "relu"},
    {OpKind::sigmoid, "sigmoid"},
    {OpKind::tanh, "tanh"},
    {OpKind::sin, "sin"},
    {OpKind::abs, "abs"},
};

bool is_binary(OpKind op) {
  return op == OpKind::add || op == OpKind::sub || op == OpKind::mul || op == OpKind::div;
}
bool is_reduction(OpKind op) {
  return op == OpKind::mean || op == OpKind::sum || op == OpKind::max;
}
bool is_fp8(isa::DType t) {
  return t == isa::DType::fp8_e4m3 || t == isa::DType::fp8_e5m2;
}

class Parser {
 public:
  explicit Parser(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& reason) const {
    throw Error(source_ + ": " + where + ": " + reason);
  }

  Graph parse(const std::string& text) {
    const json doc = parse_json_text(text, source_);
    // A member of the wrong JSON type that a check below does not name is still bad input.
    try {
      return parse_document(doc);
    } catch (const json::exception& e) {
      throw Error(source_ + ": a value has the wrong JSON type: " + json_error_reason(e));
    }
  }

 private:
  Graph parse_document(const json& doc) {
    if (!doc.is_object()) fail("top level", "expected a JSON object");
    for (const auto& [key, value] : doc.items()) {
      (void)value;
      static const std::set<std::string> known = {"format", "version", "name",
                                                  "inputs", "nodes",   "outputs"};
      if (!known.count(key)) fail("top level", "unknown key '" + key + "'");
    }
    if (!doc.contains("format") || doc["format"] != "neuronsim-graph")
      fail("top level", "\"format\" must be \"neuronsim-graph\"");
    if (!doc.contains("version") || doc["version"] != 1) fail("top level", "\"version\" must be 1");
    g_.source = source_;
    g_.name = string_field(doc, "name", "top level");
    if (g_.name.empty()) fail("top level", "\"name\" must not be empty");
    parse_inputs(doc);
    parse_nodes(doc);
    parse_outputs(doc);
    return std::move(g_);
  }

  std::string string_field(const json& obj, const char* key, const std::string& where) const {
    if (!obj.contains(key) || !obj[key].is_string())
      fail(where, std::string("\"") + key + "\" must be a string");
    return obj[key].get<std::string>();
  }

  const json& array_field(const json& obj, const char* key, const std::string& where) const {
    if (!obj.contains(key) || !obj[key].is_array())
      fail(where, std::string("\"") + key + "\" must be an array");
    return obj[key];
  }

  void declare(const std::string& name, const std::string& where) {
    if (name.empty()) fail(where, "a tensor name must not be empty");
    for (char c : name)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
        fail(where, "tensor name '" + name + "' may hold only letters, digits and '_'");
    if (!names_.insert(name).second) fail(where, "tensor name '" + name + "' is defined twice");
  }

  void parse_inputs(const json& doc) {
    for (const auto& in : array_field(doc, "inputs", "top level")) {
      if (!in.is_object()) fail("inputs", "each input must be an object");
      const std::string name = string_field(in, "name", "an input");
      const std::string where = "input '" + name + "'";
      declare(name, where);
      GraphInput gi;
      gi.name = name;
      const std::string dtype = string_field(in, "dtype", where);
      const auto t = isa::parse_dtype(dtype);
      if (!t || !(*t == isa::DType::bf16 || *t == isa::DType::fp16 || *t == isa::DType::fp32 ||
                  is_fp8(*t)))
        fail(where,
             "dtype '" + dtype + "' is not supported (bf16, fp16, fp32, fp8_e4m3, fp8_e5m2)");
      gi.type.dtype = *t;
      for (const auto& d : array_field(in, "shape", where)) {
        if (!d.is_number_unsigned() || d.get<std::uint64_t>() == 0)
          fail(where, "shape entries must be positive integers");
        gi.type.shape.push_back(d.get<std::uint64_t>());
      }
      if (gi.type.shape.empty()) fail(where, "shape must have at least one dimension");
      checked_tensor_bytes(gi.type.shape, isa::dtype_size(gi.type.dtype), source_ + ": " + where);
      for (const auto& [key, value] : in.items()) {
        (void)value;
        if (key != "name" && key != "dtype" && key != "shape")
          fail(where, "unknown key '" + key + "'");
      }
      types_[name] = gi.type;
      g_.inputs.push_back(std::move(gi));
    }
    if (g_.inputs.empty()) fail("inputs", "a graph needs at least one input");
  }

  void parse_nodes(const json& doc) {
    const json& nodes = array_field(doc, "nodes", "top level");
    check_limit(Limit::graph_nodes, nodes.size(), source_ + ": nodes");
    for (const auto& jn : nodes) {
      if (!jn.is_object()) fail("nodes", "each node must be an object");
      Node n;
      n.id = string_field(jn, "id", "a node");
      const std::string where = "node '" + n.id + "'";
      declare(n.id, where);
      const std::string op = string_field(jn, "op", where);
      const auto* info = std::find_if(std::begin(kOps), std::end(kOps),
                                      [&](const OpInfo& i) { return op == i.name; });
      if (info == std::end(kOps)) fail(where, "unknown op '" + op + "'");
      n.op = info->op;
      for (const auto& a : array_field(jn, "args", where)) {
        Operand o;
        if (a.is_string()) {
          o.tensor = a.get<std::string>();
          if (!types_.count(o.tensor))
            fail(where, "operand '" + o.tensor + "' is not an input or an earlier node");
        } else if (a.is_number()) {
          o.number = a.get<double>();
        } else {
          fail(where, "each arg must be a tensor name or a number");
        }
        n.args.push_back(o);
      }
      check_attributes(jn, n, where);
      if (n.op != OpKind::matmul)
        for (const Operand& o : n.args)
          if (o.is_tensor() && is_fp8(types_.at(o.tensor).dtype))
            fail(where, "fp8 tensor '" + o.tensor + "' can only be a matmul operand");
      n.type = infer(n, jn, where);
      types_[n.id] = n.type;
      g_.nodes.push_back(std::move(n));
    }
    if (g_.nodes.empty()) fail("nodes", "a graph needs at least one node");
  }

  void check_attributes(const json& jn, const Node& n, const std::string& where) const {
    std::set<std::string> allowed = {"id", "op", "args"};
    if (is_reduction(n.op)) allowed.insert({"dim", "axis", "keepdim"});
    if (n.op == OpKind::softmax) allowed.insert({"dim", "axis"});
    if (n.op == OpKind::pow) allowed.insert("exponent");
    if (n.op == OpKind::gelu) allowed.insert("approximate");
    if (n.op == OpKind::transpose) allowed.insert({"dim0", "dim1"});
    if (n.op == OpKind::slice) allowed.insert({"dim", "axis", "start", "end"});
    if (n.op == OpKind::concat) allowed.insert({"dim", "axis"});
    if (n.op == OpKind::to) allowed.insert("dtype");
    for (const auto& [key, value] : jn.items()) {
      (void)value;
      if (!allowed.count(key))
        fail(where, "attribute '" + key + "' does not apply to " + op_name(n.op));
    }
  }

  const TensorType& tensor_arg(const Node& n, std::size_t i, const std::string& where) const {
    if (i >= n.args.size() || !n.args[i].is_tensor())
      fail(where,
           "argument " + std::to_string(i + 1) + " of " + op_name(n.op) + " must be a tensor");
    return types_.at(n.args[i].tensor);
  }

  void expect_args(const Node& n, std::size_t count, const std::string& where) const {
    if (n.args.size() != count)
      fail(where, op_name(n.op) + " takes " + std::to_string(count) + " argument(s), not " +
                      std::to_string(n.args.size()));
  }

  // The reduction/softmax axis must be the last one, as the row tiler maps rows onto
  // partitions and reduces along the free axis.
  void check_last_axis(const json& jn, std::size_t rank, const std::string& where) const {
    const char* key = jn.contains("dim") ? "dim" : (jn.contains("axis") ? "axis" : nullptr);
    if (!key) return;  // default: the last axis
    if (!jn[key].is_number_integer())
      fail(where, std::string("\"") + key + "\" must be an integer");
    const std::int64_t d = jn[key].get<std::int64_t>();
    if (d != -1 && d != static_cast<std::int64_t>(rank) - 1)
      fail(where, "only the last axis (dim -1) is supported, not " + std::to_string(d));
  }

  TensorType infer(Node& n, const json& jn, const std::string& where) {
    if (is_binary(n.op)) return infer_binary(n, where);
    if (n.op == OpKind::matmul) {
      expect_args(n, 2, where);
      const TensorType& a = tensor_arg(n, 0, where);
      const TensorType& b = tensor_arg(n, 1, where);
      if (a.shape.size() != 2 || b.shape.size() != 2)
        fail(where, "matmul takes two 2-D tensors, not " + shape_text(a.shape) + " @ " +
                        shape_text(b.shape));
      if (a.shape[1] != b.shape[0])
        fail(where, "matmul shapes " + shape_text(a.shape) + " @ " + shape_text(b.shape) +
                        " do not agree on the contraction size");
      if (a.dtype != b.dtype)
        fail(where, "matmul operands must have one dtype, not " +
                        std::string(isa::dtype_name(a.dtype)) + " and " +
                        std::string(isa::dtype_name(b.dtype)));
      // fp8 products accumulate in fp32 and come out in bf16, as torch._scaled_mm's
      // usual out_dtype; fp8 itself would round the result to 3 bits.
      return TensorType{is_fp8(a.dtype) ? isa::DType::bf16 : a.dtype, {a.shape[0], b.shape[1]}};
    }
    if (n.op == OpKind::transpose) return infer_transpose(n, jn, where);
    if (n.op == OpKind::slice) return infer_slice(n, jn, where);
    if (n.op == OpKind::concat) return infer_concat(n, jn, where);
    if (n.op == OpKind::to) return infer_to(n, jn, where);
    if (n.op == OpKind::pow) {
      if (jn.contains("exponent")) {
        if (!jn["exponent"].is_number()) fail(where, "\"exponent\" must be a number");
        expect_args(n, 1, where);
        n.exponent = jn["exponent"].get<double>();
      } else {
        expect_args(n, 2, where);
        if (n.args[1].is_tensor()) fail(where, "pow's exponent must be a number");
        n.exponent = n.args[1].number;
        n.args.pop_back();
      }
    } else {
      expect_args(n, 1, where);
    }
    const TensorType& a = tensor_arg(n, 0, where);
    if (n.op == OpKind::gelu && jn.contains("approximate")) {
      const auto& ap = jn["approximate"];
      if (!ap.is_string() || (ap != "none" && ap != "tanh"))
        fail(where, "\"approximate\" must be \"none\" or \"tanh\"");
      n.gelu_tanh = ap == "tanh";
    }
    if (n.op == OpKind::softmax) check_last_axis(jn, a.shape.size(), where);
    if (!is_reduction(n.op)) return a;
    if (a.shape.size() < 2)
      fail(where, op_name(n.op) +
                      " needs a tensor of 2 or more dimensions (rows reduce along the last "
                      "axis), not " +
                      shape_text(a.shape));
    check_last_axis(jn, a.shape.size(), where);
    if (!jn.contains("keepdim") || !jn["keepdim"].is_boolean() || !jn["keepdim"].get<bool>())
      fail(where, op_name(n.op) +
                      " needs \"keepdim\": true (a [N, 1] result, as torch's "
                      "keepdim=True)");
    TensorType r = a;  // keepdim: the last axis becomes 1, leading ones stay
    r.shape.back() = 1;
    return r;
  }

  // x.t() or x.transpose(0, 1) of a 2-D tensor (the only two axes there are).
  TensorType infer_transpose(const Node& n, const json& jn, const std::string& where) const {
    expect_args(n, 1, where);
    TensorType a = tensor_arg(n, 0, where);
    if (a.shape.size() != 2)
      fail(where, "transpose takes a 2-D tensor, not " + shape_text(a.shape));
    std::set<std::int64_t> dims;
    for (const char* key : {"dim0", "dim1"})
      if (jn.contains(key)) {
        if (!jn[key].is_number_integer())
          fail(where, std::string("\"") + key + "\" must be an integer");
        const std::int64_t d = jn[key].get<std::int64_t>();
        if (d < -2 || d > 1) fail(where, "a 2-D tensor has no axis " + std::to_string(d));
        dims.insert(d < 0 ? d + 2 : d);
      }
    if (jn.contains("dim0") != jn.contains("dim1") || (!dims.empty() && dims.size() != 2))
      fail(where, "\"dim0\" and \"dim1\" must name the two axes (0 and 1)");
    std::swap(a.shape[0], a.shape[1]);
    return a;
  }

  // x[..., start:end]: columns of the last axis (torch.narrow(x, -1, start, end - start)).
  TensorType infer_slice(Node& n, const json& jn, const std::string& where) const {
    expect_args(n, 1, where);
    TensorType a = tensor_arg(n, 0, where);
    check_last_axis(jn, a.shape.size(), where);
    for (const char* key : {"start", "end"})
      if (!jn.contains(key) || !jn[key].is_number_unsigned())
        fail(where, std::string("slice needs \"") + key + "\", a non-negative integer");
    n.start = jn["start"].get<std::uint64_t>();
    n.end = jn["end"].get<std::uint64_t>();
    if (n.start >= n.end || n.end > a.shape.back())
      fail(where, "slice " + std::to_string(n.start) + ":" + std::to_string(n.end) +
                      " is empty or outside the last axis of " + shape_text(a.shape));
    a.shape.back() = n.end - n.start;
    return a;
  }

  // x.to(dtype): the same shape in another float dtype (bf16, fp16, fp32; fp8 only as a
  // matmul operand, so not a conversion's result).
  TensorType infer_to(const Node& n, const json& jn, const std::string& where) const {
    expect_args(n, 1, where);
    TensorType a = tensor_arg(n, 0, where);
    if (!jn.contains("dtype") || !jn["dtype"].is_string())
      fail(where, "to needs \"dtype\": bf16, fp16 or fp32");
    const std::string name = jn["dtype"].get<std::string>();
    const auto t = isa::parse_dtype(name);
    if (!t || !(*t == isa::DType::bf16 || *t == isa::DType::fp16 || *t == isa::DType::fp32))
      fail(where, "to: dtype '" + name + "' is not supported (bf16, fp16, fp32)");
    a.dtype = *t;
    return a;
  }

  // torch.cat(tensors, dim=-1): one dtype, the same leading dimensions.
  TensorType infer_concat(const Node& n, const json& jn, const std::string& where) const {
    if (n.args.size() < 2) fail(where, "concat takes two or more tensors");
    TensorType r = tensor_arg(n, 0, where);
    check_last_axis(jn, r.shape.size(), where);
    for (std::size_t i = 1; i < n.args.size(); ++i) {
      const TensorType& t = tensor_arg(n, i, where);
      if (t.dtype != r.dtype || t.shape.size() != r.shape.size() ||
          !std::equal(t.shape.begin(), t.shape.end() - 1, r.shape.begin()))
        fail(where, "concat operands must have one dtype and the same leading dimensions, not " +
                        shape_text(r.shape) + " and " + shape_text(t.shape));
      r.shape.back() += t.shape.back();
    }
    return r;
  }

  // PyTorch's rules: numpy broadcasting; a Python number takes the tensor's dtype; two
  // different float dtypes promote (fp32 wins; bf16 with fp16 gives fp32).
  TensorType infer_binary(const Node& n, const std::string& where) const {
    expect_args(n, 2, where);
    if (!n.args[0].is_tensor() && !n.args[1].is_tensor())
      fail(where, op_name(n.op) + " needs at least one tensor operand");
    if (!n.args[0].is_tensor()) return types_.at(n.args[1].tensor);
    if (!n.args[1].is_tensor()) return types_.at(n.args[0].tensor);
    const TensorType& a = types_.at(n.args[0].tensor);
    const TensorType& b = types_.at(n.args[1].tensor);
    TensorType r;
    r.dtype = a.dtype == b.dtype ? a.dtype : isa::DType::fp32;
    const std::size_t rank = std::max(a.shape.size(), b.shape.size());
    r.shape.assign(rank, 1);
    for (std::size_t i = 0; i < rank; ++i) {
      const std::size_t ia = i + a.shape.size(), ib = i + b.shape.size();
      const std::uint64_t da = ia >= rank ? a.shape[ia - rank] : 1;
      const std::uint64_t db = ib >= rank ? b.shape[ib - rank] : 1;
      if (da != db && da != 1 && db != 1)
        fail(where,
             "shapes " + shape_text(a.shape) + " and " + shape_text(b.shape) + " do not broadcast");
      r.shape[i] = std::max(da, db);
    }
    return r;
  }

  void parse_outputs(const json& doc) {
    for (const auto& o : array_field(doc, "outputs", "top level")) {
      if (!o.is_string()) fail("outputs", "each output must be a tensor name");
      const std::string name = o.get<std::string>();
      if (!g_.node(name)) fail("outputs", "'" + name + "' is not a node");
      if (std::find(g_.outputs.begin(), g_.outputs.end(), name) != g_.outputs.end())
        fail("outputs", "'" + name + "' is listed twice");
      g_.outputs.push_back(name);
    }
    if (g_.outputs.empty()) fail("outputs", "a graph needs at least one output");
  }

  std::string source_;
  Graph g_;
  std::set<std::string> names_;
  std::map<std::string, TensorType> types_;
};

}  // namespace

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::uint64_t flat_rows(const std::vector<std::uint64_t>& shape) {
  std::uint64_t rows = 1;
  for (std::size_t i = 0; i + 1 < shape.size(); ++i)
    rows *= shape[i];
  return rows;
}

std::string op_name(OpKind op) {
  for (const auto& i : kOps)
    if (i.op == op) return i.name;
  return "?";
}

const TensorType& Graph::type_of(const std::string& tensor) const {
  for (const auto& in : inputs)
    if (in.name == tensor) return in.type;
  for (const auto& n : nodes)
    if (n.id == tensor) return n.type;
  throw Error(source + ": no tensor named '" + tensor + "'");
}

const Node* Graph::node(const std::string& id) const {
  for (const auto& n : nodes)
    if (n.id == id) return &n;
  return nullptr;
}

bool Graph::is_input(const std::string& tensor) const {
  return std::any_of(inputs.begin(), inputs.end(),
                     [&](const GraphInput& i) { return i.name == tensor; });
}

bool Graph::is_output(const std::string& tensor) const {
  return std::find(outputs.begin(), outputs.end(), tensor) != outputs.end();
}

Graph parse_graph(const std::string& json_text, const std::string& source) {
  return Parser(source).parse(json_text);
}

Graph load_graph(const std::string& path) {
  return parse_graph(read_text_file(path, Limit::json_file_bytes), path);
}

}  // namespace neuronsim::compiler

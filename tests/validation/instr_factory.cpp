#include "instr_factory.hpp"

#include <stdexcept>

namespace validation {

namespace isa = neuronsim::isa;
using isa::AccessPattern;
using isa::Buffer;
using isa::DType;
using isa::Engine;
using isa::Ix;

namespace {

struct Args {
  const nlohmann::json& j;
  const std::string& where;

  [[noreturn]] void bad(const char* key, const std::string& what) const {
    throw std::runtime_error(where + ": args." + key + " " + what);
  }
  std::string str(const char* key, const std::string& fallback) const {
    if (!j.contains(key)) return fallback;
    if (!j.at(key).is_string()) bad(key, "must be a string");
    return j.at(key).get<std::string>();
  }
  std::uint32_t u32(const char* key, std::uint32_t fallback) const {
    if (!j.contains(key)) return fallback;
    if (!j.at(key).is_number_unsigned()) bad(key, "must be a non-negative integer");
    return j.at(key).get<std::uint32_t>();
  }
  bool flag(const char* key) const { return j.value(key, false); }
  DType dtype() const {
    const auto t = isa::parse_dtype(str("dtype", "fp32"));
    if (!t) bad("dtype", "is not a dtype");
    return *t;
  }
  isa::AluOp alu(const char* key, const std::string& fallback) const {
    const auto op = isa::parse_alu_op(str(key, fallback));
    if (!op) bad(key, "is not an ALU op");
    return *op;
  }
};

Engine default_engine(const std::string& instr) {
  if (instr == "activation") return Engine::scalar;
  if (instr == "iota" || instr == "affine_select") return Engine::gpsimd;
  return Engine::vector;
}

}  // namespace

std::uint32_t instr_elems(const nlohmann::json& args) {
  return args.value("n", 1024u);
}

std::uint32_t instr_partitions(const nlohmann::json& args) {
  return args.value("partitions", 128u);
}

Engine append_instr(isa::Builder& b, const nlohmann::json& j, const std::string& tag,
                    const std::string& where) {
  const Args a{j, where};
  const std::string instr = a.str("instr", "");
  Engine engine = default_engine(instr);
  if (j.contains("engine")) {
    const auto e = isa::parse_engine(a.str("engine", ""));
    if (!e) a.bad("engine", "is not an engine");
    engine = *e;
  }
  const DType dt = a.dtype();
  const std::uint32_t n = a.u32("n", 1024), p = a.u32("partitions", 128);
  const std::uint32_t stride = a.u32("stride", 1);
  const std::string psum = a.str("psum", "");

  // A streamed [p, n] operand, strided if asked, in SBUF or PSUM.
  auto tile = [&](const std::string& name, bool in_psum) -> AccessPattern {
    const std::uint32_t span = n * stride;
    Buffer buf = in_psum ? b.psum(name + tag, dt, {p, span}) : b.sbuf(name + tag, dt, {p, span});
    if (stride == 1) return buf.all();
    return buf.slice(Ix(), Ix(0, span, stride));
  };
  auto column = [&](const std::string& name) -> AccessPattern {
    return b.sbuf(name + tag, DType::fp32, {p, 1}).all();
  };
  isa::Stream s = b.stream(engine);

  if (instr == "activation") {
    const auto func = isa::parse_act_func(a.str("func", "copy"));
    if (!func) a.bad("func", "is not an activation function");
    auto ref = s.activation(tile("dst", psum == "dst"), tile("src", psum == "src"), *func);
    if (a.flag("scale_bias")) ref.scale(2.0).bias(column("bias"));
    if (a.flag("reduce")) ref.reduce(column("acc"));
  } else if (instr == "tensor_scalar") {
    const AccessPattern dst = tile("dst", psum == "dst"), src = tile("src", psum == "src");
    if (a.flag("reciprocal")) {
      // NKI's reciprocal: 1 / x, a divide with the operands reversed (docs/cost-model.md).
      s.tensor_scalar(dst, src, isa::AluOp::divide, 1.0).reverse0();
    } else {
      auto ref = s.tensor_scalar(dst, src, a.alu("op", "multiply"), 2.0);
      if (j.contains("op1")) ref.then(a.alu("op1", "add"), 1.0);
      if (a.flag("reduce")) ref.reduce(column("acc"));
    }
  } else if (instr == "reciprocal") {
    s.reciprocal(tile("dst", psum == "dst"), tile("src", psum == "src"));
  } else if (instr == "dropout") {
    s.dropout(tile("dst", false), tile("src", false), 0.5);
  } else if (instr == "max8") {
    s.max8(b.sbuf("dst" + tag, dt, {p, 8}).all(), tile("src", false));
  } else if (instr == "tensor_copy") {
    s.tensor_copy(tile("dst", psum == "dst"), tile("src", psum == "src"));
  } else if (instr == "tensor_tensor") {
    s.tensor_tensor(tile("dst", psum == "dst"), tile("a", psum == "src"), tile("b", false),
                    a.alu("op", "add"));
  } else if (instr == "scalar_tensor_tensor") {
    s.scalar_tensor_tensor(tile("dst", false), tile("a", false), 2.0, a.alu("op", "subtract"),
                           tile("b", false), a.alu("op1", "multiply"));
  } else if (instr == "tensor_reduce") {
    s.tensor_reduce(b.sbuf("dst" + tag, dt, {p, 1}).all(), tile("src", false), a.alu("op", "add"));
  } else if (instr == "bn_stats") {
    s.bn_stats(b.sbuf("dst" + tag, DType::fp32, {p, 6}).all(), tile("src", false));
  } else if (instr == "bn_aggr") {
    s.bn_aggr(b.sbuf("dst" + tag, DType::fp32, {p, 2}).all(), tile("src", false));
  } else if (instr == "memset") {
    s.memset(tile("dst", psum == "dst"), j.value("value", 0.0));
  } else if (instr == "iota") {
    s.iota(tile("dst", false), 0, 1, {1, 0, 0, 0});
  } else if (instr == "affine_select") {
    s.affine_select(tile("dst", false), tile("src", false), isa::AluOp::is_ge, 0, 1, {-1, 0, 0, 0});
  } else if (instr == "quantize_mx") {
    // src [p, n] (bf16/fp16) -> dst [p, n/4] fp8_e4m3fn_x4 with its [p, n/4] uint8 scales.
    if (n % 4 != 0) a.bad("n", "must be a multiple of 4 for quantize_mx");
    s.quantize_mx(b.sbuf("dst" + tag, DType::fp8_e4m3fn_x4, {p, n / 4}).all(), tile("src", false),
                  b.sbuf("scale" + tag, DType::uint8, {p, n / 4}).all());
  } else if (instr == "transpose") {
    // [p, n] -> [n, p]
    s.transpose(b.sbuf("dst" + tag, dt, {n, p}).all(), b.sbuf("src" + tag, dt, {p, n}).all());
  } else {
    a.bad("instr", "'" + instr + "' is not an instruction this factory builds");
  }
  return engine;
}

}  // namespace validation

// Kernel -> assembly text (docs/assembly.md). Everything the assembler would default is
// left out, so printed kernels read like hand-written ones; assemble(print(k)) == k.
#include "asm/printer.hpp"

#include <cstring>
#include <set>

#include "asm/lexer.hpp"
#include "asm/syntax.hpp"
#include "base/error.hpp"
#include "isa/literal.hpp"
#include "isa/placement.hpp"
#include "isa/view.hpp"

namespace neuronsim::isa {

namespace {

using namespace asm_detail;

std::string word(const std::string& s) {
  return is_identifier(s) ? s : quote_string(s);
}

std::string shape_text(DType t, const std::vector<std::uint64_t>& dims) {
  std::string s = std::string(dtype_name(t)) + "[";
  for (std::size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

// Names are printed bare, so each must be an identifier, not reserved, and unique.
void check_names(const Kernel& k) {
  std::set<std::string> seen;
  auto check = [&](const std::string& name, const char* what) {
    static const std::set<std::string> reserved = {"inf", "nan", "true", "false"};
    if (!is_identifier(name) || reserved.count(name))
      throw Error("print: " + std::string(what) + " name '" + name +
                  "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*, not inf/nan/true/false)");
    if (!seen.insert(name).second) throw Error("print: duplicate name '" + name + "'");
  };
  for (const auto& t : k.tensors)
    check(t.name, "tensor");
  for (const auto& a : k.allocations)
    check(a.name, "allocation");
  for (const auto& s : k.semaphores)
    check(s.name, "semaphore");
  for (const auto& q : k.queues)
    check(q.name, "queue");
  for (const auto& f : k.sources)
    check(f.name, "source");
  const std::string problem = source_table_problem(k);
  if (!problem.empty()) throw Error("print: " + problem);
}

template <typename T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename T>
const T& at(void* p) {
  return *static_cast<const T*>(p);
}

bool equal_field(FieldKind kind, void* a, void* b) {
  switch (kind) {
    case FieldKind::pattern:
      return at<AccessPattern>(a) == at<AccessPattern>(b);
    case FieldKind::opt_pattern:
      return at<std::optional<AccessPattern>>(a) == at<std::optional<AccessPattern>>(b);
    case FieldKind::scalar: {
      const auto& x = at<ScalarArg>(a);
      const auto& y = at<ScalarArg>(b);
      if (x.index() != y.index()) return false;
      if (auto* f = std::get_if<float>(&x)) return same_bits(*f, std::get<float>(y));
      return x == y;
    }
    case FieldKind::f32:
      return same_bits(at<float>(a), at<float>(b));
    case FieldKind::f64:
      return same_bits(at<double>(a), at<double>(b));
    case FieldKind::i32:
      return at<std::int32_t>(a) == at<std::int32_t>(b);
    case FieldKind::u8:
      return at<std::uint8_t>(a) == at<std::uint8_t>(b);
    case FieldKind::boolean:
      return at<bool>(a) == at<bool>(b);
    case FieldKind::alu:
      return at<AluOp>(a) == at<AluOp>(b);
    case FieldKind::opt_alu:
      return at<std::optional<AluOp>>(a) == at<std::optional<AluOp>>(b);
    case FieldKind::act:
      return at<ActFunc>(a) == at<ActFunc>(b);
    case FieldKind::acc:
      return at<AccumulateFlag>(a) == at<AccumulateFlag>(b);
    case FieldKind::queue:
      return at<std::uint16_t>(a) == at<std::uint16_t>(b);
    case FieldKind::steps:
      return at<std::array<std::int32_t, kMaxFreeDims>>(a) ==
             at<std::array<std::int32_t, kMaxFreeDims>>(b);
  }
  return false;
}

std::string field_text(const Kernel& k, FieldKind kind, void* p) {
  switch (kind) {
    case FieldKind::pattern:
      return format_pattern(k, at<AccessPattern>(p));
    case FieldKind::opt_pattern:
      return format_pattern(k, *at<std::optional<AccessPattern>>(p));
    case FieldKind::scalar: {
      const auto& s = at<ScalarArg>(p);
      if (auto* f = std::get_if<float>(&s)) return format_float(*f);
      return format_pattern(k, std::get<AccessPattern>(s));
    }
    case FieldKind::f32:
      return format_float(at<float>(p));
    case FieldKind::f64:
      return format_double(at<double>(p));
    case FieldKind::i32:
      return std::to_string(at<std::int32_t>(p));
    case FieldKind::u8:
      return std::to_string(at<std::uint8_t>(p));
    case FieldKind::boolean:
      return at<bool>(p) ? "true" : "false";
    case FieldKind::alu:
      return std::string(alu_op_name(at<AluOp>(p)));
    case FieldKind::opt_alu:
      return std::string(alu_op_name(*at<std::optional<AluOp>>(p)));
    case FieldKind::act:
      return std::string(act_func_name(at<ActFunc>(p)));
    case FieldKind::acc:
      return std::string(accumulate_flag_name(at<AccumulateFlag>(p)));
    case FieldKind::queue: {
      const auto q = at<std::uint16_t>(p);
      if (q >= k.queues.size())
        throw Error("print: dma_copy names queue " + std::to_string(q) + " of " +
                    std::to_string(k.queues.size()));
      return k.queues[q].name;
    }
    case FieldKind::steps: {
      const auto& steps = at<std::array<std::int32_t, kMaxFreeDims>>(p);
      std::size_t n = steps.size();
      while (n > 1 && steps[n - 1] == 0)
        --n;
      std::string s = "[";
      for (std::size_t i = 0; i < n; ++i)
        s += (i ? ", " : "") + std::to_string(steps[i]);
      return s + "]";
    }
  }
  return "?";
}

std::string semaphore_name(const Kernel& k, std::uint16_t sem) {
  if (sem >= k.semaphores.size())
    throw Error("print: instruction names semaphore " + std::to_string(sem) + " of " +
                std::to_string(k.semaphores.size()));
  return k.semaphores[sem].name;
}

std::string instruction_text(const Kernel& k, const Instruction& ins, SourceLocation location) {
  const Opcode opcode = ins.opcode();
  Operation op = ins.op;  // the table's accessors take a mutable operation
  Operation defaults = default_operation(opcode);
  const auto& spec = fields(opcode);
  auto given = [&](std::string_view key) {
    for (const auto& f : spec)
      if (f.key == key) return !equal_field(f.kind, f.get(op), f.get(defaults));
    return false;
  };
  std::string s = std::string(opcode_name(opcode));
  bool first = true;
  for (const auto& f : spec) {
    if (!f.positional) {
      if (!f.depends_on.empty() && !given(f.depends_on)) continue;
      if (!f.required && equal_field(f.kind, f.get(op), f.get(defaults))) continue;
    }
    s += first ? " " : ", ";
    first = false;
    if (!f.positional) s += std::string(f.key) + "=";
    s += field_text(k, f.kind, f.get(op));
  }
  for (std::size_t i = 0; i < ins.waits.size(); ++i) {
    s += i ? ", " : "  wait ";
    s += semaphore_name(k, ins.waits[i].sem) + ">=" + std::to_string(ins.waits[i].value);
  }
  for (std::size_t i = 0; i < ins.signals.size(); ++i) {
    const SemSignal& sig = ins.signals[i];
    s += i ? ", " : "  signal ";
    s += semaphore_name(k, sig.sem);
    if (sig.kind == SemUpdate::set) {
      s += "=" + std::to_string(sig.value);
    } else if (sig.value != 1) {
      s += "+=" + std::to_string(sig.value);
    }
  }
  if (location.known())
    s += "  @" + k.sources[location.file].name + ":" + std::to_string(location.line);
  return s;
}

}  // namespace

std::string print(const Kernel& k) {
  check_names(k);
  std::string out = "kernel " + word(k.name);
  if (!k.target.empty()) out += " target=" + word(k.target);
  out += "\n";

  if (!k.sources.empty()) out += "\n";
  for (const auto& f : k.sources) {
    out += "source " + f.name + " " + quote_string(f.path);
    if (!f.text.empty()) out += " text=" + quote_string(f.text);
    out += "\n";
  }

  if (!k.tensors.empty()) out += "\n";
  for (const auto& t : k.tensors) {
    out += "tensor " + t.name + " " + shape_text(t.dtype, t.shape) + " " +
           std::string(tensor_role_name(t.role));
    if (t.role == TensorRole::constant) {
      if (t.data.size() != t.bytes())
        throw Error("print: constant '" + t.name + "' holds " + std::to_string(t.data.size()) +
                    " bytes, its shape needs " + std::to_string(t.bytes()));
      out += " = " + format_constant(t.dtype, t.data);
    } else if (!t.data.empty()) {
      throw Error("print: tensor '" + t.name + "' is not a constant but carries data");
    }
    out += "\n";
  }

  // Offsets are left to placement when placing every allocation reproduces them all.
  std::vector<Allocation> replaced = k.allocations;
  place_allocations(replaced, std::vector<bool>(replaced.size(), false));
  const bool automatic = replaced == k.allocations;
  if (!k.allocations.empty()) out += "\n";
  for (const auto& a : k.allocations) {
    std::vector<std::uint64_t> dims = {a.partitions};
    for (auto d : a.free_shape)
      dims.push_back(d);
    out += std::string(mem_space_name(a.space)) + " " + a.name + " " + shape_text(a.dtype, dims);
    if (a.space == MemSpace::hbm) throw Error("print: allocation '" + a.name + "' is in HBM");
    if (a.start_partition != 0) out += " partition=" + std::to_string(a.start_partition);
    if (!automatic) out += " offset=" + std::to_string(a.byte_offset);
    out += "\n";
  }

  if (!k.semaphores.empty()) out += "\n";
  for (const auto& s : k.semaphores)
    out += "sem " + s.name + " = " + std::to_string(s.initial) + "\n";

  if (!k.queues.empty()) out += "\n";
  for (const auto& q : k.queues)
    out += "queue " + q.name + " first_engine=" + std::to_string(q.first_engine) +
           " engines=" + std::to_string(q.engines) + "\n";

  for (int e = 0; e < kEngineCount; ++e) {
    const auto& stream = k.streams[e];
    if (stream.empty()) continue;
    out += "\n" + std::string(engine_name(static_cast<Engine>(e))) + ":\n";
    std::size_t i = 0;
    for (const auto& ins : stream)
      out += "    " + instruction_text(k, ins, stream.location(i++)) + "\n";
  }
  return out;
}

}  // namespace neuronsim::isa

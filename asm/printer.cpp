// Kernel -> assembly text (docs/assembly.md). Everything the assembler would default is
// left out, so printed kernels read like hand-written ones; assemble(print(k)) == k.
#include "asm/printer.hpp"

#include <cstring>
#include <set>

#include "asm/field_syntax.hpp"
#include "asm/lexer.hpp"
#include "base/error.hpp"
#include "isa/for_each_field.hpp"
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

std::string semaphore_name(const Kernel& k, std::uint16_t sem) {
  if (sem >= k.semaphores.size())
    throw Error("print: instruction names semaphore " + std::to_string(sem) + " of " +
                std::to_string(k.semaphores.size()));
  return k.semaphores[sem].name;
}

// Fields as their kinds write them (field_syntax.hpp); options at their defaults, and
// options that mean nothing without an absent one, left out.
std::string operation_text(const Kernel& k, const Operation& operation) {
  return std::visit(
      [&](const auto& op) {
        using Op = std::decay_t<decltype(op)>;
        const Op defaults{};
        auto is_default = [&](const auto& f, const auto& v) {
          return FieldKind<std::decay_t<decltype(v)>>::identical(v, defaults.*(f.member));
        };
        auto given = [&](std::string_view key) {
          bool result = false;
          for_each_field(op, [&](const auto& f, const auto& v) {
            if (f.key == key) result = !is_default(f, v);
          });
          return result;
        };
        std::string s;
        for_each_field(op, [&](const auto& f, const auto& v) {
          const bool positional = f.syntax == FieldSyntax::operand;
          if (!positional) {
            if (!f.depends_on.empty() && !given(f.depends_on)) return;
            if (f.syntax != FieldSyntax::required && is_default(f, v)) return;
          }
          s += s.empty() ? " " : ", ";
          if (!positional) s += std::string(f.key) + "=";
          s += AsmField<std::decay_t<decltype(v)>>::text(k, v);
        });
        return s;
      },
      operation);
}

std::string instruction_text(const Kernel& k, const Instruction& ins, SourceLocation location) {
  std::string s = std::string(opcode_name(ins.opcode())) + operation_text(k, ins.op);
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

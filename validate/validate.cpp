// Entry points of validation: walks the declarations and every instruction of every
// stream, collecting problems; validate() turns them into one neuronsim::Error.
#include "validate/validate.hpp"

#include <algorithm>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include "base/error.hpp"
#include "isa/for_each_field.hpp"
#include "validate/detail.hpp"

namespace neuronsim::isa {

namespace validate_detail {

void InstrReporter::problem(std::string reason) {
  if (!reported_) {
    where_ = std::string(engine_name(engine_)) + "[" + std::to_string(index_) + "]";
    if (instr_.source_line != 0) where_ += " (line " + std::to_string(instr_.source_line) + ")";
    where_ += " ";
    where_ += opcode_name(instr_.opcode());
    reported_ = true;
  }
  out_.push_back({where_, std::move(reason)});
}

namespace {

template <typename Op>
constexpr std::size_t pattern_fields() {
  return std::apply(
      [](const auto&... f) {
        return (std::size_t{0} + ... +
                (holds_pattern_v<typename std::decay_t<decltype(f)>::Value> ? 1 : 0));
      },
      Op::fields());
}
template <std::size_t... I>
constexpr std::size_t max_pattern_fields(std::index_sequence<I...>) {
  return std::max({pattern_fields<std::variant_alternative_t<I, Operation>>()...});
}
static_assert(max_pattern_fields(std::make_index_sequence<kOpcodeCount>{}) <=
                  std::tuple_size_v<decltype(NamedOperands::items)>,
              "NamedOperands holds every pattern of the largest instruction");

}  // namespace

NamedOperands named_operands(const Instruction& instr) {
  NamedOperands ops;
  std::visit(
      [&](const auto& op) {
        // Field names are string literals, so data() is null-terminated.
        for_each_pattern(
            op, [&](const auto& f, const AccessPattern& ap) { ops.add(f.name.data(), ap); });
      },
      instr.op);
  return ops;
}

std::string fmt_shape(const AccessPattern& ap) {
  return "[" + std::to_string(ap.partitions) + "," + std::to_string(ap.free_elems()) + "]";
}

}  // namespace validate_detail

namespace {

using validate_detail::InstrReporter;

// An instruction names each semaphore it waits on or signals; the core has
// limits.semaphores of them (sync.semaphores), so a list longer than that cannot be what the
// hardware's per-instruction semaphore fields express (the count itself is unpublished,
// reference section 5; the bound follows from the semaphore count).
void check_semaphore_refs(const Kernel& k, const params::TargetLimits& limits,
                          const Instruction& instr, InstrReporter& report) {
  if (instr.waits.size() > limits.semaphores)
    report.problem(std::to_string(instr.waits.size()) + " semaphore waits, the target has " +
                   std::to_string(limits.semaphores) + " semaphores");
  if (instr.signals.size() > limits.semaphores)
    report.problem(std::to_string(instr.signals.size()) + " semaphore signals, the target has " +
                   std::to_string(limits.semaphores) + " semaphores");
  const std::size_t n = k.semaphores.size();
  for (const auto& w : instr.waits)
    if (w.sem >= n)
      report.problem("waits on semaphore " + std::to_string(w.sem) +
                     ": index out of range (the kernel has " + std::to_string(n) + " semaphores)");
  for (const auto& s : instr.signals)
    if (s.sem >= n)
      report.problem("signals semaphore " + std::to_string(s.sem) +
                     ": index out of range (the kernel has " + std::to_string(n) + " semaphores)");
}

void check_instruction(const Kernel& k, const params::TargetLimits& limits, Engine engine,
                       std::size_t index, const Instruction& instr, std::vector<Diagnostic>& out) {
  InstrReporter report(engine, index, instr, out);
  const Opcode op = instr.opcode();
  if ((allowed_engines(op) & (1u << static_cast<int>(engine))) == 0)
    report.problem(std::string("opcode ") + std::string(opcode_name(op)) + " cannot run on the " +
                   std::string(engine_name(engine)) + " engine");
  check_semaphore_refs(k, limits, instr, report);
  bool sound = true;
  for (const auto& operand : validate_detail::named_operands(instr))
    sound = validate_detail::check_pattern(k, limits, instr, operand, report) && sound;
  if (sound) validate_detail::check_opcode_rules(k, limits, engine, instr, report);
}

}  // namespace

std::vector<Diagnostic> check(const Kernel& k, const params::TargetLimits& limits) {
  std::vector<Diagnostic> out;
  validate_detail::check_tensors(k, out);
  validate_detail::check_allocations(k, limits, out);
  validate_detail::check_semaphores(k, limits, out);
  validate_detail::check_queues(k, limits, out);
  for (int e = 0; e < kEngineCount; ++e) {
    InstructionStream::Reader reader(k.streams[e]);
    Instruction instr;
    for (std::size_t i = 0; reader.next(instr); ++i)
      check_instruction(k, limits, static_cast<Engine>(e), i, instr, out);
  }
  return out;
}

void validate(const Kernel& k, const params::TargetLimits& limits, const std::string& source) {
  const auto problems = check(k, limits);
  if (problems.empty()) return;
  // A broken kernel can have thousands of problems; the first few say what is wrong.
  constexpr std::size_t kMaxListed = 20;
  std::string msg = source + ": " + std::to_string(problems.size()) +
                    (problems.size() == 1 ? " problem:" : " problems:");
  for (std::size_t i = 0; i < problems.size() && i < kMaxListed; ++i)
    msg += "\n  " + problems[i].where + ": " + problems[i].reason;
  if (problems.size() > kMaxListed)
    msg += "\n  ... and " + std::to_string(problems.size() - kMaxListed) + " more";
  throw Error(msg);
}

}  // namespace neuronsim::isa

#pragma once
// Internals of validation (validate.hpp), shared by the validate_*.cpp files: how a
// problem is reported, and the operands of an instruction with the role each plays.
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "isa/kernel.hpp"
#include "params/target_limits.hpp"
#include "validate/validate.hpp"

namespace neuronsim::isa::validate_detail {

// Checks the declarations: tensors, allocations (capacity and overlap), semaphores, queues.
void check_tensors(const Kernel& k, std::vector<Diagnostic>& out);
void check_allocations(const Kernel& k, const params::TargetLimits& limits,
                       std::vector<Diagnostic>& out);
void check_semaphores(const Kernel& k, const params::TargetLimits& limits,
                      std::vector<Diagnostic>& out);
void check_queues(const Kernel& k, const params::TargetLimits& limits,
                  std::vector<Diagnostic>& out);

// One operand of an instruction and the field it sits in ("dst", "moving", "bias", ...).
struct NamedPattern {
  const char* role = "";
  const AccessPattern* ap = nullptr;
};
// At most five patterns per instruction (activation, tensor_scalar); no heap allocation,
// since validation visits every instruction of large kernels.
struct NamedOperands {
  std::array<NamedPattern, 6> items{};
  std::size_t count = 0;
  void add(const char* role, const AccessPattern& ap) { items[count++] = {role, &ap}; }
  const NamedPattern* begin() const { return items.data(); }
  const NamedPattern* end() const { return items.data() + count; }
};
NamedOperands named_operands(const Instruction& instr);

// Reports problems of one instruction; its location string is built only on the first
// problem, so valid instructions cost no string formatting.
class InstrReporter {
 public:
  InstrReporter(Engine engine, std::size_t index, const Instruction& instr,
                std::vector<Diagnostic>& out)
      : engine_(engine), index_(index), instr_(instr), out_(out) {}
  void problem(std::string reason);
  bool any() const { return reported_; }

 private:
  Engine engine_;
  std::size_t index_;
  const Instruction& instr_;
  std::vector<Diagnostic>& out_;
  std::string where_;
  bool reported_ = false;
};

// Checks one access pattern on its own: structure, memory space, bounds, start partition,
// free size and PSUM banks. Returns false when its structure (ndims, dtype, space) is too
// broken for the instruction's shape rules to be checked meaningfully.
bool check_pattern(const Kernel& k, const params::TargetLimits& limits, const Instruction& instr,
                   const NamedPattern& operand, InstrReporter& report);

// The opcode's own rules (shapes, dtypes, memory spaces), for structurally sound operands.
void check_opcode_rules(const Kernel& k, const params::TargetLimits& limits, Engine engine,
                        const Instruction& instr, InstrReporter& report);

std::string fmt_shape(const AccessPattern& ap);  // "[P,F]" for messages

}  // namespace neuronsim::isa::validate_detail

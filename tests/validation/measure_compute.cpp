// Measurements of the Vector, Scalar and GpSimd engines: how long one instruction takes
// (the published cost formulas), datapath widths and clocks, and which engines can use
// SBUF and PSUM at the same time. Each kernel holds independent instructions (no data
// dependencies, so no dependent-instruction overhead) unless the measurement is about
// that overhead.
#include <algorithm>
#include <stdexcept>

#include "builder/builder.hpp"
#include "instr_factory.hpp"
#include "registry.hpp"

namespace validation {

namespace {

namespace isa = neuronsim::isa;
using isa::Engine;

isa::Builder builder(const Spec& s) {
  return isa::Builder("v_" + s.id, s.target);
}

// A spec's nested args object (e.g. "a" of a ratio), checked to exist.
const nlohmann::json& nested(const Spec& s, const char* key) {
  if (!s.args.contains(key) || !s.args.at(key).is_object())
    throw std::runtime_error("spec " + s.id + ": args." + key + " must be an object");
  return s.args.at(key);
}

// Cycles of the one instruction the args describe, alone on its engine.
const Registrar cycles("cycles", [](Bench& bench, const Spec& s) -> Reader {
  auto b = builder(s);
  const Engine e = append_instr(b, s.args, "", "spec " + s.id);
  const RunPtr run = bench.run(s.target, b.build());
  return [run, e] { return run->cycles(e, 0); };
});

// `elems` over the cycles of the one instruction the args describe.
Reader elems_over_cycles(Bench& bench, const Spec& s, double elems) {
  auto b = builder(s);
  const Engine e = append_instr(b, s.args, "", "spec " + s.id);
  const RunPtr run = bench.run(s.target, b.build());
  return [run, e, elems] { return elems / run->cycles(e, 0); };
}

// Elements the instruction processes per cycle of its engine, over all partitions: the
// datapath width the arch guides publish.
const Registrar elems_per_cycle("elems_per_cycle", [](Bench& bench, const Spec& s) -> Reader {
  return elems_over_cycles(bench, s, double(instr_elems(s.args)) * instr_partitions(s.args));
});

// The same per partition: the rate the arch guides publish per partition (QuantizeMX).
const Registrar elems_per_partition_cycle("elems_per_partition_cycle",
                                          [](Bench& bench, const Spec& s) -> Reader {
                                            return elems_over_cycles(bench, s, instr_elems(s.args));
                                          });

// Throughput lift of a v3/v4 performance mode: the v2 cost of the instruction (args
// v2_cycles, the published formula's value) over the cycles it takes here.
const Registrar lift("lift", [](Bench& bench, const Spec& s) -> Reader {
  auto b = builder(s);
  const Engine e = append_instr(b, s.args, "", "spec " + s.id);
  const RunPtr run = bench.run(s.target, b.build());
  const double v2_cycles = arg_double(s, "v2_cycles", 0);
  return [run, e, v2_cycles] { return v2_cycles / run->cycles(e, 0); };
});

// Floating-point operations per ns (GFLOPS) of the instruction, counting args.flops per
// element (a multiply-add is 2).
const Registrar gflops("gflops", [](Bench& bench, const Spec& s) -> Reader {
  auto b = builder(s);
  const Engine e = append_instr(b, s.args, "", "spec " + s.id);
  const RunPtr run = bench.run(s.target, b.build());
  const double flops =
      double(instr_elems(s.args)) * instr_partitions(s.args) * arg_double(s, "flops", 1);
  return [run, e, flops] { return flops / run->ns_of(e, 0); };
});

// cycles(a) / cycles(b): two instructions in one kernel (a first if on one engine).
const Registrar cycles_ratio("cycles_ratio", [](Bench& bench, const Spec& s) -> Reader {
  auto b = builder(s);
  const Engine ea = append_instr(b, nested(s, "a"), "_a", "spec " + s.id + " a");
  const Engine eb = append_instr(b, nested(s, "b"), "_b", "spec " + s.id + " b");
  const RunPtr run = bench.run(s.target, b.build());
  const std::uint32_t ib = ea == eb ? 1 : 0;
  return [run, ea, eb, ib] { return run->cycles(ea, 0) / run->cycles(eb, ib); };
});

// cycles(a) - cycles(b), laid out as for cycles_ratio.
const Registrar cycles_difference("cycles_difference", [](Bench& bench, const Spec& s) -> Reader {
  auto b = builder(s);
  const Engine ea = append_instr(b, nested(s, "a"), "_a", "spec " + s.id + " a");
  const Engine eb = append_instr(b, nested(s, "b"), "_b", "spec " + s.id + " b");
  const RunPtr run = bench.run(s.target, b.build());
  const std::uint32_t ib = ea == eb ? 1 : 0;
  return [run, ea, eb, ib] { return run->cycles(ea, 0) - run->cycles(eb, ib); };
});

// An engine's clock from a tiny instruction, whose cost the NKI ISA gives as MIN_II
// (args.cycles, roughly 64 engine cycles): cycles / its duration in ns.
const Registrar clock_ghz("clock_ghz", [](Bench& bench, const Spec& s) -> Reader {
  auto b = builder(s);
  const Engine e = append_instr(b, s.args, "", "spec " + s.id);
  const RunPtr run = bench.run(s.target, b.build());
  const double cycles = arg_double(s, "cycles", 64);
  return [run, e, cycles] { return cycles / run->ns_of(e, 0); };
});

// The extra cycles of a tiny Vector instruction that reads what the one before it wrote,
// over the same instruction reading something else (args.n elements, fp32).
const Registrar dependent_overhead("dependent_overhead", [](Bench& bench, const Spec& s) -> Reader {
  auto b = builder(s);
  const std::uint32_t n = arg_u32(s, "n", 32);
  const auto x = b.sbuf("x", isa::DType::fp32, {128, n}),
             y = b.sbuf("y", isa::DType::fp32, {128, n});
  const auto z = b.sbuf("z", isa::DType::fp32, {128, n}),
             w = b.sbuf("w", isa::DType::fp32, {128, n});
  b.vector().tensor_scalar(y, x, isa::AluOp::multiply, 2.0);  // [0]
  b.vector().tensor_scalar(z, y, isa::AluOp::multiply, 2.0);  // [1] reads what [0] wrote
  b.vector().tensor_scalar(w, x, isa::AluOp::multiply, 2.0);  // [2] reads what nobody wrote
  const RunPtr run = bench.run(s.target, b.build());
  return [run] { return run->cycles(Engine::vector, 1) - run->cycles(Engine::vector, 2); };
});

// Two independent instructions on two engines, started together: the time both take
// over the sum of their own times ("serial", 1 when they cannot overlap) or over the
// longer one ("longest", 1 when they run side by side).
const Registrar overlap("overlap", [](Bench& bench, const Spec& s) -> Reader {
  auto b = builder(s);
  const Engine ea = append_instr(b, nested(s, "a"), "_a", "spec " + s.id + " a");
  const Engine eb = append_instr(b, nested(s, "b"), "_b", "spec " + s.id + " b");
  if (ea == eb) throw std::runtime_error("spec " + s.id + ": overlap needs two engines");
  const RunPtr run = bench.run(s.target, b.build());
  const bool serial = arg_str(s, "vs", "serial") == "serial";
  return [run, ea, eb, serial] {
    const auto& ra = run->instr(ea, 0);
    const auto& rb = run->instr(eb, 0);
    const double span = neuronsim::traces::ps_to_ns(std::max(ra.end_ps, rb.end_ps) -
                                                    std::min(ra.start_ps, rb.start_ps));
    const double da = run->ns_of(ea, 0), db = run->ns_of(eb, 0);
    return span / (serial ? da + db : std::max(da, db));
  };
});

}  // namespace

}  // namespace validation

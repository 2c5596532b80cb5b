#pragma once
// Helpers for the SystemC scenario tests of the core (tests/sim/core_*.cpp): small kernels
// built as isa::Kernel structs, a target config with the numbers the derivations use
// pinned, an observer that records events, and a way to run several launches in the
// process's one simulation.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "config/target_config.hpp"
#include "engines/observer.hpp"
#include "isa/kernel.hpp"
#include "neuronsim/hbm.hpp"
#include "neuronsim/neuron_core.hpp"
#include "neuronsim/run.hpp"
#include "neuronsim/tlm.hpp"
#include "tests/sim/protocol_checker.hpp"

namespace core_test {

using namespace neuronsim;

// A preset with the DMA numbers the tests derive from written out, so a change of a
// preset's unpublished guesses does not silently change the expected cycle counts.
inline config::TargetConfig target(const std::string& preset) {
  config::TargetConfig c = config::load_target(preset);
  c.dma.engine_bytes_per_ns = 17;
  c.dma.hbm_bytes_per_ns = 410;
  c.dma.descriptor_ns = 50;
  c.dma.dge_instances = 2;  // hardware DGE on every preset, so Sync's transfers pay 50 ns
  c.dma.swdge_descriptor_ns = 300;
  c.dma.fixed_latency_ns = 1000;
  c.dma.efficient_bytes_per_row = 2048;
  c.dma.small_row_min_efficiency = 1.0 / 32;
  c.dma.transpose_hbm_efficiency = 0.9;
  c.dma.transpose_sbuf_efficiency = 0.5;
  c.dma.queue_depth = 32;
  c.dma.strict_priority = false;
  return c;
}

inline isa::Kernel kernel(const std::string& name) {
  isa::Kernel k;
  k.name = name;
  k.target = "";  // runs on every preset
  return k;
}

// A [partitions, free] allocation; returns its index.
inline std::uint32_t alloc(isa::Kernel& k, const std::string& name, isa::MemSpace space,
                           isa::DType dt, std::uint32_t partitions, std::uint32_t free,
                           std::uint32_t byte_offset) {
  isa::Allocation a;
  a.name = name;
  a.space = space;
  a.dtype = dt;
  a.partitions = partitions;
  a.free_shape = {free};
  a.byte_offset = byte_offset;
  k.allocations.push_back(a);
  return static_cast<std::uint32_t>(k.allocations.size() - 1);
}

inline std::uint32_t tensor(isa::Kernel& k, const std::string& name, isa::TensorRole role,
                            isa::DType dt, std::uint64_t rows, std::uint64_t cols) {
  isa::HbmTensor t;
  t.name = name;
  t.dtype = dt;
  t.shape = {rows, cols};
  t.role = role;
  k.tensors.push_back(t);
  return static_cast<std::uint32_t>(k.tensors.size() - 1);
}

inline std::uint16_t semaphore(isa::Kernel& k, const std::string& name) {
  k.semaphores.push_back({name, 0});
  return static_cast<std::uint16_t>(k.semaphores.size() - 1);
}

inline std::uint16_t queue(isa::Kernel& k, const std::string& name, std::uint8_t first,
                           std::uint8_t engines) {
  k.queues.push_back({name, first, engines});
  return static_cast<std::uint16_t>(k.queues.size() - 1);
}

// The whole [partitions, free] tile of an allocation (contiguous).
inline isa::AccessPattern tile(const isa::Kernel& k, std::uint32_t a) {
  const auto& al = k.allocations[a];
  isa::AccessPattern ap;
  ap.space = al.space;
  ap.buffer = a;
  ap.dtype = al.dtype;
  ap.partitions = al.partitions;
  ap.dims[0] = {1, al.free_shape[0]};
  return ap;
}

// A whole 2-D HBM tensor viewed as [rows, cols].
inline isa::AccessPattern rows_of(const isa::Kernel& k, std::uint32_t t) {
  const auto& tn = k.tensors[t];
  isa::AccessPattern ap;
  ap.space = isa::MemSpace::hbm;
  ap.buffer = t;
  ap.dtype = tn.dtype;
  ap.partitions = static_cast<std::uint32_t>(tn.shape[0]);
  ap.partition_stride = static_cast<std::int64_t>(tn.shape[1]);
  ap.dims[0] = {1, static_cast<std::uint32_t>(tn.shape[1])};
  return ap;
}

inline isa::Instruction op(isa::Operation o, std::vector<isa::SemWait> waits = {},
                           std::vector<isa::SemSignal> signals = {}) {
  isa::Instruction i;
  i.op = std::move(o);
  i.waits = std::move(waits);
  i.signals = std::move(signals);
  return i;
}
inline isa::SemSignal inc(std::uint16_t sem) {
  return {sem, isa::SemUpdate::increment, 1};
}

// out = in * in, [128, 512] fp32: one load (Sync), one Vector multiply, one store.
inline isa::Kernel square_kernel() {
  auto k = kernel("square");
  const auto in = tensor(k, "in", isa::TensorRole::input, isa::DType::fp32, 128, 512);
  const auto out = tensor(k, "out", isa::TensorRole::output, isa::DType::fp32, 128, 512);
  const auto a = alloc(k, "a", isa::MemSpace::sbuf, isa::DType::fp32, 128, 512, 0);
  const auto b = alloc(k, "b", isa::MemSpace::sbuf, isa::DType::fp32, 128, 512, 2048);
  const auto q = queue(k, "q0", 0, 16);
  const auto loaded = semaphore(k, "loaded"), squared = semaphore(k, "squared");
  k.stream(isa::Engine::sync)
      .push_back(op(isa::DmaCopy{tile(k, a), rows_of(k, in), q, false, false, std::nullopt,
                                 std::nullopt, false},
                    {}, {inc(loaded)}));
  k.stream(isa::Engine::vector)
      .push_back(op(isa::TensorTensor{tile(k, b), tile(k, a), tile(k, a), isa::AluOp::multiply},
                    {{loaded, 1}}, {inc(squared)}));
  k.stream(isa::Engine::sync)
      .push_back(op(isa::DmaCopy{rows_of(k, out), tile(k, b), q, false, false, std::nullopt,
                                 std::nullopt, false},
                    {{squared, 1}}));
  return k;
}

// The bytes of a [128, 512] fp32 tensor holding `v` everywhere.
inline std::vector<std::uint8_t> floats(float v) {
  std::vector<std::uint8_t> bytes(128 * 512 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 4)
    std::memcpy(bytes.data() + i, &v, 4);
  return bytes;
}

// Records every event it sees.
struct Recorder : engines::Observer {
  std::vector<traces::InstructionRecord> starts, ends;
  std::vector<traces::DmaRecord> dma_starts, dma_ends;
  std::vector<traces::SemaphoreRecord> semaphores;
  void on_instruction_start(const traces::InstructionRecord& r) override { starts.push_back(r); }
  void on_instruction_end(const traces::InstructionRecord& r) override { ends.push_back(r); }
  void on_dma_start(const traces::DmaRecord& r) override { dma_starts.push_back(r); }
  void on_dma_end(const traces::DmaRecord& r) override { dma_ends.push_back(r); }
  void on_semaphore_update(const traces::SemaphoreRecord& r) override { semaphores.push_back(r); }
  const traces::InstructionRecord& end_of(isa::Engine e, std::uint32_t index) const {
    for (const auto& r : ends)
      if (r.engine == e && r.index == index) return r;
    throw std::runtime_error("no such instruction record");
  }
};

// Runs the requests one after another on one core (with its own HBM) in one simulation,
// the process's one; returns their results in order.
inline std::vector<LaunchResult> run_launches(const config::TargetConfig& config,
                                              std::vector<LaunchRequest> requests) {
  require_elaboration("run_launches");
  Hbm hbm("hbm", config);
  NeuronCore core("core", config);
  bind_checked(core, hbm.socket);
  std::vector<LaunchHandle> launches;
  for (auto& r : requests)
    launches.push_back(core.launch(std::move(r)));
  sc_core::sc_start();
  std::vector<LaunchResult> results;
  for (const auto& l : launches)
    results.push_back(l->result());
  return results;
}

// The error text window of a core's register block (regs::kErrorText), read with
// transport_dbg through `socket` (an initiator socket bound to the core's regs); empty when
// the read fails.
template <typename Socket>
std::string read_error_text(Socket& socket) {
  std::vector<char> text(regs::kErrorTextBytes);
  tlm::tlm_generic_payload t;
  t.set_command(tlm::TLM_READ_COMMAND);
  t.set_address(regs::kErrorText);
  t.set_data_ptr(reinterpret_cast<unsigned char*>(text.data()));
  t.set_data_length(static_cast<unsigned>(text.size()));
  t.set_streaming_width(static_cast<unsigned>(text.size()));
  if (socket->transport_dbg(t) != text.size()) return "";
  return std::string(text.data(), strnlen(text.data(), text.size()));
}

// A launch of a copy of `k`.
inline LaunchRequest request(const isa::Kernel& k, bool timing_only = false) {
  LaunchRequest r;
  r.kernel = std::make_shared<const isa::Kernel>(k);
  r.source = k.name;
  r.timing_only = timing_only;
  return r;
}

}  // namespace core_test

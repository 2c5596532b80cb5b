#pragma once
// The inside of a neuronsim::NeuronCore (private to sim/): its memories, DMA subsystem,
// launch queue and the sequencer thread that runs one launch after another.
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "engines/dma_subsystem.hpp"
#include "engines/hbm_link.hpp"
#include "memory/memory_image.hpp"
#include "memory/port_map.hpp"
#include "neuronsim/neuron_core.hpp"
#include "sim/launch_state.hpp"
#include "sim/prepared_kernels.hpp"
#include "sim/register_block.hpp"

namespace neuronsim::detail {

class CoreState : public engines::HbmLink {
 public:
  CoreState(NeuronCore& core, const config::TargetConfig& config, const CoreOptions& options);

  LaunchHandle launch(LaunchRequest request);
  // The end of elaboration: the window from the bound memory, checked against the other
  // cores of the simulation (sim/core_windows.cpp).
  void end_of_elaboration();
  void reset();  // NeuronCore::reset, inside a process (the core's reset method)
  // NeuronCore::clk is bound to `bound`: the engine clocks follow its frequency.
  void follow_clock(sc_core::sc_interface* bound);
  sc_core::sc_event reset_requested;
  ~CoreState() override;
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) override;
  void peek(std::uint64_t address, std::uint8_t* data, std::uint64_t bytes) override;
  void invalidate_dmi(sc_dt::uint64 start, sc_dt::uint64 end);
  // transport_dbg and get_direct_mem_ptr on the hbm socket (checked like b_transport).
  unsigned int hbm_transport_dbg(tlm::tlm_generic_payload& trans);
  bool hbm_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  // Reads and writes device HBM without time (transport_dbg); throws on an address error.
  void debug_read(std::uint64_t address, std::uint8_t* data, std::uint64_t bytes);
  void debug_write(std::uint64_t address, const std::uint8_t* data, std::uint64_t bytes);

  NeuronCore& core;
  config::TargetConfig config;
  CoreOptions options;
  std::uint64_t window_last = 0;  // the window's last byte (set at elaboration if not given)
  bool window_known = false;
  std::unique_ptr<memory::MemoryImage> memory;  // SBUF and PSUM, allocated on first use
  std::unique_ptr<engines::DmaSubsystem> dma;
  memory::PortMap ports;     // SBUF/PSUM ports, reset for every launch
  PreparedKernels prepared;  // kernels checked and planned on this core
  RegisterBlock registers;
  std::deque<LaunchHandle> queue;
  sc_core::sc_event queued, ended;
  std::unique_ptr<LaunchState> running;
  std::uint64_t next_id = 0, finished = 0;

  void sequencer();
  void engine_thread(int engine);  // runs the engine's stream of every launch
  // The engine threads, spawned with the core; a launch starts them by their events.
  std::array<sc_core::sc_process_handle, isa::kEngineCount> engine_threads;
  std::array<sc_core::sc_event, isa::kEngineCount> engine_start;

 private:
  void run_one(const LaunchHandle& launch);
  void place_tensors(LaunchState& state);
  void load_tensors(LaunchState& state);
  void start_engines(LaunchState& state);
  void finish(LaunchState& state);
  std::string deadlock_report(const LaunchState& state) const;
  [[noreturn]] void protocol_broken(const char* rule, const tlm::tlm_generic_payload& trans) const;
  std::uint8_t* dmi_pointer(std::uint64_t address, std::uint64_t bytes);
  std::uint64_t next_region_if_crossing(std::uint64_t address, std::uint64_t bytes);
  const tlm::tlm_dmi* cached_region(std::uint64_t address) const;  // a granted one, or null
  std::uint8_t* region_pointer(std::uint64_t address);  // asks the target if none is cached

 public:
  // Where `address` is in the host's memory when the bound target grants DMI for it, else
  // null: how two cores tell whether they are bound to the same memory.
  const std::uint8_t* probe_dmi(std::uint64_t address);
  // One byte at `address` reads with transport_dbg.
  bool probe_readable(std::uint64_t address);

 private:
  std::vector<tlm::tlm_dmi> dmi_;  // regions the HBM target granted
};

}  // namespace neuronsim::detail

// neuronsim::NeuronCore (include/neuronsim/neuron_core.hpp) and the sequencer that runs
// its launches one after another.
// sc_spawn needs the dynamic-process part of SystemC.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "neuronsim/neuron_core.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <sstream>

#include "base/address_range.hpp"
#include "base/error.hpp"
#include "base/text.hpp"
#include "engines/compute_engines.hpp"
#include "engines/sim_time.hpp"
#include "engines/tensor_engine.hpp"
#include "engines/thread_stack.hpp"
#include "sim/core_state.hpp"
#include "sim/input_check.hpp"
#include "sim/kernel_target.hpp"
#include "sim/launch_stats.hpp"
#include "sim/protocol_rules.hpp"
#include "validate/validate.hpp"

namespace neuronsim {

namespace sim::detail {
void systemc_link_anchor();  // systemc_link.cpp
}  // namespace sim::detail

namespace detail {

namespace {

// Tensors placed in a core's window start on a 4 KiB boundary, so no two share a page.
// An allocator's choice, not a hardware number: the device's own runtime places tensors.
constexpr std::uint64_t kTensorAlignment = 4096;
// transport_dbg moves at most this many bytes per call (its length is 32-bit).
constexpr std::uint64_t kDebugChunk = std::uint64_t{1} << 30;

// How many kernels a core keeps checked and planned (sim/prepared_kernels.hpp): a
// simulator's own bound on memory, not a hardware number (about 200 bytes per planned
// instruction).
constexpr std::size_t kPreparedKernels = 16;
constexpr std::uint64_t kPreparedInstructions = 4'000'000;

memory::PortRules port_rules(const config::TargetConfig& c) {
  memory::PortRules r;
  r.vector_gpsimd_share_sbuf = c.vector_gpsimd_share_sbuf_port;
  r.vector_scalar_share_psum = c.vector_scalar_share_psum_port;
  r.psum_same_bank_conflicts = c.psum_same_bank_conflicts;
  r.psum_banks = c.psum_banks;
  r.psum_bank_bytes = c.limits.psum_bank_bytes;
  return r;
}

// Checks a request against its kernel before it is queued.
void check_request(const LaunchRequest& r) {
  const isa::Kernel& k = *r.kernel;
  auto find = [&](const std::string& name) -> const isa::HbmTensor* {
    for (const auto& t : k.tensors)
      if (t.name == name) return &t;
    return nullptr;
  };
  std::vector<std::string> unknown, missing;
  for (const auto& [name, address] : r.tensor_addresses)
    if (!find(name)) unknown.push_back(name);
  if (!unknown.empty()) throw Error(r.source + ": no tensor named " + quoted_list(unknown));
  sim::check_given_inputs(k, r.inputs, r.source);
  if (r.timing_only) return;
  for (const auto& t : k.tensors)
    if (t.role == isa::TensorRole::input && !r.inputs.count(t.name) &&
        !r.tensor_addresses.count(t.name))
      missing.push_back(t.name);
  if (!missing.empty()) throw Error(r.source + ": inputs not given: " + quoted_list(missing));
}

}  // namespace

CoreState::CoreState(NeuronCore& core, const config::TargetConfig& config,
                     const CoreOptions& options)
    : core(core),
      config(config),
      options(options),
      ports(port_rules(config)),
      prepared(kPreparedKernels, kPreparedInstructions),
      registers(*this) {
  for (int e = 0; e < isa::kEngineCount; ++e)
    if (!(this->config.clock_ghz(static_cast<isa::Engine>(e)) > 0))
      throw Error("config '" + config.name + "': the " +
                  std::string(isa::engine_name(static_cast<isa::Engine>(e))) +
                  " clock must be positive");
  if (options.hbm_window_bytes > 0 &&
      !range_last(options.hbm_window_base, options.hbm_window_bytes, window_last))
    throw Error(std::string(core.name()) + ": the HBM window of " +
                std::to_string(options.hbm_window_bytes) + " bytes at " +
                hex(options.hbm_window_base) + " runs past the end of the 64-bit address space");
  window_known = options.hbm_window_bytes > 0;
  dma = std::make_unique<engines::DmaSubsystem>("dma", this->config.dma, *this);
}

LaunchHandle CoreState::launch(LaunchRequest request) {
  if (!request.kernel) throw Error(std::string(core.name()) + ": a launch needs a kernel");
  const std::string other_target =
      request.other_target || options.other_target_kernels == OtherTargetKernels::run
          ? std::string()
          : sim::other_target_reason(request.kernel->target, config);
  if (!other_target.empty() && options.other_target_kernels == OtherTargetKernels::refuse)
    throw Error(std::string(core.name()) + ": " + request.source + ": " + other_target +
                " (CoreOptions::other_target_kernels or LaunchRequest::other_target allow it)");
  const bool first_launch = prepared.check(request.kernel, config, request.source);
  if (!other_target.empty() && first_launch)
    SC_REPORT_WARNING("neuronsim/target",
                      (std::string(core.name()) + ": " + request.source + ": " + other_target +
                       "; running it as CoreOptions::other_target_kernels says")
                          .c_str());
  check_request(request);
  auto handle = std::make_shared<Launch>();
  handle->request_ = std::move(request);
  handle->result_.id = next_id++;
  handle->result_.queued = sc_core::sc_time_stamp();
  queue.push_back(handle);
  if (sc_core::sc_is_running()) queued.notify(sc_core::SC_ZERO_TIME);
  return handle;
}

void CoreState::sequencer() {
  // Let every engine thread reach its first wait: a launch starts them by immediate
  // notification, which a thread not yet waiting would miss.
  sc_core::wait(sc_core::SC_ZERO_TIME);
  for (;;) {
    while (queue.empty())
      sc_core::wait(queued);
    const LaunchHandle next = queue.front();
    queue.pop_front();
    run_one(next);
  }
}

void CoreState::run_one(const LaunchHandle& handle) {
  running = std::make_unique<LaunchState>(handle, ended);
  LaunchState& s = *running;
  handle->result_.started = sc_core::sc_time_stamp();
  try {
    place_tensors(s);
    if (!handle->request_.timing_only) load_tensors(s);
    start_engines(s);
    while (s.end == LaunchState::End::running)
      sc_core::wait(ended);
  } catch (const sc_core::sc_unwind_exception&) {
    throw;
  } catch (...) {
    if (s.end == LaunchState::End::running) {
      s.end = LaunchState::End::failed;
      s.error = std::current_exception();
      s.ended_at = sc_core::sc_time_stamp();
    }
  }
  if (s.end != LaunchState::End::complete) {
    // Wherever the engines are, they start over, waiting for the next launch.
    for (auto& thread : engine_threads)
      thread.reset();
    if (s.context) {
      dma->abort();
      while (dma->outstanding() > 0)
        sc_core::wait(dma->drained);
    }
  }
  finish(s);
}

void CoreState::place_tensors(LaunchState& s) {
  const LaunchRequest& req = s.launch->request_;
  const auto& tensors = req.kernel->tensors;
  TensorPlacement& p = s.tensors;
  p.addresses.resize(tensors.size());
  p.placed.assign(tensors.size(), false);
  std::uint64_t cursor = options.hbm_window_base;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    auto given = req.tensor_addresses.find(tensors[i].name);
    if (given != req.tensor_addresses.end()) {
      std::uint64_t last = 0;
      if (!range_last(given->second, tensors[i].bytes(), last))
        throw Error(req.source + ": tensor '" + tensors[i].name + "' (" +
                    std::to_string(tensors[i].bytes()) + " bytes) at " + hex(given->second) +
                    " runs past the end of the 64-bit address space");
      p.addresses[i] = given->second;
      continue;
    }
    const std::uint64_t aligned =
        cursor + (kTensorAlignment - cursor % kTensorAlignment) % kTensorAlignment;
    if (aligned < cursor ||
        !range_within(aligned, tensors[i].bytes(), options.hbm_window_base, window_last))
      throw Error(req.source + ": tensor '" + tensors[i].name + "' (" +
                  std::to_string(tensors[i].bytes()) + " bytes) does not fit in " + core.name() +
                  "'s HBM window [" + hex(options.hbm_window_base) + ", " + hex(window_last) + "]");
    cursor = next_region_if_crossing(aligned, tensors[i].bytes());
    if (!range_within(cursor, tensors[i].bytes(), options.hbm_window_base, window_last))
      cursor = aligned;  // no room after the region's end: the tensor is staged instead
    p.addresses[i] = cursor;
    p.placed[i] = true;
    cursor += tensors[i].bytes();
  }
}

// A tensor that no run of adjacent DMI regions covers from its first byte, but that fits in
// one region, starts at the next region instead: one region then covers it, where it would
// otherwise be staged (the bundled Hbm grants 64 MiB chunks).
std::uint64_t CoreState::next_region_if_crossing(std::uint64_t address, std::uint64_t bytes) {
  if (!dmi_pointer(address, 1) || dmi_pointer(address, bytes)) return address;
  for (const auto& d : dmi_) {
    if (!range_within(address, 1, d.get_start_address(), d.get_end_address())) continue;
    const std::uint64_t first = d.get_start_address(), last = d.get_end_address();
    if (range_within(address, bytes, first, last) || bytes - 1 > last - first || last == UINT64_MAX)
      return address;
    return last + 1 + (kTensorAlignment - (last + 1) % kTensorAlignment) % kTensorAlignment;
  }
  return address;
}

std::uint8_t* CoreState::dmi_pointer(std::uint64_t address, std::uint64_t bytes) {
  auto covers = [&](const tlm::tlm_dmi& d) {
    return d.is_read_write_allowed() &&
           range_within(address, bytes, d.get_start_address(), d.get_end_address());
  };
  for (const auto& d : dmi_)
    if (covers(d)) return d.get_dmi_ptr() + (address - d.get_start_address());
  // Regions that follow one another in the address space and in the host's memory serve
  // one range together (a memory may grant DMI in pieces, as the bundled Hbm's chunks).
  std::uint64_t last = 0;
  if (!range_last(address, bytes, last)) return nullptr;
  std::uint8_t* const start = region_pointer(address);
  if (!start) return nullptr;
  for (std::uint64_t at = address;;) {
    const tlm::tlm_dmi* d = cached_region(at);
    if (!d) return nullptr;
    if (d->get_end_address() >= last) return start;
    at = d->get_end_address() + 1;
    if (region_pointer(at) != start + (at - address)) return nullptr;
  }
}

const tlm::tlm_dmi* CoreState::cached_region(std::uint64_t address) const {
  for (const auto& d : dmi_)
    if (d.is_read_write_allowed() &&
        range_within(address, 1, d.get_start_address(), d.get_end_address()))
      return &d;
  return nullptr;
}

std::uint8_t* CoreState::region_pointer(std::uint64_t address) {
  const tlm::tlm_dmi* d = cached_region(address);
  if (!d) {
    tlm::tlm_generic_payload trans;
    trans.set_command(tlm::TLM_WRITE_COMMAND);
    trans.set_address(address);
    tlm::tlm_dmi dmi;
    if (!hbm_direct_mem_ptr(trans, dmi) || !dmi.get_dmi_ptr() || !dmi.is_read_write_allowed() ||
        !range_within(address, 1, dmi.get_start_address(), dmi.get_end_address()))
      return nullptr;
    dmi_.push_back(dmi);
    d = &dmi_.back();
  }
  return d->get_dmi_ptr() + (address - d->get_start_address());
}

void CoreState::invalidate_dmi(sc_dt::uint64 start, sc_dt::uint64 end) {
  if (options.check_protocol)
    if (const char* rule = sim::broken_invalidate_rule(start, end))
      protocol_broken(rule, tlm::tlm_generic_payload());
  auto hit = [&](const tlm::tlm_dmi& d) {
    return d.get_start_address() <= end && start <= d.get_end_address();
  };
  dmi_.erase(std::remove_if(dmi_.begin(), dmi_.end(), hit), dmi_.end());
  // The running launch holds pointers into its tensors; it cannot go on without them.
  if (!running || running->end != LaunchState::End::running) return;
  const auto& p = running->tensors;
  const auto& tensors = running->launch->request_.kernel->tensors;
  for (std::size_t i = 0; i < p.pointers.size(); ++i)
    if (p.staging[i].empty() &&
        ranges_overlap(p.addresses[i], p.addresses[i] + (tensors[i].bytes() - 1), start, end)) {
      running->fail(std::make_exception_ptr(
          Error(std::string(core.name()) + ": the HBM target revoked direct access to [" +
                hex(start) + ", " + hex(end) + "] while a launch used it")));
      return;
    }
}

void CoreState::debug_read(std::uint64_t address, std::uint8_t* data, std::uint64_t bytes) {
  std::uint64_t last = 0;
  if (bytes > 0 && !range_last(address, bytes, last))
    throw Error(std::string(core.name()) + ": HBM read of " + std::to_string(bytes) + " bytes at " +
                hex(address) + " runs past the end of the 64-bit address space");
  for (std::uint64_t done = 0; done < bytes;) {
    const std::uint64_t n = std::min(kDebugChunk, bytes - done);
    tlm::tlm_generic_payload trans;
    trans.set_command(tlm::TLM_READ_COMMAND);
    trans.set_address(address + done);
    trans.set_data_ptr(data + done);
    trans.set_data_length(static_cast<unsigned int>(n));
    trans.set_streaming_width(static_cast<unsigned int>(n));
    if (hbm_transport_dbg(trans) != n)
      throw Error(std::string(core.name()) + ": HBM read of " + std::to_string(n) + " bytes at " +
                  hex(address + done) + " failed");
    done += n;
  }
}

void CoreState::debug_write(std::uint64_t address, const std::uint8_t* data, std::uint64_t bytes) {
  std::uint64_t last = 0;
  if (bytes > 0 && !range_last(address, bytes, last))
    throw Error(std::string(core.name()) + ": HBM write of " + std::to_string(bytes) +
                " bytes at " + hex(address) + " runs past the end of the 64-bit address space");
  for (std::uint64_t done = 0; done < bytes;) {
    const std::uint64_t n = std::min(kDebugChunk, bytes - done);
    tlm::tlm_generic_payload trans;
    trans.set_command(tlm::TLM_WRITE_COMMAND);
    trans.set_address(address + done);
    trans.set_data_ptr(const_cast<std::uint8_t*>(data + done));
    trans.set_data_length(static_cast<unsigned int>(n));
    trans.set_streaming_width(static_cast<unsigned int>(n));
    if (hbm_transport_dbg(trans) != n)
      throw Error(std::string(core.name()) + ": HBM write of " + std::to_string(n) + " bytes at " +
                  hex(address + done) + " failed");
    done += n;
  }
}

// Constants get the NEFF's bytes, inputs the request's, tensors placed in the window the
// fill; tensors the caller placed keep what the caller put there.
void CoreState::load_tensors(LaunchState& s) {
  const LaunchRequest& req = s.launch->request_;
  const auto& tensors = req.kernel->tensors;
  TensorPlacement& p = s.tensors;
  const memory::UninitFill fill =
      req.fill_uninitialised ? memory::UninitFill::poison : memory::UninitFill::zero;
  if (!memory)
    memory = std::make_unique<memory::MemoryImage>(config.limits, config.uninitialised_int_fill);
  p.pointers.assign(tensors.size(), nullptr);
  p.staging.assign(tensors.size(), {});
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const isa::HbmTensor& t = tensors[i];
    const std::uint64_t bytes = t.bytes();
    std::uint8_t* ptr = dmi_pointer(p.addresses[i], bytes);
    const bool staged = ptr == nullptr;
    if (staged) {
      p.staging[i].resize(bytes);
      ptr = p.staging[i].data();
      if (!p.placed[i]) debug_read(p.addresses[i], ptr, bytes);
    }
    bool changed = true;
    auto input = req.inputs.find(t.name);
    if (t.role == isa::TensorRole::constant && t.data.size() == bytes)
      std::memcpy(ptr, t.data.data(), bytes);
    else if (input != req.inputs.end())
      std::memcpy(ptr, input->second.data(), bytes);
    else if (p.placed[i])
      memory::fill_uninitialised(ptr, bytes, t.dtype, fill, config.uninitialised_int_fill);
    else
      changed = false;
    if (staged && changed) debug_write(p.addresses[i], ptr, bytes);
    p.pointers[i] = ptr;
  }
  memory->begin_launch(*req.kernel, p.pointers, fill);
}

void CoreState::start_engines(LaunchState& s) {
  const LaunchRequest& req = s.launch->request_;
  const isa::Kernel& k = *req.kernel;
  const sc_core::sc_time origin = s.launch->result_.started;
  ports.reset();
  s.plan = prepared.plan(req.kernel, config, ports);
  s.semaphores = std::make_unique<engines::Semaphores>(k.semaphores, req.observers, origin);
  s.context.reset(new engines::LaunchContext{
      k, config.cost, *s.plan, req.timing_only ? nullptr : memory.get(), *s.semaphores, *dma,
      req.observers, s, s.written, origin, req.source});
  auto& ctx = *s.context;
  auto clock = [&](isa::Engine e) { return config.clock_ghz(e); };
  using isa::Engine;
  s.engines[static_cast<int>(Engine::tensor)] =
      std::make_unique<engines::TensorEngine>(clock(Engine::tensor), ctx);
  s.engines[static_cast<int>(Engine::vector)] =
      std::make_unique<engines::VectorEngine>(clock(Engine::vector), ctx);
  s.engines[static_cast<int>(Engine::scalar)] =
      std::make_unique<engines::ScalarEngine>(clock(Engine::scalar), ctx);
  s.engines[static_cast<int>(Engine::gpsimd)] =
      std::make_unique<engines::GpSimdEngine>(clock(Engine::gpsimd), ctx);
  s.engines[static_cast<int>(Engine::sync)] =
      std::make_unique<engines::SyncEngine>(clock(Engine::sync), ctx);
  TensorPlacement& p = s.tensors;
  if (req.timing_only) {
    // No data moves, but the parts still carry their bytes: where DMI covers a tensor, its
    // own bytes in place (the target's copy is then a no-op), else the memory's, read
    // just before each write (DmaEngine).
    p.pointers.assign(k.tensors.size(), nullptr);
    for (std::size_t i = 0; i < k.tensors.size(); ++i)
      p.pointers[i] = dmi_pointer(p.addresses[i], k.tensors[i].bytes());
    p.staging.assign(k.tensors.size(), {});
  }
  p.read_into.assign(p.pointers.size(), nullptr);
  for (std::size_t i = 0; i < p.pointers.size(); ++i)
    if (p.staging[i].empty()) p.read_into[i] = p.pointers[i];
  dma->begin(ctx, p.addresses, p.pointers, p.read_into);
  for (auto& start : engine_start)
    start.notify();  // in engine order: the threads run in this order
}

void CoreState::engine_thread(int engine) {
  for (;;) {
    sc_core::wait(engine_start[engine]);
    running->engines[engine]->run();
  }
}

std::string CoreState::deadlock_report(const LaunchState& s) const {
  const LaunchRequest& req = s.launch->request_;
  const isa::Kernel& k = *req.kernel;
  std::ostringstream out;
  if (!req.source.empty()) out << req.source << ": ";
  out << "kernel '" << k.name << "': deadlock at " << std::fixed << std::setprecision(3)
      << engines::to_ns(s.ended_at - s.launch->result_.started)
      << " ns: no engine can make progress";
  auto sem_name = [&](std::uint16_t sem) {
    const std::string& n = k.semaphores[sem].name;
    return "'" + (n.empty() ? "#" + std::to_string(sem) : n) + "'";
  };
  for (const auto& e : s.engines) {
    if (e->finished()) continue;
    const std::size_t i = e->current_index();
    const auto& instr = k.stream(e->engine())[i];
    out << "\n  " << isa::engine_name(e->engine()) << "[" << i << "] "
        << isa::opcode_name(instr.opcode());
    if (instr.source_line) out << " (line " << instr.source_line << ")";
    bool any = false;
    for (const auto& w : instr.waits) {
      const std::uint32_t v = s.semaphores->value(w.sem);
      if (v >= w.value) continue;
      out << (any ? ", " : ": waits for semaphore ") << sem_name(w.sem) << " = " << v
          << ", wants >= " << w.value;
      any = true;
    }
    if (!any) out << ": blocked (state " << static_cast<int>(e->state()) << ")";
  }
  return out.str();
}

void CoreState::finish(LaunchState& s) {
  const LaunchHandle handle = s.launch;
  const LaunchRequest& req = handle->request_;
  LaunchResult& r = handle->result_;
  const isa::Kernel& k = *req.kernel;
  sc_core::sc_time total = s.ended_at - r.started;
  if (s.end == LaunchState::End::complete) {
    total = dma->last_completion();
    for (const auto& e : s.engines)
      total = std::max(total, e->finished_at());
  }
  if (s.end == LaunchState::End::deadlock)
    s.error = std::make_exception_ptr(Error(deadlock_report(s)));
  r.total_ps = engines::to_ps(total);
  r.total_ns = engines::to_ns(total);
  r.neuroncore_cycle_count = engines::to_cycles(total, config.cycle_counter_ghz);
  if (s.context) r.stats = collect_stats(config, s, total);
  for (std::size_t i = 0; i < k.tensors.size() && i < s.tensors.addresses.size(); ++i)
    r.tensor_addresses[k.tensors[i].name] = s.tensors.addresses[i];
  try {
    if (s.end == LaunchState::End::complete && !req.timing_only) {
      const auto& p = s.tensors;
      for (std::size_t i = 0; i < k.tensors.size(); ++i) {
        const isa::HbmTensor& t = k.tensors[i];
        const bool written =
            t.role == isa::TensorRole::output || t.role == isa::TensorRole::scratch;
        if (written && !p.staging[i].empty()) debug_write(p.addresses[i], p.pointers[i], t.bytes());
        if (t.role == isa::TensorRole::output && req.collect_outputs)
          r.outputs[t.name].assign(p.pointers[i], p.pointers[i] + t.bytes());
      }
    }
  } catch (const std::exception&) {
    s.error = std::current_exception();
  }
  if (s.error) {
    r.exception = s.error;
    try {
      std::rethrow_exception(s.error);
    } catch (const std::exception& e) {
      r.error = e.what();
    } catch (...) {
      r.error = "unknown error";
    }
  }
  r.finished = sc_core::sc_time_stamp();
  if (running.get() == &s) running.reset();  // the launch's engines, ports and semaphores
  handle->finished_ = true;
  ++finished;
  handle->done_.notify();
  core.launch_finished.notify();
  registers.launch_finished(r, false);
  if (req.on_done) req.on_done(r);
}

void CoreState::reset() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  while (!queue.empty()) {
    LaunchState s(queue.front(), ended);
    queue.pop_front();
    s.launch->result_.started = now;
    s.end = LaunchState::End::failed;
    s.error = std::make_exception_ptr(
        Error(std::string(core.name()) + ": reset before the launch started"));
    s.ended_at = now;
    finish(s);
  }
  if (running)
    running->fail(
        std::make_exception_ptr(Error(std::string(core.name()) + ": reset while the launch ran")));
  registers.reset();
}

void CoreState::follow_clock(sc_core::sc_interface* bound) {
  const auto* clock = dynamic_cast<const sc_core::sc_clock*>(bound);
  if (!clock)
    throw Error(std::string(core.name()) +
                ".clk: bound to a signal that is not an sc_clock (the core takes the clock's "
                "period, it never samples edges)");
  const double ghz = 1.0 / clock->period().to_seconds() / 1e9;
  const double scale = ghz / config.tensor_ghz;
  config.tensor_ghz = ghz;
  config.vector_ghz *= scale;
  config.scalar_ghz *= scale;
  config.gpsimd_ghz *= scale;
  config.cycle_counter_ghz *= scale;  // the profiler's counter keeps its ratio to the others
}

// The core's HBM traffic, checked against the base protocol when the options say so.
void CoreState::protocol_broken(const char* rule, const tlm::tlm_generic_payload& trans) const {
  throw Error(sim::protocol_violation(std::string(core.name()) + ".hbm", rule, trans));
}

void CoreState::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  if (auto* rate = trans.get_extension<DmaRateExtension>()) {
    rate->initiator_target = config.name.c_str();
    rate->initiator_generation = config.generation.c_str();
  }
  if (!options.check_protocol) return core.hbm->b_transport(trans, delay);
  if (const char* rule = sim::broken_request_rule(trans, true)) protocol_broken(rule, trans);
  const sim::PayloadAttributes before(trans);
  core.hbm->b_transport(trans, delay);
  if (const char* rule = sim::broken_response_rule(trans, before)) protocol_broken(rule, trans);
}

unsigned int CoreState::hbm_transport_dbg(tlm::tlm_generic_payload& trans) {
  if (!options.check_protocol) return core.hbm->transport_dbg(trans);
  if (const char* rule = sim::broken_request_rule(trans, false)) protocol_broken(rule, trans);
  const unsigned int n = core.hbm->transport_dbg(trans);
  if (const char* rule = sim::broken_debug_rule(trans, n)) protocol_broken(rule, trans);
  return n;
}

bool CoreState::hbm_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  const bool granted = core.hbm->get_direct_mem_ptr(trans, dmi);
  if (options.check_protocol)
    if (const char* rule = sim::broken_dmi_rule(trans.get_address(), granted, dmi))
      protocol_broken(rule, trans);
  return granted;
}

void CoreState::peek(std::uint64_t address, std::uint8_t* data, std::uint64_t bytes) {
  debug_read(address, data, bytes);
}

}  // namespace detail

const LaunchResult& Launch::result() const {
  if (!finished_) throw Error("launch " + std::to_string(result_.id) + " has not finished yet");
  return result_;
}

LaunchResult Launch::take_result() {
  result();  // throws if not finished
  return std::move(result_);
}

bool protocol_checks_from_environment() {
  static const bool on = [] {
    const char* v = std::getenv("NEURONSIM_CHECK_PROTOCOL");
    return v && *v && std::string(v) != "0";
  }();
  return on;
}

NeuronCore::NeuronCore(sc_core::sc_module_name name, const config::TargetConfig& config,
                       const CoreOptions& options)
    : sc_module(name), hbm("hbm"), regs("regs"), irq("irq", false), rst("rst"), clk("clk") {
  sim::detail::systemc_link_anchor();
  state_ = std::make_unique<detail::CoreState>(*this, config, options);
  hbm.register_invalidate_direct_mem_ptr(this, &NeuronCore::invalidate_direct_mem_ptr);
  regs.register_b_transport(this, &NeuronCore::register_access);
  regs.register_transport_dbg(this, &NeuronCore::register_debug);
  sc_core::sc_spawn_options spawn;
  spawn.set_stack_size(engines::kThreadStackBytes);
  detail::CoreState* state = state_.get();
  sc_core::sc_spawn([state] { state->sequencer(); }, "sequencer", &spawn);
  sc_core::sc_spawn_options on_refusal;
  on_refusal.spawn_method();
  on_refusal.dont_initialize();
  on_refusal.set_sensitivity(&state->registers.refused());
  sc_core::sc_spawn([state] { state->registers.report_refusal(); }, "refusal", &on_refusal);
  sc_core::sc_spawn_options on_reset;
  on_reset.spawn_method();
  on_reset.dont_initialize();
  on_reset.set_sensitivity(&state->reset_requested);
  sc_core::sc_spawn([state] { state->reset(); }, "reset", &on_reset);
  for (int e = 0; e < isa::kEngineCount; ++e) {
    const std::string engine(isa::engine_name(static_cast<isa::Engine>(e)));
    state->engine_threads[e] =
        sc_core::sc_spawn([state, e] { state->engine_thread(e); }, engine.c_str(), &spawn);
  }
}

NeuronCore::~NeuronCore() = default;

LaunchHandle NeuronCore::launch(LaunchRequest request) {
  return state_->launch(std::move(request));
}

bool NeuronCore::idle() const {
  return state_->queue.empty() && !state_->running;
}

std::uint64_t NeuronCore::launches_finished() const {
  return state_->finished;
}

const config::TargetConfig& NeuronCore::config() const {
  return state_->config;
}

std::uint64_t NeuronCore::window_first() const {
  return state_->options.hbm_window_base;
}

std::uint64_t NeuronCore::window_last() const {
  return state_->window_last;
}

void NeuronCore::end_of_elaboration() {
  if (clk.size() > 0) state_->follow_clock(clk.get_interface());
  state_->end_of_elaboration();
  if (rst.size() == 0) return;
  sc_core::sc_spawn_options on_edge;
  on_edge.spawn_method();
  on_edge.dont_initialize();
  on_edge.set_sensitivity(&rst->posedge_event());
  sc_core::sc_spawn([this] { reset(); }, "rst_edge", &on_edge);
}

void NeuronCore::reset() {
  state_->reset_requested.notify(sc_core::SC_ZERO_TIME);
}

void NeuronCore::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
  state_->invalidate_dmi(start, end);
}

void NeuronCore::register_access(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  state_->registers.b_transport(trans, delay);
}

unsigned int NeuronCore::register_debug(tlm::tlm_generic_payload& trans) {
  return state_->registers.transport_dbg(trans);
}

}  // namespace neuronsim

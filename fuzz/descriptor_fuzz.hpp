#pragma once
// The descriptor fuzzer's driver (fuzz/fuzz_descriptor.cpp runs it under libFuzzer,
// tests/sim/descriptor_fuzz.cpp for a fixed number of seeded inputs): one live core on the
// bundled HBM, through the base-protocol checker, and a host that turns each input into a
// kernel descriptor (fields and tensor addresses drawn from the input: right, wrong, past
// the memory, past 2^64), a NEFF (the right one, or the input's bytes over it), rings the
// doorbell and runs the simulation. Every doorbell must end in kIntDone; every failure in
// kIntError with a kErrorCode and a non-empty error text; the core must be idle again.
// Anything else (a crash, a sanitizer report, a hang, an unnamed failure) is a finding.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>

#include "neff/neff.hpp"
#include "neuronsim/tlm.hpp"
#include "tests/sim/core_support.hpp"

namespace neuronsim::fuzz {

class DescriptorFuzz {
 public:
  // Outcomes of one input, counted.
  std::uint64_t runs = 0, launched = 0, refused_descriptor = 0, refused_neff = 0, failed_run = 0;

  DescriptorFuzz()
      : config_(core_test::target("trn1")),
        hbm_("hbm", config_),
        core_("core", config_),
        host_("host"),
        neff_(neff::write(core_test::square_kernel())) {
    sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
    core_test::bind_checked(core_, hbm_.socket);
    host_.socket.bind(core_.regs);
    hbm_.write(kNeffAt, neff_.data(), neff_.size());
  }

  void run_one(const std::uint8_t* data, std::size_t size) {
    Input in{data, size};
    ++runs;
    const bool corrupt_neff = in.byte() % 4 == 0;
    const std::uint64_t hbm = hbm_.size();
    // An address: the right one (half the time, so that most inputs get past a few
    // fields), in the arena, unaligned in it, at the memory's end, past it, near 2^64.
    auto address = [&](std::uint64_t right) -> std::uint64_t {
      const std::uint8_t kind = in.byte();
      if (kind < 128) return right;
      switch (kind % 5) {
        case 0:
          return kArena + in.u64() % kArenaBytes;
        case 1:
          return hbm - 1 - in.u64() % 4096;
        case 2:
          return hbm + in.u64() % (std::uint64_t{1} << 40);
        case 3:
          return UINT64_MAX - in.u64() % (std::uint64_t{1} << 20);
        default:
          return in.u64();
      }
    };
    const std::uint64_t at = address(kDescriptorAt);
    std::vector<std::uint8_t> d(descriptor::kHeaderBytes);
    put(d, 0, in.byte() % 8 == 7 ? in.u64() : descriptor::kMagic, 4);
    put(d, 4, in.byte() % 8 == 7 ? in.u64() : descriptor::kVersion, 4);
    const std::uint64_t neff_at = address(kNeffAt);
    put(d, 8, neff_at, 8);
    const std::uint8_t size_kind = in.byte();
    put(d, 16,
        size_kind < 192 ? neff_.size()
        : size_kind % 2 ? in.u64() % (2 * neff_.size() + 1)
                        : in.u64(),
        8);
    const std::uint8_t count_kind = in.byte();
    const std::uint64_t count = count_kind < 192 ? 2 : count_kind % 2 ? in.byte() : in.u64();
    put(d, 24, count, 4);
    const std::uint64_t listed = std::min<std::uint64_t>(count & 0xffffffff, 64);
    for (std::uint64_t i = 0; i < listed; ++i) {
      d.resize(d.size() + 8);
      put(d, descriptor::kHeaderBytes + 8 * i, address(kArena + i * 0x100000), 8);
    }
    const bool fits = at <= hbm && d.size() <= hbm - at;
    if (fits) hbm_.write(at, d.data(), d.size());
    // The rest of the input XORs into the NEFF's first bytes; the next input restores it.
    std::vector<std::uint8_t> neff = neff_;
    for (std::size_t i = 0; corrupt_neff && i < in.rest() && i < neff.size(); ++i)
      neff[i] ^= in.data[in.at + i];
    hbm_.write(kNeffAt, neff.data(), neff.size());

    host_.write(regs::kIntStatus, ~std::uint64_t{0});  // clear what the last input left
    host_.write(regs::kDescriptor, at);
    host_.write(regs::kDoorbell, 1);
    sc_core::sc_start();

    if (!core_.idle()) finding("the core is still busy when nothing is left to simulate");
    const std::uint64_t status = host_.read(regs::kIntStatus);
    if (!(status & regs::kIntDone)) finding("the doorbell ended without kIntDone");
    if (!(status & regs::kIntError)) {
      ++launched;
      return;
    }
    const std::uint64_t code = host_.read(regs::kErrorCode);
    const std::string text = host_.error_text();
    if (text.empty()) finding("a failure without an error text");
    if (code == regs::kErrorDescriptor)
      ++refused_descriptor;
    else if (code == regs::kErrorNeff)
      ++refused_neff;
    else if (code == regs::kErrorRun)
      ++failed_run;
    else
      finding("a failure with error code " + std::to_string(code));
  }

 private:
  static constexpr std::uint64_t kDescriptorAt = 0x1000, kNeffAt = 0x10000;
  // Right tensor addresses are in this arena, so inputs touch a bounded part of HBM.
  static constexpr std::uint64_t kArena = 0x100000, kArenaBytes = 0x1000000;

  struct Input {
    const std::uint8_t* data;
    std::size_t size;
    std::size_t at = 0;
    std::uint8_t byte() { return at < size ? data[at++] : 0; }
    std::uint64_t u64() {
      std::uint64_t v = 0;
      for (int i = 0; i < 8; ++i)
        v = (v << 8) | byte();
      return v;
    }
    std::size_t rest() const { return size - std::min(at, size); }
  };

  struct Host : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Host> socket{"socket"};
    explicit Host(sc_core::sc_module_name n) : sc_module(n) {}
    // Register accesses with no delay never wait: they may come from outside a process.
    std::uint64_t access(tlm::tlm_command command, std::uint64_t offset, std::uint64_t value) {
      tlm::tlm_generic_payload t;
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      t.set_command(command);
      t.set_address(offset);
      t.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
      t.set_data_length(8);
      t.set_streaming_width(8);
      socket->b_transport(t, delay);
      if (!t.is_response_ok()) finding("register access at " + std::to_string(offset) + " failed");
      return value;
    }
    void write(std::uint64_t offset, std::uint64_t value) {
      access(tlm::TLM_WRITE_COMMAND, offset, value);
    }
    std::uint64_t read(std::uint64_t offset) { return access(tlm::TLM_READ_COMMAND, offset, 0); }
    std::string error_text() { return core_test::read_error_text(socket); }
  };

  static void put(std::vector<std::uint8_t>& d, std::size_t at, std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      d[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
  }
  [[noreturn]] static void finding(const std::string& what) {
    std::fprintf(stderr, "fuzz_descriptor: %s\n", what.c_str());
    std::abort();
  }

  config::TargetConfig config_;
  Hbm hbm_;
  NeuronCore core_;
  Host host_;
  std::vector<std::uint8_t> neff_;
};

}  // namespace neuronsim::fuzz

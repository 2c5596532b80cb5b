#pragma once
// Profiles for the report tests, made with the traces fixtures (traces_fixtures.hpp):
// a single-kernel profile directory, and a hand-made launch sequence (host.json plus
// launch_000/ and launch_001/) in the shared format of docs/report.md.
#include <string>

#include "base/file_io.hpp"
#include "neff/neff.hpp"
#include "profile/directory.hpp"
#include "traces_fixtures.hpp"

namespace report_test {

using namespace traces_test;

// The traces fixture kernel with its HBM tensors named: `in` (bf16, 32 KiB) -> `out`
// (bf16, 32 KiB). fixture_trace() is a run of it (400 ns).
inline isa::Kernel named_kernel(const std::string& name, const std::string& in,
                                const std::string& out) {
  return fixture_kernel(name, in, out, isa::DType::bf16);
}

// Writes a profile of `k` with the fixture trace into `dir`.
inline void write_profile(const std::string& dir, const isa::Kernel& k) {
  const auto bytes = neff::write(k);
  const TraceData t = fixture_trace(neff::read(bytes, "fixture").header.hash);
  write_ntff(profile::prepare_profile(dir, bytes, t.info), t);
}

// Two launches x -> t -> y, each 400 ns on the device after 5 us of framework dispatch
// and 3 us of runtime call: total 17 us, device 0.8 us, dispatch gap 16.2 us.
inline std::string host_json(const std::string& second_profile = "launch_001",
                             double second_device_end_ns = 16800) {
  return R"({"format": "neuronsim-host-trace", "version": 1, "program": "two_step",
  "mode": "eager", "target": "trn2",
  "host_model": {"framework_dispatch_ns": {"value": 5000, "unit": "ns"},
                 "runtime_call_ns": {"value": 3000, "unit": "ns"}},
  "total_ns": 17000, "device_ns": 800,
  "launches": [
   {"index": 0, "name": "step0", "op": "square", "nodes": ["n0"], "profile": "launch_000",
    "framework_dispatch": {"start_ns": 0, "end_ns": 5000},
    "runtime_call": {"start_ns": 5000, "end_ns": 8000},
    "device": {"start_ns": 8000, "end_ns": 8400}, "host_ns": 8000, "device_ns": 400},
   {"index": 1, "name": "step1", "op": "mul", "nodes": ["n1"], "profile": ")" +
         second_profile + R"(",
    "framework_dispatch": {"start_ns": 8400, "end_ns": 13400},
    "runtime_call": {"start_ns": 13400, "end_ns": 16400},
    "device": {"start_ns": 16400, "end_ns": )" +
         std::to_string(second_device_end_ns) + R"(}, "host_ns": 8000, "device_ns": 400}]})";
}

inline void write_sequence(const std::string& dir, const std::string& host = host_json()) {
  write_profile(dir + "/launch_000", named_kernel("step0", "x", "t"));
  write_profile(dir + "/launch_001", named_kernel("step1", "t", "y"));
  neuronsim::write_file_atomic(dir + "/host.json", host);
}

}  // namespace report_test

// A sequence profile's host.json, as view/export/compare load it (profile/host_trace.cpp)
// and as the report loads it (report/load.cpp).
#include "fuzz/fuzz_common.hpp"
#include "profile/host_trace.hpp"
#include "report/load.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  neuronsim::fuzz::write_scratch("host.json", data, size);
  const std::string dir = neuronsim::fuzz::scratch_dir();
  neuronsim::fuzz::expect_clean([&] { neuronsim::profile::read_host_trace(dir); });
  neuronsim::fuzz::expect_clean([&] { neuronsim::report::load_run(dir); });
  return 0;
}

// A launch sequence (launch.json) read and, when it parses, its NEFFs bound to it.
#include "fuzz/fuzz_common.hpp"
#include "host/launch_sequence.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = neuronsim::fuzz::write_scratch("launch.json", data, size);
  neuronsim::fuzz::expect_clean([&] { neuronsim::host::read_launch_sequence(path); });
  return 0;
}

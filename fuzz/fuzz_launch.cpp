// A launch sequence (launch.json) read and, when it parses, its NEFFs bound to it.
#include "fuzz/fuzz_common.hpp"
#include "sequence/launch_sequence.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = neuronsim::fuzz::write_scratch("launch.json", data, size);
  neuronsim::fuzz::expect_clean([&] { neuronsim::sequence::read_launch_sequence(path); });
  return 0;
}

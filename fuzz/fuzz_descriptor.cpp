// A live core's register socket fed kernel descriptors made from the input
// (fuzz/descriptor_fuzz.hpp). SystemC elaborates once per process: the core is built at
// the first input and every input is one more doorbell on it.
#include "fuzz/descriptor_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static auto* fuzz = new neuronsim::fuzz::DescriptorFuzz();
  fuzz->run_one(data, size);
  return 0;
}

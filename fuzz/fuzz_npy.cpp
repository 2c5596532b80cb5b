// The .npy reader, and the conversion to a tensor of the shape the file claims.
#include "fuzz/fuzz_common.hpp"
#include "io/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::uint8_t> bytes(data, data + size);
  neuronsim::fuzz::expect_clean([&] { neuronsim::io::parse_npy(bytes, "fuzz.npy"); });
  return 0;
}

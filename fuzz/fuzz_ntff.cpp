// The NTFF reader (streaming, from a file) and the summary built from what it reads.
#include "fuzz/fuzz_common.hpp"
#include "traces/ntff.hpp"
#include "traces/summary.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = neuronsim::fuzz::write_scratch("t.ntff", data, size);
  neuronsim::fuzz::expect_clean([&] {
    const neuronsim::traces::TraceData t = neuronsim::traces::read_ntff(path);
    neuronsim::traces::summarize(t, {});
  });
  return 0;
}

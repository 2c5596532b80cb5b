// A target config file (a "base" preset plus overrides), loaded and validated.
#include "config/target_config.hpp"
#include "fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = neuronsim::fuzz::write_scratch("target.json", data, size);
  neuronsim::fuzz::expect_clean([&] { neuronsim::config::load_target("trn2", {path}); });
  neuronsim::fuzz::expect_clean([&] { neuronsim::config::load_target(path); });
  return 0;
}

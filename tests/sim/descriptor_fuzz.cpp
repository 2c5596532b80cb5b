// The descriptor fuzzer (fuzz/descriptor_fuzz.hpp) for a fixed number of seeded random
// inputs, in CTest: no crash, hang or unnamed failure, and every kind of outcome reached.
#include <catch2/catch.hpp>

#include <random>

#include "fuzz/descriptor_fuzz.hpp"

TEST_CASE("fuzz: 10000 random descriptors on a live core's register socket", "[fuzz]") {
  neuronsim::require_elaboration("test");
  neuronsim::fuzz::DescriptorFuzz fuzz;
  std::mt19937_64 random(21);  // the number: the same inputs every run
  std::vector<std::uint8_t> input;
  for (int i = 0; i < 10000; ++i) {  // (i is the input's number in a failure's output)
    input.resize(random() % 160);
    for (auto& b : input)
      b = static_cast<std::uint8_t>(random());
    fuzz.run_one(input.data(), input.size());
  }
  WARN("launched " << fuzz.launched << ", descriptor " << fuzz.refused_descriptor << ", NEFF "
                   << fuzz.refused_neff << ", run " << fuzz.failed_run);
  CHECK(fuzz.runs == 10000);
  CHECK(fuzz.launched > 0);
  CHECK(fuzz.refused_descriptor > 0);
  CHECK(fuzz.refused_neff > 0);
  CHECK(fuzz.failed_run > 0);
}

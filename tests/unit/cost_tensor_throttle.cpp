// The Tensor engine's throttle on its own (cost/tensor_throttle.hpp). Every case uses a
// start rate s = 50% and a ramp of R = 1000 cycles, so the work done from cold over t
// cycles of the ramp is W(t) = t/2 + t^2/4000, and W(R) = 750.
#include <catch2/catch.hpp>

#include "cost/tensor_throttle.hpp"

using neuronsim::isa::cost::TensorThrottle;

TEST_CASE("tensor throttle: a cold start runs at half rate and speeds up", "[cost][throttle]") {
  TensorThrottle t(50, 1000);
  // W(t) = 100: t^2 + 2000 t - 400000 = 0, t = 183.2 cycles, rounded up to 184.
  CHECK(t.run(0, 100) == 184);
  CHECK(t.warmth() == 184);
}

TEST_CASE("tensor throttle: a long burst pays the ramp once", "[cost][throttle]") {
  TensorThrottle t(50, 1000);
  // 750 of the 10000 cycles of work in the ramp's 1000 cycles, the other 9250 at full rate:
  // 10250, so the throttle adds R (1 - s) / 2 = 250.
  CHECK(t.run(0, 10000) == 10250);
  CHECK(t.warmth() == 1000);
  CHECK(t.run(10250, 500) == 500);  // released: back to back at full rate
}

TEST_CASE("tensor throttle: idle time runs the ramp back down", "[cost][throttle]") {
  TensorThrottle t(50, 1000);
  REQUIRE(t.run(0, 10000) == 10250);
  // 500 idle cycles: warmth 1000 - 500 = 500, where the rate is 75%. From W(500) = 312.5 to
  // 412.5: t = 825 / (0.5 + sqrt(0.25 + 0.4125)) = 627.9, so 127.9 cycles, 128.
  CHECK(t.run(10750, 100) == 128);
  // An idle gap as long as the ramp re-engages it fully: a cold start again.
  CHECK(t.run(10878 + 1000, 100) == 184);
}

TEST_CASE("tensor throttle: low utilisation keeps it engaged", "[cost][throttle]") {
  TensorThrottle t(50, 1000);
  // 100 cycles of work then 300 idle: each burst warms by 184 and cools by 300, so every
  // burst starts cold and takes 184.
  double start = 0;
  for (int i = 0; i < 20; ++i) {
    CHECK(t.run(start, 100) == 184);
    start += 184 + 300;
  }
}

TEST_CASE("tensor throttle: full start rate or no ramp costs nothing", "[cost][throttle]") {
  TensorThrottle full(100, 1000), none(50, 0);
  CHECK(full.run(0, 777) == 777);
  CHECK(none.run(0, 777) == 777);
  TensorThrottle t(50, 1000);
  CHECK(t.run(0, 0) == 0);  // no work: nothing, and the ramp does not move
  CHECK(t.warmth() == 0);
}

// Fitting lanes to pixels: wide slices stay themselves, narrow ones are summed per column,
// and a lane never needs more than about two rectangles per pixel column.
#include <catch2/catch.hpp>

#include "report/pixel_fit.hpp"

using namespace neuronsim::report;

TEST_CASE("report: slices a pixel or wider are drawn as themselves", "[report]") {
  // 1000 ps on 100 px: 10 ps per pixel. A 50 ps slice is 5 px wide.
  const std::vector<Slice> slices = {{100, 150, 3, 1, 0}, {500, 1000, 0, 1, 0}};
  const auto rects = fit_lane(slices, 1000, 100);
  REQUIRE(rects.size() == 2);
  CHECK_FALSE(rects[0].aggregated);
  CHECK(rects[0].x0 == Approx(10));
  CHECK(rects[0].x1 == Approx(15));
  CHECK(rects[0].kind == 3);
  CHECK(rects[1].x1 == Approx(100));
  CHECK(rects[1].coverage == 1);
}

TEST_CASE("report: narrow slices are summed per pixel column", "[report]") {
  // 10 ps per pixel. Column 2 (20..30 ps) holds three slices: kind 1 for 2+2 ps, kind 4 for
  // 3 ps: 7 of 10 ps busy -> coverage rounds up to 0.75, kind 1 dominates (4 > 3 ps).
  const std::vector<Slice> slices = {{20, 22, 1, 1, 0}, {23, 25, 1, 1, 0}, {26, 29, 4, 1, 0}};
  const auto rects = fit_lane(slices, 1000, 100);
  REQUIRE(rects.size() == 1);
  CHECK(rects[0].aggregated);
  CHECK(rects[0].x0 == 2);
  CHECK(rects[0].x1 == 3);
  CHECK(rects[0].kind == 1);
  CHECK(rects[0].count == 3);
  CHECK(rects[0].busy_ps == 7);
  CHECK(rects[0].coverage == 0.75);
  CHECK(rects[0].start_ps == 20);
  CHECK(rects[0].end_ps == 29);
}

TEST_CASE("report: alike adjacent columns merge into one rectangle", "[report]") {
  // One 4-ps slice every 5 ps for 200 ps: columns 0..19 are each 80% busy -> coverage 1.
  std::vector<Slice> slices;
  for (std::uint64_t t = 0; t < 200; t += 5)
    slices.push_back({t, t + 4, 2, 1, 0});
  const auto rects = fit_lane(slices, 1000, 100);
  REQUIRE(rects.size() == 1);
  CHECK(rects[0].x0 == 0);
  CHECK(rects[0].x1 == 20);
  CHECK(rects[0].count == 40);
  CHECK(rects[0].busy_ps == 160);
}

TEST_CASE("report: a lane of a million slices stays within two rectangles per column", "[report]") {
  // Alternating kinds so that nothing merges: the worst case for the budget.
  std::vector<Slice> slices;
  std::uint64_t t = 0;
  for (int i = 0; i < 1'000'000; ++i) {
    const std::uint64_t len = 1 + (i % 7 == 0 ? 5'000 : i % 13);
    slices.push_back({t, t + len, static_cast<std::uint16_t>(i % 5), 1, 0});
    t += len + (i % 3);
  }
  const double width = 1150;
  const auto rects = fit_lane(slices, t, width);
  CHECK(rects.size() <= 2 * static_cast<std::size_t>(width));
  std::uint64_t count = 0;
  double last_x = 0;
  for (const auto& r : rects) {
    count += r.count;
    CHECK(r.x0 >= last_x - 1);  // in time order
    last_x = r.x0;
  }
  CHECK(count == 1'000'000);  // every slice is accounted for
}

TEST_CASE("report: slices past the picture's end are clipped or dropped", "[report]") {
  const std::vector<Slice> slices = {{900, 1200, 0, 1, 0}, {1300, 1400, 0, 1, 0}};
  const auto rects = fit_lane(slices, 1000, 100);
  REQUIRE(rects.size() == 1);
  CHECK(rects[0].x1 == Approx(100));
  CHECK(fit_lane(slices, 0, 100).empty());
}

// Profile directories: pairing a NEFF with its trace, and refusing mismatched pairs.
#include <catch2/catch.hpp>
#include <filesystem>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "neff/neff.hpp"
#include "profile/directory.hpp"
#include "traces_fixtures.hpp"

using namespace traces_test;
namespace fs = std::filesystem;

namespace {
std::array<std::uint8_t, 32> hash_of(const std::vector<std::uint8_t>& neff_bytes) {
  return neff::read(neff_bytes, "test").header.hash;
}

// A complete profile of `k` in `dir`; returns the trace path.
std::string make_profile(const std::string& dir, const isa::Kernel& k) {
  const auto bytes = neff::write(k);
  const TraceData t = fixture_trace(hash_of(bytes));
  const std::string trace = profile::prepare_profile(dir, bytes, t.info);
  write_ntff(trace, t);
  return trace;
}
}  // namespace

TEST_CASE("traces: profile directory round trip", "[traces]") {
  TempDir dir("profile-ok");
  const isa::Kernel k = fixture_kernel();
  const std::string p = dir.file("prof");
  const std::string trace = make_profile(p, k);
  const std::uint64_t id = neff::profile_id(neff::read(neff::write(k), "k").header);
  CHECK(fs::path(trace).filename() == std::to_string(id) + "_instid_0_vnc_0.ntff");
  CHECK(fs::exists(fs::path(p) / ("neff_" + std::to_string(id) + ".neff")));

  const profile::Profile a = profile::open_profile(p);
  CHECK(a.ntff_path == trace);
  CHECK(a.neff.kernel == k);
  const profile::Profile b = profile::open_profile(trace);
  CHECK(b.neff_path == a.neff_path);
}

TEST_CASE("traces: a mismatched NEFF and trace pair is refused", "[traces]") {
  TempDir dir("profile-mismatch");
  const isa::Kernel k = fixture_kernel();
  const std::string p = dir.file("prof");
  const std::string trace = make_profile(p, k);
  // Overwrite the trace with one recorded for another kernel's NEFF.
  const auto other = neff::write(fixture_kernel("other_kernel"));
  write_ntff(trace, fixture_trace(hash_of(other)));
  try {
    profile::open_profile(p);
    FAIL("a mismatched pair was accepted");
  } catch (const neuronsim::Error& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("mismatched"));
    CHECK_THAT(what, Catch::Contains(trace));
    CHECK_THAT(what, Catch::Contains(".neff"));
  }
  // prepare_profile refuses to start a mismatched pair.
  REQUIRE_THROWS_WITH(
      profile::prepare_profile(dir.file("p2"), neff::write(k), fixture_trace(hash_of(other)).info),
      Catch::Contains("is not the NEFF's hash"));
}

TEST_CASE("traces: profile directory errors name the files", "[traces]") {
  TempDir dir("profile-errors");
  const isa::Kernel k = fixture_kernel();
  REQUIRE_THROWS_WITH(profile::open_profile(dir.path.string()),
                      Catch::Contains("no neff_<N>.neff"));
  const auto bytes = neff::write(k);
  const TraceData t = fixture_trace(hash_of(bytes));
  const std::string trace = profile::prepare_profile(dir.path.string(), bytes, t.info);
  REQUIRE_THROWS_WITH(profile::open_profile(dir.path.string()), Catch::Contains("no trace"));
  REQUIRE_THROWS_WITH(profile::open_profile(dir.file("x.ntff")), Catch::Contains("not a profile"));
  // A renamed NEFF no longer matches its id.
  const auto neff_path =
      (dir.path /
       fs::path(profile::neff_file_name(neff::profile_id(neff::read(bytes, "k").header))))
          .string();
  write_ntff(trace, t);
  fs::rename(neff_path, dir.file("neff_1.neff"));
  REQUIRE_THROWS_WITH(profile::open_profile(dir.path.string()),
                      Catch::Contains("not the one in its file name"));
  // A damaged trace is reported as such.
  fs::rename(dir.file("neff_1.neff"), neff_path);
  auto damaged = read_file(trace, Limit::ntff_file_bytes);
  damaged[0] = 'x';
  write_file_atomic(trace, damaged);
  REQUIRE_THROWS_WITH(profile::open_profile(dir.path.string()), Catch::Contains("bad magic"));
}

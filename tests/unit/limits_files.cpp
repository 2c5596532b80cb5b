// Resource limits (base/limits.hpp) and safe files (base/file_io.hpp): docs/limits.md.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/limits.hpp"
#include "tests/unit/npy_test_util.hpp"

using namespace neuronsim;
using Catch::Contains;

namespace {
struct ResetLimits {
  ~ResetLimits() { reset_limits(); }
};
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
}  // namespace

TEST_CASE("limits: --limit values parse with suffixes and refuse junk", "[limits]") {
  ResetLimits reset;
  set_limit_from_text("tensor_bytes=2G");
  CHECK(limit(Limit::tensor_bytes) == (std::uint64_t{2} << 30));
  set_limit_from_text("launches=12");
  CHECK(limit(Limit::launches) == 12);
  set_limit_from_text("export_bytes=3MiB");
  CHECK(limit(Limit::export_bytes) == 3u << 20);
  CHECK_THROWS_WITH(set_limit_from_text("nonsense=1"), Contains("unknown limit 'nonsense'"));
  CHECK_THROWS_WITH(set_limit_from_text("launches"), Contains("NAME=VALUE"));
  CHECK_THROWS_WITH(set_limit_from_text("launches=0"), Contains("not a positive integer"));
  CHECK_THROWS_WITH(set_limit_from_text("launches=-1"), Contains("not a positive integer"));
  CHECK_THROWS_WITH(set_limit_from_text("launches=99999999999999999999"),
                    Contains("not a positive integer"));
  CHECK_THROWS_WITH(set_limit_from_text("tensor_bytes=16777216T"), Contains("not a positive"));
  CHECK_THROWS_WITH(set_limit_from_text("launches=5X"), Contains("not a positive integer"));
}

TEST_CASE("limits: a breach names the amount, the limit and its flag", "[limits]") {
  ResetLimits reset;
  set_limit(Limit::launches, 10);
  CHECK_NOTHROW(check_limit(Limit::launches, 10, "x"));
  CHECK_THROWS_WITH(check_limit(Limit::launches, 11, "seq.json: launches"),
                    "seq.json: launches: 11 is more than the limit launches = 10 (raise it "
                    "with --limit launches=N)");
}

TEST_CASE("limits: size arithmetic is checked, totals saturate", "[limits]") {
  CHECK(checked_mul(1ull << 32, 1ull << 31) == (1ull << 63));
  CHECK(!checked_mul(1ull << 32, 1ull << 32));
  CHECK(!checked_add(UINT64_MAX, 1));
  CHECK(saturating_add(UINT64_MAX - 1, 5) == UINT64_MAX);
  CHECK(saturating_mul(1ull << 40, 1ull << 40) == UINT64_MAX);
  // 2^62 * 8 * 4 bytes wraps to 0 in plain arithmetic: refused, not accepted as empty.
  CHECK_THROWS_WITH(checked_tensor_bytes({1ull << 62, 8}, 4, "t"), Contains("tensor_bytes"));
  CHECK(checked_tensor_bytes({128, 512}, 4, "t") == 262144);
}

TEST_CASE("files: reads take regular files within the limit only", "[limits]") {
  ResetLimits reset;
  npy_test::TempDir dir;
  CHECK_THROWS_WITH(read_file("/dev/zero", Limit::neff_file_bytes), Contains("not a regular file"));
  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(read_file(fifo, Limit::json_file_bytes), Contains("not a regular file"));
  CHECK_THROWS_WITH(read_file(dir.path().string(), Limit::json_file_bytes),
                    Contains("is a directory"));
  const std::string small = dir.file("small.json");
  write_file_atomic(small, std::string(100, 'x'));
  CHECK(read_file(small, Limit::json_file_bytes).size() == 100);
  set_limit(Limit::json_file_bytes, 99);
  CHECK_THROWS_WITH(read_file(small, Limit::json_file_bytes), Contains("json_file_bytes = 99"));
}

TEST_CASE("files: writes replace a planted symlink, never write through it", "[limits]") {
  npy_test::TempDir dir;
  const std::string victim = dir.file("victim.txt");
  write_file_atomic(victim, std::string("victim"));
  const std::string out = dir.file("out.txt");
  std::filesystem::create_symlink(victim, out);
  // The old fixed temporary name, planted as a link too.
  std::filesystem::create_symlink(victim, out + ".tmp-neuronsim");
  write_file_atomic(out, std::string("new"));
  CHECK(slurp(victim) == "victim");
  CHECK(!std::filesystem::is_symlink(out));
  CHECK(slurp(out) == "new");
  // No temporary left behind.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    (void)e;
    ++files;
  }
  CHECK(files == 3);  // victim, out, the planted link
  CHECK_THROWS_WITH(write_file_atomic(dir.path().string(), std::string("x")),
                    Contains("is a directory"));
}

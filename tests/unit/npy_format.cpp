// .npy reading and writing against the bytes numpy 1.24 writes (header lengths noted from
// numpy.save / numpy.lib.format.write_array output), and every malformed-file error.
#include <catch2/catch.hpp>
#include <cstring>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "io/npy.hpp"
#include "tests/unit/npy_test_util.hpp"

using neuronsim::Error;
using neuronsim::isa::DType;
using namespace neuronsim::io;
using npy_test::f32_bytes;
using npy_test::npy_file;

namespace {
const std::string kF32x23 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
}  // namespace

TEST_CASE("npy: writes what numpy.save writes", "[npy]") {
  // np.save(np.arange(6, dtype='<f4').reshape(2, 3)): 152 bytes, header length 118.
  const auto data = f32_bytes({0, 1, 2, 3, 4, 5});
  CHECK(encode_npy(DType::fp32, {2, 3}, data, false) == npy_file(1, 118, kF32x23, data));
  // np.save(np.array([1, -2, 3], dtype=np.int8)): header length 118, descr '|i1'.
  const std::vector<std::uint8_t> i8 = {1, 0xfe, 3};
  CHECK(encode_npy(DType::int8, {3}, i8, false) ==
        npy_file(1, 118, "{'descr': '|i1', 'fortran_order': False, 'shape': (3,), }", i8));
  // np.save(np.zeros((), dtype='<f4')): 0-d, no growth padding; header length 118.
  const auto one = f32_bytes({0});
  CHECK(encode_npy(DType::fp32, {}, one, false) ==
        npy_file(1, 118, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", one));
  // np.save(np.zeros((128, 512), dtype='<f4')): header length 118 as well.
  const std::vector<std::uint8_t> zeros(128 * 512 * 4, 0);
  CHECK(encode_npy(DType::fp32, {128, 512}, zeros, false) ==
        npy_file(1, 118, "{'descr': '<f4', 'fortran_order': False, 'shape': (128, 512), }", zeros));
  // np.save(np.zeros((0,), dtype='<u2')): 128 bytes, empty data.
  CHECK(encode_npy(DType::uint16, {0}, {}, false) ==
        npy_file(1, 118, "{'descr': '<u2', 'fortran_order': False, 'shape': (0,), }", {}));
}

TEST_CASE("npy: headers stay 64-byte aligned for long shapes", "[npy]") {
  const std::vector<std::uint64_t> shape(8, 1);
  const auto bytes = encode_npy(DType::fp16, shape, {0, 0}, false);
  const std::size_t header_len = bytes[8] | (bytes[9] << 8);
  CHECK((10 + header_len) % 64 == 0);
  CHECK(bytes[10 + header_len - 1] == '\n');
  CHECK(parse_npy(bytes, "t").shape == shape);
}

TEST_CASE("npy: reads numpy's files of every version", "[npy]") {
  auto a = parse_npy(npy_file(1, 118, kF32x23, f32_bytes({0, 1, 2, 3, 4, 5})), "a.npy");
  CHECK(a.descr == "<f4");
  CHECK(a.shape == std::vector<std::uint64_t>{2, 3});
  CHECK(a.data == f32_bytes({0, 1, 2, 3, 4, 5}));
  // write_array(version=(2, 0)) of np.array([7, 65535], '<u2'): header length 116.
  a = parse_npy(npy_file(2, 116, "{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }",
                         {7, 0, 0xff, 0xff}),
                "b.npy");
  CHECK(a.descr == "<u2");
  CHECK(a.elems() == 2);
  // write_array(version=(3, 0)) of np.array([[1, -2]], '<f2'): header length 116.
  a = parse_npy(npy_file(3, 116, "{'descr': '<f2', 'fortran_order': False, 'shape': (1, 2), }",
                         {0, 0x3c, 0, 0xc0}),
                "c.npy");
  CHECK(a.shape == std::vector<std::uint64_t>{1, 2});
  // np.save(np.array(1.5)): a 0-d '<f8'.
  a = parse_npy(npy_file(1, 118, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
                         {0, 0, 0, 0, 0, 0, 0xf8, 0x3f}),
                "d.npy");
  CHECK(a.shape.empty());
  CHECK(a.elems() == 1);
}

TEST_CASE("npy: header variants numpy and python can produce", "[npy]") {
  // Keys in another order, double quotes, no trailing comma, Python 2 long literals.
  const auto data = f32_bytes({1, 2});
  for (const std::string dict : {
           "{'shape': (2,), 'fortran_order': False, 'descr': '<f4'}",
           "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2,)}",
           "{'descr': '<f4', 'fortran_order': False, 'shape': (2L,), }",
           "{'descr':'<f4','fortran_order':False,'shape':( 2 , ),}",
       }) {
    INFO(dict);
    const auto a = parse_npy(npy_file(1, 118, dict, data), "v.npy");
    CHECK(a.shape == std::vector<std::uint64_t>{2});
    CHECK(a.descr == "<f4");
  }
}

TEST_CASE("npy: malformed files name the file and the reason", "[npy]") {
  const auto data = f32_bytes({0, 1, 2, 3, 4, 5});
  const auto good = npy_file(1, 118, kF32x23, data);
  auto fails = [](const std::vector<std::uint8_t>& bytes, const std::string& reason) {
    INFO(reason);
    CHECK_THROWS_WITH(parse_npy(bytes, "in.npy"),
                      Catch::StartsWith("in.npy: ") && Catch::Contains(reason));
  };
  fails({}, "bad magic");
  fails({'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0}, "bad magic");
  auto v = good;
  v[6] = 4;
  fails(v, "unsupported .npy format version 4.0");
  fails({good.begin(), good.begin() + 9}, "truncated: the file ends inside the header length");
  fails({good.begin(), good.begin() + 60}, "truncated: the file ends inside the 118-byte header");
  fails(npy_file(2, 20000, kF32x23, data), "header too long (20000 bytes, at most 10000)");
  fails({good.begin(), good.end() - 1},
        "truncated: shape [2, 3] of '<f4' needs 24 data bytes, "
        "the file has 23");
  auto longer = good;
  longer.push_back(0);
  fails(longer, "size mismatch: shape [2, 3] of '<f4' needs 24 data bytes, the file has 25");
  fails(npy_file(1, 118, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", data),
        "Fortran-order arrays are not supported");
  fails(npy_file(1, 118, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", data),
        "big-endian dtype '>f4' is not supported");
  fails(npy_file(1, 118, "{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }", data),
        "dtype '<c8' is not supported");
  fails(npy_file(1, 118, "{'descr': '|O', 'fortran_order': False, 'shape': (6,), }", data),
        "dtype '|O' is not supported");
  fails(npy_file(1, 118, "{'descr': '<f4', 'fortran_order': False}", data),
        "header lacks one of 'descr', 'fortran_order', 'shape'");
  fails(npy_file(1, 118, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}", data),
        "unknown header key 'x'");
  fails(npy_file(1, 118, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 3), }", data),
        "shape is not a tuple of non-negative integers");
  fails(npy_file(1, 118, "{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3), }", data),
        "fortran_order is not True or False");
  fails(npy_file(1, 118, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } x", data),
        "unexpected text after the header dict");
  fails(npy_file(1, 118,
                 "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, "
                 "99999999999, 99999999999), }",
                 data),
        "is too large");
}

TEST_CASE("npy: read_npy of a missing file names it", "[npy]") {
  npy_test::TempDir dir;
  const std::string path = dir.file("absent.npy");
  CHECK_THROWS_WITH(read_npy(path), Catch::Contains(path));
}

TEST_CASE("npy: write_npy writes the whole file or nothing", "[npy]") {
  npy_test::TempDir dir;
  const std::string path = dir.file("out.npy");
  const auto data = f32_bytes({1.5f, -2.0f});
  write_npy(path, DType::fp32, {2}, data, false);
  const auto a = read_npy(path);
  CHECK(a.data == data);
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    (void)e;
    ++files;
  }
  CHECK(files == 1);  // no temporary left behind
  CHECK_THROWS_AS(write_npy(dir.file("no/such/dir.npy"), DType::fp32, {2}, data, false), Error);
  CHECK_THROWS_WITH(encode_npy(DType::fp32, {3}, data, false),
                    Catch::Contains("8 bytes do not hold a fp32 array of shape [3]"));
}

// .npy <-> tensor bytes for every dtype: round trips, widening of bf16/tf32/fp8, raw bits,
// and conversion of input arrays into a tensor's dtype.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "io/npy.hpp"
#include "isa/dtype.hpp"
#include "tests/unit/npy_test_util.hpp"

using neuronsim::isa::DType;
using neuronsim::isa::HbmTensor;
using namespace neuronsim::io;
namespace isa = neuronsim::isa;

namespace {

HbmTensor tensor(DType dt, std::vector<std::uint64_t> shape) {
  return HbmTensor{"t", dt, std::move(shape), isa::TensorRole::input, {}};
}

// Values every dtype holds exactly (small integers), plus some that round in narrow ones.
std::vector<std::uint8_t> sample_bytes(DType dt, std::size_t n) {
  const std::size_t size = isa::dtype_size(dt);
  std::vector<std::uint8_t> out(n * size);
  for (std::size_t i = 0; i < n; ++i) {
    const float v = isa::is_integer(dt) ? float(i % 7) - (isa::is_signed_integer(dt) ? 3 : 0)
                                        : (float(i) - 5.0f) * 0.3f;
    isa::store_fp32(dt, v, out.data() + i * size);
  }
  return out;
}

float f32_at(const std::vector<std::uint8_t>& data, std::size_t i) {
  float v;
  std::memcpy(&v, data.data() + 4 * i, 4);
  return v;
}

const DType kAll[] = {DType::fp32,     DType::tf32,     DType::bf16,   DType::fp16,
                      DType::fp8_e4m3, DType::fp8_e5m2, DType::int8,   DType::int16,
                      DType::int32,    DType::uint8,    DType::uint16, DType::uint32};

}  // namespace

TEST_CASE("npy: descr of every dtype", "[npy]") {
  CHECK(npy_descr(DType::fp32, false) == "<f4");
  CHECK(npy_descr(DType::fp16, false) == "<f2");
  CHECK(npy_descr(DType::int8, false) == "|i1");
  CHECK(npy_descr(DType::int16, false) == "<i2");
  CHECK(npy_descr(DType::int32, false) == "<i4");
  CHECK(npy_descr(DType::uint8, false) == "|u1");
  CHECK(npy_descr(DType::uint16, false) == "<u2");
  CHECK(npy_descr(DType::uint32, false) == "<u4");
  for (DType t : {DType::bf16, DType::tf32, DType::fp8_e4m3, DType::fp8_e5m2})
    CHECK(npy_descr(t, false) == "<f4");
  CHECK(npy_descr(DType::bf16, true) == "<u2");
  CHECK(npy_descr(DType::tf32, true) == "<u4");
  CHECK(npy_descr(DType::fp8_e4m3, true) == "|u1");
  CHECK(npy_descr(DType::fp8_e5m2, true) == "|u1");
  CHECK(npy_descr(DType::int32, true) == "<i4");  // raw bits only matter without a numpy type
}

TEST_CASE("npy: every dtype round-trips through a file", "[npy]") {
  for (DType dt : kAll) {
    for (bool raw : {false, true}) {
      INFO(isa::dtype_name(dt) << (raw ? " raw bits" : ""));
      const auto t = tensor(dt, {3, 4});
      const auto bytes = sample_bytes(dt, 12);
      const auto file = encode_npy(dt, t.shape, bytes, raw);
      const auto a = parse_npy(file, "rt.npy");
      CHECK(a.descr == npy_descr(dt, raw));
      CHECK(a.shape == t.shape);
      CHECK(npy_to_tensor(a, t, "rt.npy", raw) == bytes);
    }
  }
}

TEST_CASE("npy: bf16, tf32 and fp8 widen exactly to float32", "[npy]") {
  for (DType dt : {DType::bf16, DType::tf32, DType::fp8_e4m3, DType::fp8_e5m2}) {
    INFO(isa::dtype_name(dt));
    const auto bytes = sample_bytes(dt, 10);
    const auto a = parse_npy(encode_npy(dt, {10}, bytes, false), "w.npy");
    REQUIRE(a.data.size() == 40);
    for (std::size_t i = 0; i < 10; ++i)
      CHECK(f32_at(a.data, i) == isa::load_fp32(dt, bytes.data() + i * isa::dtype_size(dt)));
  }
  // The raw bits are the stored bytes unchanged.
  const auto bf = sample_bytes(DType::bf16, 4);
  const auto raw = parse_npy(encode_npy(DType::bf16, {4}, bf, true), "r.npy");
  CHECK(raw.data == bf);
}

TEST_CASE("npy: input arrays convert into the tensor's dtype", "[npy]") {
  using npy_test::f32_bytes;
  NpyArray a{{4}, "<f4", f32_bytes({1.0f, 2.5f, -3.5f, 1e10f})};
  // fp32 -> int8: round to nearest even, saturate.
  const auto i8 = npy_to_tensor(a, tensor(DType::int8, {4}), "a.npy");
  CHECK(i8 == std::vector<std::uint8_t>{1, 2, 0xfc, 0x7f});
  // fp32 -> bf16 rounds as store_fp32 does.
  const auto bf = npy_to_tensor(a, tensor(DType::bf16, {4}), "a.npy");
  for (std::size_t i = 0; i < 4; ++i) {
    std::uint8_t expect[2];
    isa::store_fp32(DType::bf16, f32_at(a.data, i), expect);
    CHECK(bf[2 * i] == expect[0]);
    CHECK(bf[2 * i + 1] == expect[1]);
  }
  // int64 -> int16 stays exact, then saturates.
  NpyArray i64{{2},
               "<i8",
               {0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,  // -5
                0, 0, 0, 0, 0, 1, 0, 0}};                        // 2^40
  CHECK(npy_to_tensor(i64, tensor(DType::int16, {2}), "b.npy") ==
        std::vector<std::uint8_t>{0xfb, 0xff, 0xff, 0x7f});
  // bool -> fp32 gives 0 and 1; '<f8' -> fp32; '<f2' -> fp32; '|u1' -> uint32.
  NpyArray b{{2}, "|b1", {1, 0}};
  CHECK(npy_to_tensor(b, tensor(DType::fp32, {2}), "c.npy") == f32_bytes({1.0f, 0.0f}));
  NpyArray d{{1}, "<f8", {0, 0, 0, 0, 0, 0, 0xf8, 0x3f}};
  CHECK(npy_to_tensor(d, tensor(DType::fp32, {1}), "d.npy") == f32_bytes({1.5f}));
  NpyArray h{{2}, "<f2", {0, 0x3c, 0, 0xc0}};
  CHECK(npy_to_tensor(h, tensor(DType::fp32, {2}), "h.npy") == f32_bytes({1.0f, -2.0f}));
  NpyArray u{{1}, "|u1", {200}};
  CHECK(npy_to_tensor(u, tensor(DType::uint32, {1}), "u.npy") ==
        std::vector<std::uint8_t>{200, 0, 0, 0});
  // Raw bits of a bf16 tensor are only taken as bits when asked; as numbers only when
  // cast is asked; neither: refused, naming the tensor (bit patterns saved without
  // --raw-bits would run as nonsense).
  NpyArray bits{{1}, "<u2", {0x80, 0x3f}};  // bf16 1.0
  CHECK(npy_to_tensor(bits, tensor(DType::bf16, {1}), "e.npy", true) == bits.data);
  const auto numeric = npy_to_tensor(bits, tensor(DType::bf16, {1}), "e.npy", false, true);
  CHECK(isa::load_fp32(DType::bf16, numeric.data()) == 16256.0f);  // 0x3f80 as a number
  CHECK_THROWS_WITH(
      npy_to_tensor(bits, tensor(DType::bf16, {1}), "e.npy"),
      Catch::Contains("e.npy: tensor t is bf16 but the file holds integers ('<u2')") &&
          Catch::Contains("--raw-bits") && Catch::Contains(",cast"));
}

TEST_CASE("npy: shape mismatch names tensor, expected and got", "[npy]") {
  NpyArray a{{2, 3}, "<f4", std::vector<std::uint8_t>(24)};
  auto t = tensor(DType::fp32, {3, 2});
  t.name = "weights";
  CHECK_THROWS_WITH(npy_to_tensor(a, t, "w.npy"),
                    "w.npy: tensor weights expects shape [3, 2], got [2, 3]");
  t.shape = {6};  // equal element count is not enough
  CHECK_THROWS_AS(npy_to_tensor(a, t, "w.npy"), neuronsim::Error);
}

namespace {

// Bit patterns that exercise every branch of a conversion: all fp16 patterns widened, then
// a stride through every fp32 pattern (signs, exponents, NaN payloads, subnormals, ties).
std::vector<float> probe_floats() {
  std::vector<float> v;
  for (std::uint32_t h = 0; h < 0x10000; h += 3)
    v.push_back(isa::fp16_to_fp32(static_cast<std::uint16_t>(h)));
  for (std::uint64_t u = 0; u < 0x100000000ull; u += 65521) {
    std::uint32_t bits = static_cast<std::uint32_t>(u);
    float f;
    std::memcpy(&f, &bits, 4);
    v.push_back(f);
  }
  for (std::uint32_t bits : {0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u, 0x00000001u,
                             0x80000001u, 0x3f808000u, 0x3f818000u, 0x477ff000u, 0x43780000u})
    v.push_back([&] {
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }());
  return v;
}

template <typename T>
std::vector<std::uint8_t> raw_bytes(const std::vector<T>& values) {
  std::vector<std::uint8_t> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

}  // namespace

TEST_CASE("npy: float inputs convert exactly as isa::store_fp32, in memory and from a file",
          "[npy]") {
  const std::vector<float> floats = probe_floats();
  std::vector<double> doubles(floats.begin(), floats.end());
  doubles.push_back(1e300);
  doubles.push_back(1.0 + 0x1p-30);  // rounds to float first, then to the tensor's dtype
  std::vector<std::uint16_t> halves;
  for (std::uint32_t h = 0; h < 0x10000; ++h)
    halves.push_back(static_cast<std::uint16_t>(h));
  struct Source {
    const char* descr;
    std::vector<std::uint8_t> bytes;
    std::vector<float> as_float;  // what store_element converts each element from
  };
  std::vector<float> halves_f, doubles_f;
  for (auto h : halves)
    halves_f.push_back(isa::fp16_to_fp32(h));
  for (double d : doubles)
    doubles_f.push_back(static_cast<float>(d));
  const Source sources[] = {{"<f4", raw_bytes(floats), floats},
                            {"<f2", raw_bytes(halves), halves_f},
                            {"<f8", raw_bytes(doubles), doubles_f}};
  npy_test::TempDir dir;
  for (const Source& s : sources)
    for (DType dt : kAll) {
      INFO(s.descr << " -> " << isa::dtype_name(dt));
      const std::uint64_t n = s.as_float.size();
      const std::size_t size = isa::dtype_size(dt);
      std::vector<std::uint8_t> expect(n * size);
      for (std::uint64_t i = 0; i < n; ++i)
        isa::store_fp32(dt, s.as_float[i], expect.data() + i * size);
      const NpyArray a{{n}, s.descr, s.bytes};
      CHECK(npy_to_tensor(a, tensor(dt, {n}), "p.npy") == expect);
      // From a file, in chunks (n is more than one chunk of 64 Ki elements).
      const std::string path = dir.file("p.npy");
      const std::string dict = "{'descr': '" + std::string(s.descr) +
                               "', 'fortran_order': False, 'shape': (" + std::to_string(n) +
                               ",), }";
      const auto file = npy_test::npy_file(1, 118, dict, s.bytes);
      neuronsim::write_file_atomic(path, file);
      CHECK(read_npy_tensor(path, tensor(dt, {n})) == expect);
    }
}

TEST_CASE("npy: write_npy writes what encode_npy encodes, widened exactly", "[npy]") {
  npy_test::TempDir dir;
  std::vector<std::uint8_t> bf16, tf32, fp8;
  for (std::uint32_t b = 0; b < 0x10000; ++b) {  // every bf16 pattern, twice: > one chunk
    bf16.push_back(static_cast<std::uint8_t>(b));
    bf16.push_back(static_cast<std::uint8_t>(b >> 8));
    bf16.push_back(static_cast<std::uint8_t>(b));
    bf16.push_back(static_cast<std::uint8_t>(b >> 8));
  }
  for (float f : probe_floats())
    isa::store_fp32(DType::tf32, f, &*tf32.insert(tf32.end(), 4, 0));
  for (int b = 0; b < 256; ++b)
    fp8.push_back(static_cast<std::uint8_t>(b));
  const std::pair<DType, const std::vector<std::uint8_t>*> cases[] = {{DType::bf16, &bf16},
                                                                      {DType::tf32, &tf32},
                                                                      {DType::fp8_e4m3, &fp8},
                                                                      {DType::fp8_e5m2, &fp8},
                                                                      {DType::fp32, &tf32}};
  for (const auto& [dt, bytes] : cases)
    for (bool raw : {false, true}) {
      INFO(isa::dtype_name(dt) << (raw ? " raw bits" : ""));
      const std::size_t size = isa::dtype_size(dt);
      const std::vector<std::uint64_t> shape = {bytes->size() / size};
      const auto encoded = encode_npy(dt, shape, *bytes, raw);
      const std::string path = dir.file("w.npy");
      write_npy(path, dt, shape, *bytes, raw);
      CHECK(neuronsim::read_file(path, neuronsim::Limit::npy_file_bytes) == encoded);
      if (raw || dt == DType::fp32) continue;
      const auto a = parse_npy(encoded, "w.npy");
      bool all_equal = true;
      for (std::size_t i = 0; i < shape[0]; ++i) {
        const float want = isa::load_fp32(dt, bytes->data() + i * size);
        const float got = f32_at(a.data, i);
        all_equal = all_equal && std::memcmp(&want, &got, 4) == 0;
      }
      CHECK(all_equal);
    }
}

TEST_CASE("npy: read_npy_tensor fails as read_npy then npy_to_tensor do", "[npy]") {
  npy_test::TempDir dir;
  const std::string path = dir.file("e.npy");
  const auto f32x6 = npy_test::f32_bytes({0, 1, 2, 3, 4, 5});
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  auto two_step = [&](const HbmTensor& t) -> std::string {
    try {
      npy_to_tensor(read_npy(path), t, path);
    } catch (const neuronsim::Error& e) {
      return e.what();
    }
    return "";
  };
  auto one_step = [&](const HbmTensor& t) -> std::string {
    try {
      read_npy_tensor(path, t);
    } catch (const neuronsim::Error& e) {
      return e.what();
    }
    return "";
  };
  std::vector<std::vector<std::uint8_t>> files = {
      {},
      {0x93, 'N', 'U'},
      {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 118},
      {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 118, 0, 0},
      {0x93, 'N', 'U', 'M', 'P', 'Y', 4, 0, 118, 0, 0, 0},
      npy_test::npy_file(1, 118, dict, f32x6),
      npy_test::npy_file(1, 118, dict, {1, 2, 3}),
      npy_test::npy_file(3, 116, dict, npy_test::f32_bytes({0, 1, 2, 3, 4, 5, 6})),
      npy_test::npy_file(1, 118, "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }",
                         std::vector<std::uint8_t>(16)),
      npy_test::npy_file(1, 118, "{'descr': '<u2', 'fortran_order': False, 'shape': (2, 3), }",
                         std::vector<std::uint8_t>(12)),
      npy_test::npy_file(1, 20000, dict, f32x6),
  };
  for (std::size_t i = 0; i < files.size(); ++i)
    for (const auto& t : {tensor(DType::bf16, {2, 3}), tensor(DType::fp32, {3, 2})}) {
      INFO("file " << i << ", " << isa::dtype_name(t.dtype));
      neuronsim::write_file_atomic(path, files[i]);
      CHECK(one_step(t) == two_step(t));
    }
  CHECK_THROWS_WITH(read_npy_tensor(dir.file("missing.npy"), tensor(DType::fp32, {1})),
                    Catch::Contains("missing.npy"));
}

// .npy <-> tensor bytes for every dtype: round trips, widening of bf16/tf32/fp8, raw bits,
// and conversion of input arrays into a tensor's dtype.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "io/npy.hpp"
#include "isa/dtype.hpp"
#include "isa/error.hpp"
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

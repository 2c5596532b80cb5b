// Input specs: parsing, the generators (checked against an independent Python
// implementation of splitmix64 + xoshiro256** + Box-Muller), and matching to a kernel.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "base/error.hpp"
#include "io/inputs.hpp"
#include "io/npy.hpp"
#include "isa/dtype.hpp"
#include "tests/unit/npy_test_util.hpp"

using neuronsim::isa::DType;
using neuronsim::isa::HbmTensor;
using namespace neuronsim::io;
namespace isa = neuronsim::isa;

namespace {

HbmTensor tensor(const char* name, DType dt, std::vector<std::uint64_t> shape) {
  return HbmTensor{name, dt, std::move(shape), isa::TensorRole::input, {}};
}

std::vector<float> as_f32(const std::vector<std::uint8_t>& bytes, DType dt) {
  const std::size_t size = isa::dtype_size(dt);
  std::vector<float> v(bytes.size() / size);
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = isa::load_fp32(dt, bytes.data() + i * size);
  return v;
}

std::vector<float> generated(const std::string& spec, const HbmTensor& t, std::uint64_t seed = 0) {
  return as_f32(make_input(parse_input_spec(spec), t, seed), t.dtype);
}

}  // namespace

TEST_CASE("inputs: spec forms", "[inputs]") {
  using Kind = InputSpec::Kind;
  auto s = parse_input_spec("x=data/in.npy");
  CHECK(s.tensor == "x");
  CHECK(s.kind == Kind::file);
  CHECK(s.path == "data/in.npy");
  CHECK(parse_input_spec("x=./zeros").kind == Kind::file);
  const auto cast = parse_input_spec("x=data/in.npy,cast");  // integers to a float tensor
  CHECK((cast.kind == Kind::file && cast.path == "data/in.npy" && cast.cast));
  CHECK_FALSE(parse_input_spec("x=data/in.npy").cast);
  CHECK(parse_input_spec("x=a,b.npy").path == "a,b.npy");  // a path is taken whole
  CHECK(parse_input_spec("x=zeros").kind == Kind::zeros);
  CHECK(parse_input_spec("x=ones,seed=3").seed == 3u);
  s = parse_input_spec("x=fill:2.5");
  CHECK(s.kind == Kind::fill);
  CHECK(s.a == 2.5);
  s = parse_input_spec("w=uniform:-1,+1e-1,seed=18446744073709551615");
  CHECK(s.kind == Kind::uniform);
  CHECK(s.a == -1.0);
  CHECK(s.b == 0.1);
  CHECK(s.seed == 18446744073709551615ull);
  s = parse_input_spec("x=normal:0,1");
  CHECK(s.kind == Kind::normal);
  CHECK(!s.seed);
  CHECK(std::isnan(parse_input_spec("x=fill:nan").a));
}

TEST_CASE("inputs: bad specs name the spec and the reason", "[inputs]") {
  auto fails = [](const std::string& spec, const std::string& reason) {
    INFO(spec);
    CHECK_THROWS_WITH(parse_input_spec(spec),
                      Catch::StartsWith("input '" + spec + "': ") && Catch::Contains(reason));
  };
  fails("x", "expected NAME=SOURCE");
  fails("=zeros", "the tensor name is empty");
  fails("x=", "the source after '=' is empty");
  fails("x=zeros:1", "zeros takes no parameters");
  fails("x=fill", "fill needs parameters: fill:VALUE");
  fails("x=fill,seed=1", "fill needs parameters");
  fails("x=uniform:1", "uniform needs 2 numbers: uniform:LO,HI");
  fails("x=uniform:a,1", "value 'a' is not a number");
  fails("x=uniform:1,2x", "value '2x' is not a number");
  fails("x=uniform:2,1", "uniform needs finite LO <= HI");
  fails("x=uniform:0,inf", "uniform needs finite LO <= HI");
  fails("x=normal:0,-1", "normal needs a finite MEAN and a finite STD >= 0");
  fails("x=normal:0,1,3", "unexpected '3'");
  fails("x=normal:0,1,seed=-4", "seed '-4' is not an unsigned 64-bit integer");
  fails("x=normal:0,1,seed=99999999999999999999", "is not an unsigned 64-bit integer");
  fails("x=normal:0,1,seed=1,seed=2", "seed given twice");
}

TEST_CASE("inputs: constant generators round into the dtype", "[inputs]") {
  CHECK(generated("x=zeros", tensor("x", DType::fp32, {2, 2})) == std::vector<float>(4, 0.0f));
  CHECK(generated("x=ones", tensor("x", DType::bf16, {3})) == std::vector<float>(3, 1.0f));
  CHECK(generated("x=fill:2.5", tensor("x", DType::int8, {2})) == std::vector<float>(2, 2.0f));
  CHECK(generated("x=fill:300", tensor("x", DType::int8, {1})) == std::vector<float>{127.0f});
  CHECK(generated("x=fill:0.1", tensor("x", DType::bf16, {1}))[0] ==
        isa::bf16_to_fp32(isa::fp32_to_bf16(0.1f)));
  const auto ones = make_input(parse_input_spec("x=ones"), tensor("x", DType::uint16, {2}), 0);
  CHECK(ones == std::vector<std::uint8_t>{1, 0, 1, 0});
}

TEST_CASE("inputs: uniform matches the reference generator", "[inputs]") {
  // Values from an independent Python implementation of splitmix64 -> xoshiro256** with
  // u = (next >> 11) * 2^-53 and lo + (hi - lo) * u rounded to float32.
  const auto t = tensor("x", DType::fp32, {4});
  CHECK(generated("x=uniform:-1,1,seed=42", t) ==
        std::vector<float>{-0.8322740793228149f, -0.2420395016670227f, 0.3600868284702301f,
                           0.8493859171867371f});
  // Without a seed of its own: splitmix64(global_seed ^ fnv1a64(name)) seeds the stream.
  const auto t3 = tensor("x", DType::fp32, {3});
  CHECK(generated("x=uniform:0,1", t3, 0) ==
        std::vector<float>{0.2548585534095764f, 0.15802545845508575f, 0.765110433101654f});
}

TEST_CASE("inputs: normal matches the reference Box-Muller", "[inputs]") {
  const auto t = tensor("x", DType::fp32, {5});
  CHECK(generated("x=normal:0,1,seed=7", t) ==
        std::vector<float>{-0.27902400493621826f, 1.5277231931686401f, 1.899768590927124f,
                           -0.22669574618339539f, 2.136306047439575f});
}

TEST_CASE("inputs: generator statistics", "[inputs]") {
  const auto t = tensor("x", DType::fp32, {256, 256});
  const auto u = generated("x=uniform:-2,6", t, 5);
  double sum = 0;
  float lo = u[0], hi = u[0];
  for (float v : u) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  CHECK(lo >= -2.0f);
  CHECK(hi <= 6.0f);
  CHECK(hi - lo > 7.99f);
  CHECK(sum / u.size() == Approx(2.0).margin(0.05));
  const auto n = generated("x=normal:3,2", t, 5);
  double s1 = 0, s2 = 0;
  for (float v : n) {
    s1 += v;
    s2 += double(v) * v;
  }
  const double mean = s1 / n.size();
  CHECK(mean == Approx(3.0).margin(0.03));
  CHECK(std::sqrt(s2 / n.size() - mean * mean) == Approx(2.0).margin(0.03));
}

TEST_CASE("inputs: seeds are deterministic and separate tensors", "[inputs]") {
  const auto x = tensor("x", DType::bf16, {64});
  const auto y = tensor("y", DType::bf16, {64});
  const auto spec_x = parse_input_spec("x=normal:0,1");
  const auto spec_y = parse_input_spec("y=normal:0,1");
  CHECK(make_input(spec_x, x, 9) == make_input(spec_x, x, 9));
  CHECK(make_input(spec_x, x, 9) != make_input(spec_x, x, 10));
  CHECK(make_input(spec_x, x, 9) != make_input(spec_y, y, 9));
  // An explicit seed ignores the global one.
  const auto fixed = parse_input_spec("x=normal:0,1,seed=4");
  CHECK(make_input(fixed, x, 1) == make_input(fixed, x, 2));
  // Values are rounded into bf16: the bytes are bf16 elements.
  CHECK(make_input(fixed, x, 1).size() == 128);
}

TEST_CASE("inputs: file specs read and convert .npy files", "[inputs]") {
  npy_test::TempDir dir;
  const std::string path = dir.file("x.npy");
  write_npy(path, DType::fp32, {2, 2}, npy_test::f32_bytes({1.0f, 2.0f, 3.0f, 4.5f}), false);
  const auto t = tensor("x", DType::fp16, {2, 2});
  CHECK(generated("x=" + path, t) == std::vector<float>{1.0f, 2.0f, 3.0f, 4.5f});
  const auto wrong = tensor("x", DType::fp16, {4});
  CHECK_THROWS_WITH(make_input(parse_input_spec("x=" + path), wrong, 0),
                    Catch::StartsWith("input 'x=" + path + "': " + path +
                                      ": tensor x expects "
                                      "shape [4], got [2, 2]"));
  CHECK_THROWS_WITH(make_input(parse_input_spec("x=" + dir.file("none.npy")), t, 0),
                    Catch::StartsWith("input 'x=" + dir.file("none.npy") + "': ") &&
                        Catch::Contains("cannot open"));
}

TEST_CASE("inputs: make_inputs matches specs to input tensors", "[inputs]") {
  isa::Kernel k;
  k.tensors = {tensor("x", DType::fp32, {2}), tensor("w", DType::bf16, {3}),
               HbmTensor{"y", DType::fp32, {2}, isa::TensorRole::output, {}}};
  const auto data =
      make_inputs(k, {parse_input_spec("w=ones"), parse_input_spec("x=uniform:0,1")}, 1);
  REQUIRE(data.size() == 3);
  CHECK(data[0].size() == 8);
  CHECK(data[1].size() == 6);
  CHECK(data[2].empty());
  auto fails = [&](std::vector<std::string> texts, const std::string& reason) {
    std::vector<InputSpec> specs;
    for (const auto& t : texts)
      specs.push_back(parse_input_spec(t));
    INFO(reason);
    CHECK_THROWS_WITH(make_inputs(k, specs, 1), Catch::Contains(reason));
  };
  fails({"x=zeros"}, "no data for input tensor(s) w: give NAME=FILE.npy");
  fails({}, "no data for input tensor(s) x, w");
  fails({"x=zeros", "w=zeros", "z=ones"}, "input 'z=ones': the kernel has no tensor z");
  fails({"x=zeros", "w=zeros", "y=ones"}, "input 'y=ones': tensor y is output, not an input");
  fails({"x=zeros", "w=zeros", "x=ones"},
        "input 'x=ones': tensor x already has data from "
        "'x=zeros'");
}

namespace {

// The generators written the plain way, one element after another (splitmix64 seeding
// xoshiro256**, u = (next >> 11) * 2^-53, Box-Muller with the spare), to check the chunked
// and threaded ones against.
struct ReferenceRng {
  std::uint64_t s[4];
  explicit ReferenceRng(std::uint64_t seed) {
    for (auto& w : s) {
      std::uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      w = z ^ (z >> 31);
    }
  }
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  double unit() {
    const std::uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return static_cast<double>(result >> 11) * 0x1.0p-53;
  }
};

std::vector<float> reference_normal(std::uint64_t seed, std::size_t n, double mean, double sd) {
  ReferenceRng rng(seed);
  std::vector<float> v;
  while (v.size() < n) {
    const double u1 = 1.0 - rng.unit(), u2 = rng.unit();
    const double r = std::sqrt(-2.0 * std::log(u1)), theta = 6.283185307179586476925286766559 * u2;
    v.push_back(static_cast<float>(mean + sd * (r * std::cos(theta))));
    if (v.size() < n) v.push_back(static_cast<float>(mean + sd * (r * std::sin(theta))));
  }
  return v;
}

}  // namespace

TEST_CASE("inputs: large generated tensors equal the one-element-at-a-time generators",
          "[inputs]") {
  // Odd, and several chunks of 64 Ki elements: the normal generator draws a chunk's
  // uniforms first and transforms them on the numerics threads.
  const std::uint64_t n = 3 * 65536 + 11;
  const auto normal = generated("x=normal:0.5,2,seed=7", tensor("x", DType::fp32, {n}));
  CHECK(normal == reference_normal(7, n, 0.5, 2));
  const auto first = generated("x=normal:0,1,seed=7", tensor("x", DType::fp32, {n}));
  CHECK(std::vector<float>(first.begin(), first.begin() + 5) ==
        std::vector<float>{-0.27902400493621826f, 1.5277231931686401f, 1.899768590927124f,
                           -0.22669574618339539f, 2.136306047439575f});
  // Into bf16: each value rounded as an engine stores it.
  const auto bf =
      make_input(parse_input_spec("x=normal:0,1,seed=3"), tensor("x", DType::bf16, {n}), 0);
  const auto ref = reference_normal(3, n, 0, 1);
  std::vector<std::uint8_t> expect(2 * n);
  for (std::uint64_t i = 0; i < n; ++i)
    isa::store_fp32(DType::bf16, ref[i], expect.data() + 2 * i);
  CHECK(bf == expect);
  // uniform, through the same chunks.
  ReferenceRng rng(42);
  const auto u = generated("x=uniform:-1,1,seed=42", tensor("x", DType::fp32, {n}));
  bool same = true;
  for (std::uint64_t i = 0; i < n; ++i)
    same = same && u[i] == static_cast<float>(-1.0 + 2.0 * rng.unit());
  CHECK(same);
}

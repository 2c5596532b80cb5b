// Input specs: parsing, deterministic generators, and matching specs to a kernel's inputs.
#include "io/inputs.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>

#include "base/error.hpp"
#include "base/parallel.hpp"
#include "io/box_muller.hpp"
#include "io/float_convert.hpp"
#include "io/npy.hpp"
#include "isa/dtype.hpp"

namespace neuronsim::io {

namespace {

// splitmix64 (Steele, Lea, Flood 2014): turns any 64-bit seed into well-mixed state.
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// xoshiro256** (Blackman, Vigna 2018): integer-only, so identical on every platform.
class Xoshiro256 {
 public:
  explicit Xoshiro256(std::uint64_t seed) {
    for (auto& word : s_)
      word = splitmix64(seed);
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1) with 53 random bits: exact in a double, no rounding.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

// FNV-1a of the tensor name: separates the streams of tensors sharing a global seed.
std::uint64_t name_hash(const std::string& name) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : name)
    h = (h ^ c) * 0x100000001b3ull;
  return h;
}

[[noreturn]] void spec_error(std::string_view text, const std::string& reason) {
  throw Error("input '" + std::string(text) + "': " + reason);
}

double parse_number(std::string_view text, std::string_view token, const char* what) {
  std::string_view t = token;
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);  // from_chars takes no leading '+'
  double v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size())
    spec_error(text, std::string(what) + " '" + std::string(token) + "' is not a number");
  return v;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  while (true) {
    const std::size_t at = s.find(sep);
    parts.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return parts;
    s.remove_prefix(at + 1);
  }
}

struct Generator {
  const char* name;
  InputSpec::Kind kind;
  std::size_t params;
  const char* usage;
};
constexpr Generator kGenerators[] = {
    {"zeros", InputSpec::Kind::zeros, 0, "zeros"},
    {"ones", InputSpec::Kind::ones, 0, "ones"},
    {"fill", InputSpec::Kind::fill, 1, "fill:VALUE"},
    {"uniform", InputSpec::Kind::uniform, 2, "uniform:LO,HI"},
    {"normal", InputSpec::Kind::normal, 2, "normal:MEAN,STD"},
};

// Generated elements go through a buffer of this many fp32 values at a time (it stays in
// cache), then into the tensor's dtype (io/float_convert.hpp).
constexpr std::uint64_t kChunk = 64 * 1024;

// Every element of `tensor` set to what `next_value` returns (in element order), rounded
// to fp32 and then into the tensor's dtype.
template <typename NextValue>
std::vector<std::uint8_t> generate(const isa::HbmTensor& tensor, NextValue next_value) {
  const std::size_t size = isa::dtype_size(tensor.dtype);
  const std::uint64_t n = tensor.elems();
  std::vector<std::uint8_t> out(n * size);
  std::vector<float> values(std::min(n, kChunk));
  for (std::uint64_t at = 0; at < n; at += kChunk) {
    const std::uint64_t count = std::min(kChunk, n - at);
    for (std::uint64_t i = 0; i < count; ++i)
      values[i] = static_cast<float>(next_value());
    store_fp32_elements(values.data(), count, tensor.dtype, out.data() + at * size);
  }
  return out;
}

// The normal generator: Box-Muller (io/box_muller.hpp), each pair of uniforms (u1, u2) giving
// r cos(theta) and then r sin(theta), r = sqrt(-2 log(u1)), theta = 2 pi u2, scaled to
// mean + std * z.
// The draws are sequential, the logarithms and sines (most of the time) are not: a chunk's
// draws come first, then its pairs are transformed in parts on the numerics threads
// (base/parallel.hpp). Each element is computed whole by one thread with the same
// operations, so the bytes are those of the one-thread loop, for any thread count.
std::vector<std::uint8_t> generate_normal(const isa::HbmTensor& tensor, Xoshiro256& rng,
                                          double mean, double std_dev) {
  const std::size_t size = isa::dtype_size(tensor.dtype);
  const std::uint64_t n = tensor.elems();
  std::vector<std::uint8_t> out(n * size);
  constexpr std::uint64_t kPairs = kChunk / 2;
  std::vector<double> u1(std::min(kPairs, (n + 1) / 2)), u2(u1.size());
  std::vector<float> values(2 * u1.size());
  constexpr std::size_t kParts = 8;
  for (std::uint64_t at = 0; at < n; at += kChunk) {
    const std::uint64_t count = std::min(kChunk, n - at);
    const std::uint64_t pairs = (count + 1) / 2;  // an odd tail draws a last pair all the same
    for (std::uint64_t p = 0; p < pairs; ++p) {
      u1[p] = 1.0 - rng.unit();  // (0, 1]: log(u1) is finite
      u2[p] = rng.unit();
    }
    auto transform = [&](std::size_t part) {
      const std::uint64_t begin = pairs * part / kParts, end = pairs * (part + 1) / kParts;
      box_muller(u1.data() + begin, u2.data() + begin, end - begin, mean, std_dev,
                 values.data() + 2 * begin);
    };
    if (pairs >= 1024)
      parallel_for(kParts, transform);
    else
      for (std::size_t part = 0; part < kParts; ++part)
        transform(part);
    store_fp32_elements(values.data(), count, tensor.dtype, out.data() + at * size);
  }
  return out;
}

}  // namespace

InputSpec parse_input_spec(std::string_view text) {
  InputSpec spec;
  spec.text = std::string(text);
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos) spec_error(text, "expected NAME=SOURCE");
  spec.tensor = std::string(text.substr(0, eq));
  const std::string_view source = text.substr(eq + 1);
  if (spec.tensor.empty()) spec_error(text, "the tensor name is empty");
  if (source.empty()) spec_error(text, "the source after '=' is empty");

  const std::string_view head = source.substr(0, source.find_first_of(":,"));
  const Generator* gen = nullptr;
  for (const auto& g : kGenerators)
    if (head == g.name) gen = &g;
  if (!gen) {  // a file
    spec.kind = InputSpec::Kind::file;
    spec.path = std::string(source);
    constexpr std::string_view kCast = ",cast";
    if (spec.path.size() > kCast.size() &&
        std::string_view(spec.path).substr(spec.path.size() - kCast.size()) == kCast) {
      spec.cast = true;
      spec.path.resize(spec.path.size() - kCast.size());
    }
    return spec;
  }
  spec.kind = gen->kind;
  std::string_view rest = source.substr(head.size());
  std::vector<std::string_view> fields;
  if (!rest.empty()) {
    if (gen->params > 0 && rest[0] != ':')
      spec_error(text, std::string(gen->name) + " needs parameters: " + gen->usage);
    if (gen->params == 0 && rest[0] == ':')
      spec_error(text, std::string(gen->name) + " takes no parameters");
    rest.remove_prefix(1);
    fields = split(rest, ',');
  } else if (gen->params > 0) {
    spec_error(text, std::string(gen->name) + " needs parameters: " + gen->usage);
  }
  if (fields.size() < gen->params)
    spec_error(text, std::string(gen->name) + " needs " + std::to_string(gen->params) +
                         (gen->params == 1 ? " number: " : " numbers: ") + gen->usage);
  double params[2] = {0, 0};
  for (std::size_t i = 0; i < gen->params; ++i)
    params[i] = parse_number(text, fields[i], "value");
  for (std::size_t i = gen->params; i < fields.size(); ++i) {
    const std::string_view f = fields[i];
    if (f.substr(0, 5) != "seed=")
      spec_error(text, "unexpected '" + std::string(f) + "' (" + gen->usage + "[,seed=N])");
    std::uint64_t seed = 0;
    const std::string_view digits = f.substr(5);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), seed);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
      spec_error(text, "seed '" + std::string(digits) + "' is not an unsigned 64-bit integer");
    if (spec.seed) spec_error(text, "seed given twice");
    spec.seed = seed;
  }
  spec.a = params[0];
  spec.b = params[1];
  if (spec.kind == InputSpec::Kind::uniform) {
    if (!std::isfinite(spec.a) || !std::isfinite(spec.b) || spec.a > spec.b)
      spec_error(text, "uniform needs finite LO <= HI");
  } else if (spec.kind == InputSpec::Kind::normal) {
    if (!std::isfinite(spec.a) || !std::isfinite(spec.b) || spec.b < 0)
      spec_error(text, "normal needs a finite MEAN and a finite STD >= 0");
  }
  return spec;
}

std::vector<std::uint8_t> make_input(const InputSpec& spec, const isa::HbmTensor& tensor,
                                     std::uint64_t global_seed, bool raw_bits) {
  using Kind = InputSpec::Kind;
  if (spec.kind == Kind::file) {
    try {
      return read_npy_tensor(spec.path, tensor, raw_bits, spec.cast);
    } catch (const Error& e) {
      spec_error(spec.text, e.what());
    }
  }
  std::uint64_t mix = global_seed ^ name_hash(tensor.name);
  Xoshiro256 rng(spec.seed ? *spec.seed : splitmix64(mix));
  switch (spec.kind) {
    case Kind::zeros:
      return generate(tensor, [] { return 0.0; });
    case Kind::ones:
      return generate(tensor, [] { return 1.0; });
    case Kind::fill:
      return generate(tensor, [&] { return spec.a; });
    case Kind::uniform:
      return generate(tensor, [&] { return spec.a + (spec.b - spec.a) * rng.unit(); });
    case Kind::normal:
      return generate_normal(tensor, rng, spec.a, spec.b);
    case Kind::file:
      break;
  }
  spec_error(spec.text, "unknown source");
}

std::vector<std::vector<std::uint8_t>> make_inputs(const isa::Kernel& k,
                                                   const std::vector<InputSpec>& specs,
                                                   std::uint64_t global_seed, bool raw_bits) {
  std::map<std::string, std::size_t> tensor_index;
  for (std::size_t i = 0; i < k.tensors.size(); ++i)
    tensor_index.emplace(k.tensors[i].name, i);
  std::vector<const InputSpec*> spec_of(k.tensors.size(), nullptr);
  for (const auto& spec : specs) {
    const auto it = tensor_index.find(spec.tensor);
    if (it == tensor_index.end()) spec_error(spec.text, "the kernel has no tensor " + spec.tensor);
    const isa::HbmTensor& t = k.tensors[it->second];
    if (t.role != isa::TensorRole::input)
      spec_error(spec.text, "tensor " + t.name + " is " +
                                std::string(isa::tensor_role_name(t.role)) + ", not an input");
    if (spec_of[it->second])
      spec_error(spec.text,
                 "tensor " + t.name + " already has data from '" + spec_of[it->second]->text + "'");
    spec_of[it->second] = &spec;
  }
  std::string missing;
  for (std::size_t i = 0; i < k.tensors.size(); ++i)
    if (k.tensors[i].role == isa::TensorRole::input && !spec_of[i])
      missing += (missing.empty() ? "" : ", ") + k.tensors[i].name;
  if (!missing.empty())
    throw Error("no data for input tensor(s) " + missing +
                ": give NAME=FILE.npy, zeros, ones, fill:V, uniform:LO,HI or normal:MEAN,STD");
  std::vector<std::vector<std::uint8_t>> data(k.tensors.size());
  for (std::size_t i = 0; i < k.tensors.size(); ++i)
    if (spec_of[i]) data[i] = make_input(*spec_of[i], k.tensors[i], global_seed, raw_bits);
  return data;
}

}  // namespace neuronsim::io

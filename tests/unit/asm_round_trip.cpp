// Round trips: assemble -> print -> assemble gives the same Kernel (and printing is a
// fixed point) for the examples and for a few hundred seeded random builder kernels that
// cover every opcode, option and access-pattern form.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>

#include "asm/assembler.hpp"
#include "asm/printer.hpp"
#include "base/error.hpp"
#include "builder/builder.hpp"

#include <cstring>
#include <limits>

#include "builder/builder.hpp"

namespace {

using namespace neuronsim;
using namespace neuronsim::isa;

class Generator {
 public:
  explicit Generator(std::mt19937& rng) : rng_(rng) {}

  Kernel make() {
    Builder b("k" + std::to_string(pick(1000)), pick(4) ? "trn" + std::to_string(1 + pick(3)) : "");
    declare(b);
    for (int e = 0; e < kEngineCount; ++e) {
      const int n = static_cast<int>(pick(6));
      for (int i = 0; i < n; ++i)
        instruction(b.stream(static_cast<Engine>(e)));
    }
    // Every opcode at least once, on its first allowed engine.
    for (int op = 0; op < kOpcodeCount; ++op)
      emit(b.stream(Engine::vector), static_cast<Opcode>(op));
    return b.build();
  }

 private:
  std::uint32_t pick(std::uint32_t n) { return n ? static_cast<std::uint32_t>(rng_() % n) : 0; }
  bool coin() { return pick(2) == 1; }
  DType dtype() { return static_cast<DType>(pick(kDTypeCount)); }
  template <typename E, int N>
  E choose() {
    return static_cast<E>(pick(N));
  }
  float real() {
    switch (pick(6)) {
      case 0:
        return 0.0f;
      case 1:
        return -0.0f;
      case 2:
        return std::numeric_limits<float>::infinity();
      case 3:
        return static_cast<float>(pick(200)) - 100.0f;
      case 4: {  // any finite bit pattern
        std::uint32_t bits = static_cast<std::uint32_t>(rng_());
        float f;
        std::memcpy(&f, &bits, 4);
        return std::isfinite(f) ? f : 1.5f;
      }
      default:
        return static_cast<float>(static_cast<double>(rng_()) / 12345.678);
    }
  }

  void declare(Builder& b) {
    const int tensors = 1 + static_cast<int>(pick(4));
    for (int i = 0; i < tensors; ++i) {
      std::vector<std::uint64_t> shape;
      const int rank = static_cast<int>(pick(5));
      for (int d = 0; d < rank; ++d)
        shape.push_back(1 + pick(6));
      const std::string name = "t" + std::to_string(i);
      const DType t = dtype();
      switch (pick(5)) {
        case 0:
          buffers_.push_back(b.input(name, t, shape));
          break;
        case 1:
          buffers_.push_back(b.output(name, t, shape));
          break;
        case 2:
          buffers_.push_back(b.scratch(name, t, shape));
          break;
        case 3:
          buffers_.push_back(b.constant_fill(name, t, shape, is_float(t) ? real() : pick(100)));
          break;
        default: {
          HbmTensor probe;
          probe.dtype = t;
          probe.shape = shape;
          std::vector<std::uint8_t> bytes(probe.bytes());
          for (auto& x : bytes)
            x = static_cast<std::uint8_t>(coin() ? rng_() : 0x3c);
          buffers_.push_back(b.constant_bytes(name, t, shape, bytes));
        }
      }
    }
    const int allocs = 1 + static_cast<int>(pick(5));
    for (int i = 0; i < allocs; ++i) {
      std::vector<std::uint32_t> shape = {1 + pick(128)};
      const int free_rank = static_cast<int>(pick(4));
      for (int d = 0; d < free_rank; ++d)
        shape.push_back(1 + pick(8));
      const std::uint32_t start = coin() ? 0 : pick(64);
      std::optional<std::uint32_t> offset;
      if (pick(4) == 0) offset = pick(4096);
      const std::string name = "x" + std::to_string(i);
      buffers_.push_back(coin() ? b.sbuf(name, dtype(), shape, start, offset)
                                : b.psum(name, dtype(), shape, start, offset));
    }
    for (int i = 0, n = 1 + static_cast<int>(pick(4)); i < n; ++i)
      sems_.push_back(b.semaphore("s" + std::to_string(i), coin() ? 0 : pick(10)));
    for (int i = 0, n = 1 + static_cast<int>(pick(3)); i < n; ++i)
      queues_.push_back(b.queue("q" + std::to_string(i), static_cast<std::uint8_t>(pick(16)),
                                static_cast<std::uint8_t>(1 + pick(16))));
  }

  AccessPattern pattern() {
    Buffer buf = buffers_[pick(static_cast<std::uint32_t>(buffers_.size()))];
    if (pick(4) == 0) {  // the raw form, any values
      std::vector<Dim> dims(1 + pick(kMaxFreeDims));
      for (auto& d : dims)
        d = Dim{static_cast<std::int32_t>(pick(64)) - 16, 1 + pick(16)};
      return buf.raw(pick(4), 1 + pick(128), static_cast<std::int64_t>(pick(1000)) - 100,
                     pick(5000), dims);
    }
    if (pick(3) == 0) {
      try {
        buf = buf.as(dtype());
      } catch (const Error&) {
        // not viewable in that dtype: keep the declared one
      }
    }
    std::vector<Ix> ix;
    int ranges = 0;
    const auto& shape = buf.shape();
    for (std::size_t j = 0; j < shape.size(); ++j) {
      const auto d = static_cast<std::int64_t>(shape[j]);
      const bool partition_axis = buf.space() != MemSpace::hbm && j == 0;
      if (partition_axis || (ranges < 4 && coin())) {
        const std::int64_t a = pick(static_cast<std::uint32_t>(d));
        const std::int64_t stop = a + 1 + pick(static_cast<std::uint32_t>(d - a));
        const std::int64_t step = partition_axis ? 1 : 1 + pick(3);
        if (!partition_axis) ++ranges;
        ix.push_back(pick(5) == 0 && !partition_axis ? Ix() : Ix(a, stop, step));
      } else {
        ix.push_back(Ix(static_cast<std::int64_t>(pick(static_cast<std::uint32_t>(d)))));
      }
    }
    if (coin() && !ix.empty()) ix.pop_back();  // trailing whole axes may be left out
    try {
      return buf.slice_n(ix);
    } catch (const Error&) {
      return buf.all();  // too many free dims: the whole buffer has few enough
    }
  }

  Scalar scalar() {
    if (coin()) return Scalar(pattern());
    return Scalar(static_cast<double>(real()));
  }

  std::array<std::int32_t, kMaxFreeDims> steps() {
    std::array<std::int32_t, kMaxFreeDims> s{};
    for (auto& x : s)
      x = coin() ? 0 : static_cast<std::int32_t>(pick(9)) - 4;
    return s;
  }

  void instruction(Stream s) { emit(s, static_cast<Opcode>(pick(kOpcodeCount))); }

  template <typename Ref>
  void sync(Ref& r) {
    for (int i = 0, n = static_cast<int>(pick(3)); i < n; ++i)
      r.wait(sems_[pick(static_cast<std::uint32_t>(sems_.size()))], pick(5));
    for (int i = 0, n = static_cast<int>(pick(3)); i < n; ++i) {
      const Sem s = sems_[pick(static_cast<std::uint32_t>(sems_.size()))];
      switch (pick(3)) {
        case 0:
          r.signal(s);
          break;
        case 1:
          r.signal(s, pick(5));
          break;
        default:
          r.signal_set(s, pick(5));
      }
    }
  }

  void emit(Stream s, Opcode op) {
    switch (op) {
      case Opcode::matmul: {
        auto r = s.matmul(pattern(), pattern(), pattern(), choose<AccumulateFlag, 4>(),
                          choose<MatmulPerfMode, kMatmulPerfModeCount>());
        return sync(r);
      }
      case Opcode::transpose: {
        auto r = s.transpose(pattern(), pattern());
        return sync(r);
      }
      case Opcode::activation: {
        auto r = s.activation(pattern(), pattern(), choose<ActFunc, kActFuncCount>());
        if (coin()) r.scale(scalar());
        if (coin()) r.bias(pattern());
        if (coin()) r.reduce(pattern());
        return sync(r);
      }
      case Opcode::tensor_tensor: {
        auto r = s.tensor_tensor(pattern(), pattern(), pattern(), choose<AluOp, kAluOpCount>());
        return sync(r);
      }
      case Opcode::tensor_scalar: {
        auto r = s.tensor_scalar(pattern(), pattern(), choose<AluOp, kAluOpCount>(), scalar());
        if (coin()) r.reverse0();
        if (coin()) {
          r.then(choose<AluOp, kAluOpCount>(), scalar());
          if (coin()) r.reverse1();
        }
        if (coin()) r.reduce(pattern(), choose<AluOp, kAluOpCount>());
        return sync(r);
      }
      case Opcode::scalar_tensor_tensor: {
        auto r =
            s.scalar_tensor_tensor(pattern(), pattern(), scalar(), choose<AluOp, kAluOpCount>(),
                                   pattern(), choose<AluOp, kAluOpCount>());
        return sync(r);
      }
      case Opcode::tensor_reduce: {
        auto r = s.tensor_reduce(pattern(), pattern(), choose<AluOp, kAluOpCount>(),
                                 static_cast<std::uint8_t>(pick(5)), coin());
        return sync(r);
      }
      case Opcode::tensor_tensor_scan: {
        auto r = s.tensor_tensor_scan(pattern(), pattern(), pattern(), scalar(),
                                      choose<AluOp, kAluOpCount>(), choose<AluOp, kAluOpCount>(),
                                      coin(), coin());
        return sync(r);
      }
      case Opcode::tensor_copy: {
        auto r = s.tensor_copy(pattern(), pattern());
        return sync(r);
      }
      case Opcode::reciprocal: {
        auto r = s.reciprocal(pattern(), pattern());
        return sync(r);
      }
      case Opcode::tensor_partition_reduce: {
        auto r = s.tensor_partition_reduce(pattern(), pattern(), choose<AluOp, kAluOpCount>());
        return sync(r);
      }
      case Opcode::max8: {
        auto r = s.max8(pattern(), pattern());
        return sync(r);
      }
      case Opcode::find_index8: {
        auto r = s.find_index8(pattern(), pattern(), pattern());
        return sync(r);
      }
      case Opcode::match_replace8: {
        auto r = s.match_replace8(pattern(), pattern(), pattern(), real(),
                                  coin() ? std::optional<AccessPattern>(pattern()) : std::nullopt);
        return sync(r);
      }
      case Opcode::quantize_mx: {
        auto r = s.quantize_mx(pattern(), pattern(), pattern());
        return sync(r);
      }
      case Opcode::matmul_mx: {
        auto r = s.matmul_mx(pattern(), pattern(), pattern(), pattern(), pattern(),
                             choose<AccumulateFlag, 4>());
        return sync(r);
      }
      case Opcode::dropout: {
        auto r =
            s.dropout(pattern(), pattern(), scalar(), static_cast<std::int32_t>(pick(1000)) - 500);
        return sync(r);
      }
      case Opcode::memset: {
        auto r = s.memset(pattern(), coin() ? static_cast<double>(real()) : 1.0 / 3.0);
        return sync(r);
      }
      case Opcode::iota: {
        auto r = s.iota(pattern(), static_cast<std::int32_t>(pick(100)) - 50,
                        static_cast<std::int32_t>(pick(5)), steps());
        return sync(r);
      }
      case Opcode::select: {
        auto r = s.select(pattern(), pattern(), pattern(), pattern());
        return sync(r);
      }
      case Opcode::affine_select: {
        auto r = s.affine_select(pattern(), pattern(), choose<AluOp, kAluOpCount>(),
                                 static_cast<std::int32_t>(pick(100)) - 50,
                                 static_cast<std::int32_t>(pick(5)) - 2, steps(), real());
        return sync(r);
      }
      case Opcode::bn_stats: {
        auto r = s.bn_stats(pattern(), pattern());
        return sync(r);
      }
      case Opcode::bn_aggr: {
        auto r = s.bn_aggr(pattern(), pattern());
        return sync(r);
      }
      case Opcode::dma_copy: {
        auto dst = pattern();
        auto src = pattern();
        const bool accumulate = coin();
        const Queue queue = queues_[pick(static_cast<std::uint32_t>(queues_.size()))];
        const bool transpose = coin();
        std::optional<AccessPattern> src_index, dst_index;
        if (coin()) (coin() ? src_index : dst_index) = pattern();
        const bool oob_skip = coin();
        const bool prebuilt = coin();
        auto r = s.dma_copy(dst, src, queue, accumulate, transpose, src_index, dst_index, oob_skip,
                            prebuilt);
        return sync(r);
      }
      case Opcode::nop: {
        auto r = s.nop();
        return sync(r);
      }
    }
  }

  std::mt19937& rng_;
  std::vector<Buffer> buffers_;
  std::vector<Sem> sems_;
  std::vector<Queue> queues_;
};

Kernel random_kernel(std::mt19937& rng) {
  return Generator(rng).make();
}

void require_round_trip(const Kernel& k, const std::string& what) {
  INFO(what);
  const std::string text = print(k);
  INFO(text);
  const Kernel back = assemble(text, what);
  REQUIRE(back == k);
  REQUIRE(print(back) == text);
}

}  // namespace

TEST_CASE("asm: examples round trip through the printer", "[asm]") {
  const auto dir = std::filesystem::path(NEURONSIM_SOURCE_DIR) / "examples" / "asm";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".nasm") continue;
    ++files;
    const Kernel k = assemble_file(entry.path().string());
    require_round_trip(k, entry.path().filename().string());
  }
  REQUIRE(files >= 1);
}

TEST_CASE("asm: random builder kernels round trip through the printer", "[asm]") {
  std::mt19937 rng(20240611);
  std::array<int, kOpcodeCount> seen{};
  for (int i = 0; i < 300; ++i) {
    const Kernel k = random_kernel(rng);
    for (const auto& s : k.streams)
      for (const auto& ins : s)
        ++seen[static_cast<int>(ins.opcode())];
    require_round_trip(k, "random kernel " + std::to_string(i));
  }
  for (int op = 0; op < kOpcodeCount; ++op)
    CHECK(seen[op] >= 300);
}

TEST_CASE("asm: instructions remember their source line", "[asm]") {
  const Kernel k = assemble(
      "kernel k\n"
      "sem s\n"
      "\n"
      "gpsimd:\n"
      "    nop  signal s\n"
      "    nop  wait s>=1\n",
      "lines.nasm");
  REQUIRE(k.stream(Engine::gpsimd).size() == 2);
  CHECK(k.stream(Engine::gpsimd)[0].source_line == 5);
  CHECK(k.stream(Engine::gpsimd)[1].source_line == 6);
}

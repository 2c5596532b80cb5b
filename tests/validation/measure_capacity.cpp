// Capacities and access-pattern limits, measured as what validation (the check
// NeuronCore::launch runs before a kernel is queued) accepts: the largest value whose
// kernel passes, one step more being refused. No simulation is needed; the value is
// found by bisection over kernels that differ in that one number.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

#include "builder/builder.hpp"
#include "registry.hpp"
#include "validate/validate.hpp"

namespace validation {

namespace {

namespace isa = neuronsim::isa;
namespace params = neuronsim::params;
using isa::DType;
using isa::Ix;

// The largest x in [lo, hi] with accepted(x), given accepted(lo) and that acceptance
// does not come back once lost. NaN if even lo is refused.
double largest(std::uint64_t lo, std::uint64_t hi,
               const std::function<bool(std::uint64_t)>& accepted) {
  if (!accepted(lo)) return std::numeric_limits<double>::quiet_NaN();
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo + 1) / 2;
    if (accepted(mid))
      lo = mid;
    else
      hi = mid - 1;
  }
  return double(lo);
}

bool valid(const isa::Kernel& k, const params::TargetLimits& limits) {
  return isa::check(k, limits).empty();
}

// A reader for a value known before the simulation.
Reader value(double v) {
  return [v] { return v; };
}

const params::TargetLimits& limits_of(Bench& bench, const Spec& s) {
  return bench.config(s.target).limits;
}

// Bytes per partition of the largest [partitions, bytes] uint8 allocation in `space`.
double partition_bytes(const params::TargetLimits& limits, isa::MemSpace space,
                       std::uint32_t partitions) {
  return largest(1, 1u << 24, [&](std::uint64_t bytes) {
    isa::Builder b("capacity");
    if (space == isa::MemSpace::sbuf)
      b.sbuf("a", DType::uint8, {partitions, static_cast<std::uint32_t>(bytes)}, 0, 0);
    else
      b.psum("a", DType::uint8, {partitions, static_cast<std::uint32_t>(bytes)}, 0, 0);
    return valid(b.build(), limits);
  });
}

double partitions_of(const params::TargetLimits& limits, isa::MemSpace space) {
  return largest(1, 4096, [&](std::uint64_t p) {
    isa::Builder b("capacity");
    if (space == isa::MemSpace::sbuf)
      b.sbuf("a", DType::uint8, {static_cast<std::uint32_t>(p), 64}, 0, 0);
    else
      b.psum("a", DType::uint8, {static_cast<std::uint32_t>(p), 64}, 0, 0);
    return valid(b.build(), limits);
  });
}

isa::MemSpace space_arg(const Spec& s) {
  return arg_str(s, "space", "sbuf") == "psum" ? isa::MemSpace::psum : isa::MemSpace::sbuf;
}

// args.space (sbuf/psum): bytes per partition, partitions, and their product.
const Registrar bytes_per_partition("bytes_per_partition", [](Bench& bench, const Spec& s) {
  return value(partition_bytes(limits_of(bench, s), space_arg(s), 128));
});
const Registrar partitions("partitions", [](Bench& bench, const Spec& s) {
  return value(partitions_of(limits_of(bench, s), space_arg(s)));
});
const Registrar total_bytes("total_bytes", [](Bench& bench, const Spec& s) {
  const auto& limits = limits_of(bench, s);
  const double p = partitions_of(limits, space_arg(s));
  return value(p * partition_bytes(limits, space_arg(s), static_cast<std::uint32_t>(p)));
});

// The bytes of a PSUM bank: a matmul result may not cross one (reference section 2), so
// with its fp32 result starting one element into PSUM, the longest result validation
// accepts is (bank - 4) / 4 elements (511 for 2 KiB, within matmul_max_n's 512).
double bank_bytes(const params::TargetLimits& limits) {
  const double n = largest(1, 4096, [&](std::uint64_t n) {
    isa::Builder b("bank");
    const auto ps = b.psum("ps", DType::fp32, {128, 4096}, 0, 0);
    const auto w = b.sbuf("w", DType::bf16, {128, 128}, 0, 0);
    const auto m = b.sbuf("m", DType::bf16, {128, 4096}, 0, 256);
    b.tensor().matmul(ps.slice(Ix(), Ix(1, 1 + n)), w.slice(Ix(), Ix()), m.slice(Ix(), Ix(0, n)),
                      isa::AccumulateFlag::single);
    return valid(b.build(), limits);
  });
  return 4 * (n + 1);
}
const Registrar psum_bank_bytes("psum_bank_bytes", [](Bench& bench, const Spec& s) {
  return value(bank_bytes(limits_of(bench, s)));
});

// PSUM banks per partition: its bytes over the bank's.
const Registrar psum_banks("psum_banks", [](Bench& bench, const Spec& s) {
  const auto& limits = limits_of(bench, s);
  return value(partition_bytes(limits, isa::MemSpace::psum, 128) / bank_bytes(limits));
});

// How many start partitions out of 0..127 a tile of args.partitions partitions may have
// (a tensor_copy within SBUF); NaN if one of them is outside the published set, args.at:
// the published list.
const Registrar partition_starts("partition_starts", [](Bench& bench, const Spec& s) {
  const auto& limits = limits_of(bench, s);
  const std::uint32_t p = arg_u32(s, "partitions", 32);
  std::vector<std::uint32_t> allowed = s.args.value("at", std::vector<std::uint32_t>{});
  double count = 0;
  for (std::uint32_t start = 0; start + p <= 128; ++start) {
    isa::Builder b("starts");
    const auto a = b.sbuf("a", DType::fp32, {128, 64}, 0, 0);
    const auto c = b.sbuf("c", DType::fp32, {128, 64}, 0, 256);
    b.vector().tensor_copy(c.slice(Ix(start, start + p), Ix()),
                           a.slice(Ix(start, start + p), Ix()));
    if (!valid(b.build(), limits)) continue;
    if (std::find(allowed.begin(), allowed.end(), start) == allowed.end())
      return value(std::numeric_limits<double>::quiet_NaN());
    count += 1;
  }
  return value(count);
});

// A tensor_copy within SBUF whose source has free dims `dims` (outermost first) over a
// large uint8 allocation, the destination the same shape contiguous: does it validate?
bool copy_valid(const params::TargetLimits& limits, const std::vector<isa::Dim>& dims,
                std::uint64_t byte_offset = 0) {
  isa::Builder b("pattern");
  const auto src = b.sbuf("src", DType::uint8, {1, 131072}, 0, 0);
  std::uint64_t n = 1;
  for (const auto& d : dims)
    n *= d.size;
  const auto dst = b.sbuf("dst", DType::uint8, {1, 65536}, 0, 131072);
  std::vector<isa::Dim> dst_dims = dims;
  std::int32_t stride = 1;
  for (auto it = dst_dims.rbegin(); it != dst_dims.rend(); ++it) {
    it->stride = stride;
    stride *= static_cast<std::int32_t>(it->size);
  }
  try {
    const auto s = src.raw(0, 1, 0, byte_offset, dims);
    const auto d = dst.raw(0, 1, 0, 0, dst_dims);
    b.vector().tensor_copy(d, s);
  } catch (const std::exception&) {
    return false;  // the builder refuses patterns it cannot express
  }
  return n > 0 && valid(b.build(), limits);
}

// args.what: "free_dims" (most free dims of a pattern), "dim_size" (largest size of one
// dim), "max_stride" / "min_stride" (the int16 stride range, in elements).
const Registrar pattern_limit("pattern_limit", [](Bench& bench, const Spec& s) {
  const auto& limits = limits_of(bench, s);
  const std::string what = arg_str(s, "what", "");
  if (what == "free_dims")
    return value(largest(1, 8, [&](std::uint64_t n) {
      return copy_valid(limits, std::vector<isa::Dim>(n, isa::Dim{1, 2}));
    }));
  if (what == "dim_size")
    return value(largest(1, 1u << 20, [&](std::uint64_t n) {
      return copy_valid(limits, {isa::Dim{1, static_cast<std::uint32_t>(n)}});
    }));
  if (what == "max_stride")
    return value(largest(1, 1u << 20, [&](std::uint64_t st) {
      return copy_valid(limits, {isa::Dim{static_cast<std::int32_t>(st), 2}});
    }));
  if (what == "min_stride")  // a negative stride walks down from the start offset
    return value(-largest(1, 1u << 20, [&](std::uint64_t st) {
      return copy_valid(limits, {isa::Dim{-static_cast<std::int32_t>(st), 2}}, 65536);
    }));
  throw std::runtime_error("spec " + s.id + ": args.what '" + what + "' is unknown");
});

// The largest free size (elements, in steps of args.step) one Vector tensor_copy may
// access in args.space, as [k, step] patterns of args.dtype: in place within SBUF, or
// from PSUM into SBUF.
const Registrar max_free_elems("max_free_elems", [](Bench& bench, const Spec& s) {
  const auto& limits = limits_of(bench, s);
  const bool psum = space_arg(s) == isa::MemSpace::psum;
  const DType dt = arg_dtype(s, "dtype", DType::fp32);
  const std::uint32_t step = arg_u32(s, "step", 256);
  const std::uint32_t cap_bytes =
      psum ? limits.psum_bytes_per_partition : limits.sbuf_bytes_per_partition;
  const std::uint32_t most = cap_bytes / static_cast<std::uint32_t>(isa::dtype_size(dt)) / step;
  return value(step * largest(1, most, [&](std::uint64_t k) {
                 isa::Builder b("free");
                 const auto k32 = static_cast<std::uint32_t>(k);
                 if (psum) {
                   const auto x = b.psum("x", dt, {128, k32, step}, 0, 0);
                   b.vector().tensor_copy(b.sbuf("y", dt, {128, k32, step}, 0, 0), x);
                 } else {
                   const auto x = b.sbuf("x", dt, {128, k32, step}, 0, 0);
                   b.vector().tensor_copy(x, x);
                 }
                 return valid(b.build(), limits);
               }));
});

// Matmul tile limits: the largest K (partitions), M (stationary free) or N (moving
// free) accepted with the other two at 1.
const Registrar matmul_limit("matmul_limit", [](Bench& bench, const Spec& s) {
  const auto& limits = limits_of(bench, s);
  const std::string dim = arg_str(s, "dim", "n");
  // args.dst: the PSUM result's dtype (bf16 from NeuronCore-v4, tensor.matmul_bf16_dst).
  const DType dst = arg_str(s, "dst", "fp32") == "bf16" ? DType::bf16 : DType::fp32;
  // Up to 16384: beyond the whole PSUM partition (4096 fp32, 8192 bf16) in every dim.
  return value(largest(1, 16384, [&](std::uint64_t v) {
    const auto x = static_cast<std::uint32_t>(v);
    const std::uint32_t k = dim == "k" ? x : 1, m = dim == "m" ? x : 1, n = dim == "n" ? x : 1;
    isa::Builder b("matmul");
    const auto st = b.sbuf("st", DType::bf16, {k, m}, 0, 0);
    const auto mv = b.sbuf("mv", DType::bf16, {k, n}, 0, 16384);
    const auto ps = b.psum("ps", dst, {m, n}, 0, 0);
    b.tensor().matmul(ps, st, mv);
    return valid(b.build(), limits);
  }));
});

// The largest square [e, e] transpose args.engine (tensor or vector) accepts.
const Registrar transpose_limit("transpose_limit", [](Bench& bench, const Spec& s) {
  const auto& limits = limits_of(bench, s);
  const bool tensor = arg_str(s, "engine", "tensor") == "tensor";
  return value(largest(1, 1024, [&](std::uint64_t v) {
    const auto e = static_cast<std::uint32_t>(v);
    isa::Builder b("transpose");
    const auto src = b.sbuf("src", DType::fp32, {e, e}, 0, 0);
    if (tensor)
      b.tensor().transpose(b.psum("dst", DType::fp32, {e, e}, 0, 0), src);
    else
      b.vector().transpose(b.sbuf("dst", DType::fp32, {e, e}, 0, 8192), src);
    return valid(b.build(), limits);
  }));
});

// The largest free size bn_stats accepts.
const Registrar bn_stats_limit("bn_stats_limit", [](Bench& bench, const Spec& s) {
  const auto& limits = limits_of(bench, s);
  return value(largest(1, 4096, [&](std::uint64_t v) {
    isa::Builder b("bn_stats");
    const auto dst = b.sbuf("dst", DType::fp32, {128, 6}, 0, 0);
    b.vector().bn_stats(dst,
                        b.sbuf("src", DType::fp32, {128, static_cast<std::uint32_t>(v)}, 0, 64));
    return valid(b.build(), limits);
  }));
});

}  // namespace

}  // namespace validation

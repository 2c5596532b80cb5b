#include "semantics/access.hpp"

#include <cstring>
#include <type_traits>

#include "base/error.hpp"
#include "base/lanes.hpp"
#include "isa/dtype_bits.hpp"

// Vector values stay inside this file's loops (base/lanes.hpp).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace neuronsim::isa::sem {

void Site::fail(std::string_view field, const std::string& reason) const {
  std::string msg = "kernel '" + kernel.name + "': " + std::string(opcode_name(instr.opcode()));
  if (instr.source_line != 0) msg += " (line " + std::to_string(instr.source_line) + ")";
  if (!field.empty()) msg += ": " + std::string(field);
  throw Error(msg + ": " + reason);
}

Operand::Operand(const Site& site, const AccessPattern& ap, std::string_view field)
    : ap_(&ap), field_(field), free_(ap.free_elems()), elem_bytes_(dtype_size(ap.dtype)) {
  if (ap.ndims < 1 || ap.ndims > kMaxFreeDims)
    site.fail(field, "has " + std::to_string(ap.ndims) + " free dims (1 to 4 allowed)");
  for (int k = 0; k < kMaxFreeDims; ++k) {
    size_[k] = 1;
    stride_[k] = 0;
  }
  const int pad = kMaxFreeDims - ap.ndims;
  for (int k = 0; k < ap.ndims; ++k) {
    size_[pad + k] = ap.dims[k].size;
    stride_[pad + k] =
        static_cast<std::int64_t>(ap.dims[k].stride) * static_cast<std::int64_t>(elem_bytes_);
  }
  // Contiguous when each dim's stride spans the whole of the dims inside it (dims of size 1
  // do not move).
  rows_contiguous_ = true;
  std::int64_t span = static_cast<std::int64_t>(elem_bytes_);
  for (int k = kMaxFreeDims - 1; k >= 0; --k) {
    if (size_[k] == 1) continue;
    if (stride_[k] != span) rows_contiguous_ = false;
    span *= static_cast<std::int64_t>(size_[k]);
  }
  rows_.resize(ap.partitions);
  if (ap.space == MemSpace::hbm) {
    if (ap.buffer >= site.kernel.tensors.size())
      site.fail(field, "names HBM tensor " + std::to_string(ap.buffer) + ", which does not exist");
    std::uint8_t* const base = site.mem.hbm_tensor(ap.buffer) + ap.byte_offset;
    first_row_ = ap.start_partition;
    for (std::uint32_t i = 0; i < ap.partitions; ++i) {
      const std::int64_t row = static_cast<std::int64_t>(ap.start_partition) + i;
      rows_[i] = base + row * ap.partition_stride * static_cast<std::int64_t>(elem_bytes_);
    }
    return;
  }
  if (ap.buffer >= site.kernel.allocations.size())
    site.fail(field, "names allocation " + std::to_string(ap.buffer) + ", which does not exist");
  const Allocation& alloc = site.kernel.allocations[ap.buffer];
  if (alloc.space != ap.space)
    site.fail(field, "is in " + std::string(mem_space_name(ap.space)) + " but allocation '" +
                         alloc.name + "' is in " + std::string(mem_space_name(alloc.space)));
  first_row_ = static_cast<std::int64_t>(alloc.start_partition) + ap.start_partition;
  const std::uint64_t offset = std::uint64_t{alloc.byte_offset} + ap.byte_offset;
  for (std::uint32_t i = 0; i < ap.partitions; ++i)
    rows_[i] = site.mem.row(ap.space, static_cast<std::uint32_t>(first_row_ + i)) + offset;
}

namespace {

// The conversions as lambdas (one type each), not function pointers: a pointer is a value
// the loop would call per element, a lambda's body is inlined and vectorised.
constexpr auto kBitsToFp32 = [](std::uint32_t b) { return dtype_bits::bits_float(b); };
constexpr auto kBf16ToFp32 = [](std::uint16_t b) { return dtype_bits::bf16_bits_to_fp32(b); };
constexpr auto kFp32ToBits = [](float v) { return dtype_bits::float_bits(v); };
constexpr auto kFp32ToBf16 = [](float v) { return dtype_bits::fp32_to_bf16_bits(v); };
// The narrow floats: the same functions isa::load_fp32 / store_fp32 call, without its
// switch per element.
constexpr auto kFp16ToFp32 = [](std::uint16_t b) { return dtype_bits::Fp16Format::to_fp32(b); };
constexpr auto kE4m3ToFp32 = [](std::uint8_t b) {
  return dtype_bits::bits_float(dtype_bits::kFp8E4M3ToFp32[b]);
};
constexpr auto kE5m2ToFp32 = [](std::uint8_t b) {
  return dtype_bits::bits_float(dtype_bits::kFp8E5M2ToFp32[b]);
};
constexpr auto kFp32ToFp16 = [](float v) {
  return static_cast<std::uint16_t>(dtype_bits::Fp16Format::from_fp32(v));
};
constexpr auto kFp32ToE4m3 = [](float v) {
  return static_cast<std::uint8_t>(dtype_bits::Fp8E4M3Format::from_fp32(v));
};
constexpr auto kFp32ToE5m2 = [](float v) {
  return static_cast<std::uint8_t>(dtype_bits::Fp8E5M2Format::from_fp32(v));
};

// Whole blocks of kLanes contiguous elements converted as vectors, for the dtypes whose
// conversion has a lane-wise form (same bits as the scalar lambdas above: bf16 widening is a
// shift, bf16 rounding is dtype_bits::round_fp32_mantissa_lanes). NoLanes: none.
struct NoLanes {};

// in: kLanes stored elements; out: kLanes values.
constexpr auto kFp32Block = [](const std::uint8_t* in, float* out) {
  store_lanes(out, Fp32Codec::get_lanes<kLanes>(in));
};
// in: kLanes values; out: kLanes stored elements.
constexpr auto kFp32StoreBlock = [](const float* in, std::uint8_t* out) {
  Fp32Codec::put_lanes<kLanes>(out, load_lanes<F32Lanes>(in));
};

// Contiguous runs of a dtype with a lane-wise codec (bf16, fp16, fp8), converted at the
// host's widest vector width (the conversions are integer bit manipulation plus, for
// subnormal fp16/fp8, an exact product: the same bits at every width).
template <class Codec, std::size_t N>
[[gnu::always_inline]] inline void run_to_fp32_lanes(const std::uint8_t* in, float* out,
                                                     std::size_t n) {
  std::size_t i = 0;
  for (; i + N <= n; i += N)
    store_lanes(out + i, Codec::template get_lanes<N>(in + i * Codec::kBytes));
  for (; i < n; ++i)
    out[i] = Codec::get(in + i * Codec::kBytes);
}
template <class Codec, std::size_t N>
[[gnu::always_inline]] inline void fp32_to_run_lanes(const float* in, std::uint8_t* out,
                                                     std::size_t n) {
  std::size_t i = 0;
  for (; i + N <= n; i += N)
    Codec::template put_lanes<N>(out + i * Codec::kBytes,
                                 load_lanes<typename LaneTypes<N>::F32>(in + i));
  for (; i < n; ++i)
    Codec::put(out + i * Codec::kBytes, in[i]);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define NEURONSIM_CONVERT_X86 1
template <class Codec>
[[gnu::target("avx2")]] void run_to_fp32_avx2(const std::uint8_t* in, float* out, std::size_t n) {
  run_to_fp32_lanes<Codec, 8>(in, out, n);
}
template <class Codec>
[[gnu::target("avx512f,avx512bw,avx512vl")]] void run_to_fp32_avx512(const std::uint8_t* in,
                                                                     float* out, std::size_t n) {
  run_to_fp32_lanes<Codec, 16>(in, out, n);
}
template <class Codec>
[[gnu::target("avx2")]] void fp32_to_run_avx2(const float* in, std::uint8_t* out, std::size_t n) {
  fp32_to_run_lanes<Codec, 8>(in, out, n);
}
template <class Codec>
[[gnu::target("avx512f,avx512bw,avx512vl")]] void fp32_to_run_avx512(const float* in,
                                                                     std::uint8_t* out,
                                                                     std::size_t n) {
  fp32_to_run_lanes<Codec, 16>(in, out, n);
}
#endif

template <class Codec>
void run_to_fp32(const std::uint8_t* in, float* out, std::size_t n) {
#ifdef NEURONSIM_CONVERT_X86
  switch (vector_isa()) {
    case VectorIsa::avx512:
      return run_to_fp32_avx512<Codec>(in, out, n);
    case VectorIsa::avx2:
      return run_to_fp32_avx2<Codec>(in, out, n);
    case VectorIsa::baseline:
      break;
  }
#endif
  run_to_fp32_lanes<Codec, kLanes>(in, out, n);
}
template <class Codec>
void fp32_to_run(const float* in, std::uint8_t* out, std::size_t n) {
#ifdef NEURONSIM_CONVERT_X86
  switch (vector_isa()) {
    case VectorIsa::avx512:
      return fp32_to_run_avx512<Codec>(in, out, n);
    case VectorIsa::avx2:
      return fp32_to_run_avx2<Codec>(in, out, n);
    case VectorIsa::baseline:
      break;
  }
#endif
  fp32_to_run_lanes<Codec, kLanes>(in, out, n);
}

// Elements of one run as T, or as the bits of T converted by `conv`; contiguous runs go by
// blocks (`block`, if the conversion has a lane-wise form) or in their own loop that the
// compiler can vectorise.
template <class Bits, class Out, class Conv, class Block = NoLanes>
void load_run(const std::uint8_t* first, std::uint64_t count, std::int64_t stride, Out*& out,
              Conv conv, Block block = {}) {
  auto one = [&](std::size_t i) {
    Bits b;
    std::memcpy(&b, first + i * sizeof(Bits), sizeof b);
    out[i] = conv(b);
  };
  if (stride == static_cast<std::int64_t>(sizeof(Bits))) {
    if constexpr (std::is_same_v<Block, NoLanes>)
      for_each_index(count, one);
    else
      for_each_block(
          count, [&](std::size_t i) { block(first + i * sizeof(Bits), out + i); }, one);
  } else {
    for (std::uint64_t i = 0; i < count; ++i) {
      Bits b;
      std::memcpy(&b, first + static_cast<std::int64_t>(i) * stride, sizeof b);
      out[i] = conv(b);
    }
  }
  out += count;
}

template <class Bits, class In, class Conv, class Block = NoLanes>
void store_run(std::uint8_t* first, std::uint64_t count, std::int64_t stride, const In*& in,
               Conv conv, Block block = {}) {
  auto one = [&](std::size_t i) {
    const Bits b = conv(in[i]);
    std::memcpy(first + i * sizeof(Bits), &b, sizeof b);
  };
  if (stride == static_cast<std::int64_t>(sizeof(Bits))) {
    if constexpr (std::is_same_v<Block, NoLanes>)
      for_each_index(count, one);
    else
      for_each_block(
          count, [&](std::size_t i) { block(in + i, first + i * sizeof(Bits)); }, one);
  } else {
    for (std::uint64_t i = 0; i < count; ++i) {
      const Bits b = conv(in[i]);
      std::memcpy(first + static_cast<std::int64_t>(i) * stride, &b, sizeof b);
    }
  }
  in += count;
}

}  // namespace

void Operand::load(std::uint32_t p, float* out) const {
  switch (dtype()) {
    case DType::fp32:
      for_each_run(p, [&](const std::uint8_t* e, std::uint64_t n, std::int64_t st) {
        load_run<std::uint32_t>(e, n, st, out, kBitsToFp32, kFp32Block);
      });
      return;
    case DType::bf16:
      // A bf16 is the upper half of an fp32: widening is exact by definition.
      for_each_run(p, [&](const std::uint8_t* e, std::uint64_t n, std::int64_t st) {
        if (st != 2) return load_run<std::uint16_t>(e, n, st, out, kBf16ToFp32);
        run_to_fp32<Bf16Codec>(e, out, n);
        out += n;
      });
      return;
    case DType::fp16:
      for_each_run(p, [&](const std::uint8_t* e, std::uint64_t n, std::int64_t st) {
        if (st != 2) return load_run<std::uint16_t>(e, n, st, out, kFp16ToFp32);
        run_to_fp32<Fp16Codec>(e, out, n);
        out += n;
      });
      return;
    case DType::fp8_e4m3:
      for_each_run(p, [&](const std::uint8_t* e, std::uint64_t n, std::int64_t st) {
        if (st != 1) return load_run<std::uint8_t>(e, n, st, out, kE4m3ToFp32);
        run_to_fp32<Fp8E4M3Codec>(e, out, n);
        out += n;
      });
      return;
    case DType::fp8_e5m2:
      for_each_run(p, [&](const std::uint8_t* e, std::uint64_t n, std::int64_t st) {
        if (st != 1) return load_run<std::uint8_t>(e, n, st, out, kE5m2ToFp32);
        run_to_fp32<Fp8E5M2Codec>(e, out, n);
        out += n;
      });
      return;
    default: {
      const DType t = dtype();
      for_each(p, [&](const std::uint8_t* e) { *out++ = load_fp32(t, e); });
      return;
    }
  }
}

void Operand::store(std::uint32_t p, const float* in) const {
  switch (dtype()) {
    case DType::fp32:
      for_each_run(p, [&](std::uint8_t* e, std::uint64_t n, std::int64_t st) {
        store_run<std::uint32_t>(e, n, st, in, kFp32ToBits, kFp32StoreBlock);
      });
      return;
    case DType::bf16:
      for_each_run(p, [&](std::uint8_t* e, std::uint64_t n, std::int64_t st) {
        if (st != 2) return store_run<std::uint16_t>(e, n, st, in, kFp32ToBf16);
        fp32_to_run<Bf16Codec>(in, e, n);
        in += n;
      });
      return;
    case DType::fp16:
      for_each_run(p, [&](std::uint8_t* e, std::uint64_t n, std::int64_t st) {
        if (st != 2) return store_run<std::uint16_t>(e, n, st, in, kFp32ToFp16);
        fp32_to_run<Fp16Codec>(in, e, n);
        in += n;
      });
      return;
    case DType::fp8_e4m3:
      for_each_run(p, [&](std::uint8_t* e, std::uint64_t n, std::int64_t st) {
        if (st != 1) return store_run<std::uint8_t>(e, n, st, in, kFp32ToE4m3);
        fp32_to_run<Fp8E4M3Codec>(in, e, n);
        in += n;
      });
      return;
    case DType::fp8_e5m2:
      for_each_run(p, [&](std::uint8_t* e, std::uint64_t n, std::int64_t st) {
        if (st != 1) return store_run<std::uint8_t>(e, n, st, in, kFp32ToE5m2);
        fp32_to_run<Fp8E5M2Codec>(in, e, n);
        in += n;
      });
      return;
    default: {
      const DType t = dtype();
      for_each(p, [&](std::uint8_t* e) { store_fp32(t, *in++, e); });
      return;
    }
  }
}

void Operand::load(std::uint32_t p, std::int64_t* out) const {
  const DType t = dtype();
  for_each(p, [&](const std::uint8_t* e) { *out++ = load_int(t, e); });
}

void Operand::store(std::uint32_t p, const std::int64_t* in) const {
  const DType t = dtype();
  for_each(p, [&](std::uint8_t* e) { store_int(t, *in++, e); });
}

namespace {

// Raw moves with the element size fixed at compile time; contiguous runs widen or narrow
// a block of patterns at once (RawBits is one uint32).
static_assert(sizeof(RawBits) == sizeof(std::uint32_t), "RawBits is the bits alone");
template <class Bits>
using BitsLanes = std::conditional_t<sizeof(Bits) == 1, U8Lanes,
                                     std::conditional_t<sizeof(Bits) == 2, U16Lanes, U32Lanes>>;

template <class Bits>
void load_raw_row(const Operand& op, std::uint32_t p, RawBits* out) {
  const auto block = [](const std::uint8_t* in, RawBits* o) {
    store_lanes(o, __builtin_convertvector(load_lanes<BitsLanes<Bits>>(in), U32Lanes));
  };
  op.for_each_run(p, [&](const std::uint8_t* e, std::uint64_t n, std::int64_t st) {
    load_run<Bits>(
        e, n, st, out, [](Bits b) { return RawBits{b}; }, block);
  });
}
template <class Bits>
void store_raw_row(const Operand& op, std::uint32_t p, const RawBits* in) {
  const auto block = [](const RawBits* i, std::uint8_t* o) {
    store_lanes(o, __builtin_convertvector(load_lanes<U32Lanes>(i), BitsLanes<Bits>));
  };
  op.for_each_run(p, [&](std::uint8_t* e, std::uint64_t n, std::int64_t st) {
    store_run<Bits>(
        e, n, st, in, [](RawBits r) { return static_cast<Bits>(r.bits); }, block);
  });
}

}  // namespace

void Operand::load(std::uint32_t p, RawBits* out) const {
  switch (elem_bytes_) {
    case 1:
      return load_raw_row<std::uint8_t>(*this, p, out);
    case 2:
      return load_raw_row<std::uint16_t>(*this, p, out);
    default:
      return load_raw_row<std::uint32_t>(*this, p, out);
  }
}

void Operand::store(std::uint32_t p, const RawBits* in) const {
  switch (elem_bytes_) {
    case 1:
      return store_raw_row<std::uint8_t>(*this, p, in);
    case 2:
      return store_raw_row<std::uint16_t>(*this, p, in);
    default:
      return store_raw_row<std::uint32_t>(*this, p, in);
  }
}

float Operand::first(std::uint32_t p) const {
  return load_fp32(dtype(), rows_[p]);
}
std::int64_t Operand::first_int(std::uint32_t p) const {
  return load_int(dtype(), rows_[p]);
}

void Operand::fill(std::uint32_t p, const RawBits& value) const {
  const std::size_t n = elem_bytes_;
  for_each(p, [&](std::uint8_t* e) { std::memcpy(e, &value.bits, n); });
}

bool Operand::may_clobber_later_rows(const Operand& in) const {
  if (ap_->space != in.ap_->space) return false;
  // HBM rows are strided views of one tensor: any shared tensor may overlap.
  if (ap_->space == MemSpace::hbm) return ap_->buffer == in.ap_->buffer;
  if (first_row_ == in.first_row_) return false;  // row i only ever meets row i
  const std::int64_t end = first_row_ + partitions();
  const std::int64_t in_end = in.first_row_ + in.partitions();
  return first_row_ < in_end && in.first_row_ < end;
}

MoveForm move_form(DType dst, std::initializer_list<DType> sources) {
  bool same = true, all_int = is_integer(dst);
  for (DType s : sources) {
    same = same && s == dst;
    all_int = all_int && is_integer(s);
  }
  if (same) return MoveForm::raw;
  return all_int ? MoveForm::integer : MoveForm::fp32;
}

RawBits encode(DType t, float value) {
  RawBits r;
  store_fp32(t, value, &r.bits);
  return r;
}

void require_same_shape(const Site& site, const Operand& dst, const Operand& in) {
  if (in.partitions() != dst.partitions() || in.free() != dst.free())
    site.fail(in.field(), "is [" + std::to_string(in.partitions()) + ", " +
                              std::to_string(in.free()) + "] but " + std::string(dst.field()) +
                              " is [" + std::to_string(dst.partitions()) + ", " +
                              std::to_string(dst.free()) + "]");
}

void require_column(const Site& site, const Operand& col, std::uint32_t partitions) {
  if (col.partitions() != partitions || col.free() != 1)
    site.fail(col.field(), "must be [" + std::to_string(partitions) + ", 1], is [" +
                               std::to_string(col.partitions()) + ", " +
                               std::to_string(col.free()) + "]");
}

}  // namespace neuronsim::isa::sem

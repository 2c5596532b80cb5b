#pragma once
// One instruction: an operation (one operand struct per opcode, in a std::variant) plus
// the semaphores it waits on before it starts and the semaphores it updates when it
// finishes (reference section 5). What an instruction does lives in semantics.hpp; how
// long it takes lives in cost_model.hpp.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include "base/small_list.hpp"
#include "isa/access_pattern.hpp"
#include "isa/alu_op.hpp"
#include "isa/engine.hpp"
#include "isa/operand_field.hpp"

namespace neuronsim::isa {

// Scalar engine activation functions (reference section 3).
enum class ActFunc : std::uint8_t {
  copy,
  square,
  exp,
  log,
  sqrt,
  rsqrt,
  reciprocal,
  relu,
  sigmoid,
  tanh,
  gelu,
  gelu_apprx_tanh,
  silu,
  softplus,
  erf,
  sin,
  sign,
  abs,
};
inline constexpr int kActFuncCount = 18;
std::string_view act_func_name(ActFunc f);
std::optional<ActFunc> parse_act_func(std::string_view name);

// Matmul accumulation into PSUM: `first` overwrites (starts a group), `middle` adds,
// `last` adds and closes the group; `single` is first and last at once.
enum class AccumulateFlag : std::uint8_t { single, first, middle, last };
inline constexpr int kAccumulateFlagCount = 4;
std::string_view accumulate_flag_name(AccumulateFlag f);
std::optional<AccumulateFlag> parse_accumulate_flag(std::string_view name);
// The flag of the matmul of K-tile k out of n accumulating into one PSUM tile (reference
// section 3): single alone, else first, middle..., last.
constexpr AccumulateFlag accumulate_flag_of(std::uint32_t k, std::uint32_t n) {
  if (n == 1) return AccumulateFlag::single;
  if (k == 0) return AccumulateFlag::first;
  return k + 1 == n ? AccumulateFlag::last : AccumulateFlag::middle;
}

// A matmul's Tensor engine performance mode (NKI nki.isa.matmul_perf_mode; nc_matmul's
// `perf_mode`): `none`, or `double_row`, the FP8 double performance mode of NeuronCore-v3
// and v4 ("Double FP8 mode, 2x matmul throughput by packing two FP8 weight/ifmap element
// pairs"). In double_row the contraction is 2K: each input's free elements are two rows
// [2, F/2], its most major free dimension of size two (NKI Trainium2 architecture guide,
// "Double FP8 Matmul Performance").
enum class MatmulPerfMode : std::uint8_t { none, double_row };
inline constexpr int kMatmulPerfModeCount = 2;
std::string_view matmul_perf_mode_name(MatmulPerfMode m);
std::optional<MatmulPerfMode> parse_matmul_perf_mode(std::string_view name);

// An operand that is either an fp32 immediate or a per-partition [P,1] vector.
using ScalarArg = std::variant<float, AccessPattern>;

// Settings whose meaning a plain number type would not say. Every field type is one kind
// of field (field_kind.hpp: its encodings, syntax and checks go by the type), so a number
// type never stands for two meanings. Axes and QueueRef convert to and from their number,
// which is what the models read.
// How many innermost free dims a reduction folds (1..kMaxFreeDims).
struct Axes {
  std::uint8_t count = 0;
  constexpr Axes() = default;
  constexpr Axes(std::uint8_t n) : count(n) {}               // NOLINT: a count is a number
  constexpr operator std::uint8_t() const { return count; }  // NOLINT
};
// An index into Kernel::queues; the assembly language writes the queue's name.
struct QueueRef {
  std::uint16_t index = 0;
  constexpr QueueRef() = default;
  constexpr QueueRef(std::uint16_t i) : index(i) {}           // NOLINT: an index is a number
  constexpr operator std::uint16_t() const { return index; }  // NOLINT
};
// The coefficient of each free-dim index in an affine expression (iota, affine_select);
// an aggregate over the array, so that {1, 0} initialises it as it would the array.
struct Steps : std::array<std::int32_t, kMaxFreeDims> {};

// Each operand struct lists its fields once, in NEFF record order (docs/neff.md), in
// fields(): see operand_field.hpp for what derives from the list. A member missing from
// fields() is neither encoded, printed, compared nor validated.

// dst[M,N] = stationary[K,M]^T @ moving[K,N]; K = partitions of the inputs. With
// perf_mode double_row: dst[M,N] = sum over k, r of stationary[k,r,m] * moving[k,r,n],
// stationary [K, 2, M] and moving [K, 2, N] (their free elements in that order).
struct Matmul {
  AccessPattern dst, stationary, moving;
  AccumulateFlag acc = AccumulateFlag::single;
  MatmulPerfMode perf_mode = MatmulPerfMode::none;

  // middle and last add to the partial sums already in dst.
  static bool accumulates(const Matmul& m) {
    return m.acc == AccumulateFlag::middle || m.acc == AccumulateFlag::last;
  }
  static constexpr auto fields() {
    return std::make_tuple(
        field::out("dst", &Matmul::dst).read_when(&Matmul::accumulates),
        field::in("stationary", &Matmul::stationary), field::in("moving", &Matmul::moving).sets_n(),
        field::setting("acc", &Matmul::acc), field::setting("perf_mode", &Matmul::perf_mode));
  }
  // Rows of the contraction per partition: 2 in double_row, else 1.
  static constexpr std::uint32_t rows_per_partition(MatmulPerfMode m) {
    return m == MatmulPerfMode::double_row ? 2 : 1;
  }
  // M and N: the stationary's and moving's free elements per contraction row.
  std::uint64_t m_cols() const { return stationary.free_elems() / rows_per_partition(perf_mode); }
  std::uint64_t n_cols() const { return moving.free_elems() / rows_per_partition(perf_mode); }
  // The contraction K: partitions times rows per partition.
  std::uint64_t k_rows() const {
    return std::uint64_t{stationary.partitions} * rows_per_partition(perf_mode);
  }
};
// dst[F,P] = src[P,F]^T. Tensor engine (through the array, to PSUM) or Vector (<= 32x32).
struct Transpose {
  AccessPattern dst, src;
  static constexpr auto fields() {
    return std::make_tuple(field::out("dst", &Transpose::dst),
                           field::in("src", &Transpose::src).sets_n());
  }
};
// dst = func(src * scale + bias); optionally reduce_dst[P,1] = sum over free of dst values.
struct Activation {
  AccessPattern dst, src;
  ActFunc func = ActFunc::copy;
  ScalarArg scale = 1.0f;
  std::optional<AccessPattern> bias;        // [P,1]
  std::optional<AccessPattern> reduce_dst;  // [P,1], add-reduction of the results
  static constexpr auto fields() {
    return std::make_tuple(
        field::out("dst", &Activation::dst), field::in("src", &Activation::src).sets_n(),
        field::setting("func", &Activation::func).required(),
        field::column("scale", &Activation::scale), field::column("bias", &Activation::bias),
        field::column_out("reduce_dst", &Activation::reduce_dst).key_is("reduce"));
  }
};
// dst = a op b, elementwise.
struct TensorTensor {
  AccessPattern dst, a, b;
  AluOp op = AluOp::add;
  static constexpr auto fields() {
    return std::make_tuple(
        field::out("dst", &TensorTensor::dst), field::in("a", &TensorTensor::a).sets_n(),
        field::in("b", &TensorTensor::b), field::setting("op", &TensorTensor::op).required());
  }
};
// dst = (src op0 arg0) op1 arg1; with reverse, the operands of that op swap.
// Optional reduce_dst[P,1] = reduce_op over free of the results.
struct TensorScalar {
  AccessPattern dst, src;
  // The one-byte settings together: the largest operation sizes every Instruction.
  AluOp op0 = AluOp::bypass;
  bool reverse0 = false;
  std::optional<AluOp> op1;
  bool reverse1 = false;
  AluOp reduce_op = AluOp::add;
  ScalarArg arg0 = 0.0f;
  ScalarArg arg1 = 0.0f;
  std::optional<AccessPattern> reduce_dst;
  static constexpr auto fields() {
    return std::make_tuple(
        field::out("dst", &TensorScalar::dst), field::in("src", &TensorScalar::src).sets_n(),
        field::setting("op0", &TensorScalar::op0).required(),
        field::column("arg0", &TensorScalar::arg0).required(),
        field::setting("reverse0", &TensorScalar::reverse0),
        field::setting("op1", &TensorScalar::op1),
        field::column("arg1", &TensorScalar::arg1).only_with("op1"),
        field::setting("reverse1", &TensorScalar::reverse1).only_with("op1"),
        field::column_out("reduce_dst", &TensorScalar::reduce_dst).key_is("reduce"),
        field::setting("reduce_op", &TensorScalar::reduce_op).only_with("reduce"));
  }
};
// dst = (a op0 scalar) op1 b.
struct ScalarTensorTensor {
  AccessPattern dst, a, b;
  ScalarArg scalar = 0.0f;
  AluOp op0 = AluOp::multiply;
  AluOp op1 = AluOp::add;
  static constexpr auto fields() {
    return std::make_tuple(field::out("dst", &ScalarTensorTensor::dst),
                           field::in("a", &ScalarTensorTensor::a).sets_n(),
                           field::in("b", &ScalarTensorTensor::b),
                           field::column("scalar", &ScalarTensorTensor::scalar).required(),
                           field::setting("op0", &ScalarTensorTensor::op0).required(),
                           field::setting("op1", &ScalarTensorTensor::op1).required());
  }
};
// Reduce the innermost `axes` free dims of src with op (add, max, min, multiply);
// dst keeps the outer dims. negate flips the sign of the result.
struct TensorReduce {
  AccessPattern dst, src;
  AluOp op = AluOp::add;
  Axes axes = 1;
  bool negate = false;
  static constexpr auto fields() {
    return std::make_tuple(field::out("dst", &TensorReduce::dst),
                           field::in("src", &TensorReduce::src).sets_n(),
                           field::setting("op", &TensorReduce::op).required(),
                           field::setting("axes", &TensorReduce::axes),
                           field::setting("negate", &TensorReduce::negate));
  }
};
struct TensorCopy {
  AccessPattern dst, src;
  static constexpr auto fields() {
    return std::make_tuple(field::out("dst", &TensorCopy::dst),
                           field::in("src", &TensorCopy::src).sets_n());
  }
};
struct Memset {
  AccessPattern dst;
  double value = 0.0;  // double so that every int32/uint32 value is exact
  // N of a fill is its output's free size.
  static constexpr auto fields() {
    return std::make_tuple(field::out("dst", &Memset::dst).sets_n(),
                           field::setting("value", &Memset::value).required());
  }
};
// dst[p, i0..i3] = base + p * partition_step + sum_k i_k * steps[k] (integer arithmetic).
struct Iota {
  AccessPattern dst;
  std::int32_t base = 0;
  std::int32_t partition_step = 0;
  Steps steps{};
  static constexpr auto fields() {
    return std::make_tuple(field::out("dst", &Iota::dst).sets_n(),
                           field::setting("base", &Iota::base),
                           field::setting("partition_step", &Iota::partition_step),
                           field::setting("steps", &Iota::steps));
  }
};
// dst = predicate != 0 ? on_true : on_false, elementwise.
struct Select {
  AccessPattern dst, predicate, on_true, on_false;
  static constexpr auto fields() {
    return std::make_tuple(
        field::out("dst", &Select::dst), field::in("predicate", &Select::predicate),
        field::in("on_true", &Select::on_true).sets_n(), field::in("on_false", &Select::on_false));
  }
};
// dst = (affine cmp 0) ? src : fill, affine = offset + p * partition_step + sum i_k*steps[k].
// Builds masks such as causal (triangular) masks.
struct AffineSelect {
  AccessPattern dst, src;
  std::int32_t offset = 0;
  std::int32_t partition_step = 0;
  Steps steps{};
  AluOp cmp = AluOp::is_ge;
  float fill = 0.0f;
  static constexpr auto fields() {
    return std::make_tuple(field::out("dst", &AffineSelect::dst),
                           field::in("src", &AffineSelect::src).sets_n(),
                           field::setting("offset", &AffineSelect::offset),
                           field::setting("partition_step", &AffineSelect::partition_step),
                           field::setting("steps", &AffineSelect::steps),
                           field::setting("cmp", &AffineSelect::cmp).required(),
                           field::setting("fill", &AffineSelect::fill));
  }
};
// Per partition, statistics of src as NKI's bn_stats: dst holds 6 values per partition,
// (count, mean, variance*count) of the even-indexed then of the odd-indexed elements.
struct BnStats {
  AccessPattern dst, src;
  static constexpr auto fields() {
    return std::make_tuple(field::out("dst", &BnStats::dst),
                           field::in("src", &BnStats::src).sets_n());
  }
};
// Aggregates (count, mean, variance*count) triples in src into dst = (mean, variance).
struct BnAggr {
  AccessPattern dst, src;
  static constexpr auto fields() {
    return std::make_tuple(field::out("dst", &BnAggr::dst),
                           field::in("src", &BnAggr::src).sets_n());
  }
};
// DMA transfer between HBM and SBUF (or SBUF and SBUF), casting through fp32 when the
// dtypes differ; accumulate adds the source to the destination (read-add-write).
// transpose: the DMA engine transposes the data on the way (NKI/dma_transpose; 2-byte
// dtypes, NeuronCore-v3+): src [P, F] (its free dims flattened in order) lands as dst
// [F, P], dst[f][p] = src[p][f]. One instruction: the same queues, descriptors and
// engines as a copy, at a fraction of a copy's rate (engines/dma_split.hpp).
// src_index / dst_index: an indirect (gather / scatter) transfer (NKI/dma_copy, software
// DGE: "a gather or scatter operation, using a list of dynamic indices from SBUF"): a
// [P,1] integer column in SBUF, read when the transfer runs. With src_index, row p of dst
// is row src_index[p] of src, whose partitions are the rows the indices may name; with
// dst_index, row p of src lands on row dst_index[p] of dst. An index outside those rows
// fails the launch, unless oob_skip: then that row is skipped (a gather leaves dst's row as
// it was, a scatter writes nothing for it), NKI/dma_copy's oob_mode.skip.
// prebuilt_descriptors: the host built the descriptors before the launch (NKI/dma_copy's
// dge_mode.none, "Neuron Runtime generates DMA descriptors and stores them into HBM before
// NEFF execution"), so no DGE runs for it whichever engine issues it; a direct transfer only
// (an indirect one's descriptors depend on its runtime indices).
struct DmaCopy {
  AccessPattern dst, src;
  QueueRef queue = 0;
  bool accumulate = false;
  bool transpose = false;
  std::optional<AccessPattern> src_index, dst_index;
  bool oob_skip = false;
  bool prebuilt_descriptors = false;

  static bool read_add_write(const DmaCopy& d) { return d.accumulate; }
  static constexpr auto fields() {
    return std::make_tuple(field::out("dst", &DmaCopy::dst).read_when(&DmaCopy::read_add_write),
                           field::in("src", &DmaCopy::src).sets_n(),
                           field::setting("queue", &DmaCopy::queue).required(),
                           field::setting("accumulate", &DmaCopy::accumulate),
                           field::setting("transpose", &DmaCopy::transpose),
                           field::column("src_index", &DmaCopy::src_index),
                           field::column("dst_index", &DmaCopy::dst_index),
                           field::setting("oob_skip", &DmaCopy::oob_skip),
                           field::setting("prebuilt_descriptors", &DmaCopy::prebuilt_descriptors));
  }
  // The side an index picks rows of (null: a direct transfer), and that index (its
  // partitions are the rows the transfer moves).
  const AccessPattern* indexed() const { return src_index ? &src : dst_index ? &dst : nullptr; }
  const std::optional<AccessPattern>& index() const { return src_index ? src_index : dst_index; }
};
// Does nothing but wait and signal: a pure synchronisation point.
struct Nop {
  static constexpr auto fields() { return std::tuple<>(); }
};

// Scans data0 and data1 along the free dims, one partition at a time (NKI/tensor_tensor_scan):
// r[0] = (data0[0] op0 initial) op1 data1[0], r[i] = (data0[i] op0 r[i-1]) op1 data1[i];
// reverse0 / reverse1 swap the operands of op0 / op1. initial is an immediate or [P,1].
struct TensorTensorScan {
  AccessPattern dst, data0, data1;
  AluOp op0 = AluOp::multiply;
  AluOp op1 = AluOp::add;
  bool reverse0 = false;
  bool reverse1 = false;
  ScalarArg initial = 0.0f;
  static constexpr auto fields() {
    return std::make_tuple(field::out("dst", &TensorTensorScan::dst),
                           field::in("data0", &TensorTensorScan::data0).sets_n(),
                           field::in("data1", &TensorTensorScan::data1),
                           field::column("initial", &TensorTensorScan::initial).required(),
                           field::setting("op0", &TensorTensorScan::op0).required(),
                           field::setting("op1", &TensorTensorScan::op1).required(),
                           field::setting("reverse0", &TensorTensorScan::reverse0),
                           field::setting("reverse1", &TensorTensorScan::reverse1));
  }
};

// dst = 1 / src, elementwise, computed in fp32 and cast to dst's dtype (NKI/reciprocal:
// "Compute element-wise reciprocal (1.0/x) ... using Vector Engine").
struct Reciprocal {
  AccessPattern dst, src;
  static constexpr auto fields() {
    return std::make_tuple(field::out("dst", &Reciprocal::dst),
                           field::in("src", &Reciprocal::src).sets_n());
  }
};

// A reduction across partitions (NKI/tensor_partition_reduce, GpSimd): dst[0, j] = src[0, j]
// op src[1, j] op ... op src[P-1, j], folded in partition order; dst has one partition and
// src's free size. op: add or max (in fp32), bitwise_and/or/xor (integers, as bit patterns).
struct PartitionReduce {
  AccessPattern dst, src;
  AluOp op = AluOp::add;
  static constexpr auto fields() {
    return std::make_tuple(field::out("dst", &PartitionReduce::dst),
                           field::in("src", &PartitionReduce::src).sets_n(),
                           field::setting("op", &PartitionReduce::op).required());
  }
};

// dst = src, with each element replaced by zero with probability prob (NKI/dropout: an
// immediate or a [P,1] per-partition probability; no rescaling of the kept values). The
// random numbers are neuronsim's deterministic generator of (seed, partition, element):
// docs/numerics.md "dropout".
struct Dropout {
  AccessPattern dst, src;
  ScalarArg prob = 0.0f;
  std::int32_t seed = 0;  // the generator's key (the front end's nl.random_seed)
  static constexpr auto fields() {
    return std::make_tuple(
        field::out("dst", &Dropout::dst), field::in("src", &Dropout::src).sets_n(),
        field::column("prob", &Dropout::prob).required(), field::setting("seed", &Dropout::seed));
  }
};

// The 8 largest values of each partition of src, in descending order, into dst[P, 8]
// (NKI/max8: computed in fp32, cast to dst's dtype; src has 8 to 16384 elements per
// partition).
struct Max8 {
  AccessPattern dst, src;
  static constexpr auto fields() {
    return std::make_tuple(field::out("dst", &Max8::dst), field::in("src", &Max8::src).sets_n());
  }
};

// dst[p, j] = the index of the first element of data's partition p equal to vals[p, j]
// (NKI/nc_find_index8: 8 values per partition, indices in uint16 or uint32, all ones when
// a value is absent).
struct FindIndex8 {
  AccessPattern dst, data, vals;
  static constexpr auto fields() {
    return std::make_tuple(field::out("dst", &FindIndex8::dst),
                           field::in("data", &FindIndex8::data).sets_n(),
                           field::in("vals", &FindIndex8::vals));
  }
};

// dst = data with the first occurrence of each of the 8 vals of a partition replaced by
// imm, the vals taken in order (NKI/nc_match_replace8); optionally dst_idx[P, 8] receives
// the index each value matched (all ones when absent).
struct MatchReplace8 {
  AccessPattern dst, data, vals;
  float imm = 0.0f;
  std::optional<AccessPattern> dst_idx;
  static constexpr auto fields() {
    return std::make_tuple(field::out("dst", &MatchReplace8::dst),
                           field::in("data", &MatchReplace8::data).sets_n(),
                           field::in("vals", &MatchReplace8::vals),
                           field::setting("imm", &MatchReplace8::imm).required(),
                           field::column_out("dst_idx", &MatchReplace8::dst_idx));
  }
};

// MX (microscaling) quantisation, NeuronCore-v4+ (NKI/quantize_mx): src [P, F] fp16/bf16,
// P a multiple of 32, in groups of 32 values (8 partitions x 4 elements); dst [P, F/4] of a
// packed x4 type, element (p, j) holding src[p, 4j .. 4j+3] (lane i = byte i) divided by its
// group's scale; dst_scale gets one e8m0 scale per group: group (q*32 + 8g .. +7, j) of
// quadrant q and row g in 0..3 at dst_scale's partition q*32 + g, element j (the page's
// "first 16 partitions of each SBUF quadrant, the same partition offset at each").
struct QuantizeMx {
  AccessPattern dst, src, dst_scale;
  static constexpr auto fields() {
    return std::make_tuple(field::out("dst", &QuantizeMx::dst),
                           field::in("src", &QuantizeMx::src).sets_n(),
                           field::out("dst_scale", &QuantizeMx::dst_scale));
  }
};

// MX matmul, NeuronCore-v4+ (NKI/nc_matmul_mx): dst[M, N] = sum over k of
// S[k, m] * V[k, n], where stationary [K, M] and moving [K, N] are packed x4 tiles (K
// partitions, a multiple of 32) and contraction row 4p + i is lane i of partition p,
// dequantised with its group's e8m0 scale (the quantize_mx layout, one scale tile per input):
// S[4p + i, m] = lane_i(stationary[p, m]) * 2^(scale - 127). acc as Matmul's.
struct MatmulMx {
  AccessPattern dst, stationary, moving, stationary_scale, moving_scale;
  AccumulateFlag acc = AccumulateFlag::single;

  static bool accumulates(const MatmulMx& m) {
    return m.acc == AccumulateFlag::middle || m.acc == AccumulateFlag::last;
  }
  static constexpr auto fields() {
    return std::make_tuple(field::out("dst", &MatmulMx::dst).read_when(&MatmulMx::accumulates),
                           field::in("stationary", &MatmulMx::stationary),
                           field::in("moving", &MatmulMx::moving).sets_n(),
                           field::in("stationary_scale", &MatmulMx::stationary_scale),
                           field::in("moving_scale", &MatmulMx::moving_scale),
                           field::setting("acc", &MatmulMx::acc));
  }
  // Contraction rows per partition: the four lanes of a packed element.
  static constexpr std::uint32_t kLanes = 4;
  std::uint64_t k_rows() const { return std::uint64_t{stationary.partitions} * kLanes; }
};

// The MX group of both instructions (NKI/quantize_mx, Layout): 8 partitions x 4 elements,
// and the 32-partition SBUF quadrant whose first rows hold a quadrant's scales.
inline constexpr std::uint32_t kMxGroupPartitions = 8;
inline constexpr std::uint32_t kMxQuadrantPartitions = 32;
// The row of a scale tile holding the scales of data partition p: its quadrant's start plus
// its group within the quadrant (0..3).
constexpr std::uint32_t mx_scale_row(std::uint32_t p) {
  return p / kMxQuadrantPartitions * kMxQuadrantPartitions +
         p % kMxQuadrantPartitions / kMxGroupPartitions;
}

// Engine sets of the opcode table (bit i set = Engine(i) may run it).
namespace engine_set {
constexpr std::uint32_t bit(Engine e) {
  return 1u << static_cast<int>(e);
}
inline constexpr std::uint32_t tensor = bit(Engine::tensor), vector = bit(Engine::vector),
                               scalar = bit(Engine::scalar), gpsimd = bit(Engine::gpsimd),
                               all = (1u << kEngineCount) - 1;
}  // namespace engine_set

// X(name, operand struct, engines, NKI page, report colour): one row per opcode, in opcode
// number order. The numbers are written into NEFF instruction records and NTFF traces:
// never renumber, append new opcodes at the end (tests/unit/isa_opcodes.cpp pins every
// number). From the rows come Opcode, Operation (the variant, whose index is the opcode),
// the names, the engine sets and the colours of report/style.cpp.
//
// Engines: the NKI ISA reference, https://awsdocs-neuron.readthedocs-hosted.com/en/latest/
// nki/api/generated/nki.isa.<page>.html, quoted beside each row (docs/isa-audit.md has the
// audit). What an engine may do beyond its opcode (bitvec ops on Vector only, the Scalar
// engine's tensor_scalar operator pairs, no PSUM on GpSimd) is validation's
// (validate/opcode.cpp). Colours: a colour-blind-friendly qualitative palette (Tableau 20).
#define NEURONSIM_OPCODES(X)                                                                   \
  /* "using Tensor Engine" */                                                                  \
  X(matmul, Matmul, engine_set::tensor, "nc_matmul", "#4e79a7")                                \
  /* "using Tensor or Vector Engine" */                                                        \
  X(transpose, Transpose, engine_set::tensor | engine_set::vector, "nc_transpose", "#a0cbe8")  \
  /* "using Scalar Engine" */                                                                  \
  X(activation, Activation, engine_set::scalar, "activation", "#f28e2b")                       \
  /* "using Vector Engine or GpSimd Engine" */                                                 \
  X(tensor_tensor, TensorTensor, engine_set::vector | engine_set::gpsimd, "tensor_tensor",     \
    "#59a14f")                                                                                 \
  /* "using Vector or Scalar or GpSimd Engine", but GpSimd only for rsqrt, an operator */      \
  /* neuronsim's AluOp does not have */                                                        \
  X(tensor_scalar, TensorScalar, engine_set::vector | engine_set::scalar, "tensor_scalar",     \
    "#8cd17d")                                                                                 \
  /* "using Vector Engine" */                                                                  \
  X(scalar_tensor_tensor, ScalarTensorTensor, engine_set::vector, "scalar_tensor_tensor",      \
    "#b6992d")                                                                                 \
  /* "using Vector Engine" (partition-axis reductions on GpSimd are another instruction, */    \
  /* tensor_partition_reduce) */                                                               \
  X(tensor_reduce, TensorReduce, engine_set::vector, "tensor_reduce", "#e15759")               \
  /* "using Vector, Scalar or GpSimd Engine" */                                                \
  X(tensor_copy, TensorCopy, engine_set::vector | engine_set::scalar | engine_set::gpsimd,     \
    "tensor_copy", "#ff9d9a")                                                                  \
  /* "using Vector or GpSimd Engine" */                                                        \
  X(memset, Memset, engine_set::vector | engine_set::gpsimd, "memset", "#bab0ac")              \
  /* "using GpSimd Engine" */                                                                  \
  X(iota, Iota, engine_set::gpsimd, "iota", "#d37295")                                         \
  /* neuronsim's select (a full-tile on_false) has no page of its own; its relatives */        \
  /* select_reduce and tensor_copy_predicated run on the Vector Engine only */                 \
  X(select, Select, engine_set::vector, "", "#fabfd2")                                         \
  /* "using GpSimd Engine" */                                                                  \
  X(affine_select, AffineSelect, engine_set::gpsimd, "affine_select", "#b07aa1")               \
  /* "using Vector Engine" */                                                                  \
  X(bn_stats, BnStats, engine_set::vector, "bn_stats", "#499894")                              \
  X(bn_aggr, BnAggr, engine_set::vector, "bn_aggr", "#86bcb6")                                 \
  /* no engine named: descriptors come from the runtime, the GpSimd engine (software */        \
  /* DGE) or the Sync/Scalar sequencers (hardware DGE, v3+), and any engine's stream may */    \
  /* start a queue (reference section 4) */                                                    \
  X(dma_copy, DmaCopy, engine_set::all, "dma_copy", "#9d7660")                                 \
  /* neuronsim's semaphore-only instruction (reference section 5), no NKI page: every */       \
  /* sequencer waits and signals */                                                            \
  X(nop, Nop, engine_set::all, "", "#d7d7d7")                                                  \
  /* "using Vector Engine" */                                                                  \
  X(tensor_tensor_scan, TensorTensorScan, engine_set::vector, "tensor_tensor_scan", "#f1ce63") \
  /* "using Vector Engine" */                                                                  \
  X(reciprocal, Reciprocal, engine_set::vector, "reciprocal", "#ffbe7d")                       \
  /* "across partitions of an input data tile using GpSimd Engine" */                          \
  X(tensor_partition_reduce, PartitionReduce, engine_set::gpsimd, "tensor_partition_reduce",   \
    "#79706e")                                                                                 \
  /* "using Vector Engine" */                                                                  \
  X(dropout, Dropout, engine_set::vector, "dropout", "#d4a6c8")                                \
  /* the page names no engine; the reference lists max8 on Vector (section 3) */               \
  X(max8, Max8, engine_set::vector, "max8", "#d7b5a6")                                         \
  /* the page names no engine; nc_match_replace8 runs "using the Vector engine" */             \
  X(find_index8, FindIndex8, engine_set::vector, "nc_find_index8", "#6b9ac4")                  \
  /* "using the Vector engine" */                                                              \
  X(match_replace8, MatchReplace8, engine_set::vector, "nc_match_replace8", "#c85200")         \
  /* "using Vector Engine" (NeuronCore-v4+: validation, tensor.mx_speedup) */                  \
  X(quantize_mx, QuantizeMx, engine_set::vector, "quantize_mx", "#a3acb9")                     \
  /* "using Tensor Engine" (NeuronCore-v4+: validation, tensor.mx_speedup) */                  \
  X(matmul_mx, MatmulMx, engine_set::tensor, "nc_matmul_mx", "#2f5d8a")

namespace operation_detail {
template <typename First, typename... Rest>
struct VariantOfRest {
  using type = std::variant<Rest...>;
};
}  // namespace operation_detail

#define NEURONSIM_OPCODE_STRUCT(name, Struct, engines, page, colour) , Struct
using Operation =
    operation_detail::VariantOfRest<void NEURONSIM_OPCODES(NEURONSIM_OPCODE_STRUCT)>::type;
#undef NEURONSIM_OPCODE_STRUCT

enum class Opcode : std::uint8_t {
#define NEURONSIM_OPCODE_ENUMERATOR(name, Struct, engines, page, colour) name,
  NEURONSIM_OPCODES(NEURONSIM_OPCODE_ENUMERATOR)
#undef NEURONSIM_OPCODE_ENUMERATOR
};
inline constexpr int kOpcodeCount = static_cast<int>(std::variant_size_v<Operation>);

struct OpcodeInfo {
  std::string_view name;
  std::uint32_t engines;      // bit i set = Engine(i) may run it
  std::string_view nki_page;  // nki.isa.<nki_page>; empty: neuronsim's own instruction
  std::string_view colour;    // report and viewer colour
};
inline constexpr OpcodeInfo kOpcodeTable[] = {
#define NEURONSIM_OPCODE_ROW(name, Struct, engines, page, colour) {#name, engines, page, colour},
    NEURONSIM_OPCODES(NEURONSIM_OPCODE_ROW)
#undef NEURONSIM_OPCODE_ROW
};
static_assert(std::size(kOpcodeTable) == std::variant_size_v<Operation>);

constexpr const OpcodeInfo& opcode_info(Opcode op) {
  return kOpcodeTable[static_cast<std::size_t>(op)];
}

// The opcode of an operand struct: its index in Operation.
template <typename Op, std::size_t I = 0>
constexpr Opcode opcode_of() {
  static_assert(I < std::variant_size_v<Operation>, "not an alternative of Operation");
  if constexpr (std::is_same_v<Op, std::variant_alternative_t<I, Operation>>) {
    return static_cast<Opcode>(I);
  } else {
    return opcode_of<Op, I + 1>();
  }
}

// Makes `op` the default-constructed operation of `opcode` (decoders reuse one Operation).
void reset_operation(Operation& op, Opcode opcode);
// "?" for a number outside the table (a corrupt record read before it is checked).
constexpr std::string_view opcode_name(Opcode op) {
  return static_cast<int>(op) < kOpcodeCount ? opcode_info(op).name : std::string_view("?");
}
std::optional<Opcode> parse_opcode(std::string_view name);
// The engines that may run an opcode (bit i set = Engine(i) may run it).
constexpr std::uint32_t allowed_engines(Opcode op) {
  return opcode_info(op).engines;
}

struct SemWait {
  std::uint16_t sem = 0;    // index into Kernel::semaphores
  std::uint32_t value = 0;  // wait until the semaphore's value >= value
  bool operator==(const SemWait& o) const { return sem == o.sem && value == o.value; }
};
enum class SemUpdate : std::uint8_t { increment, set };
struct SemSignal {
  std::uint16_t sem = 0;
  SemUpdate kind = SemUpdate::increment;
  std::uint32_t value = 1;  // added (increment) or stored (set)
  bool operator==(const SemSignal& o) const {
    return sem == o.sem && kind == o.kind && value == o.value;
  }
};
// Up to two of each inside the instruction (base/small_list.hpp): most instructions have
// at most one wait and one signal.
using SemWaits = SmallList<SemWait, 2>;
using SemSignals = SmallList<SemSignal, 2>;

// Where an instruction came from in the program that generated the kernel (a traced NKI
// kernel's Python file and line): `file` indexes Kernel::sources; line 0 means unknown.
// Unlike source_line it is part of the kernel: the NEFF stores it (docs/neff.md). Held by
// the InstructionStream beside the records (InstructionStream::location), not in
// Instruction, which every engine copies per instruction.
struct SourceLocation {
  std::uint32_t file = 0;
  std::uint32_t line = 0;
  bool known() const { return line != 0; }
  bool operator==(const SourceLocation& o) const { return file == o.file && line == o.line; }
  bool operator!=(const SourceLocation& o) const { return !(*this == o); }
};

struct Instruction {
  Operation op;
  SemWaits waits;
  SemSignals signals;
  std::uint32_t source_line = 0;  // line in the assembly source, 0 when unknown

  Opcode opcode() const { return static_cast<Opcode>(op.index()); }
  // Equality ignores source_line: the same instruction written on another line is equal.
  bool operator==(const Instruction& o) const;
  bool operator!=(const Instruction& o) const { return !(*this == o); }
};

// Every access pattern an instruction reads and writes, for validation, port modelling
// and byte accounting.
struct Operands {
  std::vector<const AccessPattern*> reads;
  std::vector<const AccessPattern*> writes;
};
Operands operands(const Instruction& instr);

}  // namespace neuronsim::isa

// Validation of one access pattern (reference section 2): its structure, the buffer it
// names, the start-partition rule, the elements it touches (negative strides included),
// one instruction's free-size limit and PSUM banks.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "validate/detail.hpp"

namespace neuronsim::isa::validate_detail {

namespace {

// Offsets of a pattern can exceed 64 bits in a malformed kernel (an int64 partition
// stride times a uint32 row); 128-bit arithmetic keeps every bound check exact.
using Wide = __int128;

std::string num(Wide v) {
  if (v > INT64_MAX || v < INT64_MIN) return v > 0 ? "+huge" : "-huge";
  return std::to_string(static_cast<long long>(v));
}
std::string range(Wide begin, Wide end) {
  return "[" + num(begin) + ", " + num(end) + ")";
}

// Lowest and highest element offset the free dims reach, relative to element 0.
struct Extent {
  Wide lo = 0, hi = 0;
};
Extent free_extent(const AccessPattern& ap) {
  Extent e;
  for (int i = 0; i < ap.ndims; ++i) {
    const Wide span = Wide{ap.dims[i].stride} * (Wide{ap.dims[i].size} - 1);
    if (span < 0)
      e.lo += span;
    else
      e.hi += span;
  }
  return e;
}

// Reference section 2, with g = partition_start_granule (32): a tile of more than 2g
// partitions starts at 0, of g+1..2g at a multiple of 2g that leaves 2g partitions (0 or
// 64 of 128), of at most g at a multiple of g that leaves g (0, 32, 64 or 96).
std::uint64_t start_step(std::uint32_t count, std::uint32_t granule) {
  if (count > 2 * std::uint64_t{granule}) return 0;
  return count > granule ? 2 * std::uint64_t{granule} : granule;
}
bool start_partition_allowed(std::uint64_t start, std::uint32_t count,
                             const params::TargetLimits& l) {
  const std::uint64_t step = start_step(count, l.partition_start_granule);
  if (step == 0) return start == 0;
  return start % step == 0 && start + step <= l.partitions;
}
// "a tile of 32 or fewer partitions must start at partition 0, 32, 64 or 96".
std::string start_partition_rule(std::uint32_t count, const params::TargetLimits& l) {
  const std::uint64_t g = l.partition_start_granule;
  const std::uint64_t step = start_step(count, l.partition_start_granule);
  if (step == 0)
    return "a tile of more than " + std::to_string(2 * g) + " partitions must start at partition 0";
  std::string starts;
  for (std::uint64_t s = 0; s + step <= l.partitions; s += step) {
    const bool last = s + 2 * step > l.partitions;
    starts += (s == 0 ? "" : last ? " or " : ", ") + std::to_string(s);
  }
  const std::string tile = step == g ? std::to_string(g) + " or fewer"
                                     : std::to_string(g + 1) + "-" + std::to_string(2 * g);
  return "a tile of " + tile + " partitions must start at partition " + starts;
}

std::string alloc_name(const Kernel& k, std::uint32_t index) {
  const std::string& n = k.allocations[index].name;
  return n.empty() ? "#" + std::to_string(index) : n;
}
std::string tensor_name(const Kernel& k, std::uint32_t index) {
  const std::string& n = k.tensors[index].name;
  return n.empty() ? "#" + std::to_string(index) : n;
}

class PatternChecker {
 public:
  PatternChecker(const Kernel& k, const params::TargetLimits& limits, const Instruction& instr,
                 const NamedPattern& operand, InstrReporter& report)
      : k_(k),
        limits_(limits),
        instr_(instr),
        ap_(*operand.ap),
        role_(operand.role),
        report_(report) {}

  bool run() {
    if (static_cast<int>(ap_.dtype) >= kDTypeCount)
      return fail("unknown dtype " + std::to_string(static_cast<int>(ap_.dtype)));
    if (ap_.space != MemSpace::hbm && ap_.space != MemSpace::sbuf && ap_.space != MemSpace::psum)
      return fail("unknown memory space " + std::to_string(static_cast<int>(ap_.space)));
    // The Neuron compiler's NCC_EVRF051: F8E4M3FN is native on Trainium3 and later only.
    if (ap_.dtype == DType::fp8_e4m3fn && !limits_.fp8_e4m3fn)
      problem(
          "dtype fp8_e4m3fn (float8_e4m3fn) is not supported on this target (NCC_EVRF051: "
          "natively supported on Trainium3 and later; limits.fp8_e4m3fn is false); use "
          "fp8_e4m3 here");
    // The target's limit (at most kMaxFreeDims, the dims a pattern holds: config/schema.cpp):
    // a DMA descriptor's (dma.max_pattern_dims, reference section 3) for a dma_copy's
    // operands, the engines' access patterns' (limits.ap_max_free_dims) for the rest.
    const std::uint32_t max_dims = std::min<std::uint32_t>(
        instr_.opcode() == Opcode::dma_copy ? limits_.dma_max_free_dims : limits_.ap_max_free_dims,
        kMaxFreeDims);
    if (ap_.ndims < 1 || ap_.ndims > max_dims)
      return fail("ndims " + std::to_string(ap_.ndims) + " is not in 1.." +
                  std::to_string(max_dims) +
                  (instr_.opcode() == Opcode::dma_copy ? " (a DMA pattern)" : ""));
    bool sound = check_dims();
    // The indexed side of a gather or scatter spans the rows its indices may name (an HBM
    // tensor's, bounded by check_hbm below), not partitions.
    const auto* dma = std::get_if<DmaCopy>(&instr_.op);
    const bool rows_by_index = dma && dma->indexed() == &ap_ && ap_.space == MemSpace::hbm;
    if (ap_.partitions == 0 || (ap_.partitions > limits_.partitions && !rows_by_index))
      sound = fail("partition count " + std::to_string(ap_.partitions) + " is not in 1.." +
                   std::to_string(limits_.partitions));
    elem_ = dtype_size(ap_.dtype);
    if (ap_.byte_offset % elem_ != 0)
      problem("byte offset " + std::to_string(ap_.byte_offset) + " is not aligned to the " +
              std::string(dtype_name(ap_.dtype)) + " element size (" + std::to_string(elem_) +
              " bytes)");
    if (ap_.space == MemSpace::hbm)
      check_hbm(sound);
    else
      check_on_chip(sound);
    return sound;
  }

 private:
  void problem(const std::string& reason) { report_.problem(std::string(role_) + ": " + reason); }
  bool fail(const std::string& reason) {
    problem(reason);
    return false;
  }

  // Reference section 2: sizes fit uint16 (ap_max_dim_size 65535), strides int16
  // (ap_max_stride 32767: -32768..32767).
  bool check_dims() {
    bool ok = true;
    const std::int64_t max_stride = limits_.ap_max_stride;
    for (int i = 0; i < ap_.ndims; ++i) {
      const Dim& d = ap_.dims[i];
      if (d.size < 1 || d.size > limits_.ap_max_dim_size)
        ok =
            fail("dim " + std::to_string(i) + " size " + std::to_string(d.size) + " is not in 1.." +
                 std::to_string(limits_.ap_max_dim_size) + " (ap_max_dim_size)");
      if (d.stride < -max_stride - 1 || d.stride > max_stride)
        ok = fail("dim " + std::to_string(i) + " stride " + std::to_string(d.stride) +
                  " is not in " + std::to_string(-max_stride - 1) + ".." +
                  std::to_string(max_stride) + " (ap_max_stride)");
    }
    return ok;
  }

  void check_hbm(bool sound) {
    if (ap_.buffer >= k_.tensors.size()) {
      problem("tensor index " + std::to_string(ap_.buffer) + " is out of range (the kernel has " +
              std::to_string(k_.tensors.size()) + " tensors)");
      return;
    }
    const HbmTensor& t = k_.tensors[ap_.buffer];
    if (instr_.opcode() != Opcode::dma_copy)
      problem("is in hbm, but only dma_copy reaches hbm (compute engines read sbuf/psum)");
    if (ap_.dtype != t.dtype)
      problem("dtype " + std::string(dtype_name(ap_.dtype)) + " differs from tensor " +
              tensor_name(k_, ap_.buffer) + "'s " + std::string(dtype_name(t.dtype)));
    if (!sound) return;
    // Rows start_partition.. of the tensor, partition_stride elements apart.
    const Wide first_row = Wide{ap_.start_partition} * ap_.partition_stride;
    const Wide last_row = (Wide{ap_.start_partition} + ap_.partitions - 1) * ap_.partition_stride;
    const Extent e = free_extent(ap_);
    const Wide lo = Wide(ap_.byte_offset) + (std::min(first_row, last_row) + e.lo) * Wide(elem_);
    const Wide hi =
        Wide(ap_.byte_offset) + (std::max(first_row, last_row) + e.hi + 1) * Wide(elem_);
    if (lo < 0 || hi > Wide(t.bytes()))
      problem("bytes " + range(lo, hi) + " fall outside tensor " + tensor_name(k_, ap_.buffer) +
              " (" + std::to_string(t.bytes()) + " bytes)");
  }

  void check_on_chip(bool sound) {
    const std::string_view space = mem_space_name(ap_.space);
    if (ap_.partition_stride != 0)
      problem("partition_stride must be 0 in " + std::string(space) +
              " (the partition axis is the lane)");
    if (ap_.buffer >= k_.allocations.size()) {
      problem("allocation index " + std::to_string(ap_.buffer) +
              " is out of range (the kernel has " + std::to_string(k_.allocations.size()) +
              " allocations)");
      return;
    }
    const Allocation& a = k_.allocations[ap_.buffer];
    if (a.space != ap_.space) {
      problem("is in " + std::string(space) + " but names allocation " +
              alloc_name(k_, ap_.buffer) + ", which is in " + std::string(mem_space_name(a.space)));
      return;
    }
    if (!sound) return;
    check_free_size(space);
    const std::uint64_t start = std::uint64_t{a.start_partition} + ap_.start_partition;
    if (!start_partition_allowed(start, ap_.partitions, limits_))
      problem("starts at partition " + std::to_string(start) + " (allocation " +
              std::to_string(a.start_partition) + " + " + std::to_string(ap_.start_partition) +
              "): " + start_partition_rule(ap_.partitions, limits_));
    const std::uint64_t p_end = std::uint64_t{ap_.start_partition} + ap_.partitions;
    if (p_end > a.partitions)
      problem("partitions " + range(ap_.start_partition, p_end) + " fall outside allocation " +
              alloc_name(k_, ap_.buffer) + "'s " + std::to_string(a.partitions) + " partitions");
    const Extent e = free_extent(ap_);
    const Wide lo = Wide(ap_.byte_offset) + e.lo * Wide(elem_);
    const Wide hi = Wide(ap_.byte_offset) + (e.hi + 1) * Wide(elem_);
    if (lo < 0 || hi > Wide(a.bytes_per_partition())) {
      problem("bytes " + range(lo, hi) + " per partition fall outside allocation " +
              alloc_name(k_, ap_.buffer) + " (" + std::to_string(a.bytes_per_partition()) +
              " bytes per partition)");
      return;
    }
    // Reference section 2: a matmul result fits one PSUM bank of each partition (the Tensor
    // engine accumulates a group in one bank; its transposes write PSUM the same way). From
    // NeuronCore-v4 a matmul's (and an MX matmul's) moving size may span up to
    // limits.matmul_psum_banks banks (the nc_matmul page: "matching the size of 8x PSUM
    // banks"); where it is larger than a bank it may touch no more banks than its size
    // needs (the one-bank rule generalised: where the pages are silent, no straddling
    // beyond the minimum). Other engines may access up to limits.max_psum_free_elems across
    // banks (check_free_size; NKI's 4K-element PSUM tile limit).
    const bool matmul_result =
        instr_.opcode() == Opcode::matmul || instr_.opcode() == Opcode::matmul_mx;
    const bool tensor_result = matmul_result || instr_.opcode() == Opcode::transpose;
    const Wide bank = limits_.psum_bank_bytes;
    const Wide first = Wide(a.byte_offset) + lo, last = Wide(a.byte_offset) + hi - 1;
    if (tensor_result && ap_.space == MemSpace::psum && bank > 0) {
      const Wide touched = last / bank - first / bank + 1;
      const Wide needed = (last - first + bank) / bank;  // ceil(bytes / bank)
      const Wide allowed = matmul_result ? std::max<Wide>(1, limits_.matmul_psum_banks) : 1;
      if (touched > 1 && (touched > needed || touched > allowed))
        problem("psum bytes " + range(first, last + 1) +
                (touched > allowed && allowed == 1
                     ? " cross a " + num(bank) + "-byte bank boundary"
                     : " touch " + num(touched) + " " + num(bank) + "-byte banks (" +
                           (touched > allowed ? "at most matmul_psum_banks " + num(allowed)
                                              : "the result needs " + num(needed)) +
                           ")"));
    }
  }

  // Reference section 2: one instruction's free size. A DMA transfer is not an engine
  // instruction, so the limit does not apply to it.
  void check_free_size(std::string_view space) {
    if (instr_.opcode() == Opcode::dma_copy) return;
    // A matmul's PSUM result is bounded by its own N limit (validate/opcode.cpp): the
    // nc_matmul page lets it reach 8192 bf16 on NeuronCore-v4, the whole PSUM, beyond
    // the 4K elements (fp32: the whole PSUM too) other instructions may access.
    if ((instr_.opcode() == Opcode::matmul || instr_.opcode() == Opcode::matmul_mx) &&
        ap_.space == MemSpace::psum)
      return;
    const std::uint64_t limit =
        ap_.space == MemSpace::sbuf ? limits_.max_sbuf_free_elems : limits_.max_psum_free_elems;
    if (ap_.free_elems() > limit)
      problem("free size " + std::to_string(ap_.free_elems()) + " exceeds the " +
              std::to_string(limit) + " elements one instruction may access in " +
              std::string(space));
  }

  const Kernel& k_;
  const params::TargetLimits& limits_;
  const Instruction& instr_;
  const AccessPattern& ap_;
  const char* role_;
  InstrReporter& report_;
  std::size_t elem_ = 1;
};

}  // namespace

bool check_pattern(const Kernel& k, const params::TargetLimits& limits, const Instruction& instr,
                   const NamedPattern& operand, InstrReporter& report) {
  return PatternChecker(k, limits, instr, operand, report).run();
}

}  // namespace neuronsim::isa::validate_detail

// Tiling of the GEMM generator (docs/compiler.md, "Matmul"): the PSUM banks decide the
// register block (row tiles x column chunks accumulated at once), the SBUF capacity how
// many row tiles of A stay on chip and how deep the ring of B tiles is. Every size comes
// from the target's limits.
#include <algorithm>
#include <string>

#include "base/error.hpp"
#include "compiler/gemm.hpp"
#include "isa/placement.hpp"

namespace neuronsim::compiler {

namespace {

// Reference section 4: DMA rows of 2 KiB or more per partition reach the full rate
// (docs/simulation.md, "Efficiency"), so B tiles and A loads are at least that wide.
constexpr std::uint64_t kEfficientRowBytes = 2048;
// B tiles in flight when pipelined. One load takes ~2.3 us from issue to last byte on trn2
// (600 ns DGE + 1 us latency + 256 KiB at 16 x 23 B/ns, reference section 4) while one
// K-step of a 4 x 2 register block multiplies for 8 x 213 ns = 1.7 us: three slots cover
// the latency; eight also absorb the A loads that share the queue. Fewer when SBUF is
// short, never fewer than three.
constexpr std::uint32_t kMaxBSlots = 8, kMinBSlots = 3;
// Output staging: one register block drains while the next one's results are copied in.
constexpr std::uint32_t kOutSets = 2;

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return (a + b - 1) / b;
}
std::uint64_t granule(std::uint64_t bytes) {
  return ceil_div(bytes, isa::kPlacementAlignment) * isa::kPlacementAlignment;
}
std::uint32_t u32(std::uint64_t v) {
  return static_cast<std::uint32_t>(v);
}

void require(bool ok, const std::string& what) {
  if (!ok) throw Error("gemm: the target's limits give no " + what);
}

}  // namespace

GemmPlan plan_gemm(const GemmSpec& s, const params::TargetLimits& l) {
  if (s.m == 0 || s.n == 0 || s.k == 0)
    throw Error("gemm: M, N and K must be positive, not " + std::to_string(s.m) + ", " +
                std::to_string(s.n) + ", " + std::to_string(s.k));
  require(l.partitions && l.sbuf_bytes_per_partition, "SBUF");
  require(l.psum_bank_bytes && l.psum_bytes_per_partition >= l.psum_bank_bytes, "PSUM banks");
  require(l.matmul_max_k && l.matmul_max_m && l.matmul_max_n, "matmul sizes");
  const std::uint64_t in = isa::dtype_size(s.in_dtype), out = isa::dtype_size(s.out_dtype);

  GemmPlan p;
  // A tile of A is transposed on the Tensor engine ([m, k] in, at most matmul_max_k
  // partitions and matmul_max_m columns) and then used as the stationary ([k, m]).
  p.m_tile = std::min({l.partitions, l.matmul_max_m, l.matmul_max_k});
  p.k_tile = p.m_tile;
  // One matmul result fills at most one PSUM bank of fp32 (reference section 2).
  p.n_chunk = std::min({l.matmul_max_n, l.psum_bank_bytes / 4, l.max_psum_free_elems});
  p.psum_banks = l.psum_bytes_per_partition / l.psum_bank_bytes;
  p.m_tiles = u32(ceil_div(s.m, p.m_tile));
  p.k_tiles = u32(ceil_div(s.k, p.k_tile));
  p.n_chunks = u32(ceil_div(s.n, p.n_chunk));
  p.transposes_per_bank = u32(std::max<std::uint64_t>(1, l.psum_bank_bytes / (p.m_tile * in)));

  // Register block: enough chunks that a row of a B tile is an efficient DMA row, then as
  // many row tiles as the banks allow (each B tile is read from HBM once per block of A
  // rows, so taller blocks read B fewer times), then more chunks if M is short.
  if (std::uint64_t{std::max(s.block_rows, 1u)} * std::max(s.block_cols, 1u) > p.psum_banks)
    throw Error("gemm: a register block of " + std::to_string(std::max(s.block_rows, 1u)) + " x " +
                std::to_string(std::max(s.block_cols, 1u)) + " needs more than the " +
                std::to_string(p.psum_banks) + " PSUM banks");
  if (s.b_slots && s.b_transposed)
    throw Error("gemm: b_slots does not apply to a transposed B (kept whole in SBUF)");
  std::uint32_t gc =
      s.block_cols ? std::min(s.block_cols, p.n_chunks)
                   : u32(std::min<std::uint64_t>(
                         {ceil_div(kEfficientRowBytes, p.n_chunk * in), p.n_chunks, p.psum_banks}));
  std::uint32_t mt =
      s.block_rows ? std::min(s.block_rows, p.m_tiles) : std::min(p.psum_banks / gc, p.m_tiles);
  if (!s.block_cols) gc = std::min(p.psum_banks / mt, p.n_chunks);
  p.group_chunks = gc;

  // SBUF per partition for a block of `tiles` row tiles over a K segment of `seg` K-tiles:
  // the A^T panel and the rows of A it is transposed from (both single: a block's
  // transposes run before its multiplies), the ring of B tiles, the output staging.
  const std::uint64_t bn = std::min<std::uint64_t>(std::uint64_t{gc} * p.n_chunk, s.n);
  // The epilogue's buffers: per staged output tile, a tile of each row operand and an fp32
  // working tile (when there is more than one step); each column operand once, whole.
  std::uint64_t epi_per_tile = 0, epi_fixed = 0;
  for (const auto& e : s.epilogue)
    if (e.kind == EpilogueStep::Kind::tensor) {
      if (e.column)
        epi_fixed += granule(std::uint64_t{s.n} * isa::dtype_size(e.tensor_dtype));
      else
        epi_per_tile += bn * isa::dtype_size(e.tensor_dtype);
    }
  if (s.epilogue.size() > 1) epi_per_tile += bn * 4;
  // A transposed B arrives as rows of B^T [128, K], two in flight.
  const std::uint64_t bt_bytes = s.b_transposed ? granule(2ull * s.k * in) : 0;
  auto sbuf_bytes = [&](std::uint64_t tiles, std::uint64_t seg, std::uint64_t slots,
                        std::uint64_t sets) {
    const std::uint64_t cols = std::min<std::uint64_t>(seg * p.k_tile, s.k);
    return granule(seg * tiles * p.m_tile * in) + granule(tiles * cols * in) +
           granule(slots * bn * in) + granule(sets * tiles * bn * out) +
           (epi_per_tile ? granule(sets * tiles * epi_per_tile) : 0) + epi_fixed + bt_bytes;
  };
  const std::uint64_t budget = l.sbuf_bytes_per_partition;
  const std::uint64_t groups = ceil_div(p.n_chunks, gc);
  struct Fit {
    std::uint32_t tiles = 0, slots = 0, sets = 0;
  };
  // The tallest block, up to `most` row tiles, that fits with a segment of `seg` K-tiles,
  // and the most ring slots that fit with it (at most 8, at least 3; 1 and 1 output set
  // when serial; no more than there are B tiles or register blocks).
  auto fit = [&](std::uint32_t seg, std::uint32_t most) {
    Fit f;
    for (std::uint32_t tiles = most; tiles >= 1; --tiles) {
      const std::uint64_t blocks = ceil_div(p.m_tiles, tiles) * groups;
      auto hi = u32(std::min<std::uint64_t>(s.pipelined ? kMaxBSlots : 1, blocks * p.k_tiles));
      std::uint32_t lo = std::min(s.pipelined ? kMinBSlots : 1u, hi);
      if (s.b_transposed) hi = lo = u32(groups * p.k_tiles);  // all of B, resident
      if (s.b_slots) hi = lo = s.b_slots;
      f.sets = u32(std::min<std::uint64_t>(s.pipelined ? kOutSets : 1, blocks));
      for (std::uint32_t slots = hi; slots >= lo; --slots)
        if (sbuf_bytes(tiles, seg, slots, f.sets) <= budget) {
          f.tiles = tiles;
          f.slots = slots;
          return f;
        }
    }
    return f;
  };
  std::uint32_t seg = p.k_tiles;
  Fit f = fit(seg, mt);
  if ((s.block_rows || s.b_slots) && f.tiles != mt)
    throw Error("gemm: a register block of " + std::to_string(mt) + " row tiles with " +
                (s.b_slots ? std::to_string(s.b_slots) : std::string("its")) +
                " B slots does not fit SBUF (" + std::to_string(l.sbuf_bytes_per_partition) +
                " bytes per partition) over K = " + std::to_string(s.k));
  if (s.b_transposed && f.tiles == 0)
    throw Error("gemm: a transposed B of " + std::to_string(s.k) + " x " + std::to_string(s.n) +
                " does not fit SBUF whole (it is transposed once and kept)");
  // K too long for even one row tile's panel and rows: split K into the fewest segments
  // short enough for a full-height block; each segment's product is added to C by its
  // stores (a DMA read-add-write, reference section 3), which rounds C once per segment.
  for (std::uint32_t parts = 2; f.tiles == 0 && seg > 1; ++parts) {
    seg = u32(ceil_div(p.k_tiles, parts));
    const Fit g = fit(seg, mt);
    if (g.tiles == mt || seg == 1) f = g;
  }
  if (f.tiles == 0)
    throw Error("gemm: one K-tile of one row tile needs " + std::to_string(sbuf_bytes(1, 1, 1, 1)) +
                " bytes of SBUF per partition, the target has " + std::to_string(budget));
  if (!s.epilogue.empty() && seg < p.k_tiles)
    throw Error("gemm: an epilogue needs K in one segment (K = " + std::to_string(s.k) +
                " is split, and its stores add into C)");
  p.block_m_tiles = f.tiles;
  p.b_slots = f.slots;
  p.out_sets = f.sets;
  p.segment_k_tiles = seg;
  p.k_segments = u32(ceil_div(p.k_tiles, seg));
  p.a_piece_cols = u32(std::min<std::uint64_t>(
      p.k_tile * ceil_div(kEfficientRowBytes, p.k_tile * in), std::uint64_t{seg} * p.k_tile));
  p.m_blocks = u32(ceil_div(p.m_tiles, p.block_m_tiles));
  p.n_groups = u32(ceil_div(p.n_chunks, p.group_chunks));
  // Weights that fit stay: with a slot for each of a block's B tiles, every block finds
  // them where the first one loaded them, and B is read from HBM once.
  const std::uint64_t per_block = std::uint64_t{p.n_groups} * p.k_tiles;
  p.b_resident = s.b_transposed;
  p.bt_slots = s.b_transposed ? 2 : 0;
  if (!s.b_slots && s.pipelined && p.k_segments == 1 && p.m_blocks > 1 && per_block > p.b_slots &&
      sbuf_bytes(p.block_m_tiles, seg, per_block, p.out_sets) <= budget) {
    p.b_slots = u32(per_block);
    p.b_resident = true;
  }
  p.sbuf_bytes = sbuf_bytes(p.block_m_tiles, seg, p.b_slots, p.out_sets);
  const std::uint64_t m = s.m, n = s.n, k = s.k, segs = p.k_segments;
  const std::uint64_t b_reads = p.b_resident ? 1 : p.m_blocks;
  // C's stores after the first segment read it too (read-add-write); the epilogue reads
  // each row operand once and each column operand once.
  std::uint64_t epi_read = 0;
  for (const auto& e : s.epilogue)
    if (e.kind == EpilogueStep::Kind::tensor)
      epi_read += (e.column ? n : m * n) * isa::dtype_size(e.tensor_dtype);
  p.hbm_read_bytes = (m * k + b_reads * k * n) * in + (segs - 1) * m * n * out + epi_read;
  p.hbm_write_bytes = segs * m * n * out;
  return p;
}

}  // namespace neuronsim::compiler

// Attention heads as one kernel (compiler/attention_kernel.hpp). Per tile of 128 rows of
// a head's Q, with the head's K^T and V loaded once and kept:
//
//   Q tile --Tensor transpose--> Q^T [d, 128], times the scale on its copy out of PSUM
//   S = Q^T' K^T: one matmul per 512 keys, into PSUM banks (fp32)
//   Vector: s = S + mask  (PSUM -> SBUF fp32, one tensor_tensor per bank)
//   Vector: -max over the row;  Scalar: p = exp(s - max) in bf16, summing the row; 1/sum
//   P --Tensor transpose--> P^T, 128 keys at a time (the stationary of P @ V), Scalar copies
//   a few key tiles at a time;
//   O = sum over key tiles of P^T' V, accumulated in one PSUM bank, each group's matmuls
//   as soon as Scalar has copied it
//   O * (1 / sum) on the copy out of PSUM, stored (into the head's columns of a concat)
//
// so the scores and probabilities never leave the chip. The loop runs over jobs (head,
// tile) and is software-pipelined: the Tensor engine computes job g's scores, then job
// g-2's P @ V, while Vector computes job g's mask add and max and Scalar job g-1's exp. With
// several heads, the next head's K and V (a second set of buffers) are loaded and transposed while
// the current head runs. Semaphores come from what each instruction reads and writes
// (compiler/hazards.hpp).
#include "compiler/attention_kernel.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "base/error.hpp"
#include "builder/builder.hpp"
#include "compiler/fresh_names.hpp"
#include "compiler/hazards.hpp"
#include "isa/placement.hpp"

namespace neuronsim::compiler {

namespace {

using isa::ActFunc;
using isa::AluOp;
using isa::Buffer;
using isa::Engine;
using isa::Ix;

// Per-tile buffers: P @ V runs two jobs behind the scores (kLag), so three are live.
constexpr std::uint32_t kSlots = 3;
constexpr std::uint32_t kLag = kSlots - 1;
// Key tiles of P^T per copy out of PSUM: P @ V over those keys starts once they are
// copied, so the Tensor engine multiplies while Scalar copies the next group. Smaller
// groups overlap more but switch the Tensor engine between transposes and matmuls more
// often (exposed stationary loads: more busy time); measured on the decoder layer's 32
// heads (docs/compiler.md, "Attention kernel"), trn1 / trn2 device time: 8 (a whole bank)
// 2121 / 2242 us, 4: 2051 / 2149, 3: 2050 / 2103, 2: 2050 / 2122, 1: 2052 / 2149.
constexpr std::uint32_t kPtGroup = 3;

std::uint64_t granule(std::uint64_t b) {
  return (b + isa::kPlacementAlignment - 1) / isa::kPlacementAlignment * isa::kPlacementAlignment;
}

struct Sizes {
  std::uint32_t tile = 0, chunk = 0;  // rows per tile; keys per score matmul (a PSUM bank)
  std::uint32_t q_tiles = 0, k_tiles = 0, chunks = 0;
  std::uint32_t banks = 0, o_banks = 0, tr_banks = 0, per_bank = 0;
  std::uint32_t kv_sets = 1;
  bool mask_resident = false;
  std::uint64_t sbuf = 0;
  std::string problem;  // empty: fits
};

Sizes sizes(const AttentionSpec& s, const params::TargetLimits& l) {
  Sizes z;
  z.tile = std::min({l.partitions, l.matmul_max_k, l.matmul_max_m});
  z.chunk = std::min({l.matmul_max_n, l.psum_bank_bytes / 4, l.max_psum_free_elems});
  if (z.tile == 0 || z.chunk == 0 || l.psum_bank_bytes == 0) {
    z.problem = "the target's limits give no matmul sizes";
    return z;
  }
  z.q_tiles = (s.sq + z.tile - 1) / z.tile;
  z.k_tiles = (s.sk + z.tile - 1) / z.tile;
  z.chunks = (s.sk + z.chunk - 1) / z.chunk;
  z.banks = l.psum_bytes_per_partition / l.psum_bank_bytes;
  const std::uint64_t in = isa::dtype_size(s.dtype);
  z.per_bank =
      static_cast<std::uint32_t>(std::max<std::uint64_t>(1, l.psum_bank_bytes / (z.tile * in)));
  if (s.heads.empty()) {
    z.problem = "no heads";
    return z;
  }
  if (s.d > z.tile || s.dv > z.tile) {
    z.problem = "a head of " + std::to_string(std::max(s.d, s.dv)) + " exceeds " +
                std::to_string(z.tile) + " (one matmul's contraction)";
    return z;
  }
  // Banks: the scores' chunks, two for transposes, one or two for O.
  if (z.chunks + 3 > z.banks) {
    z.problem = std::to_string(s.sk) + " keys need " + std::to_string(z.chunks) +
                " PSUM banks of scores, and only " + std::to_string(z.banks) + " exist";
    return z;
  }
  z.tr_banks = 2;
  z.o_banks = z.chunks + 4 <= z.banks ? 2 : 1;
  const std::uint64_t out = isa::dtype_size(s.out_dtype), mk = isa::dtype_size(s.mask_dtype);
  const std::uint64_t keys = std::uint64_t{z.k_tiles} * z.tile;
  z.kv_sets = s.heads.size() > 1 ? 2 : 1;                // the next head's K and V arrive meanwhile
  z.sbuf = granule(z.kv_sets * z.k_tiles * s.d * in)     // rows of K
           + granule(z.kv_sets * keys * in)              // K^T (on d partitions)
           + granule(z.kv_sets * z.k_tiles * s.dv * in)  // V
           + granule(kSlots * s.d * in) + granule(kSlots * z.tile * in)  // Q rows, Q^T
           + (s.mask.empty() ? 0 : granule(kSlots * s.sk * mk))          // mask rows
           + granule(kSlots * s.sk * 4) + granule(kSlots * keys * in)    // s, p
           + granule(kSlots * keys * in)                                 // P^T
           + 3 * granule(kSlots * 4) + granule(kSlots * s.dv * out);     // stats, O
  // With several heads the mask, the same for all, stays in SBUF when it fits: loaded
  // with the first head, read by every head (instead of once per head).
  const std::uint64_t mask_once = granule(std::uint64_t{z.q_tiles} * s.sk * mk);
  const std::uint64_t mask_ring = s.mask.empty() ? 0 : granule(kSlots * s.sk * mk);
  if (!s.mask.empty() && s.heads.size() > 1 &&
      z.sbuf - mask_ring + mask_once <= l.sbuf_bytes_per_partition) {
    z.mask_resident = true;
    z.sbuf = z.sbuf - mask_ring + mask_once;
  }
  if (z.sbuf > l.sbuf_bytes_per_partition)
    z.problem = "a row of " + std::to_string(s.sk) + " scores needs " + std::to_string(z.sbuf) +
                " bytes of SBUF per partition, the target has " +
                std::to_string(l.sbuf_bytes_per_partition);
  return z;
}

class AttentionEmitter {
 public:
  AttentionEmitter(const AttentionSpec& s, const params::TargetLimits& l)
      : s_(s),
        z_(sizes(s, l)),
        b_(s.kernel_name, s.target),
        h_(b_, [this](const std::string& base) { return fresh(base); }) {
    if (!z_.problem.empty()) throw Error("attention: " + z_.problem);
    if (l.dma_engines == 0) throw Error("attention: the target's limits give no DMA engines");
    declare(l);
  }

  // Jobs g = head * q_tiles + row tile, one after another across heads.
  isa::Kernel emit() {
    const auto heads = static_cast<std::uint32_t>(s_.heads.size());
    const std::uint32_t jobs = heads * z_.q_tiles;
    load_k(0, 0, z_.k_tiles);
    for (std::uint32_t g = 0; g < std::min(kSlots, jobs); ++g)
      load_q(g);
    load_v(0, 0, z_.k_tiles);
    transpose_k(0);
    if (jobs > 0) q_transpose(0);
    // Job g+1's Q^T first (Vector copies it before job g's mask add, so that job g+1's
    // scores do not wait for Vector to finish job g's max), then job g's scores (Vector:
    // S + mask out of PSUM) while Scalar computes job g-1's exp
    // (SBUF only), then job g's max (Vector, SBUF only) while Scalar copies job g-2's P^T
    // out of PSUM for its P @ V: on NeuronCore-v2 Vector and Scalar share one PSUM port
    // (docs/compiler.md, "Attention kernel"), so each uses PSUM while the other does not,
    // and the Tensor engine never waits for the softmax it has just fed. The next head's K and V
    // tiles are loaded a few per job over the current head's jobs but the last (so that they do not
    // hold up the Q and mask loads behind them on the queue), and K is transposed at the last.
    for (std::uint32_t g = 0; g < jobs + kLag; ++g) {
      if (g + 1 < jobs) q_transpose(g + 1);
      if (g < jobs) scores(g);
      if (g >= 1 && g <= jobs) softmax_exp(g - 1);
      if (g < jobs) softmax_max(g);
      if (g >= kLag) output(g - kLag);
      // Head h's V goes into the buffers of head h - 2, whose last P @ V is emitted kLag
      // iterations after its last job's scores: so V is loaded over the q_tiles iterations
      // from the one that emits it (kLag - 1 into head h - 1) on, the last tiles kLag - 1
      // iterations before head h's first P @ V.
      if (g + 1 >= kLag) {
        const std::uint32_t u = g + 1 - kLag, hv = u / z_.q_tiles + 1, tv = u % z_.q_tiles;
        if (hv < heads)
          load_v(hv, tv * z_.k_tiles / z_.q_tiles, (tv + 1) * z_.k_tiles / z_.q_tiles);
      }
      if (g >= jobs) continue;
      const std::uint32_t h = g / z_.q_tiles, t = g % z_.q_tiles;
      if (h + 1 < heads) {
        const std::uint32_t spread = std::max(1u, z_.q_tiles - 1);
        const std::uint32_t j0 = std::min(t, spread) * z_.k_tiles / spread;
        const std::uint32_t j1 = std::min(t + 1, spread) * z_.k_tiles / spread;
        load_k(h + 1, j0, j1);
      }
      if (h + 1 < heads && t == z_.q_tiles - 1) transpose_k(h + 1);
    }
    return b_.build();
  }

 private:
  std::string fresh(const std::string& base) { return names_(base); }

  Buffer hbm(const std::string& name, isa::DType t, const GemmView& v,
             std::vector<std::uint64_t> natural, isa::TensorRole role) {
    auto it = hbm_.find(name);
    if (it != hbm_.end()) return it->second;
    if (!v.shape.empty()) natural = v.shape;
    row_len_[name] = natural.back();
    names_.take(name);
    Buffer buf = b_.hbm(name, t, natural, role);
    hbm_.emplace(name, buf);
    return buf;
  }
  isa::AccessPattern rows_of(const Buffer& t, const GemmView& v, std::uint64_t r0, std::uint32_t nr,
                             std::uint64_t c0, std::uint64_t w) const {
    return t.raw(
        static_cast<std::uint32_t>(r0), nr, static_cast<std::int64_t>(row_len_.at(t.name())),
        (v.col0 + c0) * isa::dtype_size(t.dtype()), {isa::Dim{1, static_cast<std::uint32_t>(w)}});
  }

  void declare(const params::TargetLimits& l) {
    const std::uint32_t P = z_.tile, keys = z_.k_tiles * P;
    for (const AttentionHead& h : s_.heads) {
      Q_.push_back(hbm(h.q, s_.dtype, h.q_view, {s_.sq, s_.d}, isa::TensorRole::input));
      K_.push_back(hbm(h.k, s_.dtype, h.k_view, {s_.sk, s_.d}, isa::TensorRole::input));
      V_.push_back(hbm(h.v, s_.dtype, h.v_view, {s_.sk, s_.dv}, isa::TensorRole::input));
    }
    if (!s_.mask.empty())
      M_ = hbm(s_.mask, s_.mask_dtype, GemmView{s_.mask_shape, 0}, s_.mask_shape,
               isa::TensorRole::input);
    for (const AttentionHead& h : s_.heads)
      O_.push_back(hbm(h.out, s_.out_dtype, h.out_view, {s_.sq, s_.dv}, isa::TensorRole::output));
    const std::uint32_t sets = z_.kv_sets;
    k_rows_ = b_.sbuf(fresh("k_rows"), s_.dtype, {P, sets * z_.k_tiles, s_.d});
    k_t_ = b_.sbuf(fresh("k_t"), s_.dtype, {s_.d, sets, keys});
    v_ = b_.sbuf(fresh("v_tiles"), s_.dtype, {P, sets * z_.k_tiles, s_.dv});
    q_rows_ = b_.sbuf(fresh("q_rows"), s_.dtype, {P, kSlots, s_.d});
    q_t_ = b_.sbuf(fresh("q_t"), s_.dtype, {s_.d, kSlots, P});
    if (!s_.mask.empty())
      mask_ = b_.sbuf(fresh("mask_rows"), s_.mask_dtype,
                      {P, z_.mask_resident ? z_.q_tiles : kSlots, s_.sk});
    s_sb_ = b_.sbuf(fresh("scores"), isa::DType::fp32, {P, kSlots, s_.sk});
    p_sb_ = b_.sbuf(fresh("probs"), s_.dtype, {P, kSlots, keys});
    p_t_ = b_.sbuf(fresh("probs_t"), s_.dtype, {P, kSlots, keys});
    negmax_ = b_.sbuf(fresh("neg_max"), isa::DType::fp32, {P, kSlots});
    sum_ = b_.sbuf(fresh("row_sum"), isa::DType::fp32, {P, kSlots});
    rsum_ = b_.sbuf(fresh("row_rsum"), isa::DType::fp32, {P, kSlots});
    o_sb_ = b_.sbuf(fresh("out_tiles"), s_.out_dtype, {P, kSlots, s_.dv});
    acc_ = b_.psum(fresh("acc"), isa::DType::fp32, {P, z_.banks, l.psum_bank_bytes / 4});
    acc_in_ = acc_.as(s_.dtype);
    const auto engines = static_cast<std::uint8_t>(l.dma_engines);
    q_load_ = h_.queue("load", 0, engines);
    q_store_ = h_.queue("store", 0, engines);
    banks_.resize(z_.banks);
    k_rows_slot_.resize(sets * z_.k_tiles);
    v_slot_.resize(sets * z_.k_tiles);
    k_t_slot_.resize(sets * z_.chunks);
    mask_slot_.resize(z_.mask_resident ? z_.q_tiles : kSlots);
    for (auto* v :
         {&q_rows_slot_, &q_t_slot_, &s_slot_, &p_slot_, &stat_slot_, &rsum_slot_, &o_slot_})
      v->resize(kSlots);
    p_t_slot_.resize(kSlots * p_t_groups());
  }

  std::uint32_t qrows(std::uint32_t g) const {
    return std::min(z_.tile, s_.sq - (g % z_.q_tiles) * z_.tile);
  }
  std::uint32_t set_of(std::uint32_t head) const { return head % z_.kv_sets; }
  // Where job g's mask rows are: its row tile's (resident) or its slot's.
  std::uint32_t mask_at(std::uint32_t g) const {
    return z_.mask_resident ? g % z_.q_tiles : g % kSlots;
  }
  std::uint32_t krows(std::uint32_t j) const { return std::min(z_.tile, s_.sk - j * z_.tile); }
  std::uint32_t tr_bank() { return z_.chunks + z_.o_banks + (transposes_++ % z_.tr_banks); }
  Engine next_copier() { return copies_++ % 2 == 0 ? Engine::vector : Engine::scalar; }

  // A copy that multiplies by `scale` (1: a plain copy).
  void copy(Engine e, const isa::AccessPattern& dst, const isa::AccessPattern& src,
            const std::vector<Access>& accesses, float scale = 1.0f) {
    isa::Instruction* ins = nullptr;
    if (e == Engine::vector)
      ins = scale == 1.0f
                ? &b_.vector().tensor_copy(dst, src).instruction()
                : &b_.vector().tensor_scalar(dst, src, AluOp::multiply, scale).instruction();
    else
      ins = &b_.scalar().activation(dst, src, ActFunc::copy).scale(scale).instruction();
    h_.compute(*ins, e, accesses);
  }

  // One [parts, free] result of a transpose: its source and its column in the destination.
  struct TrTile {
    isa::AccessPattern src;
    std::uint32_t parts = 0, free = 0;
    std::uint64_t col = 0;
  };

  // Each tile transposed on the Tensor engine into PSUM (up to per_bank side by side when
  // they have one shape and their columns follow each other tile by tile) and copied to
  // `dst` ([P, cols] or, with a slot, [P, slots, cols]) by Vector or Scalar.
  void transpose_into(const std::vector<TrTile>& tiles, const Buffer& dst, std::int64_t slot,
                      const std::vector<Access>& src_reads, Slot& dst_slot, float scale,
                      std::optional<Engine> copier) {
    const std::uint32_t P = z_.tile;
    const std::uint64_t elem = isa::dtype_size(s_.dtype);
    for (std::size_t u0 = 0; u0 < tiles.size();) {
      std::size_t cnt = 1;
      while (cnt < z_.per_bank && u0 + cnt < tiles.size() &&
             tiles[u0 + cnt].parts == tiles[u0].parts && tiles[u0 + cnt].free == tiles[u0].free &&
             tiles[u0 + cnt].col == tiles[u0].col + cnt * P)
        ++cnt;
      const std::uint32_t parts = tiles[u0].parts, free = tiles[u0].free, bank = tr_bank();
      for (std::size_t u = 0; u < cnt; ++u) {
        // Reserved, then filled: a copy followed by push_back trips GCC 12's -Warray-bounds
        // at -O3 (a false positive on the reallocation path), which breaks Release builds.
        std::vector<Access> acc;
        acc.reserve(src_reads.size() + 1);
        acc.insert(acc.end(), src_reads.begin(), src_reads.end());
        acc.push_back(writes(banks_[bank]));
        auto ref = b_.tensor().transpose(acc_in_.slice(Ix(0, parts), bank, Ix(u * P, u * P + free)),
                                         tiles[u0 + u].src);
        h_.compute(ref.instruction(), Engine::tensor, acc);
      }
      const std::vector<isa::Dim> dims{
          isa::Dim{static_cast<std::int32_t>(P), static_cast<std::uint32_t>(cnt)},
          isa::Dim{1, free}};
      const isa::AccessPattern from =
          acc_in_.raw(0, parts, 0, std::uint64_t{bank} * acc_in_.shape()[2] * elem, dims);
      const std::uint64_t row = slot < 0 ? 0 : std::uint64_t(slot) * dst.shape()[2];
      const isa::AccessPattern to = dst.raw(0, parts, 0, (row + tiles[u0].col) * elem, dims);
      copy(copier ? *copier : next_copier(), to, from, {reads(banks_[bank]), writes(dst_slot)},
           scale);
      u0 += cnt;
    }
  }

  // Key tiles j0 .. j1 - 1 of head h's K and V (kept while its jobs run).
  void load_k(std::uint32_t h, std::uint32_t j0, std::uint32_t j1) {
    const std::uint32_t base = set_of(h) * z_.k_tiles;
    for (std::uint32_t j = j0; j < j1; ++j) {
      const std::uint32_t kr = krows(j);
      auto ref =
          b_.sync().dma_copy(k_rows_.slice(Ix(0, kr), base + j, Ix(0, s_.d)),
                             rows_of(K_[h], s_.heads[h].k_view, j * z_.tile, kr, 0, s_.d), q_load_);
      h_.dma(ref.instruction(), q_load_, 0, kr, {writes(k_rows_slot_[base + j])});
    }
  }

  void load_v(std::uint32_t h, std::uint32_t j0, std::uint32_t j1) {
    const std::uint32_t base = set_of(h) * z_.k_tiles;
    for (std::uint32_t j = j0; j < j1; ++j) {
      const std::uint32_t kr = krows(j);
      auto ref = b_.sync().dma_copy(v_.slice(Ix(0, kr), base + j, Ix(0, s_.dv)),
                                    rows_of(V_[h], s_.heads[h].v_view, j * z_.tile, kr, 0, s_.dv),
                                    q_load_);
      h_.dma(ref.instruction(), q_load_, 0, kr, {writes(v_slot_[base + j])});
    }
  }

  // K^T [d, keys] of head h, by chunks of keys, so that the first scores start when their
  // keys are in.
  void transpose_k(std::uint32_t h) {
    const std::uint32_t set = set_of(h), base = set * z_.k_tiles;
    const std::uint32_t per_chunk = z_.chunk / z_.tile;
    for (std::uint32_t c = 0; c < z_.chunks; ++c) {
      std::vector<TrTile> tiles;
      std::vector<Access> src_reads;
      for (std::uint32_t j = c * per_chunk; j < std::min(z_.k_tiles, (c + 1) * per_chunk); ++j) {
        tiles.push_back({k_rows_.slice(Ix(0, krows(j)), base + j, Ix(0, s_.d)), s_.d, krows(j),
                         std::uint64_t{j} * z_.tile});
        src_reads.push_back(reads(k_rows_slot_[base + j]));
      }
      transpose_into(tiles, k_t_, set, src_reads, k_t_slot_[set * z_.chunks + c], 1.0f,
                     std::nullopt);
    }
  }

  void load_q(std::uint32_t g) {
    const std::uint32_t slot = g % kSlots, mr = qrows(g), h = g / z_.q_tiles;
    const std::uint32_t t = g % z_.q_tiles;
    auto ref =
        b_.sync().dma_copy(q_rows_.slice(Ix(0, mr), slot, Ix(0, s_.d)),
                           rows_of(Q_[h], s_.heads[h].q_view, t * z_.tile, mr, 0, s_.d), q_load_);
    h_.dma(ref.instruction(), q_load_, 0, mr, {writes(q_rows_slot_[slot])});
    if (!s_.mask.empty() && (!z_.mask_resident || h == 0)) {
      const std::uint32_t at = mask_at(g);
      auto m = b_.sync().dma_copy(mask_.slice(Ix(0, mr), at, Ix(0, s_.sk)),
                                  rows_of(M_, GemmView{}, t * z_.tile, mr, 0, s_.sk), q_load_);
      h_.dma(m.instruction(), q_load_, 0, mr, {writes(mask_slot_[at])});
    }
  }

  // Q^T of tile t.
  void q_transpose(std::uint32_t t) {
    const std::uint32_t slot = t % kSlots, mr = qrows(t);
    const Ix r(0, mr);
    // The scale is applied to Q^T on its copy out of PSUM (rounded to Q's dtype, as torch's
    // math SDPA scales q before its matmul), so that the scores need one pass, not two.
    transpose_into({TrTile{q_rows_.slice(r, slot, Ix(0, s_.d)), s_.d, mr, 0}}, q_t_, slot,
                   {reads(q_rows_slot_[slot])}, q_t_slot_[slot], s_.scale, Engine::vector);
  }

  // Tile t's scores plus mask (its Q^T taken before).
  void scores(std::uint32_t t) {
    const std::uint32_t slot = t % kSlots, mr = qrows(t);
    const Ix r(0, mr);
    // Tile t + 3's rows and mask can come in once t's Q^T is taken and its mask read.
    if (t + kSlots < s_.heads.size() * z_.q_tiles) pending_q_ = t + kSlots;
    for (std::uint32_t c = 0; c < z_.chunks; ++c) {
      const std::uint32_t k0 = c * z_.chunk, w = std::min(z_.chunk, s_.sk - k0);
      const std::uint32_t set = set_of(t / z_.q_tiles);
      const std::vector<Access> acc{reads(k_t_slot_[set * z_.chunks + c]), reads(q_t_slot_[slot]),
                                    writes(banks_[c])};
      auto ref = b_.tensor().matmul(acc_.slice(r, c, Ix(0, w)), q_t_.slice(Ix(0, s_.d), slot, r),
                                    k_t_.slice(Ix(0, s_.d), set, Ix(k0, k0 + w)));
      h_.compute(ref.instruction(), Engine::tensor, acc);
    }
    // s = S * scale (+ mask), out of PSUM.
    for (std::uint32_t c = 0; c < z_.chunks; ++c) {
      const std::uint32_t k0 = c * z_.chunk, w = std::min(z_.chunk, s_.sk - k0);
      const isa::AccessPattern dst = s_sb_.slice(r, slot, Ix(k0, k0 + w));
      const isa::AccessPattern src = acc_.slice(r, c, Ix(0, w));
      std::vector<Access> acc{reads(banks_[c]), writes(s_slot_[slot])};
      if (s_.mask.empty()) {
        auto ref = b_.scalar().activation(dst, src, ActFunc::copy);
        h_.compute(ref.instruction(), Engine::scalar, acc);
      } else {
        acc.push_back(reads(mask_slot_[mask_at(t)]));
        auto ref = b_.vector().tensor_tensor(dst, src, mask_.slice(r, mask_at(t), Ix(k0, k0 + w)),
                                             AluOp::add);
        h_.compute(ref.instruction(), Engine::vector, acc);
      }
    }
    if (pending_q_ > 0) {
      load_q(pending_q_);
      pending_q_ = 0;
    }
  }

  // Tile t's row max, negated (Vector).
  void softmax_max(std::uint32_t t) {
    const std::uint32_t slot = t % kSlots, mr = qrows(t);
    const Ix r(0, mr);
    const isa::AccessPattern nm = negmax_.slice(r, Ix(slot, slot + 1));
    auto mx =
        b_.vector().tensor_reduce(nm, s_sb_.slice(r, slot, Ix(0, s_.sk)), AluOp::max, 1, true);
    h_.compute(mx.instruction(), Engine::vector, {reads(s_slot_[slot]), writes(stat_slot_[slot])});
  }

  // Tile t's softmax numerator exp(s - max) and 1 / its row sum (Scalar).
  void softmax_exp(std::uint32_t t) {
    const std::uint32_t slot = t % kSlots, mr = qrows(t);
    const Ix r(0, mr);
    const isa::AccessPattern nm = negmax_.slice(r, Ix(slot, slot + 1));
    auto ex = b_.scalar().activation(p_sb_.slice(r, slot, Ix(0, s_.sk)),
                                     s_sb_.slice(r, slot, Ix(0, s_.sk)), ActFunc::exp);
    ex.bias(nm).reduce(sum_.slice(r, Ix(slot, slot + 1)));
    h_.compute(ex.instruction(), Engine::scalar,
               {reads(s_slot_[slot]), reads(stat_slot_[slot]), writes(p_slot_[slot]),
                writes(rsum_slot_[slot])});
    // 1 / sum on Scalar right after the exp that made the sum (no engine waits for it).
    auto rc = b_.scalar().activation(rsum_.slice(r, Ix(slot, slot + 1)),
                                     sum_.slice(r, Ix(slot, slot + 1)), ActFunc::reciprocal);
    h_.compute(rc.instruction(), Engine::scalar, {writes(rsum_slot_[slot])});
  }

  // Key tiles per copy of P^T out of PSUM, and copies per job: P @ V over a group's keys
  // starts once that group is copied.
  std::uint32_t p_t_group() const { return std::min(z_.per_bank, kPtGroup); }
  std::uint32_t p_t_groups() const { return (z_.k_tiles + p_t_group() - 1) / p_t_group(); }

  // Tile t's P^T, P @ V, and the normalised output.
  void output(std::uint32_t t) {
    const std::uint32_t slot = t % kSlots, mr = qrows(t);
    const Ix r(0, mr);
    const std::uint32_t bank = z_.chunks + (outputs_++ % z_.o_banks);
    const std::uint32_t base = set_of(t / z_.q_tiles) * z_.k_tiles;
    const std::uint32_t per = p_t_group(), groups = p_t_groups();
    auto transposes = [&](std::uint32_t gi) {
      std::vector<TrTile> tiles;
      for (std::uint32_t j = gi * per; j < std::min(z_.k_tiles, (gi + 1) * per); ++j)
        tiles.push_back({p_sb_.slice(r, slot, Ix(j * z_.tile, j * z_.tile + krows(j))), krows(j),
                         mr, std::uint64_t{j} * z_.tile});
      // On Scalar, which made P: Vector goes on with the next tile's scores meanwhile.
      transpose_into(tiles, p_t_, slot, {reads(p_slot_[slot])}, p_t_slot_[slot * groups + gi], 1.0f,
                     Engine::scalar);
    };
    auto products = [&](std::uint32_t gi) {
      for (std::uint32_t j = gi * per; j < std::min(z_.k_tiles, (gi + 1) * per); ++j) {
        const std::uint32_t kr = krows(j);
        auto ref = b_.tensor().matmul(
            acc_.slice(r, bank, Ix(0, s_.dv)),
            p_t_.slice(Ix(0, kr), slot, Ix(j * z_.tile, j * z_.tile + mr)),
            v_.slice(Ix(0, kr), base + j, Ix(0, s_.dv)), isa::accumulate_flag_of(j, z_.k_tiles));
        h_.compute(
            ref.instruction(), Engine::tensor,
            {reads(p_t_slot_[slot * groups + gi]), reads(v_slot_[base + j]), writes(banks_[bank])});
      }
    };
    // The Tensor engine transposes group gi + 1 while Scalar copies group gi, then
    // multiplies group gi.
    for (std::uint32_t gi = 0; gi < groups; ++gi) {
      transposes(gi);
      if (gi > 0) products(gi - 1);
    }
    products(groups - 1);
    auto ev = b_.scalar().activation(o_sb_.slice(r, slot, Ix(0, s_.dv)),
                                     acc_.slice(r, bank, Ix(0, s_.dv)), ActFunc::copy);
    ev.scale(rsum_.slice(r, Ix(slot, slot + 1)));
    h_.compute(ev.instruction(), Engine::scalar,
               {reads(banks_[bank]), reads(rsum_slot_[slot]), writes(o_slot_[slot])});
    const std::uint32_t h = t / z_.q_tiles, row0 = (t % z_.q_tiles) * z_.tile;
    auto st = b_.gpsimd().dma_copy(rows_of(O_[h], s_.heads[h].out_view, row0, mr, 0, s_.dv),
                                   o_sb_.slice(r, slot, Ix(0, s_.dv)), q_store_);
    h_.dma(st.instruction(), q_store_, 0, mr, {reads(o_slot_[slot])});
  }

  const AttentionSpec& s_;
  const Sizes z_;
  isa::Builder b_;
  Hazards h_;
  FreshNames names_;
  std::map<std::string, Buffer> hbm_;
  std::map<std::string, std::uint64_t> row_len_;
  std::vector<Buffer> Q_, K_, V_, O_;  // by head
  Buffer M_;
  Buffer k_rows_, k_t_, v_, q_rows_, q_t_, mask_, s_sb_, p_sb_, p_t_, negmax_, sum_, rsum_, o_sb_,
      acc_, acc_in_;
  isa::Queue q_load_, q_store_;
  std::vector<Slot> banks_, k_rows_slot_, v_slot_;
  std::vector<Slot> k_t_slot_;  // by chunk of keys
  std::vector<Slot> q_rows_slot_, q_t_slot_, mask_slot_, s_slot_, p_slot_, p_t_slot_, stat_slot_,
      rsum_slot_, o_slot_;
  std::uint32_t pending_q_ = 0;

  std::uint64_t transposes_ = 0, copies_ = 0, outputs_ = 0;
};

}  // namespace

bool attention_fits(const AttentionSpec& spec, const params::TargetLimits& limits) {
  return sizes(spec, limits).problem.empty();
}

isa::Kernel emit_attention(const AttentionSpec& spec, const params::TargetLimits& limits) {
  return AttentionEmitter(spec, limits).emit();
}

}  // namespace neuronsim::compiler

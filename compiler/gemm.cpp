// The GEMM generator's schedule (docs/compiler.md, "Matmul" has the picture):
//
//   for each block of A's rows (block_m_tiles tiles of 128 rows):
//     transposes: per K-tile, the block's tiles of A pass through the Tensor engine
//       into a PSUM bank (the identity-matmul transpose, NKI nc_transpose), and Vector
//       or Scalar copies the bank into the block's A^T panel in SBUF
//     for each group of B's columns (group_chunks chunks of 512):
//       for each K-tile: one [128, group] tile of B from the ring;
//         for each row tile: for each chunk: matmul into the (tile, chunk) PSUM bank,
//         the A^T tile staying loaded as the stationary across the chunks
//       Vector and Scalar copy the banks out (casting to C's dtype); GpSimd stores them
//
// A K too long for SBUF is split into segments, each transposed and multiplied in turn;
// the stores of every segment after the first add into C.
//
// Loads are issued by Sync on one queue in the order they are needed: the first block's
// rows of A, B tiles b_slots ahead of the multiplies (or, when all of B fits, each B tile
// once, kept for every block), and the next block's rows of A one per K-step once this
// block's transposes have read the previous ones. Stores have a queue of their own.
// Semaphores come from what each instruction reads and writes (compiler/hazards.hpp).
#include "compiler/gemm.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <vector>

#include "base/error.hpp"
#include "builder/builder.hpp"
#include "compiler/fresh_names.hpp"
#include "compiler/hazards.hpp"

namespace neuronsim::compiler {

namespace {

using isa::Buffer;
using isa::Engine;
using isa::Ix;

// Tiles (or chunks) first .. first + count - 1.
struct Span {
  std::uint32_t first = 0, count = 0;
};

// `total` split into ceil(total / most) spans whose sizes differ by at most one.
std::vector<Span> balanced(std::uint32_t total, std::uint32_t most) {
  const std::uint32_t parts = (total + most - 1) / most;
  std::vector<Span> spans;
  std::uint32_t at = 0;
  for (std::uint32_t i = 0; i < parts; ++i) {
    const std::uint32_t count = total / parts + (i < total % parts ? 1 : 0);
    spans.push_back({at, count});
    at += count;
  }
  return spans;
}

class GemmEmitter {
 public:
  GemmEmitter(const GemmSpec& s, const params::TargetLimits& l)
      : s_(s),
        p_(plan_gemm(s, l)),
        b_(s.kernel_name, s.target),
        h_(b_, [this](const std::string& base) { return fresh(base); }) {
    if (l.dma_engines == 0) throw Error("gemm: the target's limits give no DMA engines");
    for (const std::string* n : {&s.a_name, &s.b_name, &s.c_name})
      names_.take(*n);
    declare(l);
  }

  isa::Kernel emit() {
    const std::vector<Span> blocks = balanced(p_.m_tiles, p_.block_m_tiles);
    const std::vector<Span> groups = balanced(p_.n_chunks, p_.group_chunks);
    const std::vector<Span> segments = balanced(p_.k_tiles, p_.segment_k_tiles);
    for (std::size_t blk = 0; blk < blocks.size(); ++blk)
      for (const Span& seg : segments)
        for (const Span& g : groups)
          for (std::uint32_t k = seg.first; k < seg.first + seg.count; ++k)
            pieces_.push_back({g, k});

    // The first block's rows of A, then the first B tiles, all at once.
    epilogue_prologue();
    for (const auto& load : a_loads(blocks[0], segments[0]))
      load_a(load);
    if (s_.b_transposed) transpose_b(groups);
    // Resident B: the first block's loads are the only ones (none when B came transposed).
    const std::size_t b_loads = s_.b_transposed ? 0 : (p_.b_resident ? p_.b_slots : pieces_.size());
    std::size_t next_b = 0;
    while (next_b < std::min<std::size_t>(p_.b_slots, b_loads))
      load_b(next_b++);

    std::deque<ALoad> pending;  // the next transposes' rows of A
    std::size_t j = 0;          // B tile being multiplied
    for (std::size_t blk = 0; blk < blocks.size(); ++blk)
      for (std::size_t si = 0; si < segments.size(); ++si) {
        const Span& seg = segments[si];
        for (; !pending.empty(); pending.pop_front())
          load_a(pending.front());
        transpose_block(blocks[blk], seg);
        if (si + 1 < segments.size() || blk + 1 < blocks.size()) {
          const bool same = si + 1 < segments.size();
          for (const auto& load :
               a_loads(blocks[same ? blk : blk + 1], segments[same ? si + 1 : 0]))
            pending.push_back(load);
        }
        for (const Span& g : groups) {
          load_epilogue_rows(blocks[blk], g);
          for (std::uint32_t kk = 0; kk < seg.count; ++kk, ++j) {
            k_step(blocks[blk], g, seg, kk, j);
            // B tile j's slot is free once this K-step has read it.
            if (next_b < b_loads) load_b(next_b++);
            if (s_.pipelined && !pending.empty()) {
              load_a(pending.front());
              pending.pop_front();
            }
          }
          drain(blocks[blk], g, si > 0);
        }
      }
    return b_.build();
  }

 private:
  // One load of rows of A: tile `i` of the block, columns c0 .. c1 of A, which are
  // columns from `at` of the rows buffer and piece `piece` of the segment.
  struct ALoad {
    std::uint32_t tile = 0, i = 0, piece = 0, c0 = 0, c1 = 0, at = 0;
  };
  struct BPiece {
    Span group;
    std::uint32_t k = 0;
  };

  std::string fresh(const std::string& base) { return names_(base); }

  void declare(const params::TargetLimits& l) {
    const std::uint32_t mtb = p_.block_m_tiles, seg = p_.segment_k_tiles;
    const std::uint32_t bn = std::min(p_.group_chunks * p_.n_chunk, s_.n);  // widest group
    const std::uint32_t seg_cols = std::min(seg * p_.k_tile, s_.k);
    const std::uint32_t a_pieces = (seg_cols + p_.a_piece_cols - 1) / p_.a_piece_cols;
    A_ = hbm(s_.a_name, s_.in_dtype, s_.a_view, {s_.m, s_.k}, isa::TensorRole::input);
    B_ = hbm(s_.b_name, s_.in_dtype, s_.b_view,
             s_.b_transposed ? std::vector<std::uint64_t>{s_.n, s_.k}
                             : std::vector<std::uint64_t>{s_.k, s_.n},
             isa::TensorRole::input);
    C_ = hbm(s_.c_name, s_.out_dtype, s_.c_view, {s_.m, s_.n}, isa::TensorRole::output);
    declare_epilogue(mtb, bn);
    if (s_.b_transposed)
      bt_rows_ = b_.sbuf(fresh("bt_rows"), s_.in_dtype, {p_.k_tile, p_.bt_slots, s_.k});
    bt_slots_.resize(p_.bt_slots);
    a_rows_ = b_.sbuf(fresh("a_rows"), s_.in_dtype, {p_.m_tile, mtb, seg_cols});
    a_t_ = b_.sbuf(fresh("a_t"), s_.in_dtype, {p_.k_tile, seg, mtb * p_.m_tile});
    b_ring_ = b_.sbuf(fresh("b_tiles"), s_.in_dtype, {p_.k_tile, p_.b_slots, bn});
    c_out_ = b_.sbuf(fresh("c_tiles"), s_.out_dtype, {p_.m_tile, p_.out_sets * mtb, bn});
    acc_ =
        b_.psum(fresh("acc"), isa::DType::fp32, {p_.m_tile, p_.psum_banks, l.psum_bank_bytes / 4});
    acc_in_ = acc_.as(s_.in_dtype);  // transposes keep A's dtype
    const auto engines = static_cast<std::uint8_t>(l.dma_engines);
    q_load_ = h_.queue("load", 0, engines);
    q_store_ = h_.queue("store", 0, engines);
    banks_.resize(p_.psum_banks);
    a_pieces_.assign(mtb, std::vector<Slot>(a_pieces));
    panel_.assign(seg, std::vector<Slot>(mtb));
    b_slots_.resize(p_.b_slots);
    out_.assign(p_.out_sets, std::vector<Slot>(mtb));
  }

  // An HBM tensor (declared once per name) in the shape of its view, or `natural`.
  Buffer hbm(const std::string& name, isa::DType t, const GemmView& v,
             std::vector<std::uint64_t> natural, isa::TensorRole role) {
    auto it = hbm_.find(name);
    if (it != hbm_.end()) return it->second;
    if (!v.shape.empty()) natural = v.shape;
    row_len_[name] = natural.back();
    Buffer buf = b_.hbm(name, t, natural, role);
    hbm_.emplace(name, buf);
    return buf;
  }
  // Rows r0 .. r0 + nr - 1 and columns c0 .. c0 + w - 1 of an operand seen through its view.
  isa::AccessPattern rows_of(const Buffer& t, const GemmView& v, std::uint64_t r0, std::uint32_t nr,
                             std::uint64_t c0, std::uint64_t w) const {
    const std::uint64_t len = row_len_.at(t.name());
    return t.raw(static_cast<std::uint32_t>(r0), nr, static_cast<std::int64_t>(len),
                 (v.col0 + c0) * isa::dtype_size(t.dtype()),
                 {isa::Dim{1, static_cast<std::uint32_t>(w)}});
  }

  std::uint32_t rows(std::uint32_t tile) const {
    return std::min(p_.m_tile, s_.m - tile * p_.m_tile);
  }
  std::uint32_t krows(std::uint32_t k) const { return std::min(p_.k_tile, s_.k - k * p_.k_tile); }
  std::uint32_t cols(std::uint32_t chunk) const {
    return std::min(p_.n_chunk, s_.n - chunk * p_.n_chunk);
  }
  std::uint32_t group_cols(const Span& g) const {
    return std::min(g.count * p_.n_chunk, s_.n - g.first * p_.n_chunk);
  }

  // Column-piece major, so that the first K-tiles of every row tile arrive first.
  std::vector<ALoad> a_loads(const Span& block, const Span& seg) const {
    std::vector<ALoad> loads;
    const std::uint32_t first = seg.first * p_.k_tile;
    const std::uint32_t end = std::min(s_.k, (seg.first + seg.count) * p_.k_tile);
    for (std::uint32_t c0 = first, piece = 0; c0 < end; c0 += p_.a_piece_cols, ++piece)
      for (std::uint32_t i = 0; i < block.count; ++i)
        loads.push_back(
            {block.first + i, i, piece, c0, std::min(end, c0 + p_.a_piece_cols), c0 - first});
    return loads;
  }

  void load_a(const ALoad& l) {
    const std::uint32_t m0 = l.tile * p_.m_tile, mr = rows(l.tile);
    auto ref = b_.sync().dma_copy(a_rows_.slice(Ix(0, mr), l.i, Ix(l.at, l.at + l.c1 - l.c0)),
                                  rows_of(A_, s_.a_view, m0, mr, l.c0, l.c1 - l.c0), q_load_);
    h_.dma(ref.instruction(), q_load_, 0, mr, {writes(a_pieces_[l.i][l.piece])});
  }

  void load_b(std::size_t j) {
    const BPiece& piece = pieces_[j];
    const std::uint32_t k0 = piece.k * p_.k_tile, kr = krows(piece.k);
    const std::uint32_t n0 = piece.group.first * p_.n_chunk, width = group_cols(piece.group);
    const auto slot = static_cast<std::uint32_t>(j % p_.b_slots);
    auto ref = b_.sync().dma_copy(b_ring_.slice(Ix(0, kr), slot, Ix(0, width)),
                                  rows_of(B_, s_.b_view, k0, kr, n0, width), q_load_);
    h_.dma(ref.instruction(), q_load_, 0, kr, {writes(b_slots_[slot])});
  }

  // Vector and Scalar take turns copying out of PSUM: each copy is slower than the
  // multiplies that fill a bank, two engines keep up.
  Engine next_copier() { return copies_++ % 2 == 0 ? Engine::vector : Engine::scalar; }

  void copy(Engine e, const isa::AccessPattern& dst, const isa::AccessPattern& src,
            const std::vector<Access>& accesses) {
    isa::Instruction& ins =
        e == Engine::vector ? b_.vector().tensor_copy(dst, src).instruction()
                            : b_.scalar().activation(dst, src, isa::ActFunc::copy).instruction();
    h_.compute(ins, e, accesses);
  }

  void transpose_block(const Span& block, const Span& seg) {
    for (std::uint32_t kk = 0; kk < seg.count; ++kk) {
      const std::uint32_t k = seg.first + kk, kr = krows(k);
      const std::uint32_t at = kk * p_.k_tile;  // column in the rows of A
      const std::uint32_t piece = at / p_.a_piece_cols;
      for (std::uint32_t i0 = 0; i0 < block.count; i0 += p_.transposes_per_bank) {
        const std::uint32_t n = std::min(p_.transposes_per_bank, block.count - i0);
        const std::uint32_t bank = transposes_++ % p_.psum_banks;
        std::uint32_t width = 0;
        std::vector<Access> copy_accesses{reads(banks_[bank])};
        for (std::uint32_t t = 0; t < n; ++t) {
          const std::uint32_t i = i0 + t, mr = rows(block.first + i);
          auto ref = b_.tensor().transpose(
              acc_in_.slice(Ix(0, kr), bank, Ix(t * p_.m_tile, t * p_.m_tile + mr)),
              a_rows_.slice(Ix(0, mr), i, Ix(at, at + kr)));
          h_.compute(ref.instruction(), Engine::tensor,
                     {writes(banks_[bank]), reads(a_pieces_[i][piece])});
          width = t * p_.m_tile + mr;
          copy_accesses.push_back(writes(panel_[kk][i]));
        }
        copy(next_copier(), a_t_.slice(Ix(0, kr), kk, Ix(i0 * p_.m_tile, i0 * p_.m_tile + width)),
             acc_in_.slice(Ix(0, kr), bank, Ix(0, width)), copy_accesses);
      }
    }
  }

  // K-tile seg.first + kk of a register block: B tile j against the block's A^T tiles.
  void k_step(const Span& block, const Span& group, const Span& seg, std::uint32_t kk,
              std::size_t j) {
    const std::uint32_t kr = krows(seg.first + kk);
    const auto slot = static_cast<std::uint32_t>(j % p_.b_slots);
    for (std::uint32_t i = 0; i < block.count; ++i) {
      const std::uint32_t mr = rows(block.first + i);
      const isa::AccessPattern stationary =
          a_t_.slice(Ix(0, kr), kk, Ix(i * p_.m_tile, i * p_.m_tile + mr));
      for (std::uint32_t c = 0; c < group.count; ++c) {
        const std::uint32_t nsz = cols(group.first + c), bank = i * group.count + c;
        auto ref = b_.tensor().matmul(
            acc_.slice(Ix(0, mr), bank, Ix(0, nsz)), stationary,
            b_ring_.slice(Ix(0, kr), slot, Ix(c * p_.n_chunk, c * p_.n_chunk + nsz)),
            isa::accumulate_flag_of(kk, seg.count));
        h_.compute(ref.instruction(), Engine::tensor,
                   {writes(banks_[bank]), reads(panel_[kk][i]), reads(b_slots_[slot])});
      }
    }
  }

  // B^T [N, K] in HBM: each 128 rows of it (a piece of B's columns) are loaded whole,
  // transposed K-tile by K-tile on the Tensor engine into a PSUM bank (up to
  // transposes_per_bank side by side), and copied into the ring slots of their K-tiles:
  // slot g * k_tiles + k holds K-tile k of group g, as the multiplies expect.
  void transpose_b(const std::vector<Span>& groups) {
    const std::uint32_t n_tiles = (s_.n + p_.m_tile - 1) / p_.m_tile;
    for (std::uint32_t t = 0; t < n_tiles; ++t) {
      const std::uint32_t n0 = t * p_.m_tile, nr = std::min(p_.m_tile, s_.n - n0);
      const std::uint32_t slot = t % p_.bt_slots;
      auto ref = b_.sync().dma_copy(bt_rows_.slice(Ix(0, nr), slot, Ix(0, s_.k)),
                                    rows_of(B_, s_.b_view, n0, nr, 0, s_.k), q_load_);
      h_.dma(ref.instruction(), q_load_, 0, nr, {writes(bt_slots_[slot])});
      std::uint32_t gi = 0;  // the group holding columns n0 ..
      while (gi + 1 < groups.size() && groups[gi + 1].first * p_.n_chunk <= n0)
        ++gi;
      const std::uint32_t col = n0 - groups[gi].first * p_.n_chunk;  // in the group's slot
      for (std::uint32_t k0 = 0; k0 < p_.k_tiles;) {
        // K-tiles of one height side by side: a partial last K-tile goes alone.
        std::uint32_t cnt = std::min(p_.transposes_per_bank, p_.k_tiles - k0);
        if (krows(k0 + cnt - 1) != krows(k0)) --cnt;
        if (cnt == 0) cnt = 1;
        const std::uint32_t kr = krows(k0), bank = transposes_++ % p_.psum_banks;
        std::vector<Access> copy_accesses{reads(banks_[bank])};
        for (std::uint32_t u = 0; u < cnt; ++u) {
          const std::uint32_t k = k0 + u;
          auto tr = b_.tensor().transpose(
              acc_in_.slice(Ix(0, kr), bank, Ix(u * p_.m_tile, u * p_.m_tile + nr)),
              bt_rows_.slice(Ix(0, nr), slot, Ix(k * p_.k_tile, k * p_.k_tile + kr)));
          h_.compute(tr.instruction(), Engine::tensor,
                     {writes(banks_[bank]), reads(bt_slots_[slot])});
          copy_accesses.push_back(writes(b_slots_[gi * p_.k_tiles + k]));
        }
        const std::uint32_t j0 = gi * p_.k_tiles + k0;
        const isa::AccessPattern src =
            cnt == 1 ? acc_in_.slice(Ix(0, kr), bank, Ix(0, nr))
                     : acc_in_.raw(
                           0, kr, 0,
                           std::uint64_t{bank} * acc_in_.shape()[2] * isa::dtype_size(s_.in_dtype),
                           {isa::Dim{static_cast<std::int32_t>(p_.m_tile), cnt}, isa::Dim{1, nr}});
        copy(next_copier(), b_ring_.slice(Ix(0, kr), Ix(j0, j0 + cnt), Ix(col, col + nr)), src,
             copy_accesses);
        k0 += cnt;
      }
    }
  }

  // Column operands (loaded once, every partition the same row) and the constant bias
  // tiles of activations.
  void declare_epilogue(std::uint32_t mtb, std::uint32_t bn) {
    epi_.resize(s_.epilogue.size());
    const std::uint32_t staged = p_.out_sets * mtb;
    for (std::size_t e = 0; e < s_.epilogue.size(); ++e) {
      const EpilogueStep& st = s_.epilogue[e];
      if (st.kind == EpilogueStep::Kind::activation && st.bias != 0.0f &&
          !bias_consts_.count(st.bias))
        bias_consts_[st.bias] = b_.sbuf(fresh("bias_const"), isa::DType::fp32, {p_.m_tile, 1});
      if (st.kind != EpilogueStep::Kind::tensor) continue;
      EpiOperand& o = epi_[e];
      GemmView v;
      v.shape = st.tensor_shape;
      o.hbm = hbm(st.tensor, st.tensor_dtype, v, st.tensor_shape, isa::TensorRole::input);
      o.sbuf = st.column
                   ? b_.sbuf(fresh(st.tensor + "_col"), st.tensor_dtype, {p_.m_tile, s_.n})
                   : b_.sbuf(fresh(st.tensor + "_tiles"), st.tensor_dtype, {p_.m_tile, staged, bn});
      o.slots.resize(st.column ? 1 : staged);
    }
    if (s_.epilogue.size() > 1) {
      work_ = b_.sbuf(fresh("epi_work"), isa::DType::fp32, {p_.m_tile, staged, bn});
      work_slots_.resize(staged);
    }
  }

  void epilogue_prologue() {
    for (auto& [value, tile] : bias_consts_) {
      auto ref = b_.vector().memset(tile, value);
      h_.compute(ref.instruction(), Engine::vector, {writes(consts_ready_)});
    }
    for (std::size_t e = 0; e < s_.epilogue.size(); ++e) {
      if (s_.epilogue[e].kind != EpilogueStep::Kind::tensor || !s_.epilogue[e].column) continue;
      EpiOperand& o = epi_[e];
      // One row of N elements, repeated on every partition (partition stride 0).
      auto ref =
          b_.sync().dma_copy(o.sbuf, o.hbm.raw(0, p_.m_tile, 0, 0, {isa::Dim{1, s_.n}}), q_load_);
      h_.dma(ref.instruction(), q_load_, 0, p_.m_tile, {writes(o.slots[0])});
    }
  }

  // The row operands' tiles of the register block that drains next.
  void load_epilogue_rows(const Span& block, const Span& group) {
    const std::uint32_t set = drains_ % p_.out_sets;
    const std::uint32_t n0 = group.first * p_.n_chunk, width = group_cols(group);
    for (std::size_t e = 0; e < s_.epilogue.size(); ++e) {
      const EpilogueStep& st = s_.epilogue[e];
      if (st.kind != EpilogueStep::Kind::tensor || st.column) continue;
      EpiOperand& o = epi_[e];
      for (std::uint32_t i = 0; i < block.count; ++i) {
        const std::uint32_t tile = block.first + i, mr = rows(tile);
        const std::uint32_t staged = set * p_.block_m_tiles + i;
        auto ref = b_.sync().dma_copy(o.sbuf.slice(Ix(0, mr), staged, Ix(0, width)),
                                      rows_of(o.hbm, GemmView{}, tile * p_.m_tile, mr, n0, width),
                                      q_load_);
        h_.dma(ref.instruction(), q_load_, 0, mr, {writes(o.slots[staged])});
      }
    }
  }

  // The epilogue of one bank: columns `col` .. col + nsz - 1 of staged tile `staged`
  // (columns n .. of C). Each step reads the bank or the fp32 working tile and writes the
  // working tile or, the last one, the output tile.
  void epilogue(std::uint32_t mr, std::uint32_t staged, std::uint32_t col, std::uint32_t nsz,
                std::uint32_t n, std::uint32_t bank, Slot& out) {
    const Ix rows_ix(0, mr), cols_ix(col, col + nsz);
    for (std::size_t e = 0; e < s_.epilogue.size(); ++e) {
      const EpilogueStep& st = s_.epilogue[e];
      const bool first = e == 0, last = e + 1 == s_.epilogue.size();
      const isa::AccessPattern src =
          first ? acc_.slice(rows_ix, bank, Ix(0, nsz)) : work_.slice(rows_ix, staged, cols_ix);
      const isa::AccessPattern dst =
          last ? c_out_.slice(rows_ix, staged, cols_ix) : work_.slice(rows_ix, staged, cols_ix);
      std::vector<Access> acc;
      if (first) acc.push_back(reads(banks_[bank]));
      if (!first || !last) acc.push_back(writes(work_slots_[staged]));
      if (last) acc.push_back(writes(out));
      switch (st.kind) {
        case EpilogueStep::Kind::activation: {
          auto ref = b_.scalar().activation(dst, src, st.func);
          if (st.scale != 1.0f) ref.scale(st.scale);
          if (st.bias != 0.0f) {
            ref.bias(bias_consts_.at(st.bias).slice(rows_ix, Ix(0, 1)));
            acc.push_back(reads(consts_ready_));
          }
          h_.compute(ref.instruction(), Engine::scalar, acc);
          break;
        }
        case EpilogueStep::Kind::scalar: {
          auto ref = b_.vector().tensor_scalar(dst, src, st.op, st.imm);
          if (st.reverse) ref.reverse0();
          h_.compute(ref.instruction(), Engine::vector, acc);
          break;
        }
        case EpilogueStep::Kind::tensor: {
          EpiOperand& o = epi_[e];
          const isa::AccessPattern t = st.column ? o.sbuf.slice(rows_ix, Ix(n, n + nsz))
                                                 : o.sbuf.slice(rows_ix, staged, cols_ix);
          acc.push_back(reads(o.slots[st.column ? 0 : staged]));
          auto ref = st.reverse ? b_.vector().tensor_tensor(dst, t, src, st.op)
                                : b_.vector().tensor_tensor(dst, src, t, st.op);
          h_.compute(ref.instruction(), Engine::vector, acc);
          break;
        }
      }
    }
  }

  // `add`: a later K segment, whose stores add into C.
  void drain(const Span& block, const Span& group, bool add) {
    const std::uint32_t set = drains_++ % p_.out_sets;
    const std::uint32_t n0 = group.first * p_.n_chunk, width = group_cols(group);
    for (std::uint32_t i = 0; i < block.count; ++i) {
      const std::uint32_t tile = block.first + i, mr = rows(tile);
      const std::uint32_t staged = set * p_.block_m_tiles + i;
      Slot& out = out_[set][i];
      const Engine e = next_copier();  // one engine per row tile: its store waits for one
      for (std::uint32_t c = 0; c < group.count; ++c) {
        const std::uint32_t nsz = cols(group.first + c), bank = i * group.count + c;
        if (!s_.epilogue.empty()) {
          epilogue(mr, staged, c * p_.n_chunk, nsz, n0 + c * p_.n_chunk, bank, out);
          continue;
        }
        copy(e, c_out_.slice(Ix(0, mr), staged, Ix(c * p_.n_chunk, c * p_.n_chunk + nsz)),
             acc_.slice(Ix(0, mr), bank, Ix(0, nsz)), {reads(banks_[bank]), writes(out)});
      }
      const std::uint32_t m0 = tile * p_.m_tile;
      auto ref = b_.gpsimd().dma_copy(rows_of(C_, s_.c_view, m0, mr, n0, width),
                                      c_out_.slice(Ix(0, mr), staged, Ix(0, width)), q_store_, add);
      h_.dma(ref.instruction(), q_store_, 0, mr, {reads(out)});
    }
  }

  const GemmSpec& s_;
  const GemmPlan p_;
  isa::Builder b_;
  Hazards h_;
  FreshNames names_;
  Buffer A_, B_, C_, a_rows_, a_t_, b_ring_, c_out_, acc_, acc_in_, bt_rows_, work_;
  std::map<std::string, Buffer> hbm_;
  std::map<std::string, std::uint64_t> row_len_;
  std::vector<Slot> bt_slots_;
  // Epilogue: per step with a tensor operand its SBUF buffer (rows: one tile per staged
  // output tile; column: whole) and slots; constant bias tiles by value.
  struct EpiOperand {
    Buffer hbm, sbuf;
    std::vector<Slot> slots;  // rows: [set * block + i]; column: one
  };
  std::vector<EpiOperand> epi_;  // by step index (unused for steps without a tensor)
  std::map<float, Buffer> bias_consts_;
  Slot consts_ready_;
  std::vector<Slot> work_slots_;
  isa::Queue q_load_, q_store_;
  std::vector<Slot> banks_, b_slots_;
  std::vector<std::vector<Slot>> a_pieces_, panel_, out_;  // [tile][piece], [k][tile], [set][tile]
  std::vector<BPiece> pieces_;  // every B tile, in the order the multiplies use them
  std::uint64_t copies_ = 0, transposes_ = 0, drains_ = 0;
};

}  // namespace

isa::Kernel emit_gemm(const GemmSpec& spec, const params::TargetLimits& limits) {
  return GemmEmitter(spec, limits).emit();
}

}  // namespace neuronsim::compiler

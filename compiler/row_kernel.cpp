// Emission of a row program (docs/compiler.md, "Buffering and semaphores").
//
// Per 128-row tile the kernel runs a fixed list of operations: the DMA loads of the
// row/stat inputs, the steps, the DMA stores of the outputs. Each operation that another
// engine waits for signals a semaphore of its own once per tile, so "op k has finished
// tile t" is "sem_k >= t + 1". Two rules give every wait:
//   read after write:  a reader waits for the writer of the same tile;
//   write after read:  a writer of buffer slot t % n waits until every reader of tile t - n
//                      (the slot's previous contents) has finished.
// Operations on one compute engine run in order and need no semaphore between them; DMA
// transfers complete asynchronously, so they always synchronise.
//
// Tiling (plan_tiling): a program of [N, 1] values only, elementwise, runs in the flat
// layout (the N contiguous elements as [128, N/128], as a GPU's elementwise kernel sees a
// contiguous tensor) instead of 128 tiles of one element per partition; otherwise an [N, 1]
// input or output next to [N, D] rows is "whole": one [128, tiles] buffer, column t for
// tile t, loaded in the prologue or stored after the last tile by a single DMA.
#include "compiler/row_kernel.hpp"

#include <algorithm>
#include <map>

#include "base/error.hpp"
#include "base/limits.hpp"
#include "builder/builder.hpp"
#include "compiler/wide_row_kernel.hpp"

namespace neuronsim::compiler {

namespace {

using namespace isa;

constexpr std::uint32_t kPartitions = 128;  // reference section 1
constexpr std::uint64_t kAlign = 64;        // allocation placement granule (isa/placement.hpp)

std::uint64_t aligned(std::uint64_t n) {
  return (n + kAlign - 1) / kAlign * kAlign;
}

// Iterations of the per-tile schedule.
std::uint64_t tile_count(const RowProgram& p) {
  if (p.flat_cols == 0) return (p.rows + kPartitions - 1) / kPartitions;
  const std::uint64_t rows_per_partition = p.rows / kPartitions;
  return (rows_per_partition + p.flat_cols - 1) / p.flat_cols;
}

// Rows not a multiple of 128 leave a partial tile. It is tile 0, not the last: DMA
// transfers on one queue over the same partitions complete in issue order, and every
// later (full) tile covers the partial tile's partitions, so a tile's transfer never
// finishes before an earlier tile's and a count of finished transfers stays "tiles 0..t
// are done" (compiler/hazards.hpp).
std::uint32_t first_tile_rows(const RowProgram& p) {
  const auto partial = static_cast<std::uint32_t>(p.rows % kPartitions);
  return partial == 0 ? kPartitions : partial;
}

std::uint32_t slots_of(const Value& v, std::uint32_t nbuf, std::uint64_t tiles) {
  if (v.unused) return 0;
  if (v.kind == ValueKind::col) return 1;
  if (v.whole) return static_cast<std::uint32_t>(tiles);
  return v.scratch ? 1 : nbuf;
}

std::vector<float> constants_of(const RowProgram& p) {
  std::vector<float> c;
  for (const auto& s : p.steps)
    if (s.kind == StepKind::activation && s.has_bias && !s.bias.is_value() &&
        std::find(c.begin(), c.end(), s.bias.imm) == c.end())
      c.push_back(s.bias.imm);
  return c;
}

// Every value an [N, 1] tensor and every step elementwise on it (no reduction, no
// per-partition scalar operand, which would be per row): where a row sits does not matter.
bool flat_eligible(const RowProgram& p) {
  if (p.rows % kPartitions != 0) return false;  // not [128, N/128]
  for (const auto& v : p.values)
    if (!v.unused && (v.kind != ValueKind::stat || v.viewed())) return false;
  for (const auto& s : p.steps) {
    if (s.kind == StepKind::reduce || s.reduce_dst >= 0) return false;
    for (int r : s.reads())
      if (r != s.a && r != s.b) return false;
  }
  return true;
}

// Flat tiles hold at most this many elements per partition: 8-16 KiB rows, far past the
// DMA's full-rate row length (efficient_bytes_per_row, reference section 4), and a large
// range still splits into tiles whose loads and stores overlap the compute.
constexpr std::uint32_t kFlatTileCols = 4096;

bool fits(const RowProgram& p, std::uint32_t nbuf, const params::TargetLimits& limits) {
  return row_sbuf_bytes(p, nbuf) <= limits.sbuf_bytes_per_partition;
}

// Chooses the layout (see the top of this file); the result is `in` with flat_cols, the
// values' cols (flat) or their `whole` flags set.
RowProgram plan_tiling(const RowProgram& in, const params::TargetLimits& limits) {
  RowProgram p = in;
  if (flat_eligible(p)) {
    const std::uint64_t per_partition = p.rows / kPartitions;
    std::uint64_t cols = std::min<std::uint64_t>(
        {per_partition, kFlatTileCols, std::max<std::uint32_t>(1, limits.max_sbuf_free_elems)});
    for (;;) {
      p.flat_cols = static_cast<std::uint32_t>(cols);
      for (auto& v : p.values)
        v.cols = p.flat_cols;
      if (cols == 1 || fits(p, 1, limits)) break;
      cols = (cols + 1) / 2;
    }
    return p;
  }
  // A DMA dim holds at most 65535 elements (reference section 2): one column per tile.
  // A partial tile would leave the last column short: not one pattern.
  if (tile_count(p) > UINT16_MAX || p.rows % kPartitions != 0) return p;
  const bool fitted = fits(p, 2, limits);
  for (auto& v : p.values)
    v.whole = v.kind == ValueKind::stat && !v.unused && (v.input || v.output) && !v.viewed();
  // Keep the buffering the per-tile layout would have had.
  if ((fitted && !fits(p, 2, limits)) || !fits(p, 1, limits))
    for (auto& v : p.values)
      v.whole = false;
  return p;
}

struct TileOp {
  enum Kind { load, step, store } kind = step;
  int index = 0;  // value (load/store) or step
  bool dma() const { return kind != step; }
  std::vector<int> reads, writes;
  Engine engine = Engine::sync;
};

struct Dep {
  int op;
  std::uint32_t lag;  // 0: the same tile; n: tile t - n
};

class Emitter {
 public:
  Emitter(const RowProgram& p, const std::string& kernel_name, const std::string& target,
          const params::TargetLimits& limits, const std::string& source, std::uint32_t nbuf)
      : p_(p),
        limits_(limits),
        source_(source),
        nbuf_(nbuf),
        tiles_(tile_count(p)),
        b_(kernel_name, target) {}

  Kernel emit() {
    plan();
    if (sems_needed() > limits_.semaphores)
      fail("needs " + std::to_string(sems_needed()) + " semaphores, the target has " +
           std::to_string(limits_.semaphores));
    declare_buffers();
    const std::uint64_t tiles = tiles_;
    prologue();
    for (std::uint64_t t = 0; t < tiles; ++t)
      for (std::size_t k = 0; k < ops_.size(); ++k)
        if (ops_[k].kind == TileOp::step) emit_op(k, t);
    const std::uint64_t ahead = std::min<std::uint64_t>(nbuf_, tiles);
    for (std::uint64_t t = 0; t < ahead; ++t)
      emit_loads(t);
    for (std::uint64_t t = 0; t < tiles; ++t) {
      for (std::size_t k = 0; k < ops_.size(); ++k)
        if (ops_[k].kind == TileOp::store && !whole(ops_[k].index)) emit_op(k, t);
      if (t + ahead < tiles) emit_loads(t + ahead);
    }
    // Whole outputs: one DMA once the last tile's column is written.
    for (std::size_t k = 0; k < ops_.size(); ++k)
      if (ops_[k].kind == TileOp::store && whole(ops_[k].index))
        synchronise(b_.sync().dma_copy(whole_rows(ops_[k].index), tiles_of_.at(ops_[k].index).all(),
                                       store_q_),
                    k, tiles - 1);
    return b_.build();
  }

 private:
  [[noreturn]] void fail(const std::string& reason) const {
    throw Error(source_ + ": launch '" + p_.name + "': " + reason);
  }

  bool whole(int v) const { return p_.values[v].whole; }
  // Read from a buffer the prologue fills: a column vector or a whole [N, 1] input.
  bool prologue_value(int v) const {
    return p_.values[v].kind == ValueKind::col || (p_.values[v].input && whole(v));
  }

  void build_ops() {
    for (std::size_t v = 0; v < p_.values.size(); ++v)
      if (p_.values[v].input && !prologue_value(static_cast<int>(v))) {
        TileOp op;
        op.kind = TileOp::load;
        op.index = static_cast<int>(v);
        op.writes = {op.index};
        ops_.push_back(op);
      }
    for (std::size_t i = 0; i < p_.steps.size(); ++i) {
      TileOp op;
      op.index = static_cast<int>(i);
      op.reads = p_.steps[i].reads();
      op.writes = p_.steps[i].writes();
      op.engine = p_.steps[i].engine();
      ops_.push_back(op);
    }
    for (std::size_t v = 0; v < p_.values.size(); ++v)
      if (p_.values[v].output) {
        TileOp op;
        op.kind = TileOp::store;
        op.index = static_cast<int>(v);
        op.reads = {op.index};
        ops_.push_back(op);
      }
  }

  // In-order execution on one compute engine orders two operations without a semaphore.
  bool ordered(int j, int k) const {
    return !ops_[j].dma() && !ops_[k].dma() && ops_[j].engine == ops_[k].engine;
  }

  void build_deps() {
    deps_.resize(ops_.size());
    waited_.assign(ops_.size(), false);
    for (std::size_t k = 0; k < ops_.size(); ++k) {
      const int ki = static_cast<int>(k);
      for (int v : ops_[k].reads) {
        if (prologue_value(v)) continue;  // loaded once, see prologue
        for (std::size_t j = 0; j < ops_.size(); ++j)
          if (j != k && writes(j, v) && !ordered(static_cast<int>(j), ki))
            add_dep(k, Dep{static_cast<int>(j), 0});
      }
      for (int v : ops_[k].writes) {
        if (whole(v)) continue;  // a column per tile: nothing is overwritten
        const std::uint32_t n = slots_of(p_.values[v], nbuf_, tiles_);
        // A flat program often is one tile: no slot is ever reused, nothing to wait for.
        // (Row programs keep these never-firing waits' semaphores, as they always had.)
        if (p_.flat_cols != 0 && n >= tiles_) continue;
        for (std::size_t r = 0; r < ops_.size(); ++r)
          if (r != k && reads(r, v) && !ordered(static_cast<int>(r), ki))
            add_dep(k, Dep{static_cast<int>(r), n});
      }
    }
  }

 public:
  // The semaphores the kernel declares: one per operation another engine waits for, and
  // the prologue's (build_ops and build_deps first).
  std::uint32_t sems_needed() const {
    return static_cast<std::uint32_t>(std::count(waited_.begin(), waited_.end(), true)) + 2;
  }
  void plan() {
    build_ops();
    build_deps();
  }

 private:
  bool writes(std::size_t op, int v) const {
    const auto& w = ops_[op].writes;
    return std::find(w.begin(), w.end(), v) != w.end();
  }
  bool reads(std::size_t op, int v) const {
    const auto& r = ops_[op].reads;
    return std::find(r.begin(), r.end(), v) != r.end();
  }

  void add_dep(std::size_t k, Dep d) {
    deps_[k].push_back(d);
    waited_[d.op] = true;
  }

  void declare_buffers() {
    for (std::size_t v = 0; v < p_.values.size(); ++v) {
      const Value& val = p_.values[v];
      if (val.unused) continue;
      if (val.cols > limits_.max_sbuf_free_elems)
        fail("tensor '" + val.name + "' has " + std::to_string(val.cols) +
             " elements per row, more than one instruction's " +
             std::to_string(limits_.max_sbuf_free_elems));
      if (val.input) {
        // Views of one tensor (and the tensor itself) share its one HBM declaration.
        auto [at, added] = inputs_.try_emplace(val.hbm_name());
        if (added) at->second = b_.input(val.hbm_name(), val.dtype, val.hbm_shape());
        hbm_[v] = at->second;
      }
      if (val.output) hbm_[v] = b_.output(val.name, val.dtype, val.shape);
      if (val.kind == ValueKind::col)
        tiles_of_[v] = b_.sbuf(val.name + "_sb", val.dtype, {kPartitions, val.cols});
      else
        tiles_of_[v] = b_.sbuf(val.name + "_sb", val.dtype,
                               {kPartitions, slots_of(val, nbuf_, tiles_), val.cols});
    }
    consts_ = constants_of(p_);
    if (!consts_.empty())
      const_tile_ = b_.sbuf("consts_sb", DType::fp32,
                            {kPartitions, static_cast<std::uint32_t>(consts_.size())});
    // Over every DMA engine of the target.
    const auto engines = static_cast<std::uint8_t>(limits_.dma_engines);
    load_q_ = b_.queue("load", 0, engines);
    store_q_ = b_.queue("store", 0, engines);
    prologue_sem_ = b_.semaphore("prologue_done");
    for (std::size_t k = 0; k < ops_.size(); ++k)
      if (waited_[k]) sems_[k] = b_.semaphore(sem_name(k));
  }

  std::string sem_name(std::size_t k) const {
    const TileOp& op = ops_[k];
    if (op.kind == TileOp::load) return p_.values[op.index].name + "_loaded";
    if (op.kind == TileOp::store) return p_.values[op.index].name + "_stored";
    return p_.values[p_.steps[op.index].dst].name + "_ready";
  }

  // Column vectors (broadcast to every partition: partition stride 0), whole [N, 1]
  // inputs and the constant biases, once, before the first tile.
  void prologue() {
    for (std::size_t v = 0; v < p_.values.size(); ++v) {
      const Value& val = p_.values[v];
      if (!val.input || !prologue_value(static_cast<int>(v))) continue;
      const AccessPattern src = val.kind == ValueKind::col
                                    ? hbm_[v].raw(0, kPartitions, 0, 0, {{1, val.cols}})
                                    : whole_rows(static_cast<int>(v));
      b_.sync().dma_copy(tiles_of_[v], src, load_q_).signal(prologue_sem_);
      ++prologue_count_;
    }
    for (std::size_t c = 0; c < consts_.size(); ++c) {
      const auto i = static_cast<std::int64_t>(c);
      b_.vector().memset(const_tile_.slice(Ix(), Ix(i, i + 1)), consts_[c]).signal(prologue_sem_);
      ++prologue_count_;
    }
  }

  // Flat layout: the elements per partition of tile t (the last tile may be short).
  std::uint32_t flat_width(std::uint64_t t) const {
    const std::uint64_t per_partition = p_.rows / kPartitions;
    return static_cast<std::uint32_t>(
        std::min<std::uint64_t>(p_.flat_cols, per_partition - t * p_.flat_cols));
  }

  // Row layout: the rows of tile t and the first of them.
  std::uint32_t tile_rows(std::uint64_t t) const {
    return t == 0 ? first_tile_rows(p_) : kPartitions;
  }
  std::uint64_t tile_row0(std::uint64_t t) const {
    return t == 0 ? 0 : first_tile_rows(p_) + (t - 1) * kPartitions;
  }
  // The partitions tile t uses.
  Ix parts(std::uint64_t t) const {
    if (p_.flat_cols != 0 || tile_rows(t) == kPartitions) return Ix();
    return Ix(0, tile_rows(t));
  }

  AccessPattern tile(int v, std::uint64_t t) const {
    const Value& val = p_.values[v];
    if (val.kind == ValueKind::col) return tiles_of_.at(v).slice(parts(t));
    const auto slot = static_cast<std::int64_t>(t % slots_of(val, nbuf_, tiles_));
    if (p_.flat_cols == 0) return tiles_of_.at(v).slice(parts(t), slot);
    return tiles_of_.at(v).slice(Ix(), slot, Ix(0, flat_width(t)));
  }

  // The HBM side of tile t's load or store.
  AccessPattern rows(int v, std::uint64_t t) const {
    if (p_.flat_cols != 0) {
      // Partition p: elements p * N/128 + t * flat_cols .., contiguous.
      const std::uint64_t per_partition = p_.rows / kPartitions;
      const std::uint64_t first = t * p_.flat_cols * dtype_size(p_.values[v].dtype);
      return hbm_.at(v).raw(0, kPartitions, static_cast<std::int64_t>(per_partition), first,
                            {{1, flat_width(t)}});
    }
    const Value& val = p_.values[v];
    const std::uint64_t r0 = tile_row0(t);
    if (val.viewed())  // columns source_col0.. of the source's rows
      return hbm_.at(v).raw(0, tile_rows(t), static_cast<std::int64_t>(val.row_stride()),
                            (r0 * val.row_stride() + val.source_col0) * dtype_size(val.dtype),
                            {{1, val.cols}});
    if (val.shape.size() == 2) {
      const auto r = static_cast<std::int64_t>(r0);
      return hbm_.at(v).slice(Ix(r, r + tile_rows(t)));
    }
    // Leading dimensions flattened: row r is the r-th run of `cols` elements.
    return hbm_.at(v).raw(0, tile_rows(t), val.cols, r0 * val.cols * dtype_size(val.dtype),
                          {{1, val.cols}});
  }

  // A whole [N, 1] tensor as [128, tiles]: element (p, t) is row t * 128 + p.
  AccessPattern whole_rows(int v) const {
    return hbm_.at(v).raw(
        0, kPartitions, 1, 0,
        {{static_cast<std::int32_t>(kPartitions), static_cast<std::uint32_t>(tiles_)}});
  }

  Scalar scalar_arg(const Arg& a, std::uint64_t t) const {
    if (a.is_value()) return Scalar(tile(a.value, t));
    return Scalar(static_cast<double>(a.imm));
  }

  AccessPattern bias_arg(const Arg& a, std::uint64_t t) const {
    if (a.is_value()) return tile(a.value, t);
    const auto c = static_cast<std::int64_t>(std::find(consts_.begin(), consts_.end(), a.imm) -
                                             consts_.begin());
    return const_tile_.slice(parts(t), Ix(c, c + 1));
  }

  bool reads_prologue(const TileOp& op) const {
    if (op.kind != TileOp::step) return false;
    const Step& s = p_.steps[op.index];
    if (s.kind == StepKind::activation && s.has_bias && !s.bias.is_value()) return true;
    for (int v : op.reads)
      if (prologue_value(v)) return true;
    return false;
  }

  template <typename Ref>
  void synchronise(Ref&& ref, std::size_t k, std::uint64_t t) {
    std::map<std::uint16_t, std::uint32_t> waits;
    for (const Dep& d : deps_[k]) {
      if (t < d.lag) continue;
      auto& w = waits[sems_.at(d.op).index];
      w = std::max<std::uint32_t>(w, static_cast<std::uint32_t>(t - d.lag + 1));
    }
    if (t == 0 && reads_prologue(ops_[k])) waits[prologue_sem_.index] = prologue_count_;
    for (const auto& [sem, value] : waits)
      ref.wait(Sem{sem}, value);
    if (waited_[k]) ref.signal(sems_.at(k));
  }

  void emit_loads(std::uint64_t t) {
    for (std::size_t k = 0; k < ops_.size(); ++k)
      if (ops_[k].kind == TileOp::load) emit_op(k, t);
  }

  void emit_op(std::size_t k, std::uint64_t t) {
    const TileOp& op = ops_[k];
    if (op.kind == TileOp::load) {
      synchronise(b_.sync().dma_copy(tile(op.index, t), rows(op.index, t), load_q_), k, t);
      return;
    }
    if (op.kind == TileOp::store) {
      synchronise(b_.sync().dma_copy(rows(op.index, t), tile(op.index, t), store_q_), k, t);
      return;
    }
    const Step& s = p_.steps[op.index];
    const AccessPattern dst = tile(s.dst, t), a = tile(s.a, t);
    switch (s.kind) {
      case StepKind::activation: {
        auto ref = b_.scalar().activation(dst, a, s.func);
        if (s.scale.is_value() || s.scale.imm != 1.0f) ref.scale(scalar_arg(s.scale, t));
        if (s.has_bias) ref.bias(bias_arg(s.bias, t));
        if (s.reduce_dst >= 0) ref.reduce(tile(s.reduce_dst, t));
        synchronise(ref, k, t);
        break;
      }
      case StepKind::tensor_scalar: {
        auto ref = b_.vector().tensor_scalar(dst, a, s.op0, scalar_arg(s.arg0, t));
        if (s.reverse0) ref.reverse0();
        if (s.has_op1) ref.then(s.op1, scalar_arg(s.arg1, t)).reverse1(s.reverse1);
        if (s.reduce_dst >= 0) ref.reduce(tile(s.reduce_dst, t));
        synchronise(ref, k, t);
        break;
      }
      case StepKind::tensor_tensor:
        synchronise(b_.vector().tensor_tensor(dst, a, tile(s.b, t), s.op0), k, t);
        break;
      case StepKind::scalar_tensor_tensor:
        synchronise(b_.vector().scalar_tensor_tensor(dst, a, scalar_arg(s.arg0, t), s.op0,
                                                     tile(s.b, t), s.op1),
                    k, t);
        break;
      case StepKind::reduce:
        synchronise(b_.vector().tensor_reduce(dst, a, s.reduce_op, 1, s.negate), k, t);
        break;
    }
  }

  const RowProgram& p_;
  const params::TargetLimits& limits_;
  const std::string& source_;
  std::uint32_t nbuf_;
  std::uint64_t tiles_;
  Builder b_;
  std::vector<TileOp> ops_;
  std::vector<std::vector<Dep>> deps_;
  std::vector<bool> waited_;
  std::map<int, Buffer> hbm_, tiles_of_;  // HBM tensor, SBUF buffer of each value
  std::map<std::string, Buffer> inputs_;  // the HBM inputs by name
  std::map<std::size_t, Sem> sems_;
  std::vector<float> consts_;
  Buffer const_tile_;
  Queue load_q_, store_q_;
  Sem prologue_sem_;
  std::uint32_t prologue_count_ = 0;
};

}  // namespace

std::uint64_t row_sbuf_bytes(const RowProgram& p, std::uint32_t nbuf) {
  std::uint64_t bytes = 0;
  const std::uint64_t tiles = tile_count(p);
  for (const auto& v : p.values)
    bytes += aligned(std::uint64_t{slots_of(v, nbuf, tiles)} * v.cols * dtype_size(v.dtype));
  const auto consts = constants_of(p);
  if (!consts.empty()) bytes += aligned(consts.size() * 4);
  return bytes;
}

namespace {

// Rows too wide for SBUF even with one buffer per stage, or for one instruction: the
// wide-row emitter's column chunks instead of whole rows.
bool too_wide(const RowProgram& program, const params::TargetLimits& limits) {
  bool wide = row_sbuf_bytes(program, 1) > limits.sbuf_bytes_per_partition;
  for (const auto& v : program.values)
    wide = wide || (!v.unused && v.cols > limits.max_sbuf_free_elems);
  return wide;
}

// Three buffers per stage keep the DMA engines streaming (fewer if they do not fit):
// with two, a tile's chain (descriptors and DMA latency, ~1.3 us on trn2, the load,
// Scalar, Vector) is longer than two tiles' worth of HBM time, so HBM idles between
// tiles (a [4096, 4096] RMSNorm on trn2: 75% of the per-core HBM bound with two
// buffers, 96% with three; docs/compiler.md).
std::uint32_t buffers_of(const RowProgram& p, const params::TargetLimits& limits) {
  std::uint32_t nbuf = 3;
  while (nbuf > 1 && row_sbuf_bytes(p, nbuf) > limits.sbuf_bytes_per_partition)
    --nbuf;
  if (p.flat_cols != 0 && tile_count(p) == 1) nbuf = 1;  // one tile: nothing to overlap
  return nbuf;
}

}  // namespace

std::uint32_t row_kernel_semaphores(const RowProgram& program, const std::string& target,
                                    const params::TargetLimits& limits) {
  // The wide-row emitter's semaphores come from compiler/hazards.hpp: one per compute
  // engine and one per (DMA queue, partition range), a handful whatever the program.
  if (too_wide(program, limits)) return 0;
  const RowProgram p = plan_tiling(program, limits);
  const std::string source;
  Emitter e(p, p.name, target, limits, source, buffers_of(p, limits));
  e.plan();
  return e.sems_needed();
}

Kernel emit_row_kernel(const RowProgram& program, const std::string& kernel_name,
                       const std::string& target, const params::TargetLimits& limits,
                       const std::string& source) {
  // Every tile of rows costs at least one instruction per step and one to load it: refuse
  // a kernel past the instructions limit before emitting any of it (an [2^30, 1] input
  // would otherwise build millions of instructions in memory first).
  check_limit(Limit::instructions, saturating_mul(tile_count(program), program.steps.size() + 1),
              source + ": kernel '" + kernel_name +
                  "': instructions (one per step per tile of rows, at least)");
  if (too_wide(program, limits))
    return emit_wide_row_kernel(program, kernel_name, target, limits, source);
  const RowProgram p = plan_tiling(program, limits);
  const std::uint32_t nbuf = buffers_of(p, limits);
  if (row_sbuf_bytes(p, 1) > limits.sbuf_bytes_per_partition) {
    std::string detail;
    for (const auto& v : p.values)
      detail += (detail.empty() ? "" : ", ") + v.name + " " +
                std::to_string(v.cols * dtype_size(v.dtype)) + " B";
    throw Error(source + ": launch '" + p.name + "' needs " + std::to_string(row_sbuf_bytes(p, 1)) +
                " bytes of SBUF per partition even with one buffer per stage (" + detail +
                "), the target has " + std::to_string(limits.sbuf_bytes_per_partition));
  }
  return Emitter(p, kernel_name, target, limits, source, nbuf).emit();
}

}  // namespace neuronsim::compiler

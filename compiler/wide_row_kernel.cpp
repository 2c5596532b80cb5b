// Emission of a row program in column chunks (compiler/wide_row_kernel.hpp says what and
// why; docs/compiler.md, "Wide rows").
//
// The schedule is a list of jobs per 128-row tile: for each phase, a head (the steps on
// [N, 1] statistics that the previous phase's reductions made possible), one job per
// column chunk, and a tail (the partial reductions combined); after the last phase, the
// statistics that are outputs are stored. DMA loads run `ahead` jobs in front of the
// compute, as the per-tile emitter's do. Semaphores come from what each instruction reads
// and writes (compiler/hazards.hpp): the schedule is too irregular to count by hand.
#include "compiler/wide_row_kernel.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "base/error.hpp"
#include "builder/builder.hpp"
#include "compiler/fresh_names.hpp"
#include "compiler/hazards.hpp"

namespace neuronsim::compiler {

namespace {

using namespace isa;

constexpr std::uint32_t kPartitions = 128;  // reference section 1
constexpr std::uint64_t kAlign = 64;        // allocation placement granule (isa/placement.hpp)
constexpr std::uint32_t kStatSlots = 2;     // row tile r uses slot r % 2: tiles overlap
// Chunks narrower than this would make DMA rows too short to stream (efficient_bytes_per_row
// is 2 KiB on every preset, reference section 4); below it, fewer buffers instead.
constexpr std::uint32_t kMinChunk = 512;

std::uint64_t aligned(std::uint64_t n) {
  return (n + kAlign - 1) / kAlign * kAlign;
}

std::uint32_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return static_cast<std::uint32_t>((a + b - 1) / b);
}

struct Job {
  enum Kind { head, chunk, tail, finish } kind = chunk;
  std::uint64_t tile = 0;
  int phase = 0;
  std::uint32_t chunk_index = 0;
  std::map<int, std::uint32_t> slot;  // wide value -> its buffer slot in this chunk
};

class WideEmitter {
 public:
  WideEmitter(const RowProgram& p, const std::string& kernel_name, const std::string& target,
              const params::TargetLimits& limits, const std::string& source)
      : p_(p),
        limits_(limits),
        source_(source),
        b_(kernel_name, target),
        h_(b_, [this](const std::string& base) { return fresh(base); }) {
    for (const auto& v : p_.values)
      names_.take(v.name);
  }

  Kernel emit() {
    analyse();
    plan();
    declare();
    prologue();
    build_jobs();
    const std::size_t ahead = std::min<std::size_t>(nbuf_, jobs_.size());
    for (std::size_t j = 0; j < ahead; ++j)
      emit_loads(jobs_[j]);
    for (std::size_t j = 0; j < jobs_.size(); ++j) {
      emit_computes(jobs_[j]);
      emit_stores(jobs_[j]);
      if (j + ahead < jobs_.size()) emit_loads(jobs_[j + ahead]);
    }
    return b_.build();
  }

 private:
  [[noreturn]] void fail(const std::string& reason) const {
    throw Error(source_ + ": launch '" + p_.name + "': " + reason);
  }

  std::string fresh(const std::string& base) { return names_(base); }

  // --- Analysis: which values are chunked, and in which phase each step runs.

  // Chunked along the free axis: [N, D] rows and [D] column vectors.
  bool wide(int v) const {
    const Value& val = p_.values[v];
    return val.kind == ValueKind::row || (val.kind == ValueKind::col && val.cols > 1);
  }
  bool scalar_col(int v) const {  // a [1] operand: loaded once, broadcast
    return p_.values[v].kind == ValueKind::col && p_.values[v].cols == 1;
  }
  bool wide_step(const Step& s) const { return wide(s.a) || (s.b >= 0 && wide(s.b)); }
  // The partial reduction a wide step makes per chunk: its dst (reduce) or reduce_dst.
  int reduction_of(const Step& s) const {
    if (!wide_step(s)) return -1;
    if (s.kind == StepKind::reduce) return s.dst;
    return s.reduce_dst;
  }
  std::uint32_t width_of(const Step& s) const { return p_.values[wide(s.a) ? s.a : s.b].cols; }

  // Online softmax: the negated max R of rows u and the exp A of u + that max with its
  // sum become one pass. Per chunk c, R makes -m_c and A sums exp(u - m_c) into s_c with
  // -m_c as its bias; the tail combines -M = min(-m_c) and sum = sum_c s_c exp(m_c - M).
  // A's per-chunk results are only right relative to m_c, so nothing may read them in A's
  // own phase (a later phase recomputes them with the whole max).
  int online_partner(std::size_t a) const {
    const Step& s = p_.steps[a];
    if (s.kind != StepKind::activation || s.func != ActFunc::exp || !s.has_bias ||
        !s.bias.is_value() || s.scale.is_value() || s.scale.imm != 1.0f || s.reduce_dst < 0 ||
        !wide(s.a) || p_.values[s.dst].output)
      return -1;
    for (std::size_t r = 0; r < a; ++r) {
      const Step& m = p_.steps[r];
      if (m.kind == StepKind::reduce && m.reduce_op == AluOp::max && m.negate &&
          m.dst == s.bias.value && m.a == s.a)
        return static_cast<int>(r);
    }
    return -1;
  }

  void assign_phases() {
    std::vector<int> avail(p_.values.size(), 0);
    phase_.assign(p_.steps.size(), 0);
    phases_ = 0;
    for (std::size_t i = 0; i < p_.steps.size(); ++i) {
      const Step& s = p_.steps[i];
      int ph = 0;
      for (int r : s.reads())
        if (!(online_.count(i) && r == s.bias.value)) ph = std::max(ph, avail[r]);
      phase_[i] = ph;
      phases_ = std::max(phases_, ph + 1);
      for (int w : s.writes())
        avail[w] = w == reduction_of(s) ? ph + 1 : ph;
    }
  }

  void analyse() {
    for (std::size_t i = 0; i < p_.steps.size(); ++i)
      if (const int r = online_partner(i); r >= 0) online_[i] = static_cast<std::size_t>(r);
    assign_phases();
    for (auto it = online_.begin(); it != online_.end();) {
      bool read_early = false;
      for (std::size_t t = 0; t < p_.steps.size(); ++t)
        for (int r : p_.steps[t].reads())
          read_early =
              read_early || (r == p_.steps[it->first].dst && phase_[t] <= phase_[it->first]);
      it = read_early ? online_.erase(it) : std::next(it);
    }
    assign_phases();
    for (const auto& [a, r] : online_)
      online_max_.insert(r);
    // runs_[k][i]: wide step i runs in phase k, its own or a later one that reads its
    // result (recomputed from the inputs rather than kept: it does not fit).
    runs_.assign(phases_, std::vector<bool>(p_.steps.size(), false));
    for (int k = 0; k < phases_; ++k) {
      std::vector<bool> needed(p_.values.size(), false);
      for (std::size_t i = p_.steps.size(); i-- > 0;) {
        const Step& s = p_.steps[i];
        if (!wide_step(s)) continue;
        if (phase_[i] != k && !(wide(s.dst) && needed[s.dst])) continue;
        runs_[k][i] = true;
        for (int r : s.reads())
          if (wide(r)) needed[r] = true;
      }
    }
  }

  // --- Plan: the chunk width and the buffers per wide value.

  std::uint64_t sbuf_bytes(std::uint32_t chunk, std::uint32_t chunks, std::uint32_t nbuf) const {
    std::uint64_t bytes = 0;
    for (std::size_t v = 0; v < p_.values.size(); ++v) {
      const Value& val = p_.values[v];
      if (val.unused) continue;
      const std::uint64_t size = dtype_size(val.dtype);
      if (wide(static_cast<int>(v)))
        bytes += aligned(std::uint64_t{val.scratch ? 1u : nbuf} * chunk * size);
      else if (scalar_col(static_cast<int>(v)))
        bytes += aligned(size);
      else
        bytes += aligned(kStatSlots * size);
    }
    for (const auto& s : p_.steps)
      if (reduction_of(s) >= 0) bytes += aligned(std::uint64_t{kStatSlots} * chunks * 4);
    bytes += online_.size() * aligned(std::uint64_t{chunks} * 4);  // the rescaling factors
    std::set<float> consts;
    for (const auto& s : p_.steps)
      if (s.kind == StepKind::activation && s.has_bias && !s.bias.is_value())
        consts.insert(s.bias.imm);
    if (!consts.empty()) bytes += aligned(consts.size() * 4);
    return bytes;
  }

  void plan() {
    std::uint32_t width = 1;
    for (std::size_t v = 0; v < p_.values.size(); ++v)
      if (!p_.values[v].unused && wide(static_cast<int>(v)))
        width = std::max(width, p_.values[v].cols);
    const std::uint32_t min_chunks =
        ceil_div(width, std::max<std::uint32_t>(1, limits_.max_sbuf_free_elems));
    // Most buffers first (three keep the DMA engines streaming, row_kernel.cpp), then the
    // widest chunk that fits.
    for (std::uint32_t nbuf = 3; nbuf >= 1; --nbuf)
      for (std::uint32_t chunks = min_chunks; chunks <= width; ++chunks) {
        const std::uint32_t chunk = ceil_div(width, chunks);
        if (chunk < kMinChunk && nbuf > 1 && chunks > min_chunks) break;
        if (ceil_div(width, chunk) != chunks) continue;  // same chunk as fewer chunks
        if (sbuf_bytes(chunk, chunks, nbuf) <= limits_.sbuf_bytes_per_partition) {
          chunk_ = chunk;
          chunks_ = chunks;
          nbuf_ = nbuf;
          return;
        }
      }
    fail("rows of " + std::to_string(width) +
         " elements do not fit SBUF even one column per chunk, single-buffered");
  }

  std::uint32_t chunks_of(std::uint32_t width) const { return ceil_div(width, chunk_); }
  std::uint32_t chunk_width(std::uint32_t width, std::uint32_t c) const {
    return std::min(chunk_, width - c * chunk_);
  }

  // --- Buffers.

  void declare() {
    for (std::size_t i = 0; i < p_.values.size(); ++i) {
      const int v = static_cast<int>(i);
      const Value& val = p_.values[i];
      if (val.unused) continue;
      if (val.input) {
        // Views of one tensor (and the tensor itself) share its one HBM declaration.
        auto [at, added] = inputs_.try_emplace(val.hbm_name());
        if (added) at->second = b_.input(val.hbm_name(), val.dtype, val.hbm_shape());
        hbm_[v] = at->second;
      }
      if (val.output) hbm_[v] = b_.output(val.name, val.dtype, val.shape);
      if (wide(v))
        sb_[v] = b_.sbuf(fresh(val.name + "_sb"), val.dtype,
                         {kPartitions, val.scratch ? 1u : nbuf_, chunk_});
      else if (scalar_col(v))
        sb_[v] = b_.sbuf(fresh(val.name + "_sb"), val.dtype, {kPartitions, 1});
      else
        sb_[v] = b_.sbuf(fresh(val.name + "_sb"), val.dtype, {kPartitions, kStatSlots, 1});
    }
    for (std::size_t i = 0; i < p_.steps.size(); ++i) {
      const int red = reduction_of(p_.steps[i]);
      if (red >= 0)
        partial_[i] = b_.sbuf(fresh(p_.values[red].name + "_parts"), DType::fp32,
                              {kPartitions, kStatSlots, chunks_});
    }
    for (const auto& [a, r] : online_)
      factors_[a] = b_.sbuf(fresh(p_.values[p_.steps[a].dst].name + "_rescale"), DType::fp32,
                            {kPartitions, chunks_});
    for (const auto& s : p_.steps)
      if (s.kind == StepKind::activation && s.has_bias && !s.bias.is_value() &&
          std::find(consts_.begin(), consts_.end(), s.bias.imm) == consts_.end())
        consts_.push_back(s.bias.imm);
    if (!consts_.empty())
      const_tile_ = b_.sbuf(fresh("consts_sb"), DType::fp32,
                            {kPartitions, static_cast<std::uint32_t>(consts_.size())});
    // Over every DMA engine of the target.
    const auto engines = static_cast<std::uint8_t>(limits_.dma_engines);
    load_q_ = h_.queue(fresh("load"), 0, engines);
    store_q_ = h_.queue(fresh("store"), 0, engines);
  }

  // Constant biases and [1] operands, once.
  void prologue() {
    for (std::size_t c = 0; c < consts_.size(); ++c) {
      const auto i = static_cast<std::int64_t>(c);
      auto ref = b_.vector().memset(const_tile_.slice(Ix(), Ix(i, i + 1)), consts_[c]);
      h_.compute(ref.instruction(), Engine::vector, {writes(const_slot_)});
    }
    for (std::size_t i = 0; i < p_.values.size(); ++i) {
      const int v = static_cast<int>(i);
      if (p_.values[i].unused || !p_.values[i].input || !scalar_col(v)) continue;
      auto ref = b_.sync().dma_copy(sb_.at(v).all(), hbm_.at(v).raw(0, kPartitions, 0, 0, {{1, 1}}),
                                    load_q_);
      h_.dma(ref.instruction(), load_q_, 0, kPartitions, {writes(slot(v, 0))});
    }
  }

  // --- Jobs.

  std::uint64_t tiles() const { return (p_.rows + kPartitions - 1) / kPartitions; }
  // A partial tile goes first (row_kernel.cpp says why).
  std::uint32_t tile_rows(std::uint64_t t) const {
    const auto partial = static_cast<std::uint32_t>(p_.rows % kPartitions);
    return t == 0 && partial != 0 ? partial : kPartitions;
  }
  std::uint64_t tile_row0(std::uint64_t t) const {
    return t == 0 ? 0 : tile_rows(0) + (t - 1) * kPartitions;
  }
  Ix parts(std::uint64_t t) const {
    return tile_rows(t) == kPartitions ? Ix() : Ix(0, tile_rows(t));
  }

  bool phase_has_chunks(int k) const {
    return std::find(runs_[k].begin(), runs_[k].end(), true) != runs_[k].end();
  }

  void build_jobs() {
    for (std::uint64_t t = 0; t < tiles(); ++t) {
      for (int k = 0; k < phases_; ++k) {
        jobs_.push_back(Job{Job::head, t, k, 0, {}});
        if (phase_has_chunks(k))
          for (std::uint32_t c = 0; c < chunks_; ++c)
            jobs_.push_back(Job{Job::chunk, t, k, c, {}});
        jobs_.push_back(Job{Job::tail, t, k, 0, {}});
      }
      jobs_.push_back(Job{Job::finish, t, phases_, 0, {}});
    }
  }

  Slot& slot(int v, std::uint32_t s) { return slots_[{v, s}]; }
  std::uint32_t next_slot(int v) {
    const std::uint32_t n = p_.values[v].scratch ? 1 : nbuf_;
    return uses_[v]++ % n;
  }

  // The wide inputs phase k reads in chunk c (a narrower input has fewer chunks).
  std::vector<int> chunk_inputs(const Job& j) const {
    std::set<int> in;
    for (std::size_t i = 0; i < p_.steps.size(); ++i)
      if (runs_[j.phase][i] && j.chunk_index < chunks_of(width_of(p_.steps[i])))
        for (int r : p_.steps[i].reads())
          if (wide(r) && p_.values[r].input) in.insert(r);
    return {in.begin(), in.end()};
  }

  AccessPattern hbm_chunk(int v, const Job& j) const {
    const Value& val = p_.values[v];
    const std::uint64_t size = dtype_size(val.dtype);
    const std::uint64_t c0 = std::uint64_t{j.chunk_index} * chunk_;
    const std::uint32_t w = chunk_width(val.cols, j.chunk_index);
    if (val.kind == ValueKind::col)  // every partition reads the same columns
      return hbm_.at(v).raw(0, tile_rows(j.tile), 0, c0 * size, {{1, w}});
    const std::uint64_t stride = val.row_stride();  // a view: its source's rows
    return hbm_.at(v).raw(0, tile_rows(j.tile), static_cast<std::int64_t>(stride),
                          (tile_row0(j.tile) * stride + val.source_col0 + c0) * size, {{1, w}});
  }
  AccessPattern hbm_stat(int v, std::uint64_t t) const {
    const Value& val = p_.values[v];
    const std::uint64_t stride = val.viewed() ? val.row_stride() : 1;
    return hbm_.at(v).raw(0, tile_rows(t), static_cast<std::int64_t>(stride),
                          (tile_row0(t) * stride + val.source_col0) * dtype_size(val.dtype),
                          {{1, 1}});
  }

  // The on-chip operand of value v in job j, and the slot that orders its accesses.
  AccessPattern at(int v, const Job& j) const {
    if (wide(v))
      return sb_.at(v).slice(parts(j.tile), static_cast<std::int64_t>(j.slot.at(v)),
                             Ix(0, chunk_width(p_.values[v].cols, j.chunk_index)));
    if (scalar_col(v)) return sb_.at(v).slice(parts(j.tile));
    return sb_.at(v).slice(parts(j.tile), static_cast<std::int64_t>(j.tile % kStatSlots));
  }
  Slot& slot_of(int v, const Job& j) {
    if (wide(v)) return slot(v, j.slot.at(v));
    if (scalar_col(v)) return slot(v, 0);
    return slot(v, static_cast<std::uint32_t>(j.tile % kStatSlots));
  }

  void emit_loads(Job& j) {
    const std::uint32_t pt = tile_rows(j.tile);
    if (j.kind == Job::head && j.phase == 0)  // [N, 1] inputs, once per tile
      for (std::size_t i = 0; i < p_.values.size(); ++i) {
        const int v = static_cast<int>(i);
        const Value& val = p_.values[i];
        if (val.unused || !val.input || wide(v) || scalar_col(v)) continue;
        auto ref = b_.sync().dma_copy(at(v, j), hbm_stat(v, j.tile), load_q_);
        h_.dma(ref.instruction(), load_q_, 0, pt, {writes(slot_of(v, j))});
      }
    if (j.kind != Job::chunk) return;
    for (int v : chunk_inputs(j)) {
      j.slot[v] = next_slot(v);
      auto ref = b_.sync().dma_copy(at(v, j), hbm_chunk(v, j), load_q_);
      h_.dma(ref.instruction(), load_q_, 0, pt, {writes(slot_of(v, j))});
    }
  }

  void emit_computes(Job& j) {
    if (j.kind == Job::head) {
      for (std::size_t i = 0; i < p_.steps.size(); ++i)
        if (!wide_step(p_.steps[i]) && phase_[i] == j.phase) emit_step(i, j, false);
    } else if (j.kind == Job::chunk) {
      for (std::size_t i = 0; i < p_.steps.size(); ++i)
        if (runs_[j.phase][i] && j.chunk_index < chunks_of(width_of(p_.steps[i])))
          emit_step(i, j, phase_[i] == j.phase);
    } else if (j.kind == Job::tail) {
      for (std::size_t i = 0; i < p_.steps.size(); ++i)
        if (phase_[i] == j.phase && reduction_of(p_.steps[i]) >= 0) combine(i, j);
    }
  }

  void emit_stores(Job& j) {
    const std::uint32_t pt = tile_rows(j.tile);
    if (j.kind == Job::finish) {  // [N, 1] outputs
      for (std::size_t i = 0; i < p_.values.size(); ++i) {
        const int v = static_cast<int>(i);
        if (!p_.values[i].output || wide(v)) continue;
        auto ref = b_.sync().dma_copy(hbm_stat(v, j.tile), at(v, j), store_q_);
        h_.dma(ref.instruction(), store_q_, 0, pt, {reads(slot_of(v, j))});
      }
      return;
    }
    if (j.kind != Job::chunk) return;
    for (std::size_t i = 0; i < p_.steps.size(); ++i) {
      const Step& s = p_.steps[i];
      if (!runs_[j.phase][i] || phase_[i] != j.phase || !wide(s.dst) || !p_.values[s.dst].output ||
          j.chunk_index >= chunks_of(width_of(s)))
        continue;
      auto ref = b_.sync().dma_copy(hbm_chunk(s.dst, j), at(s.dst, j), store_q_);
      h_.dma(ref.instruction(), store_q_, 0, pt, {reads(slot_of(s.dst, j))});
    }
  }

  AccessPattern partial_at(std::size_t step, const Job& j, std::uint32_t c0,
                           std::uint32_t c1) const {
    return partial_.at(step).slice(parts(j.tile), static_cast<std::int64_t>(j.tile % kStatSlots),
                                   Ix(c0, c1));
  }
  Slot& partial_slot(std::size_t step, const Job& j, std::uint32_t c) {
    return partial_slots_[{step, static_cast<std::uint32_t>(j.tile % kStatSlots), c}];
  }

  // One step on one chunk (or, for a step on statistics, once per tile). `own`: the step's
  // own phase, where it makes its partial reduction; a recomputation makes none.
  void emit_step(std::size_t i, Job& j, bool own) {
    const Step& s = p_.steps[i];
    const bool partial = own && reduction_of(s) >= 0;
    const std::uint32_t c = j.chunk_index;
    // Online softmax's exp in its own phase: its bias is this chunk's -m_c, not the max.
    const bool chunk_bias = partial && online_.count(i) > 0;
    std::vector<Access> acc;
    for (int r : s.reads())
      if (!(chunk_bias && r == s.bias.value)) acc.push_back(reads(slot_of(r, j)));
    if (chunk_bias) acc.push_back(reads(partial_slot(online_.at(i), j, c)));
    if (s.kind != StepKind::reduce || !wide_step(s)) {
      if (wide(s.dst)) j.slot[s.dst] = next_slot(s.dst);
      acc.push_back(writes(slot_of(s.dst, j)));
    }
    if (partial) acc.push_back(writes(partial_slot(i, j, c)));
    if (s.kind == StepKind::activation && s.has_bias && !s.bias.is_value())
      acc.push_back(reads(const_slot_));
    auto scalar = [&](const Arg& a) {
      return a.is_value() ? Scalar(at(a.value, j)) : Scalar(static_cast<double>(a.imm));
    };
    const std::uint32_t parts_end = c + 1;
    switch (s.kind) {
      case StepKind::activation: {
        auto ref = b_.scalar().activation(at(s.dst, j), at(s.a, j), s.func);
        if (s.scale.is_value() || s.scale.imm != 1.0f) ref.scale(scalar(s.scale));
        if (chunk_bias) {
          ref.bias(partial_at(online_.at(i), j, c, parts_end));
        } else if (s.has_bias) {
          ref.bias(bias_at(s.bias, j));
        }
        if (partial) {
          ref.reduce(partial_at(i, j, c, parts_end));
        } else if (s.reduce_dst >= 0 && !wide_step(s)) {  // on statistics: one element
          ref.reduce(at(s.reduce_dst, j));
          acc.push_back(writes(slot_of(s.reduce_dst, j)));
        }
        h_.compute(ref.instruction(), Engine::scalar, acc);
        break;
      }
      case StepKind::tensor_scalar: {
        auto ref = b_.vector().tensor_scalar(at(s.dst, j), at(s.a, j), s.op0, scalar(s.arg0));
        if (s.reverse0) ref.reverse0();
        if (s.has_op1) ref.then(s.op1, scalar(s.arg1)).reverse1(s.reverse1);
        if (partial)
          ref.reduce(partial_at(i, j, c, parts_end));
        else if (s.reduce_dst >= 0 && !wide_step(s)) {
          ref.reduce(at(s.reduce_dst, j));
          acc.push_back(writes(slot_of(s.reduce_dst, j)));
        }
        h_.compute(ref.instruction(), Engine::vector, acc);
        break;
      }
      case StepKind::tensor_tensor:
        h_.compute(
            b_.vector().tensor_tensor(at(s.dst, j), at(s.a, j), at(s.b, j), s.op0).instruction(),
            Engine::vector, acc);
        break;
      case StepKind::scalar_tensor_tensor:
        h_.compute(b_.vector()
                       .scalar_tensor_tensor(at(s.dst, j), at(s.a, j), scalar(s.arg0), s.op0,
                                             at(s.b, j), s.op1)
                       .instruction(),
                   Engine::vector, acc);
        break;
      case StepKind::reduce:
        if (wide_step(s))  // a partial per chunk; the tail combines them, negating once
          h_.compute(b_.vector()
                         .tensor_reduce(partial_at(i, j, c, parts_end), at(s.a, j), s.reduce_op, 1,
                                        online_max_.count(i) > 0)
                         .instruction(),
                     Engine::vector, acc);
        else
          h_.compute(b_.vector()
                         .tensor_reduce(at(s.dst, j), at(s.a, j), s.reduce_op, 1, s.negate)
                         .instruction(),
                     Engine::vector, acc);
        break;
    }
  }

  AccessPattern bias_at(const Arg& a, const Job& j) const {
    if (a.is_value()) return at(a.value, j);
    const auto c = static_cast<std::int64_t>(std::find(consts_.begin(), consts_.end(), a.imm) -
                                             consts_.begin());
    return const_tile_.slice(parts(j.tile), Ix(c, c + 1));
  }

  // The chunks' partial reductions of step i into its [N, 1] result: a sum for an
  // activation's or tensor_scalar's accumulator, the reduction's own op otherwise.
  void combine(std::size_t i, Job& j) {
    const Step& s = p_.steps[i];
    const int dst = reduction_of(s);
    const std::uint32_t n = chunks_of(width_of(s));
    const AluOp op = s.kind == StepKind::reduce ? s.reduce_op : AluOp::add;
    const bool negate = s.kind == StepKind::reduce && s.negate;
    std::vector<Access> acc{writes(slot_of(dst, j))};
    for (std::uint32_t c = 0; c < n; ++c)
      acc.push_back(reads(partial_slot(i, j, c)));
    if (online_max_.count(i)) {  // the partials are -m_c already: -M is their min
      auto ref = b_.vector().tensor_reduce(at(dst, j), partial_at(i, j, 0, n), AluOp::min);
      h_.compute(ref.instruction(), Engine::vector, acc);
      return;
    }
    if (online_.count(i)) return combine_online(i, j);
    auto ref = b_.vector().tensor_reduce(at(dst, j), partial_at(i, j, 0, n), op, 1, negate);
    h_.compute(ref.instruction(), Engine::vector, acc);
  }

  // sum = sum_c s_c exp(m_c - M): the factors exp(-1 * (-m_c) + (-M)) on Scalar, then the
  // products and their sum on Vector.
  void combine_online(std::size_t i, Job& j) {
    const Step& s = p_.steps[i];
    const std::size_t r = online_.at(i);
    const std::uint32_t n = chunks_of(width_of(s));
    const AccessPattern f = factors_.at(i).slice(parts(j.tile), Ix(0, n));
    std::vector<Access> acc{writes(factor_slots_[i]), reads(slot_of(s.bias.value, j))};
    for (std::uint32_t c = 0; c < n; ++c)
      acc.push_back(reads(partial_slot(r, j, c)));
    auto ex = b_.scalar().activation(f, partial_at(r, j, 0, n), ActFunc::exp);
    ex.scale(Scalar(-1.0)).bias(at(s.bias.value, j));
    h_.compute(ex.instruction(), Engine::scalar, acc);
    acc = {writes(factor_slots_[i])};
    for (std::uint32_t c = 0; c < n; ++c)
      acc.push_back(reads(partial_slot(i, j, c)));
    h_.compute(
        b_.vector().tensor_tensor(f, f, partial_at(i, j, 0, n), AluOp::multiply).instruction(),
        Engine::vector, acc);
    h_.compute(b_.vector().tensor_reduce(at(s.reduce_dst, j), f, AluOp::add).instruction(),
               Engine::vector, {reads(factor_slots_[i]), writes(slot_of(s.reduce_dst, j))});
  }

  const RowProgram& p_;
  const params::TargetLimits& limits_;
  const std::string& source_;
  Builder b_;
  FreshNames names_;
  Hazards h_;
  std::vector<int> phase_;
  int phases_ = 0;
  std::vector<std::vector<bool>> runs_;
  std::uint32_t chunk_ = 0, chunks_ = 0, nbuf_ = 1;
  std::map<int, Buffer> hbm_, sb_;
  std::map<std::string, Buffer> inputs_;  // the HBM inputs by name
  std::map<std::size_t, Buffer> partial_;
  std::vector<float> consts_;
  Buffer const_tile_;
  Slot const_slot_;
  Queue load_q_, store_q_;
  std::vector<Job> jobs_;
  std::map<std::pair<int, std::uint32_t>, Slot> slots_;
  std::map<std::tuple<std::size_t, std::uint32_t, std::uint32_t>, Slot> partial_slots_;
  std::map<int, std::uint32_t> uses_;
  std::map<std::size_t, std::size_t> online_;  // exp step -> its max step (online softmax)
  std::set<std::size_t> online_max_;
  std::map<std::size_t, Buffer> factors_;
  std::map<std::size_t, Slot> factor_slots_;
};

}  // namespace

Kernel emit_wide_row_kernel(const RowProgram& p, const std::string& kernel_name,
                            const std::string& target, const params::TargetLimits& limits,
                            const std::string& source) {
  return WideEmitter(p, kernel_name, target, limits, source).emit();
}

}  // namespace neuronsim::compiler

// Layout ops as kernels (compiler/layout_kernel.hpp). The result, seen as rows (leading
// dimensions flattened), is cut into tiles of 128 rows x up to kChunkCols columns; each
// tile is a staging slot in SBUF that the sources' loads fill (queue `load` on Sync) and
// one store empties (queue `store` on GpSimd, a software DGE that is otherwise idle).
// Three slots, so loads run ahead of stores; semaphores from compiler/hazards.hpp.
#include "compiler/layout_kernel.hpp"

#include <algorithm>
#include <set>

#include "base/error.hpp"
#include "builder/builder.hpp"
#include "compiler/fresh_names.hpp"
#include "compiler/hazards.hpp"

namespace neuronsim::compiler {

namespace {

// 8 KiB of bf16 per partition per slot: DMA rows of 2 KiB or more run at the full rate
// (reference section 4), and three slots stay small next to SBUF.
constexpr std::uint64_t kChunkCols = 4096;
constexpr std::uint32_t kSlots = 3;

// One source of a result tile: which tensor, and how its elements map onto the tile.
struct Source {
  isa::Buffer tensor;
  std::uint64_t col_first = 0, col_end = 0;  // the result columns it covers
  std::uint64_t src_col0 = 0;                // its column of the first covered one
  std::uint64_t row_len = 0;                 // elements per row of the source
  bool transposed = false;                   // result (r, c) = source (c, r)
  std::uint64_t view_col0 = 0;               // a view's first column in the tensor
};

}  // namespace

isa::Kernel emit_layout_kernel(const Graph& g, const Node& n, const std::string& kernel_name,
                               const std::string& target, const params::TargetLimits& limits,
                               const ColumnViews& views) {
  const std::string where = g.source + ": node '" + n.id + "': ";
  if (limits.partitions == 0 || limits.dma_engines == 0)
    throw Error(where + "the target's limits give no partitions or DMA engines");
  isa::Builder b(kernel_name, target);
  FreshNames fresh;
  const TensorType& out_t = n.type;
  const std::uint64_t rows = flat_rows(out_t.shape), cols = out_t.shape.back();
  std::vector<Source> sources;
  std::set<std::string> declared;
  std::map<std::string, isa::Buffer> inputs;
  auto input = [&](const std::string& name) {
    if (!inputs.count(name)) {
      fresh.take(name);
      inputs[name] = b.input(name, g.type_of(name).dtype, g.type_of(name).shape);
    }
    return inputs[name];
  };
  // An operand: the tensor a load reads, its row length and the operand's first column.
  struct Operand {
    isa::Buffer tensor;
    std::uint64_t row_len = 0, col0 = 0;
  };
  auto operand = [&](const std::string& name) {
    const auto view = views.find(name);
    const std::string& tensor = view == views.end() ? name : view->second.source;
    return Operand{input(tensor), g.type_of(tensor).shape.back(),
                   view == views.end() ? 0 : view->second.col0};
  };
  if (n.op == OpKind::slice) {
    const Operand o = operand(n.args[0].tensor);
    sources.push_back({o.tensor, 0, cols, o.col0 + n.start, o.row_len, false, 0});
  } else if (n.op == OpKind::concat) {
    std::uint64_t at = 0;
    for (const auto& a : n.args) {
      const std::uint64_t w = g.type_of(a.tensor).shape.back();
      const Operand o = operand(a.tensor);
      sources.push_back({o.tensor, at, at + w, o.col0, o.row_len, false, 0});
      at += w;
    }
  } else if (n.op == OpKind::transpose) {
    const Operand o = operand(n.args[0].tensor);
    if (o.row_len > 32767)
      throw Error(where + "transpose: a row of " + std::to_string(o.row_len) +
                  " elements is too long for a DMA stride");
    sources.push_back({o.tensor, 0, cols, 0, o.row_len, true, o.col0});
  } else {
    throw Error(where + op_name(n.op) + " is not a layout op");
  }
  fresh.take(n.id);
  const isa::Buffer out = b.output(n.id, out_t.dtype, out_t.shape);
  const std::uint32_t P = limits.partitions;
  const auto chunk = static_cast<std::uint32_t>(std::min(cols, kChunkCols));
  const isa::Buffer stage = b.sbuf(fresh("stage"), out_t.dtype, {P, kSlots, chunk});
  Hazards h(b, fresh);
  const auto engines = static_cast<std::uint8_t>(limits.dma_engines);
  const isa::Queue q_load = h.queue("load", 0, engines), q_store = h.queue("store", 0, engines);
  std::vector<Slot> slots(kSlots);
  const std::uint64_t elem = isa::dtype_size(out_t.dtype);
  std::uint32_t job = 0;
  for (std::uint64_t r0 = 0; r0 < rows; r0 += P)
    for (std::uint64_t c0 = 0; c0 < cols; c0 += chunk, ++job) {
      const auto pr = static_cast<std::uint32_t>(std::min<std::uint64_t>(P, rows - r0));
      const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(chunk, cols - c0));
      const std::uint32_t slot = job % kSlots;
      for (const Source& s : sources) {
        const std::uint64_t lo = std::max(c0, s.col_first), hi = std::min(c0 + w, s.col_end);
        if (lo >= hi) continue;
        const auto sc = static_cast<std::uint32_t>(hi - lo);
        const std::uint64_t src_c = s.src_col0 + (lo - s.col_first);
        // Rows r0.. of the result; a transposed source walks its columns (stride 1 between
        // partitions) and its rows (stride row_len along the free axis).
        const isa::AccessPattern src =
            s.transposed ? s.tensor.raw(static_cast<std::uint32_t>(r0), pr, 1,
                                        (src_c * s.row_len + s.view_col0) * elem,
                                        {isa::Dim{static_cast<std::int32_t>(s.row_len), sc}})
                         : s.tensor.raw(static_cast<std::uint32_t>(r0), pr,
                                        static_cast<std::int64_t>(s.row_len), src_c * elem,
                                        {isa::Dim{1, sc}});
        const isa::AccessPattern dst = stage.slice(
            isa::Ix(0, pr), slot,
            isa::Ix(static_cast<std::int64_t>(lo - c0), static_cast<std::int64_t>(hi - c0)));
        auto ref = b.sync().dma_copy(dst, src, q_load);
        h.dma(ref.instruction(), q_load, 0, pr, {writes(slots[slot])});
      }
      const isa::AccessPattern dst =
          out.raw(static_cast<std::uint32_t>(r0), pr, static_cast<std::int64_t>(cols), c0 * elem,
                  {isa::Dim{1, w}});
      auto ref =
          b.gpsimd().dma_copy(dst, stage.slice(isa::Ix(0, pr), slot, isa::Ix(0, w)), q_store);
      h.dma(ref.instruction(), q_store, 0, pr, {reads(slots[slot])});
    }
  return b.build();
}

}  // namespace neuronsim::compiler

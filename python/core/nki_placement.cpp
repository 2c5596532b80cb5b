// _core.nki_place_tiles: the tile placement pass of neuronsim.nki's lowering
// (python/neuronsim/nki/_alloc.py says what it computes and why: tiles placed by live
// range, next fit with a cool-down, spills by furthest next use). It walks the trace's
// Python objects (Instr, View, Allocation of python/neuronsim/nki/_core.py) directly, as
// nki_lowering.cpp does, so that a kernel of 100k instructions does not spend its lowering
// in a per-view Python loop (docs/python.md, "Tracing speed"). What needs Python objects
// made (a spill's HBM tensor and DMAs, a moved copy of a view placed twice, the errors)
// is done by the callbacks _alloc.py passes in; the numbers (alignment, PSUM bank,
// capacities, cool-downs) are _alloc.py's too: this file is the mechanism only.
#include <Python.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "python/core/bindings.hpp"
#include "python/core/nki_region.hpp"
#include "python/core/py_objects.hpp"

namespace py = pybind11;

namespace neuronsim::python {
namespace {

py::object int_object(std::int64_t v) {
  return owned(PyLong_FromLongLong(v));
}

// A list's items, or a tuple's (Instr.reads and friends are lists; dims are lists of tuples).
Py_ssize_t seq_size(PyObject* s) {
  if (PyList_Check(s)) return PyList_GET_SIZE(s);
  if (PyTuple_Check(s)) return PyTuple_GET_SIZE(s);
  throw py::value_error("internal: a trace field is not a list or tuple");
}
PyObject* seq_item(PyObject* s, Py_ssize_t i) {  // borrowed
  return PyList_Check(s) ? PyList_GET_ITEM(s, i) : PyTuple_GET_ITEM(s, i);
}

// One memory's free room: _alloc._Placer, step for step (the same placements).
class Placer {
 public:
  Placer(bool psum, std::int64_t capacity, std::int64_t cooldown, std::int64_t align,
         std::int64_t bank)
      : psum_(psum), capacity_(capacity), cooldown_(cooldown), align_(align), bank_(bank) {}

  // The offset given to `tile` (`size` bytes), or -1 when nothing fits.
  std::int64_t place(int tile, std::int64_t size) {
    std::int64_t off = -1;
    if (!cooling_.empty()) off = search(size, true);
    if (off < 0) off = search(size, false);
    if (off < 0) return -1;
    if (!cooling_.empty()) {
      std::vector<Cooling> left;
      for (const Cooling& c : cooling_)
        if (c.left > 1) left.push_back({c.offset, c.end, c.left - 1});
      cooling_.swap(left);
    }
    const std::int64_t end = off + size;
    const auto at = std::lower_bound(starts_.begin(), starts_.end(), off) - starts_.begin();
    starts_.insert(starts_.begin() + at, off);
    ends_.insert(ends_.begin() + at, end);
    live.push_back({tile, off, size});
    high_water = std::max(high_water, end);
    cursor_ = end;
    return off;
  }

  // Gives the tile's block back; cool=false (a spilled tile) makes it reusable at once.
  void free(int tile, bool cool) {
    const auto it =
        std::find_if(live.begin(), live.end(), [&](const Live& l) { return l.tile == tile; });
    if (it == live.end()) throw py::value_error("internal: a tile freed that is not placed");
    const Live block = *it;
    live.erase(it);
    const auto at =
        std::lower_bound(starts_.begin(), starts_.end(), block.offset) - starts_.begin();
    starts_.erase(starts_.begin() + at);
    ends_.erase(ends_.begin() + at);
    if (cool && cooldown_) cooling_.push_back({block.offset, block.offset + block.size, cooldown_});
  }

  struct Live {
    int tile;
    std::int64_t offset, size;
  };
  std::vector<Live> live;  // in placement order (the Python dict's order)
  std::int64_t high_water = 0;
  std::int64_t capacity() const { return capacity_; }

 private:
  struct Cooling {
    std::int64_t offset, end, left;
  };

  std::int64_t aligned(std::int64_t c, std::int64_t size) const {
    std::int64_t off = (c + align_ - 1) / align_ * align_;
    if (psum_) {
      if (size <= bank_ && off / bank_ != (off + size - 1) / bank_)
        off = (off / bank_ + 1) * bank_;
      else if (size > bank_ && off % bank_)
        off = (off / bank_ + 1) * bank_;
    }
    return off;
  }

  // The first place from the cursor on (wrapping once) where `size` fits, or -1.
  std::int64_t search(std::int64_t size, bool avoid_cooling) const {
    std::int64_t c = cursor_;
    bool wrapped = false;
    for (;;) {
      const std::int64_t off = aligned(c, size);
      const std::int64_t end = off + size;
      if (end > capacity_) {
        if (wrapped || cursor_ == 0) return -1;
        c = 0;
        wrapped = true;
        continue;
      }
      if (wrapped && off >= cursor_) return -1;
      const auto i = std::lower_bound(starts_.begin(), starts_.end(), end) - starts_.begin();
      if (i && ends_[static_cast<std::size_t>(i - 1)] > off) {
        c = ends_[static_cast<std::size_t>(i - 1)];
        continue;
      }
      if (avoid_cooling) {
        std::int64_t clash = -1;
        for (const Cooling& k : cooling_)
          if (k.offset < end && off < k.end) clash = std::max(clash, k.end);
        if (clash >= 0) {
          c = clash;
          continue;
        }
      }
      return off;
    }
  }

  bool psum_;
  std::int64_t capacity_, cooldown_, align_, bank_;
  std::vector<std::int64_t> starts_, ends_;  // live blocks by offset (they never overlap)
  std::vector<Cooling> cooling_;
  std::int64_t cursor_ = 0;  // where the previous placement ended
};

// One memory's tiles as traced: each Allocation's virtual offset and size (by offset).
struct Memory {
  PyObject* blocks;  // the Allocator's list of Allocation, borrowed
  std::vector<std::int64_t> offsets, sizes;
  std::vector<int> tile;  // per block: its tile, or -1 while unused
};

// Placement state of one used tile (_alloc._Tile).
struct Tile {
  PyObject* alloc;  // borrowed from its Memory's blocks
  int memory;
  std::int64_t virtual_offset, size;
  std::vector<int> uses;  // instruction positions, increasing
  std::size_t next = 0;
  std::int64_t parts = 1, phys = -1, since = 0;
  py::object spill;  // its HBM scratch tensor once spilled
  bool dirty = false;
};

struct Names {
  SlotAttribute *space, *offset, *dims, *dtype, *size, *pstart, *partitions, *region, *placed,
      *writes, *reads, *operands, *options, *location, *index;
};

const Names& names() {
  static const Names n{
      &slot_attribute("space"),      &slot_attribute("offset"),   &slot_attribute("dims"),
      &slot_attribute("dtype"),      &slot_attribute("size"),     &slot_attribute("pstart"),
      &slot_attribute("partitions"), &slot_attribute("_region"),  &slot_attribute("placed"),
      &slot_attribute("writes"),     &slot_attribute("reads"),    &slot_attribute("operands"),
      &slot_attribute("options"),    &slot_attribute("location"), &slot_attribute("index")};
  return n;
}

py::object get(PyObject* o, SlotAttribute* a) {
  return a->get(o);
}

struct Callbacks {
  py::object view_type, outside, no_room, new_spill, spill_dma, move_copy, swap_views;
};

class Placement {
 public:
  Placement(const py::list& instrs, const py::list& memories, std::int64_t align, std::int64_t bank,
            Callbacks cb)
      : instrs_(instrs), cb_(std::move(cb)) {
    for (py::handle m : memories) {
      // (space, blocks, capacity, cooldown)
      const py::tuple t = py::reinterpret_borrow<py::tuple>(m);
      const std::string space = t[0].cast<std::string>();
      Memory mem;
      mem.blocks = t[1].ptr();
      for (Py_ssize_t b = 0, nb = seq_size(mem.blocks); b < nb; ++b) {
        PyObject* alloc = seq_item(mem.blocks, b);
        mem.offsets.push_back(as_int(get(alloc, names().offset).ptr()));
        mem.sizes.push_back(as_int(get(alloc, names().size).ptr()));
      }
      mem.tile.assign(mem.offsets.size(), -1);
      space_names_.push_back(owned(PyUnicode_FromString(space.c_str())));
      memories_.push_back(std::move(mem));
      placers_.emplace_back(space == "psum", t[2].cast<std::int64_t>(), t[3].cast<std::int64_t>(),
                            align, bank);
      spillable_.push_back(space == "sbuf");
    }
  }

  // (the new instruction list, [high water per memory], placements)
  py::tuple run() {
    scan();
    const std::size_t n = static_cast<std::size_t>(PyList_GET_SIZE(instrs_.ptr()));
    for (std::size_t i = 0; i < n; ++i) {
      PyObject* ins = PyList_GET_ITEM(instrs_.ptr(), static_cast<Py_ssize_t>(i));
      const auto& mine = touched_[i];
      if (!mine.empty()) {
        for (const auto& [t, written] : mine) {
          (void)written;
          if (tiles_[static_cast<std::size_t>(t)].phys < 0) make_room(t, mine, ins);
        }
        move_views(ins, i);
      }
      append(ins);
      for (const auto& [t, written] : mine) {
        Tile& tile = tiles_[static_cast<std::size_t>(t)];
        if (written) tile.dirty = true;
        if (++tile.next == tile.uses.size()) {
          placers_[static_cast<std::size_t>(tile.memory)].free(t, true);
          record(tile);
        }
      }
    }
    for (Py_ssize_t k = 0, m = PyList_GET_SIZE(out_.ptr()); k < m; ++k)
      names().index->set(PyList_GET_ITEM(out_.ptr(), k), int_object(k).ptr());
    py::list high;
    for (const Placer& p : placers_)
      high.append(p.high_water);
    return py::make_tuple(out_, high, placements_);
  }

 private:
  // The first sweep: which tile each on-chip view is of, every tile's uses and partitions,
  // and per instruction its tiles in first-touch order (written or only read).
  void scan() {
    const Names& n = names();
    const std::size_t count = static_cast<std::size_t>(PyList_GET_SIZE(instrs_.ptr()));
    touched_.resize(count);
    owners_.resize(count);
    std::vector<PyObject*> seen;
    for (std::size_t i = 0; i < count; ++i) {
      PyObject* ins = PyList_GET_ITEM(instrs_.ptr(), static_cast<Py_ssize_t>(i));
      seen.clear();
      auto& mine = touched_[i];
      auto& owner = owners_[i];
      const py::object writes = get(ins, n.writes), reads = get(ins, n.reads),
                       operands = get(ins, n.operands), options = get(ins, n.options);
      std::vector<PyObject*> option_views;
      for (Py_ssize_t k = 0, m = seq_size(options.ptr()); k < m; ++k) {
        PyObject* v = seq_item(seq_item(options.ptr(), k), 1);
        const int is = PyObject_IsInstance(v, cb_.view_type.ptr());
        if (is < 0) throw py::error_already_set();
        if (is) option_views.push_back(v);
      }
      auto visit = [&](PyObject* v, bool is_write) {
        const py::object space = get(v, n.space);
        const int memory = memory_of(space.ptr());
        if (memory < 0) return;  // HBM: not placed
        if (std::find(seen.begin(), seen.end(), v) != seen.end()) return;
        seen.push_back(v);
        Memory& mem = memories_[static_cast<std::size_t>(memory)];
        const std::int64_t offset = as_int(get(v, n.offset).ptr());
        const auto k = std::upper_bound(mem.offsets.begin(), mem.offsets.end(), offset) -
                       mem.offsets.begin() - 1;
        if (k < 0 || region_end(v) > mem.offsets[static_cast<std::size_t>(k)] +
                                         mem.sizes[static_cast<std::size_t>(k)])
          cb_.outside(
              py::handle(v),
              k < 0 ? py::none() : py::reinterpret_borrow<py::object>(seq_item(mem.blocks, k)),
              py::handle(ins));
        int& slot = mem.tile[static_cast<std::size_t>(k)];
        if (slot < 0) {
          slot = static_cast<int>(tiles_.size());
          Tile t;
          t.alloc = seq_item(mem.blocks, k);
          t.memory = memory;
          t.virtual_offset = mem.offsets[static_cast<std::size_t>(k)];
          t.size = mem.sizes[static_cast<std::size_t>(k)];
          t.uses.push_back(static_cast<int>(i));
          tiles_.push_back(std::move(t));
        } else if (tiles_[static_cast<std::size_t>(slot)].uses.back() != static_cast<int>(i)) {
          tiles_[static_cast<std::size_t>(slot)].uses.push_back(static_cast<int>(i));
        }
        Tile& t = tiles_[static_cast<std::size_t>(slot)];
        const std::int64_t end =
            as_int(get(v, n.pstart).ptr()) + as_int(get(v, n.partitions).ptr());
        t.parts = std::max(t.parts, end);
        owner.push_back({v, slot});
        const auto it = std::find_if(mine.begin(), mine.end(), [&](const std::pair<int, bool>& e) {
          return e.first == slot;
        });
        if (it == mine.end())
          mine.push_back({slot, is_write});
        else if (is_write)
          it->second = true;
      };
      for (Py_ssize_t k = 0, m = seq_size(writes.ptr()); k < m; ++k)
        visit(seq_item(writes.ptr(), k), true);
      for (PyObject* group : {reads.ptr(), operands.ptr()})
        for (Py_ssize_t k = 0, m = seq_size(group); k < m; ++k)
          visit(seq_item(group, k), false);
      for (PyObject* v : option_views)
        visit(v, false);
    }
  }

  int memory_of(PyObject* space) const {
    for (std::size_t m = 0; m < space_names_.size(); ++m) {
      const int eq = PyObject_RichCompareBool(space, space_names_[m].ptr(), Py_EQ);
      if (eq < 0) throw py::error_already_set();
      if (eq) return static_cast<int>(m);
    }
    return -1;
  }

  // The end of the bytes an on-chip view touches (View.region()[2][1]), at its offset.
  static std::int64_t region_end(PyObject* v) { return view_box(v).b1; }

  void append(PyObject* ins) {
    if (PyList_Append(out_.ptr(), ins) != 0) throw py::error_already_set();
  }

  void record(const Tile& t) {
    placements_.append(
        py::make_tuple(py::handle(t.alloc), t.phys, t.since, PyList_GET_SIZE(out_.ptr()) - 1));
  }

  // _alloc.place_tiles's make_room: a place for tile t, spilling the live SBUF tile used
  // again furthest away (not one of this instruction's) until it fits.
  void make_room(int t, const std::vector<std::pair<int, bool>>& mine, PyObject* ins) {
    Tile& tile = tiles_[static_cast<std::size_t>(t)];
    Placer& placer = placers_[static_cast<std::size_t>(tile.memory)];
    auto needed = [&](int x) {
      return std::any_of(mine.begin(), mine.end(),
                         [&](const std::pair<int, bool>& e) { return e.first == x; });
    };
    std::int64_t off = placer.place(t, tile.size);
    while (off < 0) {
      int victim = -1;
      if (spillable_[static_cast<std::size_t>(tile.memory)])
        for (const Placer::Live& l : placer.live) {
          if (needed(l.tile)) continue;
          const Tile& c = tiles_[static_cast<std::size_t>(l.tile)];
          if (victim < 0 ||
              c.uses[c.next] > tiles_[static_cast<std::size_t>(victim)]
                                   .uses[tiles_[static_cast<std::size_t>(victim)].next])
            victim = l.tile;
        }
      if (victim < 0) no_room(tile, placer, mine, ins);
      Tile& v = tiles_[static_cast<std::size_t>(victim)];
      if (!v.spill) {
        v.spill = cb_.new_spill(py::handle(v.alloc), v.parts);
        v.dirty = true;
      }
      if (v.dirty) {  // the store carries the line that made the tile
        append(
            cb_.spill_dma(py::handle(v.alloc), v.spill, v.parts, v.phys, true, py::none()).ptr());
        v.dirty = false;
      }
      placer.free(victim, false);
      record(v);
      v.phys = -1;
      off = placer.place(t, tile.size);
    }
    tile.phys = off;
    tile.since = PyList_GET_SIZE(out_.ptr());
    if (tile.spill)  // loaded back for its consumer
      append(cb_.spill_dma(py::handle(tile.alloc), tile.spill, tile.parts, tile.phys, false,
                           get(ins, names().location))
                 .ptr());
  }

  [[noreturn]] void no_room(const Tile& tile, const Placer& placer,
                            const std::vector<std::pair<int, bool>>& mine, PyObject* ins) {
    py::list live, needed;
    for (const Placer::Live& l : placer.live)
      live.append(
          py::make_tuple(py::handle(tiles_[static_cast<std::size_t>(l.tile)].alloc), l.offset));
    for (const auto& [t, written] : mine) {
      (void)written;
      needed.append(py::handle(tiles_[static_cast<std::size_t>(t)].alloc));
    }
    cb_.no_room(py::handle(tile.alloc), live, placer.capacity(), needed, py::handle(ins));
    throw py::value_error("internal: the capacity error did not raise");
  }

  // _alloc._move_views: the instruction's on-chip views from their tile's virtual offset to
  // its physical one. A view not yet placed moves in place (View.place's first case); one
  // placed before, for an earlier placement of its tile, is View.place's to copy.
  void move_views(PyObject* ins, std::size_t i) {
    const Names& n = names();
    py::dict replaced;
    for (const auto& [v, t] : owners_[i]) {
      const Tile& tile = tiles_[static_cast<std::size_t>(t)];
      const py::object placed = get(v, n.placed);
      if (!placed.is_none()) {
        // Shared with an earlier instruction (Tensor.operand) and moved there already: the
        // same place needs nothing, another (a reload after a spill) a moved copy.
        if (as_int(placed.ptr()) == tile.phys) continue;
        const py::object m = cb_.move_copy(py::handle(v), tile.virtual_offset, tile.phys);
        if (m.ptr() != v) replaced[int_object(reinterpret_cast<std::intptr_t>(v))] = m;
        continue;
      }
      const std::int64_t delta = tile.phys - tile.virtual_offset;
      const std::int64_t offset = as_int(get(v, n.offset).ptr()) + delta;
      n.offset->set(v, int_object(offset).ptr());
      n.region->set(v, Py_None);  // moved: View.region() computes it anew if asked
      n.placed->set(v, int_object(tile.phys).ptr());
    }
    if (!replaced.empty()) cb_.swap_views(py::handle(ins), replaced);
  }

  py::list instrs_;
  Callbacks cb_;
  std::vector<Memory> memories_;
  std::vector<py::object> space_names_;
  std::vector<Placer> placers_;
  std::vector<bool> spillable_;  // SBUF; PSUM tiles are never spilled (DMA does not reach it)
  std::vector<Tile> tiles_;
  std::vector<std::vector<std::pair<int, bool>>> touched_;
  std::vector<std::vector<std::pair<PyObject*, int>>> owners_;  // views borrowed from instrs_
  py::list out_, placements_;
};

}  // namespace

void bind_nki_placement(py::module_& m) {
  m.def(
      "nki_place_tiles",
      [](const py::list& instrs, const py::list& memories, std::int64_t align, std::int64_t bank,
         const py::object& view_type, const py::object& outside, const py::object& no_room,
         const py::object& new_spill, const py::object& spill_dma, const py::object& move_copy,
         const py::object& swap_views) {
        Placement p(
            instrs, memories, align, bank,
            Callbacks{view_type, outside, no_room, new_spill, spill_dma, move_copy, swap_views});
        return p.run();
      },
      py::arg("instrs"), py::arg("memories"), py::arg("align"), py::arg("bank"),
      py::arg("view_type"), py::arg("outside"), py::arg("no_room"), py::arg("new_spill"),
      py::arg("spill_dma"), py::arg("move_copy"), py::arg("swap_views"),
      "Places every used tile by its live range (_alloc.place_tiles): memories is [(space, "
      "blocks, capacity, cooldown)]; returns (the new instruction list, [high water per "
      "memory], [(Allocation, offset, first, last)]).");
}

}  // namespace neuronsim::python

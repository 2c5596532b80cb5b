// _core.nki_dependencies and _core.nki_plan: the passes of neuronsim.nki's lowering that
// run over the whole placed trace (python/neuronsim/nki/_lower.py says what each computes
// and why): the dependencies of every instruction on earlier ones, each engine's stream
// order (a list schedule with rough durations, or program order) and the semaphores that
// carry the dependencies between streams. They read the trace's Python objects (Instr and
// View of python/neuronsim/nki/_core.py) directly and write each instruction's waits and
// signals, so that tracing time stays in the kernel's own calls rather than in these
// per-instruction loops (docs/python.md, "Tracing speed"). Every number that shapes the
// result (engine order, clock estimates, DMA cost estimate, semaphore pool) is _lower.py's,
// passed in: this file is the mechanism only.
#include <Python.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <queue>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "python/core/bindings.hpp"
#include "python/core/nki_region.hpp"
#include "python/core/py_objects.hpp"

namespace py = pybind11;

namespace neuronsim::python {
namespace {

// Python's floor division (a box's bucket of a negative offset).
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::int64_t ceil_div_nonneg(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// What an access touches (View.region): memory, partition (HBM: row) range with the step
// of _core.SteppedRows, byte (HBM: column) range.
struct Box {
  int memory;
  std::int64_t p0, p1, step, b0, b1;
};

// Whether rows a0, a0 + sa, ... below a1 and b0, b0 + sb, ... below b1
// share one.
bool rows_meet(std::int64_t a0, std::int64_t a1, std::int64_t sa, std::int64_t b0, std::int64_t b1,
               std::int64_t sb) {
  const std::int64_t lo = std::max(a0, b0), hi = std::min(a1, b1);
  if (lo >= hi) return false;
  if (sa == 1 && sb == 1) return true;
  if (sa == 1 || sb == 1) {
    const std::int64_t r0 = sa == 1 ? b0 : a0, s = sa == 1 ? sb : sa;
    return r0 + ceil_div_nonneg(lo - r0, s) * s < hi;
  }
  if (sa == sb) return (a0 - b0) % sa == 0 && a0 + ceil_div_nonneg(lo - a0, sa) * sa < hi;
  return true;  // two different steps: the bounding rows (rare; conservative)
}

// The trace as read from Python: per instruction its engine, read boxes and write boxes
// (reads of memories nothing writes left out: they order nothing), and for the schedule
// its rough duration.
struct Trace {
  std::vector<int> engine;
  std::vector<std::size_t> read_begin, write_begin, write_end;  // into boxes
  std::vector<Box> boxes;
  std::vector<bool> hbm;  // per memory
};

// The memories a trace touches, numbered in first-use order: SBUF and PSUM by space, each
// HBM tensor by name (two maps: a tensor may be named like a space).
struct Memories {
  py::dict on_chip, hbm_tensors;
  std::vector<bool> hbm;  // per memory
};

Box region_of(PyObject* view, Memories& memories) {
  const ViewBox v = view_box(view);
  py::dict& ids = v.hbm ? memories.hbm_tensors : memories.on_chip;
  Box b{};
  PyObject* id = PyDict_GetItemWithError(ids.ptr(), v.key.ptr());  // borrowed
  if (id == nullptr) {
    if (PyErr_Occurred()) throw py::error_already_set();
    b.memory = static_cast<int>(memories.hbm.size());
    ids[v.key] = b.memory;
    memories.hbm.push_back(v.hbm);
  } else {
    b.memory = static_cast<int>(as_int(id));
  }
  b.p0 = v.p0;
  b.p1 = v.p1;
  b.step = v.step;
  b.b0 = v.b0;
  b.b1 = v.b1;
  return b;
}

Trace read_trace(const py::list& instrs, const py::dict& engine_index) {
  Trace t;
  const std::size_t n = instrs.size();
  t.engine.reserve(n);
  Memories memories;
  std::vector<std::vector<Box>> reads(n);
  std::vector<bool> written;
  std::vector<Box> writes;
  std::vector<std::size_t> write_begin(n + 1);
  for (std::size_t i = 0; i < n; ++i) {
    PyObject* ins = PyList_GET_ITEM(instrs.ptr(), static_cast<Py_ssize_t>(i));
    const py::object eng = attr(ins, "engine");
    PyObject* e = PyDict_GetItem(engine_index.ptr(), eng.ptr());
    if (e == nullptr) throw py::value_error("internal: an instruction of an unknown engine");
    t.engine.push_back(static_cast<int>(as_int(e)));
    const py::object rs = attr(ins, "reads");
    const py::object ws = attr(ins, "writes");
    for (py::handle v : rs)
      reads[i].push_back(region_of(v.ptr(), memories));
    write_begin[i] = writes.size();
    for (py::handle v : ws) {
      writes.push_back(region_of(v.ptr(), memories));
      if (written.size() < memories.hbm.size()) written.resize(memories.hbm.size(), false);
      written[writes.back().memory] = true;
    }
  }
  write_begin[n] = writes.size();
  t.hbm = memories.hbm;
  written.resize(t.hbm.size(), false);
  for (std::size_t i = 0; i < n; ++i) {
    t.read_begin.push_back(t.boxes.size());
    for (const Box& b : reads[i])
      if (written[b.memory]) t.boxes.push_back(b);
    t.write_begin.push_back(t.boxes.size());
    t.boxes.insert(t.boxes.end(), writes.begin() + static_cast<std::ptrdiff_t>(write_begin[i]),
                   writes.begin() + static_cast<std::ptrdiff_t>(write_begin[i + 1]));
    t.write_end.push_back(t.boxes.size());
  }
  return t;
}

// One recorded read or write; alive until a later write covers it.
struct Access {
  int index;
  Box box;
  bool alive;
};

// The accesses of one memory that can still order later ones, in buckets by position
// (_lower._Memory: the same bucket sizes), so that a lookup visits the accesses near it.
class Memory {
 public:
  explicit Memory(bool hbm) : rows_(hbm ? 64 : (std::int64_t{1} << 40)), cols_(hbm ? 512 : 4096) {}

  struct Span {
    bool wide = false;
    std::vector<std::int64_t> keys;
  };

  Span span(const Box& b) const {
    Span s;
    const std::int64_t c0 = floor_div(b.b0, cols_), c1 = floor_div(b.b1 - 1, cols_);
    const std::int64_t r0 = floor_div(b.p0, rows_), r1 = floor_div(b.p1 - 1, rows_);
    if ((r1 - r0 + 1) * (c1 - c0 + 1) > kWide || (r0 == r1 && c1 - c0 >= kWide)) {
      s.wide = true;
      return s;
    }
    for (std::int64_t r = r0; r <= r1; ++r)
      for (std::int64_t c = c0; c <= c1; ++c)
        s.keys.push_back(r * kRowKey + c);
    return s;
  }

  struct Lists {
    std::unordered_map<std::int64_t, std::vector<int>> buckets;
    std::vector<int> wide;
  };
  Lists reads, writes;

  static void add(Lists& l, const Span& s, int access) {
    if (s.wide) {
      l.wide.push_back(access);
      return;
    }
    for (std::int64_t k : s.keys)
      l.buckets[k].push_back(access);
  }

  // Every live access of `l` overlapping `b` adds its instruction index to `out`.
  static void overlapping(const Lists& l, const Span& s, const Box& b,
                          const std::vector<Access>& accesses, std::vector<int>& out) {
    auto visit = [&](const std::vector<int>& lst) {
      for (int id : lst) {
        const Access& a = accesses[static_cast<std::size_t>(id)];
        const Box& x = a.box;
        if (x.b0 < b.b1 && b.b0 < x.b1 && x.p0 < b.p1 && b.p0 < x.p1 && a.alive &&
            ((b.step == 1 && x.step == 1) || rows_meet(x.p0, x.p1, x.step, b.p0, b.p1, b.step)))
          out.push_back(a.index);
      }
    };
    if (s.wide) {
      for (const auto& kv : l.buckets)
        visit(kv.second);
    } else {
      for (std::int64_t k : s.keys) {
        auto it = l.buckets.find(k);
        if (it != l.buckets.end()) visit(it->second);
      }
    }
    visit(l.wide);
  }

  // Retires every access of `l` that the write box `b` covers and drops it from the lists.
  static void prune(Lists& l, const Span& s, const Box& b, std::vector<Access>& accesses) {
    auto covered = [&](const Access& a) {
      const Box& x = a.box;
      if (!(b.b0 <= x.b0 && x.b1 <= b.b1 && b.p0 <= x.p0 && x.p1 <= b.p1)) return false;
      if (b.step == 1) return true;
      // A write to every step-th row covers only accesses on those rows.
      return (x.p1 - x.p0 == 1 || x.step == b.step) && (x.p0 - b.p0) % b.step == 0;
    };
    auto sweep = [&](std::vector<int>& lst) {
      std::size_t kept = 0;
      for (int id : lst) {
        Access& a = accesses[static_cast<std::size_t>(id)];
        if (!a.alive) continue;
        if (covered(a)) {
          a.alive = false;
        } else {
          lst[kept++] = id;
        }
      }
      lst.resize(kept);
    };
    if (s.wide) {
      for (auto it = l.buckets.begin(); it != l.buckets.end();) {
        sweep(it->second);
        it = it->second.empty() ? l.buckets.erase(it) : std::next(it);
      }
    } else {
      for (std::int64_t k : s.keys) {
        auto it = l.buckets.find(k);
        if (it == l.buckets.end()) continue;
        sweep(it->second);
        if (it->second.empty()) l.buckets.erase(it);
      }
    }
    sweep(l.wide);
  }

 private:
  static constexpr std::int64_t kWide = 256;
  static constexpr std::int64_t kRowKey = std::int64_t{1} << 32;
  std::int64_t rows_, cols_;
};

// deps[i]: the instructions i waits for, sorted (_lower.find_dependencies).
std::vector<std::vector<int>> dependencies(const Trace& t) {
  const std::size_t n = t.engine.size();
  std::vector<Memory> memories;
  for (bool h : t.hbm)
    memories.emplace_back(h);
  std::vector<Access> accesses;
  std::vector<std::vector<int>> deps(n);
  std::vector<Memory::Span> spans;
  for (std::size_t i = 0; i < n; ++i) {
    const int index = static_cast<int>(i);
    std::vector<int>& d = deps[i];
    spans.clear();
    for (std::size_t k = t.read_begin[i]; k < t.write_end[i]; ++k) {
      const Box& b = t.boxes[k];
      Memory& m = memories[static_cast<std::size_t>(b.memory)];
      spans.push_back(m.span(b));
      if (k >= t.write_begin[i]) Memory::overlapping(m.reads, spans.back(), b, accesses, d);
      Memory::overlapping(m.writes, spans.back(), b, accesses, d);
    }
    std::sort(d.begin(), d.end());
    d.erase(std::unique(d.begin(), d.end()), d.end());
    d.erase(std::remove(d.begin(), d.end(), index), d.end());
    const std::size_t base = t.read_begin[i];
    for (std::size_t k = t.write_begin[i]; k < t.write_end[i]; ++k) {
      Memory& m = memories[static_cast<std::size_t>(t.boxes[k].memory)];
      Memory::prune(m.reads, spans[k - base], t.boxes[k], accesses);
      Memory::prune(m.writes, spans[k - base], t.boxes[k], accesses);
    }
    for (std::size_t k = t.read_begin[i]; k < t.write_end[i]; ++k) {
      const Box& b = t.boxes[k];
      Memory& m = memories[static_cast<std::size_t>(b.memory)];
      accesses.push_back({index, b, true});
      const int id = static_cast<int>(accesses.size() - 1);
      Memory::add(k < t.write_begin[i] ? m.reads : m.writes, spans[k - base], id);
    }
  }
  return deps;
}

std::int64_t free_elems(PyObject* view) {
  const py::object dims = attr(view, "dims");
  std::int64_t n = 1;
  for (py::handle d : dims)
    n *= as_int(PyTuple_GET_ITEM(d.ptr(), 1));
  return n;
}

// _lower's rough durations, only to order the streams: duration (until the instruction's
// result is ready) and hold (how long it keeps its engine). A DMA's transfer runs on the DMA
// engines, so a DMA issued by a compute engine (GpSimd's software DGE, Scalar's hardware
// DGE) holds it only as long as a minimal instruction, 64 elements at its clock (the same
// floor as a compute instruction's estimate).
struct Durations {
  std::vector<double> duration, hold;
};
Durations durations(const py::list& instrs, const Trace& t, const py::list& ghz,
                    double dma_fixed_ns, double dma_bytes_per_ns) {
  Durations out;
  out.duration.reserve(instrs.size());
  out.hold.reserve(instrs.size());
  std::vector<double> clock;
  for (py::handle g : ghz)
    clock.push_back(g.cast<double>());
  for (std::size_t i = 0; i < instrs.size(); ++i) {
    PyObject* ins = PyList_GET_ITEM(instrs.ptr(), static_cast<Py_ssize_t>(i));
    const py::object operands = attr(ins, "operands");
    const py::object opcode = attr(ins, "opcode");
    const double ghz_of_engine = clock[static_cast<std::size_t>(t.engine[i])];
    if (PyUnicode_CompareWithASCIIString(opcode.ptr(), "dma_copy") == 0) {
      PyObject* v = PyList_GET_ITEM(operands.ptr(), 0);
      const std::int64_t parts = as_int(attr(v, "partitions").ptr());
      const std::int64_t size = as_int(attr(attr(v, "dtype").ptr(), "size").ptr());
      const std::int64_t nbytes = parts * free_elems(v) * size;
      out.duration.push_back(dma_fixed_ns + static_cast<double>(nbytes) / dma_bytes_per_ns);
      out.hold.push_back(64.0 / ghz_of_engine);
      continue;
    }
    std::int64_t n = 0;
    for (py::handle v : operands)
      n = std::max(n, free_elems(v.ptr()));
    out.duration.push_back(static_cast<double>(std::max<std::int64_t>(64, n)) / ghz_of_engine);
    out.hold.push_back(out.duration.back());
  }
  return out;
}

// Each engine's stream (_lower.order_streams), as instruction positions.
std::vector<std::vector<int>> order_streams(const Trace& t,
                                            const std::vector<std::vector<int>>& deps,
                                            const Durations& estimate, int engines, int sync,
                                            bool list_schedule) {
  const std::vector<double>& duration = estimate.duration;
  const std::size_t n = t.engine.size();
  std::vector<std::vector<int>> streams(static_cast<std::size_t>(engines));
  std::vector<double> engine_free(static_cast<std::size_t>(engines), 0.0);
  if (!list_schedule) {
    std::vector<double> finish(n, 0.0), ready(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      const int e = t.engine[i];
      double r = 0.0;
      for (int j : deps[i])
        r = std::max(r, finish[static_cast<std::size_t>(j)]);
      if (e != sync) r = std::max(r, engine_free[static_cast<std::size_t>(e)]);
      ready[i] = r;
      finish[i] = r + duration[i];
      if (e != sync) engine_free[static_cast<std::size_t>(e)] = r + estimate.hold[i];
      streams[static_cast<std::size_t>(e)].push_back(static_cast<int>(i));
    }
    auto& s = streams[static_cast<std::size_t>(sync)];
    std::stable_sort(s.begin(), s.end(), [&](int a, int b) {
      return ready[static_cast<std::size_t>(a)] < ready[static_cast<std::size_t>(b)];
    });
  } else {
    std::vector<std::size_t> waiting(n);
    std::vector<std::vector<int>> users(n);
    for (std::size_t i = 0; i < n; ++i) {
      waiting[i] = deps[i].size();
      for (int j : deps[i])
        users[static_cast<std::size_t>(j)].push_back(static_cast<int>(i));
    }
    std::vector<double> data_ready(n, 0.0);
    using Entry = std::pair<double, int>;  // (time, position): Python's heapq of tuples
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    for (std::size_t i = 0; i < n; ++i)
      if (waiting[i] == 0) heap.push({0.0, static_cast<int>(i)});
    std::size_t placed = 0;
    while (!heap.empty()) {
      const auto [time, i] = heap.top();
      heap.pop();
      const std::size_t u = static_cast<std::size_t>(i);
      const int e = t.engine[u];
      const double start =
          e != sync ? std::max(time, engine_free[static_cast<std::size_t>(e)]) : time;
      if (start > time) {  // its engine is busy: try again when it is free
        heap.push({start, i});
        continue;
      }
      const double finish = start + duration[u];
      if (e != sync) engine_free[static_cast<std::size_t>(e)] = start + estimate.hold[u];
      streams[static_cast<std::size_t>(e)].push_back(i);
      ++placed;
      for (int w : users[u]) {
        const std::size_t x = static_cast<std::size_t>(w);
        data_ready[x] = std::max(data_ready[x], finish);
        if (--waiting[x] == 0) heap.push({data_ready[x], w});
      }
    }
    if (placed != n) throw py::value_error("internal: the list schedule lost instructions");
  }
  // Safety net: nothing precedes an instruction it depends on in its own stream.
  std::vector<std::ptrdiff_t> pos(n, -1);
  for (const auto& stream : streams) {
    for (std::size_t k = 0; k < stream.size(); ++k)
      pos[static_cast<std::size_t>(stream[k])] = static_cast<std::ptrdiff_t>(k);
    for (int i : stream)
      for (int j : deps[static_cast<std::size_t>(i)])
        if (t.engine[static_cast<std::size_t>(j)] == t.engine[static_cast<std::size_t>(i)] &&
            pos[static_cast<std::size_t>(j)] > pos[static_cast<std::size_t>(i)])
          throw py::value_error("internal: the stream order broke a dependency");
  }
  return streams;
}

}  // namespace

void bind_nki_lowering(py::module_& m) {
  m.def("nki_rows_meet", &rows_meet, py::arg("a0"), py::arg("a1"), py::arg("sa"), py::arg("b0"),
        py::arg("b1"), py::arg("sb"),
        "Whether rows a0, a0 + sa, ... below a1 and b0, b0 + sb, ... below b1 share one "
        "(neuronsim.nki's regions with stepped rows, _core.SteppedRows).");
  m.def(
      "nki_dependencies",
      [](const py::list& instrs, const py::dict& engine_index) {
        const Trace t = read_trace(instrs, engine_index);
        py::list out;
        for (const auto& d : dependencies(t)) {
          py::set s;
          for (int j : d)
            s.add(j);
          out.append(s);
        }
        return out;
      },
      py::arg("instrs"), py::arg("engine_index"),
      "The dependencies of each placed instruction (_lower.find_dependencies): a set of the "
      "positions of the earlier instructions it must wait for.");
  m.def(
      "nki_plan",
      [](const py::list& instrs, const py::list& engine_order, const py::list& ghz,
         double dma_fixed_ns, double dma_bytes_per_ns, int dma_pool, int engine_dma_pool,
         bool list_schedule) {
        // Engine positions: the compute engines first, the Sync engine (DMA issue) last.
        py::dict engine_index;
        for (std::size_t e = 0; e < engine_order.size(); ++e)
          engine_index[engine_order[e]] = static_cast<int>(e);
        const int engines = static_cast<int>(engine_order.size());
        const int sync = engines - 1;
        const Trace t = read_trace(instrs, engine_index);
        const auto deps = dependencies(t);
        const auto streams =
            order_streams(t, deps, durations(instrs, t, ghz, dma_fixed_ns, dma_bytes_per_ns),
                          engines, sync, list_schedule);
        const std::size_t n = t.engine.size();

        // Semaphores (_lower.assign_semaphores): one counting semaphore per compute engine
        // (ids 0..sync-1), DMA pool slots after them.
        // A DMA (an instruction with a queue) finishes when its transfer does, after the
        // instructions its engine runs next: whichever engine issues it (the Sync engine,
        // or GpSimd for an indirect one, software DGE), its dependants wait for its own
        // semaphore, even on its engine.
        std::vector<bool> is_dma(n, false);
        for (std::size_t i = 0; i < n; ++i)
          is_dma[i] = !attr(instrs[i].ptr(), "queue").is_none();
        std::vector<bool> needs_signal(n, false);
        for (std::size_t i = 0; i < n; ++i)
          for (int j : deps[i]) {
            const int ej = t.engine[static_cast<std::size_t>(j)];
            if (ej == sync || is_dma[static_cast<std::size_t>(j)] || ej != t.engine[i])
              needs_signal[static_cast<std::size_t>(j)] = true;
          }
        std::vector<std::pair<int, std::int64_t>> sem_of(n, {-1, 0});
        std::vector<std::string> names;
        std::vector<int> declared;  // semaphore ids in declaration order
        for (int e = 0; e < sync; ++e) {
          names.push_back("_done_" + engine_order[static_cast<std::size_t>(e)].cast<std::string>());
          std::int64_t count = 0;
          for (int i : streams[static_cast<std::size_t>(e)])
            if (needs_signal[static_cast<std::size_t>(i)] && !is_dma[static_cast<std::size_t>(i)])
              sem_of[static_cast<std::size_t>(i)] = {e, ++count};
          if (count) declared.push_back(e);
        }
        for (int s = 0; s < dma_pool; ++s)
          names.push_back("_dma" + std::to_string(s));
        std::vector<std::pair<int, std::int64_t>> guard(n, {-1, 0});
        std::vector<std::int64_t> pool_last(static_cast<std::size_t>(dma_pool), 0);
        std::size_t k = 0;
        for (int i : streams[static_cast<std::size_t>(sync)]) {
          const std::size_t u = static_cast<std::size_t>(i);
          if (!needs_signal[u]) continue;
          const std::size_t slot = k++ % static_cast<std::size_t>(dma_pool);
          const int id = sync + static_cast<int>(slot);
          const std::int64_t prev = pool_last[slot];
          if (prev) guard[u] = {id, prev};
          pool_last[slot] = prev + 1;
          sem_of[u] = {id, prev + 1};
        }
        for (int s = 0; s < dma_pool; ++s)
          if (pool_last[static_cast<std::size_t>(s)]) declared.push_back(sync + s);
        // The DMAs a compute engine issues: a pool of engine_dma_pool semaphores of that
        // engine's own (`_<engine>_dma<k>`), reused in its stream order as the Sync pool
        // is in Sync's, so that a reuse waits only for an earlier DMA of the same stream.
        for (int e = 0; e < sync; ++e) {
          const int base = static_cast<int>(names.size());
          std::vector<std::int64_t> last(static_cast<std::size_t>(engine_dma_pool), 0);
          std::size_t used = 0;
          for (int i : streams[static_cast<std::size_t>(e)]) {
            const std::size_t u = static_cast<std::size_t>(i);
            if (!is_dma[u] || !needs_signal[u]) continue;
            if (engine_dma_pool <= 0)
              throw py::value_error("internal: a DMA on a compute engine and no pool for it");
            const std::size_t slot = used++ % static_cast<std::size_t>(engine_dma_pool);
            const int id = base + static_cast<int>(slot);
            const std::int64_t prev = last[slot];
            if (prev) guard[u] = {id, prev};
            last[slot] = prev + 1;
            sem_of[u] = {id, prev + 1};
          }
          if (!used) continue;
          const std::string engine = engine_order[static_cast<std::size_t>(e)].cast<std::string>();
          for (int s = 0; s < engine_dma_pool; ++s)
            names.push_back("_" + engine + "_dma" + std::to_string(s));
          for (int s = 0; s < engine_dma_pool; ++s)
            if (last[static_cast<std::size_t>(s)]) declared.push_back(base + s);
        }
        // An instruction waits on its semaphores engines first, then the DMA pool, each
        // group by name.
        std::vector<int> rank(names.size(), 0);
        {
          std::vector<int> by_name(declared);
          std::sort(by_name.begin(), by_name.end(), [&](int a, int b) {
            const bool da = a >= sync, db = b >= sync;
            if (da != db) return db;
            return names[static_cast<std::size_t>(a)] < names[static_cast<std::size_t>(b)];
          });
          for (std::size_t r = 0; r < by_name.size(); ++r)
            rank[static_cast<std::size_t>(by_name[r])] = static_cast<int>(r);
        }
        std::vector<py::object> sem_name;
        for (const std::string& s : names)
          sem_name.push_back(py::str(s));

        std::vector<std::int64_t> known(names.size()), want(names.size(), 0);
        std::vector<int> wanted;
        for (int e = 0; e < engines; ++e) {
          std::fill(known.begin(), known.end(), 0);
          for (int i : streams[static_cast<std::size_t>(e)]) {
            const std::size_t u = static_cast<std::size_t>(i);
            wanted.clear();
            auto ask = [&](int s, std::int64_t v) {
              std::int64_t& w = want[static_cast<std::size_t>(s)];
              if (w == 0) wanted.push_back(s);
              w = std::max(w, v);
            };
            for (int j : deps[u]) {
              const std::size_t x = static_cast<std::size_t>(j);
              if (t.engine[x] == e && e != sync && !is_dma[x]) continue;
              ask(sem_of[x].first, sem_of[x].second);
            }
            if (guard[u].first >= 0) ask(guard[u].first, guard[u].second);
            if (wanted.empty()) continue;
            std::sort(wanted.begin(), wanted.end(), [&](int a, int b) {
              return rank[static_cast<std::size_t>(a)] < rank[static_cast<std::size_t>(b)];
            });
            py::list waits;
            for (int s : wanted) {
              std::int64_t& w = want[static_cast<std::size_t>(s)];
              if (known[static_cast<std::size_t>(s)] < w) {
                waits.append(py::make_tuple(sem_name[static_cast<std::size_t>(s)], w));
                known[static_cast<std::size_t>(s)] = w;
              }
              w = 0;
            }
            if (PyObject_SetAttrString(instrs[u].ptr(), "waits", waits.ptr()) != 0)
              throw py::error_already_set();
          }
        }
        for (std::size_t i = 0; i < n; ++i) {
          if (sem_of[i].first < 0) continue;
          py::list signals;
          signals.append(sem_name[static_cast<std::size_t>(sem_of[i].first)]);
          if (PyObject_SetAttrString(instrs[i].ptr(), "signals", signals.ptr()) != 0)
            throw py::error_already_set();
        }
        py::dict out_streams;
        for (int e = 0; e < engines; ++e) {
          py::list s;
          for (int i : streams[static_cast<std::size_t>(e)])
            s.append(instrs[static_cast<std::size_t>(i)]);
          out_streams[engine_order[static_cast<std::size_t>(e)]] = s;
        }
        py::list sems;
        for (int s : declared)
          sems.append(sem_name[static_cast<std::size_t>(s)]);
        return py::make_tuple(out_streams, sems);
      },
      py::arg("instrs"), py::arg("engine_order"), py::arg("ghz"), py::arg("dma_fixed_ns"),
      py::arg("dma_bytes_per_ns"), py::arg("dma_pool"), py::arg("engine_dma_pool"),
      py::arg("list_schedule"),
      "Streams and semaphores of a placed trace (_lower.py): returns ({engine: [Instr] in "
      "stream order}, [semaphore names in declaration order]) and sets each instruction's "
      "waits and signals.");
}

}  // namespace neuronsim::python

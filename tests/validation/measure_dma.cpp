// Measurements of DMA and HBM: one DMA engine's and sixteen engines' bandwidth, a chip's
// HBM bandwidth with every core streaming, how a transfer is split over engines and
// queues, the fixed cost of a transfer, the issue rate of the v3 descriptor generator,
// the bytes-per-partition efficiency rule and the HBM capacity. Every transfer is issued
// by the Sync engine at the start of its launch (issuing costs the engine nothing), so a
// launch's time is the DMA system's.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include <systemc>

#include "builder/builder.hpp"
#include "registry.hpp"
#include "validate/validate.hpp"

namespace validation {

namespace {

namespace isa = neuronsim::isa;
using isa::DType;
using isa::Engine;
using isa::Ix;

struct Stream {
  std::uint32_t rows = 128, row_bytes = 32768, transfers = 4, queue_engines = 16;
  bool from_sbuf = false;  // SBUF to SBUF instead of HBM to SBUF
  DType dtype = DType::fp32;
};

Stream stream_args(const Spec& s) {
  Stream st;
  st.rows = arg_u32(s, "rows", st.rows);
  st.row_bytes = arg_u32(s, "row_bytes", st.row_bytes);
  st.transfers = arg_u32(s, "transfers", st.transfers);
  st.queue_engines = arg_u32(s, "queue_engines", st.queue_engines);
  st.from_sbuf = arg_str(s, "src", "hbm") == "sbuf";
  st.dtype = arg_dtype(s, "dtype", st.dtype);
  return st;
}

// `transfers` dma_copy of [rows, row_bytes] into distinct SBUF regions on one queue over
// `queue_engines` DMA engines from engine 0, all issued at once; each signals "done".
isa::Kernel dma_stream(const Spec& s, const Stream& st) {
  const std::size_t elem = isa::dtype_size(st.dtype);
  if (st.row_bytes % elem != 0)
    throw std::runtime_error("spec " + s.id + ": row_bytes is not a whole number of elements");
  const std::uint32_t elems = st.row_bytes / static_cast<std::uint32_t>(elem);
  isa::Builder b("v_" + s.id, s.target);
  const auto dst = b.sbuf("dst", st.dtype, {st.rows, st.transfers, elems});
  const isa::AccessPattern src = st.from_sbuf ? b.sbuf("src", st.dtype, {st.rows, elems}).all()
                                              : b.input("src", st.dtype, {st.rows, elems}).all();
  const auto q = b.queue("q", 0, static_cast<std::uint8_t>(st.queue_engines));
  const auto done = b.semaphore("done");
  for (std::uint32_t t = 0; t < st.transfers; ++t)
    b.sync().dma_copy(dst.slice(Ix(), t), src, q).signal(done);
  return b.build();
}

double stream_bytes(const Stream& st) {
  return double(st.rows) * st.row_bytes * st.transfers;
}

// Bytes per ns (= GB/s) of the stream: on the lone core, over its launch; with chip, of
// every core of the chip together, from the first start to the last finish.
Reader rate_reader(Bench& bench, const Spec& s, const Stream& st) {
  const isa::Kernel k = dma_stream(s, st);
  const double bytes = stream_bytes(st);
  if (!arg_bool(s, "chip", false)) {
    const RunPtr run = bench.run(s.target, k);
    return [run, bytes] { return bytes / run->result().total_ns; };
  }
  const std::vector<RunPtr> runs = bench.run_chip(s.target, k);
  return [runs, bytes] {
    sc_core::sc_time first = sc_core::sc_max_time(), last = sc_core::SC_ZERO_TIME;
    for (const auto& r : runs) {
      first = std::min(first, r->result().started);
      last = std::max(last, r->result().finished);
    }
    return bytes * runs.size() / (last - first).to_seconds() / 1e9;
  };
}

const Registrar dma_rate("dma_rate", [](Bench& bench, const Spec& s) -> Reader {
  return rate_reader(bench, s, stream_args(s));
});

// The rate with rows of args.row_bytes over the rate with rows of args.ref_row_bytes,
// each moving args.total_bytes in as many [128, row] transfers as that takes, all
// outstanding at once on the 16 DMA engines.
const Registrar dma_row_efficiency("dma_row_efficiency", [](Bench& bench, const Spec& s) -> Reader {
  const std::uint32_t total = arg_u32(s, "total_bytes", 8u << 20);
  auto with_rows = [&](std::uint32_t row_bytes) {
    Stream st;
    st.row_bytes = row_bytes;
    st.transfers = total / (st.rows * row_bytes);
    if (st.transfers == 0) throw std::runtime_error("spec " + s.id + ": total_bytes too small");
    return rate_reader(bench, s, st);
  };
  const Reader rows = with_rows(arg_u32(s, "row_bytes", 4096));
  const Reader ref = with_rows(arg_u32(s, "ref_row_bytes", 65536));
  return [rows, ref] { return rows() / ref(); };
});

// How long a DMA engine works on its part of one transfer (start to end of its record,
// as a profile's DMA track shows it).
const Registrar dma_part_ns("dma_part_ns", [](Bench& bench, const Spec& s) -> Reader {
  Stream st = stream_args(s);
  st.transfers = 1;
  const RunPtr run = bench.run(s.target, dma_stream(s, st));
  return [run] {
    run->result();
    const auto& parts = run->recorder.dma_ends;
    if (parts.empty()) throw std::runtime_error("no DMA record");
    return neuronsim::traces::ps_to_ns(parts.front().end_ps - parts.front().start_ps);
  };
});

// A DMA transpose's rate over its copy's: one [128, 128] bf16 dma_copy (from HBM, or
// from SBUF with args.src "sbuf") into SBUF, plain and with transpose=true, each alone in
// its launch; the ratio of one DMA engine's part times (copy over transpose; each part
// moves 8 rows of 256 bytes, far below the core's HBM share, so the rate cap decides).
const Registrar dma_transpose_rate("dma_transpose_rate", [](Bench& bench, const Spec& s) -> Reader {
  auto part_ns = [&](bool transpose) {
    isa::Builder b("v_" + s.id + (transpose ? "_t" : "_c"), s.target);
    const auto dst = b.sbuf("dst", DType::bf16, {128, 128});
    const isa::AccessPattern src = arg_str(s, "src", "hbm") == "sbuf"
                                       ? b.sbuf("src", DType::bf16, {128, 128}).all()
                                       : b.input("src", DType::bf16, {128, 128}).all();
    const auto q = b.queue("q", 0, 16);
    b.sync().dma_copy(dst.all(), src, q, false, transpose);
    const RunPtr run = bench.run(s.target, b.build());
    return [run] {
      run->result();
      const auto& parts = run->recorder.dma_ends;
      if (parts.empty()) throw std::runtime_error("no DMA record");
      return neuronsim::traces::ps_to_ns(parts.front().end_ps - parts.front().start_ps);
    };
  };
  const Reader copy = part_ns(false), transposed = part_ns(true);
  return [copy, transposed] { return copy() / transposed(); };
});

// How many DMA engines take part in one transfer, and the most bytes one of them moves.
const Registrar dma_engines_used("dma_engines_used", [](Bench& bench, const Spec& s) -> Reader {
  Stream st = stream_args(s);
  st.transfers = 1;
  const RunPtr run = bench.run(s.target, dma_stream(s, st));
  return [run] {
    run->result();
    std::set<int> engines;
    for (const auto& p : run->recorder.dma_ends)
      engines.insert(p.dma_engine);
    return double(engines.size());
  };
});

const Registrar dma_part_bytes("dma_part_bytes", [](Bench& bench, const Spec& s) -> Reader {
  Stream st = stream_args(s);
  st.transfers = 1;
  const RunPtr run = bench.run(s.target, dma_stream(s, st));
  return [run] {
    run->result();
    std::uint64_t most = 0;
    for (const auto& p : run->recorder.dma_ends)
      most = std::max(most, p.bytes);
    return double(most);
  };
});

// Completion times of the transfers of a stream (the "done" semaphore's updates), in ns.
std::vector<double> completions(const Run& run) {
  run.result();
  std::vector<double> t;
  for (const auto& r : run.recorder.semaphores)
    t.push_back(neuronsim::traces::ps_to_ns(r.time_ps));
  std::sort(t.begin(), t.end());
  return t;
}

// Many one-row transfers issued back to back on one queue: the steady time between
// completions, what one dma_copy instruction costs when nothing else limits it.
const Registrar dma_issue_interval("dma_issue_interval", [](Bench& bench, const Spec& s) -> Reader {
  Stream st = stream_args(s);
  st.rows = 1;
  const RunPtr run = bench.run(s.target, dma_stream(s, st));
  // args.instances units working side by side (e.g. a core's DGE blocks) each take
  // `instances` intervals per transfer.
  const double instances = arg_double(s, "instances", 1);
  return [run, instances] {
    const auto t = completions(*run);
    if (t.size() < 2) throw std::runtime_error("fewer than two transfers completed");
    return instances * (t.back() - t.front()) / double(t.size() - 1);
  };
});

// The fixed cost of one lone transfer of one row: issue to completion, minus the time
// its bytes take at one DMA engine's published rate (args.engine_bytes_per_ns).
const Registrar dma_fixed_cost("dma_fixed_cost", [](Bench& bench, const Spec& s) -> Reader {
  Stream st = stream_args(s);
  st.rows = 1;
  st.transfers = 1;
  const RunPtr run = bench.run(s.target, dma_stream(s, st));
  const double data_ns = st.row_bytes / arg_double(s, "engine_bytes_per_ns", 1);
  return [run, data_ns] {
    const auto t = completions(*run);
    const auto& issue = run->instr(Engine::sync, 0);
    return t.at(0) - neuronsim::traces::ps_to_ns(issue.start_ps) - data_ns;
  };
});

// How many FIFO queues one DMA engine has: args.queues kernel queues, all on DMA engine
// 0, one small transfer each; the distinct FIFOs their parts used. NaN unless validation
// refuses one queue more on that engine.
isa::Kernel fifo_kernel(const Spec& s, std::uint32_t queues) {
  isa::Builder b("v_" + s.id, s.target);
  const auto src = b.input("src", DType::fp32, {1, 16});
  const auto dst = b.sbuf("dst", DType::fp32, {1, queues, 16});
  for (std::uint32_t i = 0; i < queues; ++i)
    b.sync().dma_copy(dst.slice(Ix(), i), src, b.queue("q" + std::to_string(i), 0, 1));
  return b.build();
}

const Registrar dma_fifos("dma_fifos", [](Bench& bench, const Spec& s) -> Reader {
  const std::uint32_t queues = arg_u32(s, "queues", 16);
  const bool one_more_refused =
      !isa::check(fifo_kernel(s, queues + 1), bench.config(s.target).limits).empty();
  const RunPtr run = bench.run(s.target, fifo_kernel(s, queues));
  return [run, one_more_refused] {
    run->result();
    std::set<int> fifos;
    for (const auto& p : run->recorder.dma_ends)
      fifos.insert(p.hw_queue);
    return one_more_refused ? double(fifos.size()) : std::numeric_limits<double>::quiet_NaN();
  };
});

// The HBM capacity: a tensor of exactly the published size (args.bytes) is placed in
// the lone core's HBM, one byte more is refused. NaN unless both hold.
const Registrar hbm_capacity("hbm_capacity", [](Bench& bench, const Spec& s) -> Reader {
  const double published_bytes = s.published * s.scale;
  const auto bytes = static_cast<std::uint64_t>(published_bytes);
  auto probe = [&](std::uint64_t size) {
    isa::Builder b("v_" + s.id + "_" + std::to_string(size), s.target);
    b.scratch("t", DType::uint8, {size});
    b.sync().nop();
    return bench.run(s.target, b.build());
  };
  const RunPtr fits = probe(bytes), over = probe(bytes + 1);
  return [fits, over, published_bytes] {
    const bool ok = fits->launch->result().ok() && !over->launch->result().ok();
    return ok ? published_bytes : std::numeric_limits<double>::quiet_NaN();
  };
});

}  // namespace

}  // namespace validation

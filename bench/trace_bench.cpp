// Writes and reads back a synthetic NTFF trace of N instruction records (default ten
// million) and reports bytes per instruction record, write and read throughput and peak
// memory, to show that the writer and the reader stream (memory does not grow with N).
//
//   bench_trace_bench [records] [path]
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "bench/common/synthetic_trace.hpp"
#include "traces/ntff.hpp"
#include "traces/summary.hpp"

namespace {

using namespace neuronsim;
using namespace neuronsim::traces;

// Peak resident memory so far (kB), from /proc/self/status.
long peak_rss_kb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t n = argc > 1 ? std::stoull(argv[1]) : 10'000'000;
  const std::string path = argc > 2 ? argv[2] : "/tmp/neuronsim_trace_bench.ntff";
  TraceInfo info;
  info.kernel_name = "trace_bench";
  info.target = "trn2";
  info.engine_ghz = {2.8, 1.4, 1.4, 1.4, 1.4};
  info.cycle_counter_ghz = 1.4;

  auto t0 = std::chrono::steady_clock::now();
  bench::SyntheticTrace gen;
  std::uint64_t bytes = 0, total = 0;
  {
    NtffWriter w(path, info);
    for (std::uint64_t i = 0; i < n; ++i)
      w.add(gen.make(i));
    for (auto t : gen.now)
      total = std::max(total, t);
    w.close(total);
    bytes = w.bytes_written();
  }
  const double write_s = seconds_since(t0);
  const long rss_after_write = peak_rss_kb();

  t0 = std::chrono::steady_clock::now();
  std::uint64_t read = 0;
  {
    NtffReader r(path);
    Record rec;
    while (r.next(rec))
      ++read;
  }
  const double read_s = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  const Summary s = summarize_ntff(path, {});
  const double summary_s = seconds_since(t0);
  std::remove(path.c_str());

  const double mb = static_cast<double>(bytes) / 1e6;
  std::printf("records            %llu (read back %llu)\n", static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(read));
  std::printf("file               %.1f MB, %.2f bytes per instruction record\n", mb,
              static_cast<double>(bytes) / static_cast<double>(n));
  std::printf("write              %.2f s, %.2f M records/s, %.1f MB/s\n", write_s,
              n / write_s / 1e6, mb / write_s);
  std::printf("read               %.2f s, %.2f M records/s, %.1f MB/s\n", read_s, n / read_s / 1e6,
              mb / read_s);
  std::printf("summary (streamed) %.2f s, %.2f M records/s (total_time %.3f ms)\n", summary_s,
              n / summary_s / 1e6, s.total_time_s() * 1e3);
  std::printf("peak RSS           %ld kB after writing, %ld kB at the end (VmHWM)\n",
              rss_after_write, peak_rss_kb());
  return read == n ? 0 : 1;
}

// The whole `neuronsim run` process of a bf16 GEMM with full numerics, done the way a user
// does it: a one-matmul graph compiled by `neuronsim compile` (the compiler's GEMM kernel),
// float32 .npy inputs written beforehand, and
//
//   neuronsim run K.neff --input a=a.npy --input b=b.npy --out-dir OUT -q
//
// timed from spawn to exit (start-up, reading the NEFF and the inputs, filling HBM, the
// simulation with its numerics, writing c.npy, exit). Each run writes into a fresh OUT (the
// removal is outside the timing): replacing an existing file adds the file system's own
// cost (ext4 starts writing back a file renamed over another, docs/performance.md).
// Reported: the median wall time of the runs (real_time), their minimum, the child's CPU
// time (user + system, median) and the load average, since the machine is shared.
#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "bench/suite/spawn.hpp"
#include "bench/suite/world.hpp"
#include "io/inputs.hpp"
#include "io/npy.hpp"

namespace neuronsim::bench {

namespace {

struct GemmCase {
  unsigned size = 0;  // M = N = K
  std::string neff_path;
  std::string a_path, b_path;
  std::string out_dir;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double seconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
}

// `neuronsim compile` of a one-matmul graph ([size, size] x [size, size], bf16) into `dir`;
// the path of its one NEFF.
std::string compile_gemm(unsigned size, const std::string& dir) {
  const std::string n = std::to_string(size);
  const std::string graph_path = dir + ".json";
  std::ofstream(graph_path)
      << "{\"format\": \"neuronsim-graph\", \"version\": 1, \"name\": \"gemm" << n << "\",\n"
      << " \"inputs\": [{\"name\": \"a\", \"dtype\": \"bf16\", \"shape\": [" << n << ", " << n
      << "]},\n"
      << "            {\"name\": \"b\", \"dtype\": \"bf16\", \"shape\": [" << n << ", " << n
      << "]}],\n"
      << " \"nodes\": [{\"id\": \"c\", \"op\": \"matmul\", \"args\": [\"a\", \"b\"]}],\n"
      << " \"outputs\": [\"c\"]}\n";
  if (!run_process({NEURONSIM_EXE, "compile", graph_path, "-o", dir}))
    throw Error("bench_suite: neuronsim compile " + graph_path + " failed");
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".neff") return entry.path().string();
  throw Error("bench_suite: neuronsim compile wrote no NEFF into " + dir);
}

// A float32 .npy of normal(0, 1) values, as numpy.save writes it (the input a user gives).
void write_input(const std::string& path, const std::string& name, unsigned size) {
  const isa::HbmTensor t{name, isa::DType::fp32, {size, size}, isa::TensorRole::input, {}};
  const auto bytes = io::make_input(io::parse_input_spec(name + "=normal:0,1"), t, 1, false);
  io::write_npy(path, t.dtype, t.shape, bytes, false);
}

void BM_process_gemm(benchmark::State& st, std::shared_ptr<const GemmCase> c, int runs) {
  const std::vector<std::string> args = {NEURONSIM_EXE,    "run",     c->neff_path,     "--input",
                                         "a=" + c->a_path, "--input", "b=" + c->b_path, "--out-dir",
                                         c->out_dir,       "-q"};
  std::vector<double> wall, cpu;
  for (auto _ : st) {
    for (int i = 0; i < runs; ++i) {
      std::filesystem::remove_all(c->out_dir);
      struct rusage usage {};
      const WallClock clock;
      if (!run_process(args, &usage)) {
        st.SkipWithError("neuronsim run failed");
        return;
      }
      wall.push_back(clock.seconds());
      cpu.push_back(seconds(usage.ru_utime) + seconds(usage.ru_stime));
    }
    st.SetIterationTime(median(wall));
  }
  double load[1] = {0};
  getloadavg(load, 1);
  const double flops = 2.0 * c->size * c->size * c->size;
  st.counters["runs"] = static_cast<double>(wall.size());
  st.counters["min_ms"] = *std::min_element(wall.begin(), wall.end()) * 1e3;
  st.counters["cpu_ms"] = median(cpu) * 1e3;
  st.counters["GFLOP/s"] = flops / median(wall) * 1e-9;
  st.counters["load_avg"] = load[0];
}

}  // namespace

void register_process_gemm() {
  World& w = world();
  for (unsigned size : w.sizes.process_gemm_sizes) {
    auto c = std::make_shared<GemmCase>();
    c->size = size;
    const std::string base = w.tmp_dir + "/gemm" + std::to_string(size);
    c->neff_path = compile_gemm(size, base);
    c->a_path = base + "_a.npy";
    c->b_path = base + "_b.npy";
    c->out_dir = base + "_out";
    write_input(c->a_path, "a", size);
    write_input(c->b_path, "b", size);
    // Fewer runs of the large one keep the suite under its two minutes.
    const int runs = size > 1024 ? w.sizes.process_gemm_runs_large : w.sizes.process_gemm_runs;
    benchmark::RegisterBenchmark(("process/gemm/" + std::to_string(size)).c_str(), BM_process_gemm,
                                 std::shared_ptr<const GemmCase>(c), runs)
        ->Unit(benchmark::kMillisecond)
        ->UseManualTime()
        ->Iterations(1)
        ->Repetitions(1);
  }
}

}  // namespace neuronsim::bench

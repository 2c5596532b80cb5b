// Measures the kernel file formats on a generated 100,000-instruction kernel: printing
// assembly text, assembling it, writing the NEFF, reading (loading) it, and the sizes.
// Usage: bench_neff_bench [OUT_DIR] [ITERATIONS]. Writes OUT_DIR/bench100k.nasm and
// .neff so that `neuronsim asm` and `neuronsim neff info` can be timed from the shell.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "asm/assembler.hpp"
#include "asm/printer.hpp"
#include "base/error.hpp"
#include "base/file_io.hpp"
#include "bench/common/bench_kernels.hpp"
#include "config/target_config.hpp"
#include "neff/neff.hpp"
#include "validate/validate.hpp"

namespace {

using namespace neuronsim;
using namespace neuronsim::isa;

// Best of `reps` wall times, in milliseconds.
double best_ms(int reps, const std::function<void()>& f) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "/tmp";
  const int iterations = argc > 2 ? std::stoi(argv[2]) : 10000;
  constexpr int kReps = 5;
  try {
    const Kernel k = bench::pipeline_kernel(iterations);
    const auto problems = check(k, config::load_target(k.target).limits);
    for (std::size_t i = 0; i < problems.size() && i < 10; ++i)
      std::fprintf(stderr, "invalid: %s: %s\n", problems[i].where.c_str(),
                   problems[i].reason.c_str());
    if (!problems.empty()) return 1;

    std::string text;
    Kernel assembled;
    std::vector<std::uint8_t> bytes;
    neff::Neff loaded;
    const double print_ms = best_ms(kReps, [&] { text = print(k); });
    const double asm_ms = best_ms(kReps, [&] { assembled = assemble(text, "bench100k.nasm"); });
    const double write_ms = best_ms(kReps, [&] { bytes = neff::write(k); });
    const double read_ms = best_ms(kReps, [&] { loaded = neff::read(bytes, "bench100k.neff"); });
    if (assembled != k || loaded.kernel != k) {
      std::fprintf(stderr, "round trip changed the kernel\n");
      return 1;
    }
    write_file_atomic(dir + "/bench100k.nasm", text);
    write_file_atomic(dir + "/bench100k.neff", bytes);

    std::printf(
        "kernel: %zu instructions (tensor %zu, vector %zu, scalar %zu, gpsimd %zu, "
        "sync %zu)\n",
        k.instruction_count(), k.stream(Engine::tensor).size(), k.stream(Engine::vector).size(),
        k.stream(Engine::scalar).size(), k.stream(Engine::gpsimd).size(),
        k.stream(Engine::sync).size());
    std::printf("best of %d runs:\n", kReps);
    std::printf("  print (Kernel -> text)   %8.1f ms  (%zu bytes of text)\n", print_ms,
                text.size());
    std::printf("  assemble (text -> Kernel)%8.1f ms\n", asm_ms);
    std::printf("  NEFF write               %8.1f ms\n", write_ms);
    std::printf("  NEFF read (load)         %8.1f ms\n", read_ms);
    std::printf("  NEFF file size           %8zu bytes (%.1f bytes/instruction)\n", bytes.size(),
                static_cast<double>(bytes.size()) / static_cast<double>(k.instruction_count()));
    std::printf("wrote %s/bench100k.nasm and %s/bench100k.neff\n", dir.c_str(), dir.c_str());
  } catch (const Error& e) {
    std::fprintf(stderr, "bench: %s\n", e.what());
    return 1;
  }
  return 0;
}

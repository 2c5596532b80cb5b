// A platform whose own headers share names with neuronsim's internal ones: neuronsim's
// public headers must not reach them, and the platform's includes must find its own.
// Builds a kernel with the builder (out = 2 * a), runs it on a trn2 core and checks the
// output.
#include <cstdio>
#include <cstring>
#include <vector>

#include <neuronsim/builder.hpp>
#include <neuronsim/neuronsim.hpp>

#define PLATFORM_SOURCE 1
#include "config/target_config.hpp"
#include "isa/kernel.hpp"

static_assert(platform::kIsaKernel == 1 && platform::kTargetConfig == 2,
              "the platform's includes found its own headers");

int sc_main(int, char**) {
  using namespace neuronsim::isa;
  Builder b("twice", "trn2");
  Buffer a = b.input("a", DType::fp32, {128, 512});
  Buffer out = b.output("out", DType::fp32, {128, 512});
  Buffer xa = b.sbuf("xa", DType::fp32, {128, 512});
  Sem loaded = b.semaphore("loaded");
  Sem doubled = b.semaphore("doubled");
  Queue q = b.queue("q", 0, 1);
  b.sync().dma_copy(xa, a, q).signal(loaded);
  b.vector().tensor_scalar(xa, xa, AluOp::multiply, 2.0).wait(loaded, 1).signal(doubled);
  b.sync().dma_copy(out, xa, q).wait(doubled, 1);
  const Kernel kernel = b.build();

  std::vector<float> ones(128 * 512, 1.0f);
  neuronsim::TensorBytes inputs;
  inputs["a"].resize(ones.size() * sizeof(float));
  std::memcpy(inputs["a"].data(), ones.data(), inputs["a"].size());
  const auto r = neuronsim::run_kernel(kernel, neuronsim::load_target("trn2"), inputs, {});
  std::vector<float> y(128 * 512);
  std::memcpy(y.data(), r.outputs.at("out").data(), y.size() * sizeof(float));
  for (float v : y)
    if (v != 2.0f) return std::fprintf(stderr, "platform: out holds %g, not 2\n", v), 1;
  std::printf("platform: twice ran in %.3f ns, out = 2 * a\n", r.total_ns);
  return 0;
}

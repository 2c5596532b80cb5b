#pragma once
// The DMA skeleton of a row-tiled kernel (softmax, RMSNorm): tile t of x[N, D] is loaded
// into xt[:, t % nbuf] and its result stored from yt[:, t % nbuf], with semaphores that
// count tiles: x_loaded (tiles loaded), x_free (x buffers released by their last reader),
// y_ready (tiles computed), y_free (tiles stored). With nbuf = 2 the load of tile t + 2
// overlaps the compute of tile t; with nbuf = 1 everything runs one tile at a time.
#include <algorithm>
#include <cstdint>

#include "builder/builder.hpp"
#include "examples/tiling.hpp"

namespace neuronsim::examples {

struct RowPipeline {
  isa::Builder& b;
  isa::Buffer x, y;    // HBM [N, D]
  isa::Buffer xt, yt;  // SBUF [128, nbuf, D]
  std::uint32_t tiles = 0, nbuf = 1;
  isa::Queue load_queue{}, store_queue{};
  isa::Sem x_loaded{}, x_free{}, y_ready{}, y_free{};

  std::uint32_t buf(std::uint32_t t) const { return t % nbuf; }
  isa::AccessPattern x_tile(std::uint32_t t) const { return xt.slice(isa::Ix(), buf(t)); }
  isa::AccessPattern y_tile(std::uint32_t t) const { return yt.slice(isa::Ix(), buf(t)); }
  static isa::Ix rows(std::uint32_t t) { return isa::Ix(t * kPartitions, (t + 1) * kPartitions); }

  // Tile t into its buffer, once the tile that used the buffer before has released it.
  void load(std::uint32_t t) {
    auto ref = b.sync().dma_copy(x_tile(t), x.slice(rows(t)), load_queue).signal(x_loaded);
    if (t >= nbuf) ref.wait(x_free, t - nbuf + 1);
  }
  // The first nbuf loads, before any compute.
  void prologue() {
    for (std::uint32_t t = 0; t < std::min(nbuf, tiles); ++t)
      load(t);
  }
  // Every store, each followed by the load that reuses the stored tile's x buffer.
  void stores() {
    for (std::uint32_t t = 0; t < tiles; ++t) {
      b.sync()
          .dma_copy(y.slice(rows(t)), y_tile(t), store_queue)
          .wait(y_ready, t + 1)
          .signal(y_free);
      if (t + nbuf < tiles) load(t + nbuf);
    }
  }
};

}  // namespace neuronsim::examples

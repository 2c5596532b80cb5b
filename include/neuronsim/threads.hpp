#pragma once
// The numerics thread pool as an option of the simulation (docs/embedding.md, "Threads"):
// how many threads isa::execute may spread a large matmul over. The program reads
// NEURONSIM_THREADS; an embedder calls neuronsim::set_numerics_threads(n) before its first
// launch computes anything. Outputs never depend on the count.
#include "base/parallel.hpp"

#pragma once
// Work that numerics may spread over the machine's cores (docs/performance.md, "Threads"):
// a few worker threads, started on first use, that run the parts of one loop while the
// calling thread runs the first part and then waits for the rest. Results must not depend
// on the number of parts: each part writes its own outputs in the order the one-thread
// loop would (semantics/execute_tensor.cpp splits a matmul by output columns).
#include <cstddef>
#include <functional>

namespace neuronsim {

// How many threads numerics use: what set_numerics_threads gave, else NEURONSIM_THREADS if
// set (1 = none besides the caller), else the hardware's concurrency, at most 8.
std::size_t numerics_threads();

// The numerics thread count as an option of the simulation, for an embedder (and the
// environment's NEURONSIM_THREADS for the program): 1 to 64, before the first numerics
// loop runs (the pool is made then, once per process). Throws neuronsim::Error otherwise.
void set_numerics_threads(std::size_t threads);

// Calls body(0) .. body(parts - 1), at most numerics_threads() at once, and returns when
// all have returned. An exception from a part is rethrown here (the first one).
void parallel_for(std::size_t parts, const std::function<void(std::size_t part)>& body);

}  // namespace neuronsim

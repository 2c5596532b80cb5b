#pragma once
// Address-sanitizer builds only (NEURONSIM_SANITIZE): SystemC switches stacks without
// telling ASan, and after its first switch ASan no longer knows the bounds of the
// interpreter's main stack ("ASan is ignoring requested __asan_handle_no_return", google/
// sanitizers#189, accellera-official/systemc#27). An exception thrown later on that stack
// (any neuronsim.Error) then leaves the frames it unwinds poisoned, and the next call that
// reuses the stack reports a false stack-buffer-overflow. Below the frame of a call into
// the module the stack is dead, so each call starts by unpoisoning it: pybind11 runs
// DeadStackUnpoisoned (a call_guard) before every bound function.
#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace neuronsim::python {

struct DeadStackUnpoisoned {
  DeadStackUnpoisoned() {
#if defined(__SANITIZE_ADDRESS__)
    // Deeper than any call into the module goes (the simulation runs on SystemC's own
    // stacks); the main thread's stack is 8 MiB.
    constexpr std::size_t kDeadBytes = 512 * 1024;
    char here;
    ASAN_UNPOISON_MEMORY_REGION(&here - kDeadBytes, kDeadBytes);
#endif
  }
};

}  // namespace neuronsim::python

// libsystemc.so refers to sc_main (its own main() would call it), so a program linking
// SystemC must define one. neuronsim programs have their own main() and run simulations
// from library code, so they never call it: this weak definition only satisfies the link.
// A program embedding neuronsim in its own SystemC model defines a real sc_main, which
// takes precedence. An archive member is not pulled in for a shared library's reference,
// so neuronsim_sim's consumers link with --undefined=sc_main (CMakeLists.txt), and
// NeuronCore calls systemc_link_anchor() for builds that do not use our CMake files.
#include <cstdio>

extern "C" __attribute__((weak)) int sc_main(int, char**) {
  std::fprintf(stderr,
               "neuronsim: sc_main is not used; build neuronsim::NeuronCore in your own sc_main, "
               "or use neuronsim::run_kernel\n");
  return 1;
}

namespace neuronsim::sim::detail {
void systemc_link_anchor() {}
}  // namespace neuronsim::sim::detail

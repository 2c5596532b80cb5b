// The one Catch2 main of every test binary. Every NeuronCore a test builds checks its HBM
// traffic against the TLM-2.0 base protocol (CoreOptions::check_protocol's default reads
// NEURONSIM_CHECK_PROTOCOL; CTest sets it for the program and Python tests too).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>

int main(int argc, char* argv[]) {
  setenv("NEURONSIM_CHECK_PROTOCOL", "1", 0);
  return Catch::Session().run(argc, argv);
}

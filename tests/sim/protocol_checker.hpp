#pragma once
// The tests' binding through the public base-protocol checker (neuronsim::ProtocolChecker,
// include/neuronsim/protocol_checker.hpp): `bind_checked(core, memory.socket)` puts one in
// the path. Every core also checks its own HBM traffic in the tests (tests/catch_main.cpp
// sets NEURONSIM_CHECK_PROTOCOL=1, CoreOptions::check_protocol's default).
#include <string>

#include "neuronsim/neuron_core.hpp"
#include "neuronsim/protocol_checker.hpp"

namespace core_test {

using neuronsim::ProtocolChecker;

// Binds core.hbm to `memory` through a checker of its own (it lives as long as the process).
template <typename Socket>
ProtocolChecker& bind_checked(neuronsim::NeuronCore& core, Socket& memory) {
  auto* checker = new ProtocolChecker((std::string(core.basename()) + "_checker").c_str());
  core.hbm.bind(checker->target);
  checker->initiator.bind(memory);
  return *checker;
}

}  // namespace core_test

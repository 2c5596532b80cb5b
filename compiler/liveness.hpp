#pragma once
// What a graph's outputs need: torch.compile drops nodes whose results nobody uses, and a
// launch sequence should not ask the caller for inputs that no kernel reads.
#include <set>
#include <string>

#include "compiler/graph.hpp"

namespace neuronsim::compiler {

// The ids of the nodes some graph output depends on (the outputs included).
std::set<std::string> live_nodes(const Graph& g);

// The inputs that a node in `nodes` reads.
std::set<std::string> read_inputs(const Graph& g, const std::set<std::string>& nodes);

}  // namespace neuronsim::compiler

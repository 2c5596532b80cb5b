// Liveness over the graph's node list (docs/compiler.md, "Partitioning").
#include "compiler/liveness.hpp"

namespace neuronsim::compiler {

std::set<std::string> live_nodes(const Graph& g) {
  std::set<std::string> live(g.outputs.begin(), g.outputs.end());
  // Nodes come operands first, so one pass from the back sees every user before its
  // operands.
  for (auto n = g.nodes.rbegin(); n != g.nodes.rend(); ++n)
    if (live.count(n->id))
      for (const auto& a : n->args)
        if (a.is_tensor() && !g.is_input(a.tensor)) live.insert(a.tensor);
  return live;
}

std::set<std::string> read_inputs(const Graph& g, const std::set<std::string>& nodes) {
  std::set<std::string> read;
  for (const auto& n : g.nodes)
    if (nodes.count(n.id))
      for (const auto& a : n.args)
        if (a.is_tensor() && g.is_input(a.tensor)) read.insert(a.tensor);
  return read;
}

}  // namespace neuronsim::compiler

// Partitioning a graph into launches (docs/compiler.md): eager makes one launch per node;
// fused drops dead nodes, collects the row-wise nodes of each row count into one launch
// and gives each matmul its own, closing an open row launch only when a later launch
// needs one of its results.
#include "compiler/compiler.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "compiler/attention_kernel.hpp"
#include "compiler/layout_kernel.hpp"
#include "compiler/liveness.hpp"
#include "compiler/matmul_fusion.hpp"
#include "compiler/matmul_kernel.hpp"
#include "compiler/row_kernel.hpp"
#include "validate/validate.hpp"

namespace neuronsim::compiler {

namespace {

class Partitioner {
 public:
  Partitioner(const Graph& g, Mode mode, const std::string& target,
              const params::TargetLimits& limits, std::ostream* diagnostics)
      : g_(g), target_(target), limits_(limits), diagnostics_(diagnostics) {
    out_.program = g.name;
    out_.mode = mode;
  }

  CompiledProgram run() {
    // Eager runs every node, as PyTorch does; fused drops those no output needs.
    for (const auto& n : g_.nodes)
      live_.insert(n.id);
    if (out_.mode == Mode::fused) {
      live_ = live_nodes(g_);
      for (const auto& n : g_.nodes)
        if (!live_.count(n.id))
          warn("node '" + n.id + "': no output depends on it; fused mode leaves it out");
    }
    if (out_.mode == Mode::eager) {
      for (const auto& n : g_.nodes) {
        if (n.op == OpKind::matmul)
          add_matmul(n);
        else if (is_layout_op(n.op))
          add_layout(n);
        else
          add_rows(n.id, op_name(n.op), {&n});
      }
    } else {
      const MatmulFusion fusion = plan_matmul_fusion(g_, live_, limits_);
      plan_views(fusion);
      for (const auto& n : g_.nodes) {
        if (!live_.count(n.id) || fusion.absorbed.count(n.id) || views_.count(n.id)) continue;
        const auto launch = fusion.launches.find(n.id);
        if (launch != fusion.launches.end()) {
          flush_producers(launch->second.reads);
          add_fused_matmul(launch->second);
        } else if (is_layout_op(n.op)) {
          flush_producers(tensors_read(n));
          add_layout(n);
        } else {
          // A view's source is read from HBM: the launch computing it goes first.
          std::vector<std::string> sources;
          for (const auto& a : n.args)
            if (auto v = views_.find(a.tensor); v != views_.end())
              sources.push_back(v->second.source);
          flush_producers(sources);
          group_for(n).nodes.push_back(&n);
        }
      }
      while (!open_.empty())
        flush(0);
    }
    list_tensors();
    return std::move(out_);
  }

 private:
  // Row-wise nodes waiting for a launch, all of one row count (a kernel tiles one).
  struct Group {
    std::uint64_t rows = 0;
    std::vector<const Node*> nodes;
  };

  void warn(const std::string& what) {
    out_.warnings.push_back(g_.source + ": " + what);
    if (diagnostics_) *diagnostics_ << "warning: " << out_.warnings.back() << "\n";
  }

  // The open group of n's row count. A node reading a result of another open group (a
  // [D] or [1] tensor that a 1-row kernel computes for an N-row one) closes that group
  // first, so launches keep the graph's order.
  Group& group_for(const Node& n) {
    const std::uint64_t rows = flat_rows(n.type.shape);
    for (std::size_t i = 0; i < open_.size(); ++i)
      if (open_[i].rows != rows && reads_from(n, open_[i])) flush(i--);
    for (auto& gr : open_)
      if (gr.rows == rows) return gr;
    open_.push_back(Group{rows, {}});
    return open_.back();
  }

  // The HBM tensors node n reads: a view's source for a view.
  std::vector<std::string> tensors_read(const Node& n) const {
    std::vector<std::string> reads;
    for (const auto& a : n.args) {
      if (!a.is_tensor()) continue;
      const auto v = views_.find(a.tensor);
      reads.push_back(v == views_.end() ? a.tensor : v->second.source);
    }
    return reads;
  }

  // Slices read in place (docs/compiler.md): a slice that is no output, that no matmul
  // launch reads as a tensor (those take slices in themselves, or need the tensor) and
  // whose rows are more than one (a one-row operand is a broadcast column, loaded once)
  // is a view of its source's columns, which row and layout kernels read in place; a
  // slice of a view is a view of the same source.
  void plan_views(const MatmulFusion& fusion) {
    std::set<std::string> read_by_matmuls;
    for (const auto& [id, l] : fusion.launches)
      read_by_matmuls.insert(l.reads.begin(), l.reads.end());
    for (const auto& n : g_.nodes) {
      if (n.op != OpKind::slice || !live_.count(n.id) || fusion.absorbed.count(n.id) ||
          g_.is_output(n.id) || read_by_matmuls.count(n.id) || flat_rows(n.type.shape) <= 1)
        continue;
      const std::string& src = n.args[0].tensor;
      const auto inner = views_.find(src);
      views_[n.id] = inner == views_.end()
                         ? ColumnView{src, n.start}
                         : ColumnView{inner->second.source, inner->second.col0 + n.start};
    }
  }

  static bool is_layout_op(OpKind op) {
    return op == OpKind::transpose || op == OpKind::slice || op == OpKind::concat;
  }

  // Closes the open row launches that compute one of `tensors`.
  void flush_producers(const std::vector<std::string>& tensors) {
    for (std::size_t i = 0; i < open_.size(); ++i)
      for (const Node* o : open_[i].nodes)
        if (std::find(tensors.begin(), tensors.end(), o->id) != tensors.end()) {
          flush(i--);
          break;
        }
  }

  static bool reads_from(const Node& n, const Group& gr) {
    for (const Node* o : gr.nodes)
      for (const auto& a : n.args)
        if (a.tensor == o->id) return true;
    return false;
  }

  void flush(std::size_t i) {
    const std::vector<const Node*> nodes = std::move(open_[i].nodes);
    open_.erase(open_.begin() + static_cast<std::ptrdiff_t>(i));
    for (const auto& part : split_to_fit(nodes)) {
      const std::string name =
          fused_count_++ == 0 ? "fused" : "fused_" + std::to_string(fused_count_ - 1);
      add_rows(name, "fused", part);
    }
  }

  // Whether one row kernel can compute `nodes`: the semaphores it would declare are no
  // more than the target has (its other bounded resources adapt: fewer buffers, or column
  // chunks, when SBUF is short).
  bool fits_one_kernel(const std::vector<const Node*>& nodes) const {
    const RowProgram p = select_row_program(g_, "fused", nodes, leaving(nodes), views_);
    return row_kernel_semaphores(p, target_, limits_) <= limits_.semaphores;
  }

  // A group of row nodes as the row launches that compute it, in order (docs/compiler.md,
  // "Splitting a row launch"): the whole group when one kernel fits it; otherwise its
  // independent parts (nodes joined by a tensor one computes and another reads), taken in
  // graph order and packed, a launch closing before the part that would take it past the
  // target's semaphores; a part too big alone is cut node by node in graph order the same
  // way, its values crossing a cut stored to HBM and loaded by the next launch.
  std::vector<std::vector<const Node*>> split_to_fit(const std::vector<const Node*>& nodes) const {
    if (nodes.size() <= 1 || fits_one_kernel(nodes)) return {nodes};
    // Union-find over the group's nodes by their tensor edges.
    std::map<std::string, std::size_t> at;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      at[nodes[i]->id] = i;
    std::vector<std::size_t> root(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i)
      root[i] = i;
    auto find = [&](std::size_t i) {
      while (root[i] != i)
        i = root[i] = root[root[i]];
      return i;
    };
    for (std::size_t i = 0; i < nodes.size(); ++i)
      for (const auto& a : nodes[i]->args)
        if (auto j = at.find(a.tensor); a.is_tensor() && j != at.end())
          root[find(i)] = find(j->second);
    // Parts in the order of their first node; each part's nodes in graph order.
    std::vector<std::vector<const Node*>> parts;
    std::map<std::size_t, std::size_t> part_of_root;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const auto [it, added] = part_of_root.try_emplace(find(i), parts.size());
      if (added) parts.emplace_back();
      parts[it->second].push_back(nodes[i]);
    }
    std::vector<std::vector<const Node*>> out;
    std::vector<const Node*> open;
    auto merged = [&](const std::vector<const Node*>& more) {
      std::vector<const Node*> m = open;
      m.insert(m.end(), more.begin(), more.end());
      std::sort(m.begin(), m.end(),
                [&](const Node* x, const Node* y) { return at.at(x->id) < at.at(y->id); });
      return m;
    };
    auto close = [&] {
      if (!open.empty()) out.push_back(std::move(open));
      open.clear();
    };
    for (const auto& part : parts) {
      if (auto m = merged(part); fits_one_kernel(m)) {
        open = std::move(m);
        continue;
      }
      close();
      if (fits_one_kernel(part)) {
        open = part;
        continue;
      }
      for (const Node* n : part) {  // node by node; a lone node that does not fit fails
        if (auto m = merged({n}); open.empty() || fits_one_kernel(m)) {
          open = std::move(m);
          continue;
        }
        close();
        open = {n};
      }
    }
    close();
    return out;
  }

  // The results of `nodes` that leave the launch: graph outputs and tensors read by
  // (live) nodes outside it.
  std::vector<std::string> leaving(const std::vector<const Node*>& nodes) const {
    std::set<std::string> inside;
    for (const Node* n : nodes)
      inside.insert(n->id);
    // What live nodes outside the launch read, gathered once: one pass over the graph per
    // launch, not one per node of the launch (that was quadratic in a fused chain's length).
    std::set<std::string> read_outside;
    for (const auto& other : g_.nodes)
      if (!inside.count(other.id) && live_.count(other.id))
        for (const auto& a : other.args)
          if (a.is_tensor()) read_outside.insert(a.tensor);
    std::vector<std::string> out;
    for (const Node* n : nodes)
      if (g_.is_output(n->id) || read_outside.count(n->id)) out.push_back(n->id);
    return out;
  }

  std::string neff_name(const std::string& launch) const {
    char prefix[16];
    std::snprintf(prefix, sizeof prefix, "%02zu_", out_.launches.size());
    return prefix + launch + ".neff";
  }

  void add_rows(const std::string& name, const std::string& op,
                const std::vector<const Node*>& nodes) {
    const RowProgram p = select_row_program(g_, name, nodes, leaving(nodes), views_);
    finish(name, op, p.nodes,
           emit_row_kernel(p, g_.name + "_" + name, target_, limits_, g_.source));
  }

  void add_matmul(const Node& n) {
    finish(n.id, "matmul", {n.id},
           emit_matmul_kernel(g_, n, g_.name + "_" + n.id, target_, limits_));
  }

  void add_layout(const Node& n) {
    finish(n.id, op_name(n.op), {n.id},
           emit_layout_kernel(g_, n, g_.name + "_" + n.id, target_, limits_, views_));
  }

  void add_fused_matmul(const MatmulLaunch& l) {
    const std::string& name = l.nodes[0];
    try {
      if (l.attention) {
        AttentionSpec a = l.attn;
        a.kernel_name = g_.name + "_" + name;
        a.target = target_;
        finish(name, "attention", l.nodes, emit_attention(a, limits_));
      } else {
        GemmSpec s = l.gemm;
        s.kernel_name = g_.name + "_" + name;
        s.target = target_;
        finish(name, "matmul", l.nodes, emit_gemm(s, limits_));
      }
    } catch (const Error& e) {
      throw Error(g_.source + ": node '" + name + "': " + e.what());
    }
  }

  void finish(const std::string& name, const std::string& op, std::vector<std::string> nodes,
              isa::Kernel k) {
    // A fused launch's message lists its nodes, so a shape problem names the graph node.
    std::string where = g_.source + ": launch '" + name + "'";
    if (nodes.size() != 1 || nodes[0] != name) {
      where += " (nodes";
      for (std::size_t i = 0; i < nodes.size(); ++i)
        where += (i ? ", " : " ") + nodes[i];
      where += ")";
    }
    isa::validate(k, limits_, where);
    CompiledLaunch l;
    l.name = name;
    l.neff = neff_name(name);
    l.op = op;
    l.nodes = std::move(nodes);
    l.kernel = std::move(k);
    out_.launches.push_back(std::move(l));
  }

  void list_tensors() {
    std::set<std::string> in_hbm;
    for (const auto& l : out_.launches)
      for (const auto& t : l.kernel.tensors)
        in_hbm.insert(t.name);
    const std::set<std::string> read = read_inputs(g_, live_);
    for (const auto& in : g_.inputs)
      if (read.count(in.name))
        out_.tensors.push_back({in.name, in.type, TensorPlace::input});
      else
        warn("input '" + in.name + "': no " +
             std::string(out_.mode == Mode::fused ? "node an output needs" : "node") +
             " reads it; the program does not list it and needs no value for it");
    for (const auto& n : g_.nodes)
      if (g_.is_output(n.id))
        out_.tensors.push_back({n.id, n.type, TensorPlace::output});
      else if (in_hbm.count(n.id))
        out_.tensors.push_back({n.id, n.type, TensorPlace::intermediate});
  }

  const Graph& g_;
  const std::string& target_;
  const params::TargetLimits& limits_;
  std::ostream* diagnostics_;
  CompiledProgram out_;
  std::set<std::string> live_;
  std::vector<Group> open_;  // in the order they were opened
  ColumnViews views_;        // fused mode's slices read in place
  int fused_count_ = 0;
};

const char* place_name(TensorPlace p) {
  switch (p) {
    case TensorPlace::input:
      return "input";
    case TensorPlace::output:
      return "output";
    case TensorPlace::intermediate:
      return "intermediate";
  }
  return "?";
}

}  // namespace

std::string mode_name(Mode m) {
  return m == Mode::eager ? "eager" : "fused";
}

std::optional<Mode> parse_mode(const std::string& name) {
  if (name == "eager") return Mode::eager;
  if (name == "fused") return Mode::fused;
  return std::nullopt;
}

CompiledProgram compile(const Graph& g, Mode mode, const std::string& target,
                        const params::TargetLimits& limits, std::ostream* diagnostics) {
  return Partitioner(g, mode, target, limits, diagnostics).run();
}

CompiledProgram compile(const Graph& g, Mode mode, const std::string& target,
                        const params::TargetLimits& limits) {
  return compile(g, mode, target, limits, &std::cerr);
}

std::string launch_json(const CompiledProgram& p) {
  nlohmann::ordered_json doc;
  doc["format"] = "neuronsim-launch-sequence";
  doc["version"] = 1;
  doc["program"] = p.program;
  doc["mode"] = mode_name(p.mode);
  doc["tensors"] = nlohmann::ordered_json::array();
  for (const auto& t : p.tensors) {
    nlohmann::ordered_json j;
    j["name"] = t.name;
    j["dtype"] = std::string(isa::dtype_name(t.type.dtype));
    j["shape"] = t.type.shape;
    j["role"] = place_name(t.role);
    doc["tensors"].push_back(j);
  }
  doc["launches"] = nlohmann::ordered_json::array();
  for (const auto& l : p.launches) {
    nlohmann::ordered_json j;
    j["name"] = l.name;
    j["neff"] = l.neff;
    j["op"] = l.op;
    j["nodes"] = l.nodes;
    doc["launches"].push_back(j);
  }
  return doc.dump(2) + "\n";
}

}  // namespace neuronsim::compiler

#pragma once
// Names for a generated kernel's buffers that no other buffer of the kernel has taken:
// `base`, else base_1, base_2, ... (the builder refuses a name given twice).
#include <set>
#include <string>

namespace neuronsim::compiler {

class FreshNames {
 public:
  // Marks `name` as taken (a tensor named by the graph).
  void take(const std::string& name) { taken_.insert(name); }
  std::string operator()(const std::string& base) {
    std::string name = base;
    for (int n = 1; taken_.count(name); ++n)
      name = base + "_" + std::to_string(n);
    taken_.insert(name);
    return name;
  }

 private:
  std::set<std::string> taken_;
};

}  // namespace neuronsim::compiler

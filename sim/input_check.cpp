#include "sim/input_check.hpp"

#include <vector>

#include "base/error.hpp"
#include "base/text.hpp"

namespace neuronsim::sim {

void check_given_inputs(const isa::Kernel& k, const TensorBytes& inputs,
                        const std::string& source) {
  auto input = [&](const std::string& name) -> const isa::HbmTensor* {
    for (const auto& t : k.tensors)
      if (t.name == name && t.role == isa::TensorRole::input) return &t;
    return nullptr;
  };
  std::vector<std::string> unknown;
  for (const auto& [name, bytes] : inputs)
    if (!input(name)) unknown.push_back(name);
  if (!unknown.empty()) throw Error(source + ": no input tensor named " + quoted_list(unknown));
  for (const auto& [name, bytes] : inputs) {
    const isa::HbmTensor& t = *input(name);
    if (bytes.size() != t.bytes())
      throw Error(source + ": input '" + name + "' has " + std::to_string(bytes.size()) +
                  " bytes, the tensor needs " + std::to_string(t.bytes()));
  }
}

}  // namespace neuronsim::sim

#include "neff/neff.hpp"
#include "neuronsim/kernel.hpp"

namespace neuronsim {

std::shared_ptr<const Kernel> load_neff(const std::string& path) {
  return std::make_shared<const Kernel>(neff::read_file(path).kernel);
}

std::shared_ptr<const Kernel> load_neff(const std::vector<std::uint8_t>& bytes,
                                        const std::string& name) {
  return std::make_shared<const Kernel>(neff::read(bytes, name).kernel);
}

}  // namespace neuronsim

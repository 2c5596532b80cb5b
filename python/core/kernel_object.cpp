#include "python/core/kernel_object.hpp"

#include <string_view>
#include <utility>

#include "base/file_io.hpp"

namespace neuronsim::python {

KernelObject::KernelObject(isa::Kernel kernel, std::string source)
    : kernel_(std::make_shared<const isa::Kernel>(std::move(kernel))), source_(std::move(source)) {}

KernelObject::KernelObject(std::vector<std::uint8_t> neff_bytes, const std::string& path)
    : source_(path), neff_bytes_(std::move(neff_bytes)) {
  neff_ = std::make_shared<const neff::Neff>(neff::read(neff_bytes_, path));
  // Shares the decoded NEFF's kernel: no copy.
  kernel_ = std::shared_ptr<const isa::Kernel>(neff_, &neff_->kernel);
}

void KernelObject::make_neff() const {
  if (neff_) return;
  neff_bytes_ = neff::write(*kernel_);
  neff_ = std::make_shared<const neff::Neff>(neff::read(neff_bytes_, source_));
}

const std::vector<std::uint8_t>& KernelObject::neff_bytes() const {
  make_neff();
  return neff_bytes_;
}

std::shared_ptr<const neff::Neff> KernelObject::neff() const {
  make_neff();
  return neff_;
}

std::string KernelObject::hash() const {
  return neff::hash_hex(neff()->header);
}

void KernelObject::save(const std::string& path) const {
  const auto& bytes = neff_bytes();
  write_file_atomic(path,
                    std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

}  // namespace neuronsim::python

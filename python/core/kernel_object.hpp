#pragma once
// neuronsim.Kernel: a kernel (isa::Kernel) the module can run, print and save, with its
// NEFF bytes made once, when first needed (hash, save, profiles).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "isa/kernel.hpp"
#include "neff/neff.hpp"

namespace neuronsim::python {

class KernelObject {
 public:
  // An assembled or built kernel; `source` names it in messages.
  KernelObject(isa::Kernel kernel, std::string source);
  // A NEFF file's bytes, decoded.
  KernelObject(std::vector<std::uint8_t> neff_bytes, const std::string& path);

  const isa::Kernel& kernel() const { return *kernel_; }
  std::shared_ptr<const isa::Kernel> shared() const { return kernel_; }
  const std::string& source() const { return source_; }
  // The NEFF (bytes and decoded) of this kernel: a profile keeps the bytes and runs the
  // decoded kernel, as `neuronsim run --profile-dir` does.
  const std::vector<std::uint8_t>& neff_bytes() const;
  std::shared_ptr<const neff::Neff> neff() const;
  std::string hash() const;  // hex SHA-256 of the NEFF payload
  void save(const std::string& path) const;

 private:
  void make_neff() const;
  std::shared_ptr<const isa::Kernel> kernel_;
  std::string source_;
  mutable std::vector<std::uint8_t> neff_bytes_;
  mutable std::shared_ptr<const neff::Neff> neff_;
};

// An assembled (or built) kernel made ready as `neuronsim asm` makes it: the text of each
// source file it declares without one read from the file's path (when a regular file
// within the source table's limits: isa/kernel.hpp), validated for its own target unless
// `target` is given (then recorded in it). `name` names it in messages.
KernelObject checked_kernel(isa::Kernel k, const std::string& name,
                            const std::optional<std::string>& target);

}  // namespace neuronsim::python

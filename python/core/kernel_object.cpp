#include "python/core/kernel_object.hpp"

#include <filesystem>
#include <fstream>
#include <string_view>
#include <utility>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "config/target_config.hpp"
#include "validate/validate.hpp"

namespace neuronsim::python {

namespace {

// The text of each source file the kernel declares without one (`source NAME "PATH"`, as
// neuronsim.nki's tracer writes them: docs/assembly.md "Source locations"), read from PATH
// when it is a regular file that fits the table's limits; otherwise the text stays empty
// (the locations still name the lines). Python code assembling in its own process reads
// the files it names, nothing more; the CLI's assembler never reads them.
void fill_source_texts(isa::Kernel& k) {
  std::size_t total = 0;
  for (const isa::SourceFile& f : k.sources)
    total += f.text.size();
  for (isa::SourceFile& f : k.sources) {
    if (!f.text.empty()) continue;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(f.path, ec)) continue;
    const std::uintmax_t size = std::filesystem::file_size(f.path, ec);
    if (ec || size > isa::kMaxSourceTextBytes || total + size > isa::kMaxSourceTotalBytes) continue;
    std::ifstream in(f.path, std::ios::binary);
    std::string text(static_cast<std::size_t>(size), '\0');
    if (!in.read(text.data(), static_cast<std::streamsize>(size))) continue;
    f.text = std::move(text);
    total += f.text.size();
  }
}

}  // namespace

KernelObject checked_kernel(isa::Kernel k, const std::string& name,
                            const std::optional<std::string>& target) {
  fill_source_texts(k);
  const std::string t = target ? *target : k.target;
  if (t.empty()) throw Error(name + ": kernel '" + k.name + "' names no target; give target=");
  const config::TargetConfig config = config::load_target(t);
  if (target) k.target = config.name;
  isa::validate(k, config.limits, name);
  return KernelObject(std::move(k), name);
}

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

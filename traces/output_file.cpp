#include "traces/output_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <unistd.h>

#include "base/error.hpp"
#include "base/file_io.hpp"

namespace neuronsim::traces {

namespace {
constexpr std::size_t kBufferBytes = 1 << 20;  // bounded memory whatever the output size
}

OutputFile::OutputFile(std::string path) : path_(std::move(path)), buffer_(kBufferBytes) {
  const TempFile tmp = create_temp_beside(path_);  // unpredictable name, O_EXCL, no links
  tmp_path_ = tmp.path;
  direct_ = tmp.direct;
  file_ = ::fdopen(tmp.fd, "wb");
  if (!file_) {
    const std::string reason = std::strerror(errno);
    ::close(tmp.fd);
    if (!direct_) std::remove(tmp_path_.c_str());
    throw Error(path_ + ": cannot write: " + reason);
  }
}

OutputFile::~OutputFile() {
  abandon();
}

void OutputFile::fail(const std::string& what) {
  const std::string reason = std::strerror(errno);
  abandon();
  throw Error(path_ + ": " + what + ": " + reason);
}

void OutputFile::flush() {
  if (!file_) throw Error(path_ + ": write after the file was closed");
  if (used_ && std::fwrite(buffer_.data(), 1, used_, file_) != used_) fail("write failed");
  written_ += used_;
  used_ = 0;
}

void OutputFile::flush_and_write(const void* data, std::size_t size) {
  flush();
  if (size >= buffer_.size()) {
    if (std::fwrite(data, 1, size, file_) != size) fail("write failed");
    written_ += size;
  } else {
    std::copy_n(static_cast<const char*>(data), size, buffer_.data());
    used_ = size;
  }
}

void OutputFile::commit() {
  flush();
  const bool closed_ok = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!closed_ok) {
    const std::string reason = std::strerror(errno);
    if (!direct_) std::remove(tmp_path_.c_str());
    throw Error(path_ + ": write failed: " + reason);
  }
  if (!direct_) commit_temp(tmp_path_, path_);
}

void OutputFile::abandon() {
  if (!file_) return;
  std::fclose(file_);
  file_ = nullptr;
  if (!direct_) std::remove(tmp_path_.c_str());
}

}  // namespace neuronsim::traces

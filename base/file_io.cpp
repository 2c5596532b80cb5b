#include "base/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

#include "base/error.hpp"

namespace neuronsim {

namespace {

std::string system_reason() {
  return std::strerror(errno);
}

// Closes a descriptor on every path out of a function.
struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// Opens `path` for reading without blocking (a FIFO with no writer would block open()
// itself) and checks that it is a regular file within the limit; returns its size.
std::uint64_t open_regular(const std::string& path, Limit kind, Descriptor& d) {
  d.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (d.fd < 0) throw Error(path + ": cannot open: " + system_reason());
  struct stat st {};
  if (::fstat(d.fd, &st) != 0) throw Error(path + ": cannot read: " + system_reason());
  if (S_ISDIR(st.st_mode)) throw Error(path + ": is a directory");
  if (!S_ISREG(st.st_mode))
    throw Error(path + ": not a regular file (a device, FIFO or socket is never read)");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  check_limit(kind, size, path + ": file size");
  return size;
}

// The process's umask (read once: umask() can only be read by setting it).
mode_t current_umask() {
  static const mode_t mask = [] {
    const mode_t m = ::umask(0);
    ::umask(m);
    return m;
  }();
  return mask;
}
// The permissions a plain open(O_CREAT, 0666) would give.
mode_t created_file_mode() {
  return static_cast<mode_t>(0666 & ~current_umask());
}

std::string temp_template(const std::string& path) {
  const std::filesystem::path p(path);
  const std::filesystem::path dir = p.has_parent_path() ? p.parent_path() : ".";
  return (dir / ("." + p.filename().string() + ".tmp-neuronsim-XXXXXX")).string();
}

}  // namespace

std::uint64_t check_input_file(const std::string& path, Limit kind) {
  return InputFile(path, kind).size();
}

std::vector<std::uint8_t> read_file(const std::string& path, Limit kind) {
  const InputFile file(path, kind);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(file.size()));
  file.read_at(0, bytes.data(), bytes.size());
  return bytes;
}

InputFile::InputFile(const std::string& path, Limit kind) : path_(path) {
  Descriptor d;
  size_ = open_regular(path, kind, d);
  fd_ = std::exchange(d.fd, -1);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void InputFile::read_at(std::uint64_t offset, void* data, std::size_t bytes) const {
  auto* out = static_cast<std::uint8_t*>(data);
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::pread(fd_, out + done, bytes - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(path_ + ": read failed: " + system_reason());
    if (n == 0) throw Error(path_ + ": the file shrank while it was read");
    done += static_cast<std::size_t>(n);
  }
}

std::string read_text_file(const std::string& path, Limit kind) {
  auto bytes = read_file(path, kind);
  return std::string(bytes.begin(), bytes.end());
}

bool is_stream_path(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return false;
  return S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
}

TempFile create_temp_beside(const std::string& path) {
  if (is_stream_path(path)) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) throw Error(path + ": cannot write: " + system_reason());
    return {fd, path, true};
  }
  std::error_code ec;
  if (std::filesystem::is_directory(std::filesystem::symlink_status(path, ec)))
    throw Error(path + ": cannot write: is a directory");
  std::string name = temp_template(path);
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) throw Error(path + ": cannot write: " + system_reason());
  if (::fchmod(fd, created_file_mode()) != 0) {
    const std::string reason = system_reason();
    ::close(fd);
    ::unlink(name.c_str());
    throw Error(path + ": cannot write: " + reason);
  }
  return {fd, name, false};
}

std::string create_temp_dir_beside(const std::string& path) {
  std::string name = temp_template(path);
  if (!::mkdtemp(name.data())) throw Error(path + ": cannot create: " + system_reason());
  ::chmod(name.c_str(), static_cast<mode_t>(0777 & ~current_umask()));  // mkdtemp gives 0700
  return name;
}

void commit_temp(const std::string& tmp, const std::string& path) {
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string reason = system_reason();
    std::remove(tmp.c_str());
    throw Error(path + ": cannot write: " + reason);
  }
}

AtomicFile::AtomicFile(const std::string& path) : path_(path) {
  const TempFile tmp = create_temp_beside(path);
  fd_ = tmp.fd;
  temp_path_ = tmp.path;
  direct_ = tmp.direct;
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_path_.empty()) discard();
}

// A stream target is written in place: never unlinked, never renamed over.
void AtomicFile::discard() {
  if (!direct_) ::unlink(temp_path_.c_str());
  temp_path_.clear();
}

void AtomicFile::write(const void* data, std::size_t size) {
  if (fd_ < 0) throw Error(path_ + ": write failed: the file is already closed");
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd_, bytes + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string reason = system_reason();
      ::close(std::exchange(fd_, -1));
      discard();
      throw Error(path_ + ": write failed: " + reason);
    }
    done += static_cast<std::size_t>(n);
  }
}

void AtomicFile::commit() {
  if (fd_ < 0) throw Error(path_ + ": write failed: the file is already closed");
  if (::close(std::exchange(fd_, -1)) != 0) {
    const std::string reason = system_reason();
    discard();
    throw Error(path_ + ": write failed: " + reason);
  }
  const std::string temp = std::exchange(temp_path_, std::string());
  if (!direct_) commit_temp(temp, path_);  // removes the temporary if it fails
}

void write_file_atomic(const std::string& path, const void* data, std::size_t size) {
  AtomicFile file(path);
  file.write(data, size);
  file.commit();
}

}  // namespace neuronsim

#pragma once
// Whole-file reads and all-or-nothing writes.
//
// A read accepts only a regular file no larger than its kind's limit (base/limits.hpp): a
// directory, a device (/dev/zero), a FIFO or a socket is refused before a byte is read,
// so an input can neither block nor fill memory.
//
// An output is written to a temporary file created in the target's directory under an
// unpredictable name (mkstemp: O_CREAT|O_EXCL, so a planted file or symlink is never
// followed or reused) and renamed into place, so an error never leaves a half-written
// file and never writes through a link. rename() replaces a symlink at the target itself,
// not the file it points to.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/limits.hpp"

namespace neuronsim {

// Throws neuronsim::Error naming the path and the reason. `kind` is one of the
// *_file_bytes limits.
std::vector<std::uint8_t> read_file(const std::string& path, Limit kind);
std::string read_text_file(const std::string& path, Limit kind);
// The size of `path` once it is known to be a regular file within `kind`'s limit (for
// readers that stream the file themselves).
std::uint64_t check_input_file(const std::string& path, Limit kind);

// A regular file within `kind`'s limit (the checks of read_file), open for reading parts
// of it where they are needed: a large file is read straight into its destination, with
// no whole-file buffer.
class InputFile {
 public:
  InputFile(const std::string& path, Limit kind);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  std::uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // Exactly `bytes` bytes from `offset`; an error names the file if it has fewer.
  void read_at(std::uint64_t offset, void* data, std::size_t bytes) const;

 private:
  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

void write_file_atomic(const std::string& path, const void* data, std::size_t size);
inline void write_file_atomic(const std::string& path, std::string_view text) {
  write_file_atomic(path, text.data(), text.size());
}
inline void write_file_atomic(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  write_file_atomic(path, bytes.data(), bytes.size());
}

// An all-or-nothing output written in parts (a large output need not be built whole in
// memory first): nothing appears at `path` until commit(); destroyed uncommitted, or after
// an error, it leaves nothing behind. write_file_atomic is one write and a commit.
class AtomicFile {
 public:
  explicit AtomicFile(const std::string& path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, std::size_t size);
  void commit();

 private:
  void discard();
  std::string path_;
  int fd_ = -1;
  std::string temp_path_;
  bool direct_ = false;  // a stream written in place (see TempFile)
};

// A new, empty temporary file beside `path` (same directory, so rename() is atomic), open
// for writing, with the permissions a plain create would give (0666 & ~umask). When `path`
// is a stream (a character device, FIFO or socket, directly or through a symlink:
// /dev/null, /dev/stdout), there is nothing to replace: `fd` writes into it and `direct`
// is set, and the caller neither renames nor removes anything (replacing /dev/null with
// a file, as root, would break the machine).
struct TempFile {
  int fd = -1;
  std::string path;
  bool direct = false;
};
TempFile create_temp_beside(const std::string& path);
// Whether `path` names a stream (see TempFile), following symlinks.
bool is_stream_path(const std::string& path);
// A new temporary directory beside `path` (mkdtemp), for outputs that are directories.
std::string create_temp_dir_beside(const std::string& path);
// Renames `tmp` onto `path`; on failure removes `tmp` and throws naming `path`.
void commit_temp(const std::string& tmp, const std::string& path);

}  // namespace neuronsim

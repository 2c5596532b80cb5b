#pragma once
// A streaming, all-or-nothing output file: bytes go through a fixed buffer to a temporary
// file beside the target (base/file_io.hpp's create_temp_beside), which is renamed into place by
// commit(). An error, abandon() or destruction without commit() removes the temporary, so a reader
// never sees half a file. (base/file_io.hpp's write_file_atomic does the same for an output that is
// already whole.)
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace neuronsim::traces {

class OutputFile {
 public:
  explicit OutputFile(std::string path);  // throws neuronsim::Error naming the path
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(const void* data, std::size_t size) {
    if (size > buffer_.size() - used_)
      flush_and_write(data, size);
    else {
      std::copy_n(static_cast<const char*>(data), size, buffer_.data() + used_);
      used_ += size;
    }
  }
  void write(std::string_view text) { write(text.data(), text.size()); }
  void put(char c) {
    if (used_ == buffer_.size()) flush();
    buffer_[used_++] = c;
  }
  void commit();   // flush, close and rename into place
  void abandon();  // remove the temporary; no-op once committed or abandoned
  std::size_t bytes_written() const { return written_ + used_; }
  const std::string& path() const { return path_; }

 private:
  void flush();
  void flush_and_write(const void* data, std::size_t size);
  [[noreturn]] void fail(const std::string& what);

  std::string path_, tmp_path_;
  bool direct_ = false;  // path_ is a stream (/dev/null, a FIFO): written in place
  std::FILE* file_ = nullptr;
  std::vector<char> buffer_;
  std::size_t used_ = 0;
  std::size_t written_ = 0;
};

}  // namespace neuronsim::traces

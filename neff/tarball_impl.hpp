#pragma once
// The NEFF payload: a gzip-compressed ustar archive, written deterministically (sorted
// entries, mtime 0, owner 0/0, no gzip timestamp) and read with hard bounds, so that a
// hostile payload can neither exhaust memory nor hide unexpected entries.
#include <cstdint>
#include <string>
#include <vector>

struct archive;

namespace neuronsim::neff::detail {

// A whole decompressed payload may hold at most this many bytes.
inline constexpr std::uint64_t kMaxDecompressedBytes = std::uint64_t{1} << 30;  // 1 GiB
// deflate cannot expand data by more than about 1032:1, so no honest entry is bigger
// than this factor times the compressed payload (plus the tar headers' slack).
inline constexpr std::uint64_t kMaxDeflateRatio = 1032;
inline constexpr std::uint64_t kTarSlackBytes = 64 * 1024;

// One entry to write. A path ending in '/' is a directory (and has no data).
struct TarEntry {
  std::string path;
  std::vector<std::uint8_t> data;
};

// Sorts the entries by path and writes them as a gzip'd ustar archive.
std::vector<std::uint8_t> pack_tarball(std::vector<TarEntry> entries);

// Reads the entries of a gzip'd tar archive in memory, in archive order.
class TarReader {
 public:
  // `max_total` bounds the sum of all entries' sizes (a parameter so tests can use a
  // small one).
  TarReader(const std::uint8_t* data, std::size_t size, std::string source,
            std::uint64_t max_total = kMaxDecompressedBytes);
  ~TarReader();
  TarReader(const TarReader&) = delete;
  TarReader& operator=(const TarReader&) = delete;

  // Moves to the next entry; false after the last one. Throws neuronsim::Error for a
  // damaged archive, an entry that is not a regular file or directory, or an entry whose
  // size breaks the per-entry or total bounds.
  bool next();
  const std::string& path() const { return path_; }  // directories end in '/'
  bool is_directory() const { return directory_; }
  std::uint64_t size() const { return size_; }
  // The current entry's bytes. Memory grows with the bytes actually decompressed, not
  // with the size the entry claims.
  std::vector<std::uint8_t> read();

 private:
  [[noreturn]] void fail(const std::string& reason) const;
  struct archive* archive_ = nullptr;
  std::string source_;
  std::uint64_t max_total_ = 0;
  std::uint64_t entry_cap_ = 0;
  std::uint64_t total_ = 0;
  std::string path_;
  bool directory_ = false;
  std::uint64_t size_ = 0;
};

}  // namespace neuronsim::neff::detail

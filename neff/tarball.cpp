#include <archive.h>
#include <archive_entry.h>
#include <zlib.h>

#include <algorithm>
#include <memory>

#include "base/error.hpp"
#include "neff/tarball_impl.hpp"

namespace neuronsim::neff::detail {

namespace {

la_ssize_t append_to_vector(struct archive*, void* client, const void* buffer, size_t length) {
  auto* out = static_cast<std::vector<std::uint8_t>*>(client);
  const auto* bytes = static_cast<const std::uint8_t*>(buffer);
  out->insert(out->end(), bytes, bytes + length);
  return static_cast<la_ssize_t>(length);
}

struct WriteArchiveDeleter {
  void operator()(struct archive* a) const { archive_write_free(a); }
};
struct EntryDeleter {
  void operator()(struct archive_entry* e) const { archive_entry_free(e); }
};

void check_write(struct archive* a, int status, const char* what) {
  if (status != ARCHIVE_OK)
    throw Error(std::string("writing the NEFF payload: ") + what + ": " +
                (archive_error_string(a) ? archive_error_string(a) : "libarchive error"));
}

// The payload must be exactly one gzip member whose CRC-32 and length trailer match its
// data, with nothing after it. libarchive reads an uncompressed tar just as well (its
// "none" filter is always on) and does not check the gzip trailer, so zlib does that here,
// in one pass through a fixed buffer, stopping once more than `max_bytes` come out.
void check_gzip_stream(const std::uint8_t* data, std::size_t size, std::uint64_t max_bytes,
                       const std::string& source) {
  if (size < 18 || data[0] != 0x1f || data[1] != 0x8b)
    throw Error(source + ": payload is not a gzip tarball (not gzip-compressed)");
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK)  // 15: the largest window; +16: gzip wrapper only
    throw Error(source + ": cannot start decompressing the payload (zlib)");
  std::vector<std::uint8_t> sink(256 * 1024);
  z.next_in = const_cast<Bytef*>(data);
  std::uint64_t out = 0;
  int status = Z_OK;
  std::string problem;
  while (status == Z_OK) {
    // zlib's avail_in is 32 bits: feed at most 1 GiB at a time.
    if (z.avail_in == 0) {
      const std::size_t consumed = static_cast<std::size_t>(z.next_in - data);
      z.avail_in = static_cast<uInt>(std::min<std::size_t>(size - consumed, 1u << 30));
      if (z.avail_in == 0) {
        problem = "the gzip stream is truncated";
        break;
      }
    }
    z.next_out = sink.data();
    z.avail_out = static_cast<uInt>(sink.size());
    status = inflate(&z, Z_NO_FLUSH);
    out += sink.size() - z.avail_out;
    if (out > max_bytes)
      problem = "decompresses to more than " + std::to_string(max_bytes) + " bytes";
    if (!problem.empty()) break;
  }
  if (problem.empty() && status != Z_STREAM_END)
    problem = status == Z_DATA_ERROR ? std::string("damaged gzip data or a bad CRC-32/length (") +
                                           (z.msg ? z.msg : "zlib") + ")"
                                     : "the gzip stream is truncated";
  const std::size_t consumed = static_cast<std::size_t>(z.next_in - data);
  inflateEnd(&z);
  if (!problem.empty()) throw Error(source + ": payload: " + problem);
  if (consumed != size)
    throw Error(source + ": payload: " + std::to_string(size - consumed) +
                " bytes after the end of the gzip stream");
}

}  // namespace

std::vector<std::uint8_t> pack_tarball(std::vector<TarEntry> entries) {
  std::stable_sort(entries.begin(), entries.end(),
                   [](const TarEntry& x, const TarEntry& y) { return x.path < y.path; });
  std::vector<std::uint8_t> out;
  std::unique_ptr<struct archive, WriteArchiveDeleter> a(archive_write_new());
  if (!a) throw Error("writing the NEFF payload: out of memory");
  check_write(a.get(), archive_write_add_filter_gzip(a.get()), "gzip filter");
  // No gzip timestamp: the same kernel must give the same bytes.
  check_write(a.get(), archive_write_set_filter_option(a.get(), "gzip", "timestamp", nullptr),
              "gzip timestamp option");
  check_write(a.get(), archive_write_set_format_ustar(a.get()), "ustar format");
  // No padding of the compressed stream to 10 KiB blocks.
  check_write(a.get(), archive_write_set_bytes_in_last_block(a.get(), 1), "block size");
  check_write(a.get(), archive_write_open(a.get(), &out, nullptr, append_to_vector, nullptr),
              "open");
  for (const TarEntry& e : entries) {
    std::unique_ptr<struct archive_entry, EntryDeleter> entry(archive_entry_new());
    const bool dir = !e.path.empty() && e.path.back() == '/';
    archive_entry_set_pathname(entry.get(), e.path.c_str());
    archive_entry_set_filetype(entry.get(), dir ? AE_IFDIR : AE_IFREG);
    archive_entry_set_perm(entry.get(), dir ? 0755 : 0644);
    archive_entry_set_size(entry.get(), dir ? 0 : static_cast<la_int64_t>(e.data.size()));
    archive_entry_set_mtime(entry.get(), 0, 0);
    archive_entry_set_uid(entry.get(), 0);
    archive_entry_set_gid(entry.get(), 0);
    check_write(a.get(), archive_write_header(a.get(), entry.get()), e.path.c_str());
    if (!dir && !e.data.empty()) {
      la_ssize_t n = archive_write_data(a.get(), e.data.data(), e.data.size());
      if (n != static_cast<la_ssize_t>(e.data.size()))
        check_write(a.get(), ARCHIVE_FATAL, e.path.c_str());
    }
  }
  check_write(a.get(), archive_write_close(a.get()), "close");
  return out;
}

TarReader::TarReader(const std::uint8_t* data, std::size_t size, std::string source,
                     std::uint64_t max_total)
    : source_(std::move(source)), max_total_(max_total) {
  entry_cap_ =
      std::min<std::uint64_t>(max_total_, std::uint64_t{size} * kMaxDeflateRatio + kTarSlackBytes);
  check_gzip_stream(data, size, max_total_ + kTarSlackBytes + (16u << 20), source_);
  archive_ = archive_read_new();
  if (!archive_) throw Error(source_ + ": out of memory reading the payload");
  // Only gzip and tar: nothing else may hide in a NEFF payload.
  if (archive_read_support_filter_gzip(archive_) != ARCHIVE_OK ||
      archive_read_support_format_tar(archive_) != ARCHIVE_OK ||
      archive_read_open_memory(archive_, data, size) != ARCHIVE_OK) {
    std::string reason =
        archive_error_string(archive_) ? archive_error_string(archive_) : "unreadable";
    archive_read_free(archive_);
    archive_ = nullptr;
    throw Error(source_ + ": payload is not a gzip tarball: " + reason);
  }
}

TarReader::~TarReader() {
  if (archive_) archive_read_free(archive_);
}

void TarReader::fail(const std::string& reason) const {
  throw Error(source_ + ": payload: " + reason);
}

bool TarReader::next() {
  struct archive_entry* entry = nullptr;
  int status = archive_read_next_header(archive_, &entry);
  if (status == ARCHIVE_EOF) return false;
  if (status != ARCHIVE_OK) {
    const char* why = archive_error_string(archive_);
    fail(std::string("damaged tarball: ") + (why ? why : "unreadable entry header"));
  }
  const char* name = archive_entry_pathname(entry);
  if (!name || !*name) fail("an entry has no usable name");
  path_ = name;
  const auto type = archive_entry_filetype(entry);
  directory_ = type == AE_IFDIR;
  if (directory_ && path_.back() != '/') path_ += '/';
  if ((type != AE_IFREG && !directory_) || archive_entry_hardlink(entry))
    fail("entry '" + path_ + "' is not a regular file or directory");
  if (!archive_entry_size_is_set(entry) || archive_entry_size(entry) < 0)
    fail("entry '" + path_ + "' has no size");
  size_ = static_cast<std::uint64_t>(archive_entry_size(entry));
  if (size_ > entry_cap_)
    fail("entry '" + path_ + "' claims " + std::to_string(size_) +
         " bytes, more than this payload can hold (" + std::to_string(entry_cap_) + ")");
  total_ += size_;
  if (total_ > max_total_)
    fail("entries add up to more than " + std::to_string(max_total_) + " decompressed bytes");
  return true;
}

std::vector<std::uint8_t> TarReader::read() {
  std::vector<std::uint8_t> out;
  constexpr std::uint64_t kMinChunk = 64 * 1024;
  // Up to 16 MiB is reserved at once (bounded whatever the entry claims); beyond that the
  // buffer doubles only as bytes actually arrive.
  constexpr std::uint64_t kMaxUpfront = 16u << 20;
  out.reserve(std::min(size_, kMaxUpfront));
  while (out.size() < size_) {
    // Grow geometrically with what has arrived, never straight to the claimed size.
    const std::uint64_t chunk =
        std::min<std::uint64_t>(size_ - out.size(), std::max<std::uint64_t>(kMinChunk, out.size()));
    const std::size_t old = out.size();
    out.resize(old + chunk);
    la_ssize_t n = archive_read_data(archive_, out.data() + old, chunk);
    if (n < 0) {
      const char* why = archive_error_string(archive_);
      fail("entry '" + path_ + "': " + (why ? why : "damaged data"));
    }
    if (n == 0)
      fail("entry '" + path_ + "' is truncated: " + std::to_string(old) + " of " +
           std::to_string(size_) + " bytes");
    out.resize(old + static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace neuronsim::neff::detail

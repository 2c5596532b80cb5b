#include "io/npz.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <filesystem>
#include <memory>
#include <set>

#include "base/error.hpp"

namespace neuronsim::io {

namespace {

struct ReadDeleter {
  void operator()(struct archive* a) const { archive_read_free(a); }
};
struct WriteDeleter {
  void operator()(struct archive* a) const { archive_write_free(a); }
};
struct EntryDeleter {
  void operator()(struct archive_entry* e) const { archive_entry_free(e); }
};

std::string reason(struct archive* a) {
  const char* s = archive_error_string(a);
  return s ? s : "libarchive error";
}

constexpr std::string_view kSuffix = ".npy";

// Reads one member's data, never more than `limit` bytes.
std::vector<std::uint8_t> read_member(struct archive* a, const std::string& where,
                                      std::uint64_t limit) {
  std::vector<std::uint8_t> data;
  std::uint8_t chunk[64 * 1024];
  for (;;) {
    const la_ssize_t n = archive_read_data(a, chunk, sizeof chunk);
    if (n < 0) throw Error(where + ": damaged member: " + reason(a));
    if (n == 0) break;
    if (data.size() + static_cast<std::uint64_t>(n) > limit)
      throw Error(where + ": larger than the " + std::to_string(limit) +
                  " bytes its tensor can take");
    data.insert(data.end(), chunk, chunk + n);
  }
  return data;
}

la_ssize_t append_to_vector(struct archive*, void* client, const void* buffer, size_t length) {
  auto* out = static_cast<std::vector<std::uint8_t>*>(client);
  const auto* p = static_cast<const std::uint8_t*>(buffer);
  out->insert(out->end(), p, p + length);
  return static_cast<la_ssize_t>(length);
}

void check_write(struct archive* a, int status, const char* what) {
  if (status != ARCHIVE_OK) throw Error(std::string("npz writer: ") + what + ": " + reason(a));
}

}  // namespace

std::vector<NpzMember> read_npz(const std::string& path, const NpzMemberLimit& limit) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw Error(path +
                (std::filesystem::exists(path, ec) ? ": not a regular file" : ": no such file"));
  std::unique_ptr<struct archive, ReadDeleter> a(archive_read_new());
  // The seekable reader takes names and sizes from the central directory, which numpy's
  // zipfile always writes; the streaming reader cannot size stored members written with
  // data descriptors.
  archive_read_support_format_zip_seekable(a.get());
  if (archive_read_open_filename(a.get(), path.c_str(), 64 * 1024) != ARCHIVE_OK)
    throw Error(path + ": cannot open as an .npz (zip) archive: " + reason(a.get()));
  std::vector<NpzMember> members;
  std::set<std::string> seen;
  for (;;) {
    struct archive_entry* entry = nullptr;
    const int status = archive_read_next_header(a.get(), &entry);
    if (status == ARCHIVE_EOF) break;
    if (status != ARCHIVE_OK && status != ARCHIVE_WARN)
      throw Error(path + ": not a valid .npz (zip) archive: " + reason(a.get()));
    const char* raw_name = archive_entry_pathname(entry);
    const std::string file = raw_name ? raw_name : "";
    const std::string where = path + ": member '" + file + "'";
    if (archive_entry_filetype(entry) != AE_IFREG) throw Error(where + ": not a regular file");
    if (file.size() <= kSuffix.size() ||
        file.compare(file.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0)
      throw Error(where + ": not a .npy member (numpy.savez writes NAME.npy)");
    const std::string name = file.substr(0, file.size() - kSuffix.size());
    if (!seen.insert(name).second) throw Error(where + ": the archive holds it twice");
    const std::uint64_t max_bytes = limit(name);
    if (archive_entry_size_is_set(entry) &&
        static_cast<std::uint64_t>(archive_entry_size(entry)) > max_bytes)
      throw Error(where + ": " + std::to_string(archive_entry_size(entry)) +
                  " bytes, larger than the " + std::to_string(max_bytes) +
                  " bytes its tensor can take");
    members.push_back({name, parse_npy(read_member(a.get(), where, max_bytes), where)});
  }
  return members;
}

std::vector<std::uint8_t> encode_npz(
    const std::vector<std::pair<std::string, std::vector<std::uint8_t>>>& members) {
  std::vector<std::uint8_t> out;
  std::unique_ptr<struct archive, WriteDeleter> a(archive_write_new());
  check_write(a.get(), archive_write_set_format_zip(a.get()), "zip format");
  check_write(a.get(), archive_write_set_format_option(a.get(), "zip", "compression", "store"),
              "stored members");
  check_write(a.get(), archive_write_set_bytes_in_last_block(a.get(), 1), "block size");
  check_write(a.get(), archive_write_open(a.get(), &out, nullptr, append_to_vector, nullptr),
              "open");
  for (const auto& [name, bytes] : members) {
    std::unique_ptr<struct archive_entry, EntryDeleter> entry(archive_entry_new());
    const std::string file = name + std::string(kSuffix);
    archive_entry_set_pathname(entry.get(), file.c_str());
    archive_entry_set_filetype(entry.get(), AE_IFREG);
    archive_entry_set_perm(entry.get(), 0644);
    archive_entry_set_size(entry.get(), static_cast<la_int64_t>(bytes.size()));
    archive_entry_set_mtime(entry.get(), 0, 0);
    check_write(a.get(), archive_write_header(a.get(), entry.get()), "member header");
    if (archive_write_data(a.get(), bytes.data(), bytes.size()) !=
        static_cast<la_ssize_t>(bytes.size()))
      throw Error("npz writer: member data: " + reason(a.get()));
  }
  check_write(a.get(), archive_write_close(a.get()), "close");
  return out;
}

}  // namespace neuronsim::io

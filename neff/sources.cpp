#include "neff/sources_impl.hpp"

#include <cstdio>

#include "base/error.hpp"
#include "neff/bytes_impl.hpp"

namespace neuronsim::neff::detail {

namespace {
constexpr char kMagic[4] = {'N', 'S', 'L', 'C'};
constexpr std::size_t kHeaderBytes = 8;  // magic, u16 version, u16 reserved
constexpr std::size_t kRecordBytes = 8;  // u32 file, u32 line
}  // namespace

std::string source_file_name(std::size_t index) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "source_%06zu.txt", index);
  return buf;
}

std::vector<std::uint8_t> encode_locations(const isa::Kernel& k) {
  std::vector<std::uint8_t> out(kMagic, kMagic + 4);
  put_u16(out, kLocationsVersion);
  put_u16(out, 0);
  for (const isa::InstructionStream& s : k.streams) {
    put_u32(out, static_cast<std::uint32_t>(s.size()));
    for (std::size_t i = 0; i < s.size(); ++i) {
      const isa::SourceLocation loc = s.location(i);
      put_u32(out, loc.file);
      put_u32(out, loc.line);
    }
  }
  return out;
}

void decode_locations(isa::Kernel& k, const std::vector<std::uint8_t>& bytes,
                      const std::string& where) {
  if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kMagic, 4) != 0)
    throw Error(where + ": not a locations file (bad magic)");
  if (load_u16(bytes.data() + 4) != kLocationsVersion)
    throw Error(where + ": locations version " + std::to_string(load_u16(bytes.data() + 4)) +
                ", this reader knows " + std::to_string(kLocationsVersion));
  if (load_u16(bytes.data() + 6) != 0) throw Error(where + ": reserved bytes are not zero");
  std::size_t offset = kHeaderBytes;
  for (int e = 0; e < isa::kEngineCount; ++e) {
    isa::InstructionStream& s = k.streams[e];
    const std::string engine(isa::engine_name(static_cast<isa::Engine>(e)));
    if (bytes.size() - offset < 4) throw Error(where + ": truncated before " + engine);
    const std::uint32_t count = load_u32(bytes.data() + offset);
    offset += 4;
    if (count != s.size())
      throw Error(where + ": " + engine + " has " + std::to_string(count) + " locations for " +
                  std::to_string(s.size()) + " instructions");
    if ((bytes.size() - offset) / kRecordBytes < count)
      throw Error(where + ": truncated in " + engine + "'s locations");
    for (std::size_t i = 0; i < count; ++i, offset += kRecordBytes) {
      isa::SourceLocation loc{load_u32(bytes.data() + offset), load_u32(bytes.data() + offset + 4)};
      if (loc.known() ? loc.file >= k.sources.size() : loc.file != 0)
        throw Error(
            where + ": " + engine + " instruction " + std::to_string(i) + ": location (file " +
            std::to_string(loc.file) + ", line " + std::to_string(loc.line) + ") " +
            (loc.known() ? "names no source (" + std::to_string(k.sources.size()) + " sources)"
                         : "has line 0 with a file other than 0"));
      if (loc.known()) s.set_location(i, loc);
    }
  }
  if (offset != bytes.size())
    throw Error(where + ": " + std::to_string(bytes.size() - offset) + " trailing bytes");
}

}  // namespace neuronsim::neff::detail

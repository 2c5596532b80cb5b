#pragma once
// The 1024-byte NEFF header (reference section 6): encoding, decoding with checks of every
// field, and the hash and uuid derived from the payload.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "neff/neff.hpp"

namespace neuronsim::neff::detail {

// Versions this code writes and reads. pkg_version 1 = SHA-256 of the payload
// (reference section 6); neff_version is neuronsim's own container version.
inline constexpr std::uint64_t kPkgVersion = 1;
inline constexpr std::uint64_t kNeffVersionMajor = 1;
// Minor 1 added the source table (sources_impl.hpp); the writer uses the lowest minor
// version that holds the kernel, so a kernel without sources still writes 1.0.
inline constexpr std::uint64_t kNeffVersionMinor = 1;
inline constexpr std::uint64_t kNeffMinorWithSources = 1;
inline constexpr const char* kBuildVersion = "neuronsim 0.1.0";

// Byte offsets of the fields, in the order of reference section 6, packed.
namespace offset {
inline constexpr std::size_t pkg_version = 0;
inline constexpr std::size_t header_size = 8;
inline constexpr std::size_t data_size = 16;
inline constexpr std::size_t neff_version_major = 24;
inline constexpr std::size_t neff_version_minor = 32;
inline constexpr std::size_t build_version = 40;  // u8[128]
inline constexpr std::size_t num_tpb = 168;
inline constexpr std::size_t hash = 172;  // u8[32]
inline constexpr std::size_t uuid = 204;  // u8[16]
inline constexpr std::size_t name = 220;  // char[256]
inline constexpr std::size_t requested_tpb_count = 476;
inline constexpr std::size_t tpb_per_node = 480;  // u8[64]
inline constexpr std::size_t feature_bits = 544;
inline constexpr std::size_t lnc_size = 552;
inline constexpr std::size_t padding = 556;  // zeros up to kHeaderSize
}  // namespace offset
inline constexpr std::size_t kBuildVersionBytes = 128;
inline constexpr std::size_t kNameBytes = 256;
inline constexpr std::size_t kTpbPerNodeBytes = 64;

std::array<std::uint8_t, 32> sha256(const std::uint8_t* data, std::size_t size);
// An RFC 9562 version 8 (custom) uuid: the first 16 bytes of the hash with the version
// and variant bits set, so the same payload always gets the same uuid.
std::array<std::uint8_t, 16> uuid_from_hash(const std::array<std::uint8_t, 32>& hash);

// The header neuronsim writes for a payload: sizes, versions, hash, uuid, name.
// `minor`: the neff_version_minor the payload needs (kNeffMinorWithSources for sources).
Header make_header(const std::string& kernel_name, const std::vector<std::uint8_t>& payload,
                   std::uint64_t minor = 0);
std::vector<std::uint8_t> encode_header(const Header& h);  // exactly kHeaderSize bytes
// Decodes the header of a file of `file_size` bytes starting at `bytes` and checks every
// field (versions, sizes against the file size, strings, uuid against hash, padding).
// The hash itself is checked by the caller against the payload.
Header decode_header(const std::uint8_t* bytes, std::size_t file_size, const std::string& source);

}  // namespace neuronsim::neff::detail

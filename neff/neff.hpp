#pragma once
// The NEFF container (reference section 6, docs/neff.md): a 1024-byte little-endian
// header, then a gzip tarball holding def.json and one instruction file per engine.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "isa/kernel.hpp"

namespace neuronsim::neff {

inline constexpr std::size_t kHeaderSize = 1024;

struct Header {
  std::uint64_t pkg_version = 1;
  std::uint64_t header_size = kHeaderSize;
  std::uint64_t data_size = 0;  // bytes of the payload after the header
  std::uint64_t neff_version_major = 0;
  std::uint64_t neff_version_minor = 0;
  std::string build_version;  // u8[128], NUL-padded
  std::uint32_t num_tpb = 1;
  std::array<std::uint8_t, 32> hash{};  // SHA-256 of the payload
  std::array<std::uint8_t, 16> uuid{};
  std::string name;  // char[256], NUL-padded: the kernel name
  std::uint32_t requested_tpb_count = 1;
  std::array<std::uint8_t, 64> tpb_per_node{};
  std::uint64_t feature_bits = 0;
  std::uint32_t lnc_size = 1;
};

struct Neff {
  Header header;
  isa::Kernel kernel;
};

// The whole file. Same kernel -> byte-identical file (uuid and timestamps are derived
// from the content, never from the clock or a random source).
std::vector<std::uint8_t> write(const isa::Kernel& k);
void write_file(const isa::Kernel& k, const std::string& path);  // all or nothing

// Checks sizes, hash and every field; throws neuronsim::Error naming `source` and the
// reason for anything malformed, never crashes or allocates without bound.
Neff read(const std::vector<std::uint8_t>& bytes, const std::string& source);
Neff read_file(const std::string& path);

std::string hash_hex(const Header& h);  // 64 lowercase hex digits
// The decimal number that pairs a NEFF with its traces (reference section 7):
// neff_<N>.neff and <N>_instid_0_vnc_0.ntff. Derived from the header's hash.
std::uint64_t profile_id(const Header& h);

}  // namespace neuronsim::neff

#include <openssl/evp.h>

#include <algorithm>
#include <cstring>

#include "base/error.hpp"
#include "neff/bytes_impl.hpp"
#include "neff/header_impl.hpp"

namespace neuronsim::neff::detail {

namespace {

// A NUL-padded fixed-size text field: it must hold a NUL (so at most size-1 chars), only
// printable ASCII before it and only NULs after it.
std::string decode_text(const std::uint8_t* p, std::size_t size, const std::string& where) {
  const std::uint8_t* end = std::find(p, p + size, 0);
  if (end == p + size) throw Error(where + " is not NUL-terminated");
  if (end == p) throw Error(where + " is empty");
  for (const std::uint8_t* c = p; c < end; ++c)
    if (*c < 0x20 || *c > 0x7e) throw Error(where + " holds a non-printable byte");
  if (std::any_of(end, p + size, [](std::uint8_t b) { return b != 0; }))
    throw Error(where + " has non-zero bytes after its terminating NUL");
  return std::string(p, end);
}

void put_text(std::vector<std::uint8_t>& out, const std::string& s, std::size_t size,
              const char* field) {
  if (s.size() >= size)
    throw Error(std::string("NEFF header: ") + field + " '" + s + "' is longer than " +
                std::to_string(size - 1) + " bytes");
  if (s.empty()) throw Error(std::string("NEFF header: ") + field + " is empty");
  for (char c : s)
    if (c < 0x20 || c > 0x7e)
      throw Error(std::string("NEFF header: ") + field + " '" + s +
                  "' holds a character that is not printable ASCII");
  out.insert(out.end(), s.begin(), s.end());
  out.insert(out.end(), size - s.size(), 0);
}

template <typename T>
void expect(const std::string& where, const char* field, T value, T expected) {
  if (value != expected)
    throw Error(where + field + " is " + std::to_string(value) + ", expected " +
                std::to_string(expected));
}

}  // namespace

std::array<std::uint8_t, 32> sha256(const std::uint8_t* data, std::size_t size) {
  std::array<std::uint8_t, 32> digest{};
  unsigned int len = 0;
  if (EVP_Digest(data, size, digest.data(), &len, EVP_sha256(), nullptr) != 1 ||
      len != digest.size())
    throw Error("SHA-256 of the NEFF payload failed (libcrypto)");
  return digest;
}

std::array<std::uint8_t, 16> uuid_from_hash(const std::array<std::uint8_t, 32>& hash) {
  std::array<std::uint8_t, 16> u{};
  std::copy_n(hash.begin(), u.size(), u.begin());
  u[6] = static_cast<std::uint8_t>((u[6] & 0x0f) | 0x80);  // version 8 (RFC 9562 5.8)
  u[8] = static_cast<std::uint8_t>((u[8] & 0x3f) | 0x80);  // variant 10xx
  return u;
}

Header make_header(const std::string& kernel_name, const std::vector<std::uint8_t>& payload,
                   std::uint64_t minor) {
  Header h;
  h.pkg_version = kPkgVersion;
  h.header_size = kHeaderSize;
  h.data_size = payload.size();
  h.neff_version_major = kNeffVersionMajor;
  h.neff_version_minor = minor;
  h.build_version = kBuildVersion;
  h.num_tpb = 1;  // one NeuronCore ("sg00")
  h.hash = sha256(payload.data(), payload.size());
  h.uuid = uuid_from_hash(h.hash);
  h.name = kernel_name;
  h.requested_tpb_count = 1;
  h.tpb_per_node = {};
  h.tpb_per_node[0] = 1;  // the one core sits on node 0
  h.feature_bits = 0;
  h.lnc_size = 1;
  return h;
}

std::vector<std::uint8_t> encode_header(const Header& h) {
  std::vector<std::uint8_t> out;
  out.reserve(kHeaderSize);
  put_u64(out, h.pkg_version);
  put_u64(out, h.header_size);
  put_u64(out, h.data_size);
  put_u64(out, h.neff_version_major);
  put_u64(out, h.neff_version_minor);
  put_text(out, h.build_version, kBuildVersionBytes, "build_version");
  put_u32(out, h.num_tpb);
  out.insert(out.end(), h.hash.begin(), h.hash.end());
  out.insert(out.end(), h.uuid.begin(), h.uuid.end());
  put_text(out, h.name, kNameBytes, "name");
  put_u32(out, h.requested_tpb_count);
  out.insert(out.end(), h.tpb_per_node.begin(), h.tpb_per_node.end());
  put_u64(out, h.feature_bits);
  put_u32(out, h.lnc_size);
  if (out.size() != offset::padding) throw Error("NEFF header layout mismatch (internal)");
  out.resize(kHeaderSize, 0);
  return out;
}

Header decode_header(const std::uint8_t* bytes, std::size_t file_size, const std::string& source) {
  const std::string where = source + ": NEFF header: ";
  if (file_size < kHeaderSize)
    throw Error(source + ": truncated: " + std::to_string(file_size) + " bytes, shorter than the " +
                std::to_string(kHeaderSize) + "-byte NEFF header");
  Header h;
  h.pkg_version = load_u64(bytes + offset::pkg_version);
  expect(where, "pkg_version", h.pkg_version, kPkgVersion);
  h.header_size = load_u64(bytes + offset::header_size);
  expect<std::uint64_t>(where, "header_size", h.header_size, kHeaderSize);
  h.data_size = load_u64(bytes + offset::data_size);
  if (h.data_size != file_size - kHeaderSize)
    throw Error(where + "data_size is " + std::to_string(h.data_size) + " but the file holds " +
                std::to_string(file_size - kHeaderSize) + " payload bytes (truncated or padded)");
  h.neff_version_major = load_u64(bytes + offset::neff_version_major);
  expect(where, "neff_version_major", h.neff_version_major, kNeffVersionMajor);
  h.neff_version_minor = load_u64(bytes + offset::neff_version_minor);
  if (h.neff_version_minor > kNeffVersionMinor)
    throw Error(where + "neff_version_minor " + std::to_string(h.neff_version_minor) +
                " is newer than this reader (" + std::to_string(kNeffVersionMinor) + ")");
  h.build_version =
      decode_text(bytes + offset::build_version, kBuildVersionBytes, where + "build_version");
  h.num_tpb = load_u32(bytes + offset::num_tpb);
  expect<std::uint32_t>(where, "num_tpb", h.num_tpb, 1);
  std::copy_n(bytes + offset::hash, h.hash.size(), h.hash.begin());
  std::copy_n(bytes + offset::uuid, h.uuid.size(), h.uuid.begin());
  if (h.uuid != uuid_from_hash(h.hash))
    throw Error(where + "uuid does not match the hash it is derived from");
  h.name = decode_text(bytes + offset::name, kNameBytes, where + "name");
  h.requested_tpb_count = load_u32(bytes + offset::requested_tpb_count);
  expect<std::uint32_t>(where, "requested_tpb_count", h.requested_tpb_count, 1);
  std::copy_n(bytes + offset::tpb_per_node, h.tpb_per_node.size(), h.tpb_per_node.begin());
  std::array<std::uint8_t, kTpbPerNodeBytes> one_core{};
  one_core[0] = 1;
  if (h.tpb_per_node != one_core)
    throw Error(where + "tpb_per_node must be {1, 0, ...} (one core on node 0)");
  h.feature_bits = load_u64(bytes + offset::feature_bits);
  expect<std::uint64_t>(where, "feature_bits", h.feature_bits, 0);
  h.lnc_size = load_u32(bytes + offset::lnc_size);
  expect<std::uint32_t>(where, "lnc_size", h.lnc_size, 1);
  if (std::any_of(bytes + offset::padding, bytes + kHeaderSize,
                  [](std::uint8_t b) { return b != 0; }))
    throw Error(where + "padding after lnc_size is not all zero");
  return h;
}

}  // namespace neuronsim::neff::detail

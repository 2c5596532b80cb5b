// The NEFF reader on arbitrary bytes. Built twice (fuzz/CMakeLists.txt): plain, and with
// NEURONSIM_FUZZ_PAYLOAD, whose custom mutator edits the decompressed payload (the tar of
// def.json and instruction files) and re-wraps it in gzip under a header with the right
// SHA-256, so the fuzzer reaches the payload's parsers instead of failing the hash check.
#include <zlib.h>

#include <cstring>

#include "fuzz/fuzz_common.hpp"
#include "neff/header_impl.hpp"
#include "neff/neff.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::uint8_t> bytes(data, data + size);
  neuronsim::fuzz::expect_clean([&] { neuronsim::neff::read(bytes, "fuzz.neff"); });
  return 0;
}

#ifdef NEURONSIM_FUZZ_PAYLOAD
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max);

namespace {

using Bytes = std::vector<std::uint8_t>;

bool gunzip(const std::uint8_t* data, std::size_t size, Bytes& out, std::size_t max) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return false;
  z.next_in = const_cast<Bytef*>(data);
  z.avail_in = static_cast<uInt>(size);
  out.resize(max);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(max);
  const int status = inflate(&z, Z_FINISH);
  out.resize(max - z.avail_out);
  inflateEnd(&z);
  return status == Z_STREAM_END;
}

Bytes gzip(const Bytes& in) {
  z_stream z{};
  deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  Bytes out(deflateBound(&z, static_cast<uLong>(in.size())) + 32);
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int) {
  namespace d = neuronsim::neff::detail;
  std::string name = "fuzz";
  Bytes tar;
  try {
    const auto h = d::decode_header(data, size, "seed");
    name = h.name;
    if (size <= neuronsim::neff::kHeaderSize ||
        !gunzip(data + neuronsim::neff::kHeaderSize, size - neuronsim::neff::kHeaderSize, tar,
                1u << 20))
      tar.clear();
  } catch (const neuronsim::Error&) {
  }
  if (tar.empty()) return LLVMFuzzerMutate(data, size, max_size);  // not a NEFF: raw bytes
  const std::size_t used = tar.size();
  tar.resize(std::max<std::size_t>(used * 2, 4096));
  tar.resize(LLVMFuzzerMutate(tar.data(), used, tar.size()));
  const Bytes payload = gzip(tar);
  Bytes out = d::encode_header(d::make_header(name, payload));
  out.insert(out.end(), payload.begin(), payload.end());
  if (out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}
#endif

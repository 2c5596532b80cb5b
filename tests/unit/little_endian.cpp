// base/little_endian.hpp against bytes written out by hand: least significant byte first,
// whatever the host.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "base/little_endian.hpp"

using namespace neuronsim;

TEST_CASE("little endian: fixed widths load and store the least significant byte first", "[base]") {
  const std::uint8_t bytes[8] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
  CHECK(load_le16(bytes) == 0x0201);
  CHECK(load_le32(bytes) == 0x04030201u);
  CHECK(load_le64(bytes) == 0x0807060504030201ull);
  std::uint8_t out[8] = {};
  store_le16(out, 0x0201);
  store_le32(out + 2, 0x06050403u);
  CHECK(std::vector<std::uint8_t>(out, out + 6) ==
        std::vector<std::uint8_t>{0x01, 0x02, 0x03, 0x04, 0x05, 0x06});
  store_le64(out, 0x0807060504030201ull);
  CHECK(std::vector<std::uint8_t>(out, out + 8) == std::vector<std::uint8_t>(bytes, bytes + 8));
  std::vector<std::uint8_t> appended = {0xaa};
  append_le16(appended, 0x0201);
  append_le32(appended, 0x06050403u);
  append_le64(appended, 0x0e0d0c0b0a090807ull);
  CHECK(appended == std::vector<std::uint8_t>{0xaa, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14});
}

TEST_CASE("little endian: n-byte forms take the low n bytes", "[base]") {
  const std::uint8_t bytes[8] = {0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88};
  CHECK(load_le(bytes, 0) == 0);
  CHECK(load_le(bytes, 1) == 0xff);
  CHECK(load_le(bytes, 3) == 0xddeeff);
  CHECK(load_le(bytes, 8) == 0x8899aabbccddeeffull);
  std::uint8_t out[4] = {0, 0, 0, 0x77};
  store_le(out, 0x11223344, 3);  // the fourth byte is not written
  CHECK(std::vector<std::uint8_t>(out, out + 4) ==
        std::vector<std::uint8_t>{0x44, 0x33, 0x22, 0x77});
  std::vector<std::uint8_t> v;
  append_le(v, 0x0102, 4);
  CHECK(v == std::vector<std::uint8_t>{0x02, 0x01, 0, 0});
}

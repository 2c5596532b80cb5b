// NEFF writer and reader on valid kernels: round trip, determinism, layout of the
// header and the payload, hash-derived ids.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <set>

#include "base/error.hpp"
#include "neff/bytes_impl.hpp"
#include "neff/tarball_impl.hpp"
#include "neff_fixtures.hpp"

using namespace neff_test;
namespace neff = neuronsim::neff;

TEST_CASE("neff: every opcode survives write then read", "[neff]") {
  const Kernel k = every_opcode_kernel();
  const auto bytes = neff::write(k);
  const neff::Neff n = neff::read(bytes, "k.neff");
  CHECK(n.kernel == k);
  CHECK(n.kernel.instruction_count() == k.instruction_count());
  // Equality ignores some fields; check those directly too.
  const auto ts = std::get<TensorScalar>(n.kernel.stream(Engine::vector)[1].op);
  CHECK(ts.reduce_op == AluOp::max);
  CHECK(ts.reverse0);
  CHECK(n.kernel.tensors[1].data == k.tensors[1].data);
  CHECK(n.header.name == "every_opcode");
  CHECK(n.header.data_size == bytes.size() - neff::kHeaderSize);
}

TEST_CASE("neff: an empty kernel round-trips", "[neff]") {
  Kernel k;
  k.name = "empty";
  k.target = "trn1";
  CHECK(neff::read(neff::write(k), "e.neff").kernel == k);
}

TEST_CASE("neff: same kernel gives byte-identical files", "[neff]") {
  const Kernel k = every_opcode_kernel();
  const auto a = neff::write(k);
  const auto b = neff::write(neff::read(a, "a.neff").kernel);
  CHECK(a == b);
  // gzip header (RFC 1952): magic 1f 8b, then MTIME (bytes 4..7) must be zero.
  REQUIRE(a.size() > neff::kHeaderSize + 10);
  CHECK(a[neff::kHeaderSize] == 0x1f);
  CHECK(a[neff::kHeaderSize + 1] == 0x8b);
  for (int i = 4; i < 8; ++i)
    CHECK(a[neff::kHeaderSize + i] == 0);
}

TEST_CASE("neff: a different kernel gives a different hash and profile id", "[neff]") {
  Kernel k = every_opcode_kernel();
  const auto a = neff::read(neff::write(k), "a").header;
  k.semaphores[1].initial = 4;
  const auto b = neff::read(neff::write(k), "b").header;
  CHECK(a.hash != b.hash);
  CHECK(neff::profile_id(a) != neff::profile_id(b));
}

TEST_CASE("neff: header fields sit at the reference's packed offsets", "[neff]") {
  const auto bytes = neff::write(every_opcode_kernel());
  namespace off = detail::offset;
  using detail::load_u32;
  using detail::load_u64;
  const std::uint8_t* h = bytes.data();
  CHECK(load_u64(h + off::pkg_version) == 1);
  CHECK(load_u64(h + off::header_size) == 1024);
  CHECK(load_u64(h + off::data_size) == bytes.size() - 1024);
  CHECK(load_u64(h + off::neff_version_major) == detail::kNeffVersionMajor);
  // 1.0: the kernel has no source table (1.1 only with one, tests/unit/source_locations.cpp).
  CHECK(load_u64(h + off::neff_version_minor) == 0);
  CHECK(std::string(reinterpret_cast<const char*>(h + off::build_version)) ==
        detail::kBuildVersion);
  CHECK(load_u32(h + off::num_tpb) == 1);
  CHECK(std::string(reinterpret_cast<const char*>(h + off::name)) == "every_opcode");
  CHECK(load_u32(h + off::requested_tpb_count) == 1);
  CHECK(h[off::tpb_per_node] == 1);
  CHECK(load_u64(h + off::feature_bits) == 0);
  CHECK(load_u32(h + off::lnc_size) == 1);
  // The hash is SHA-256 of everything after the header.
  const auto digest = detail::sha256(h + 1024, bytes.size() - 1024);
  CHECK(std::equal(digest.begin(), digest.end(), h + off::hash));
  // The layout leaves no gaps: each field starts where the previous one ends.
  CHECK(off::build_version + detail::kBuildVersionBytes == off::num_tpb);
  CHECK(off::num_tpb + 4 == off::hash);
  CHECK(off::hash + 32 == off::uuid);
  CHECK(off::uuid + 16 == off::name);
  CHECK(off::name + detail::kNameBytes == off::requested_tpb_count);
  CHECK(off::requested_tpb_count + 4 == off::tpb_per_node);
  CHECK(off::tpb_per_node + detail::kTpbPerNodeBytes == off::feature_bits);
  CHECK(off::feature_bits + 8 == off::lnc_size);
  CHECK(off::lnc_size + 4 == off::padding);
}

TEST_CASE("neff: uuid is an RFC 9562 version 8 uuid derived from the hash", "[neff]") {
  const auto h = neff::read(neff::write(every_opcode_kernel()), "k").header;
  CHECK((h.uuid[6] >> 4) == 8);
  CHECK((h.uuid[8] & 0xc0) == 0x80);
  for (int i = 0; i < 16; ++i)
    if (i != 6 && i != 8) CHECK(h.uuid[i] == h.hash[i]);
  CHECK((h.uuid[6] & 0x0f) == (h.hash[6] & 0x0f));
}

TEST_CASE("neff: hash_hex and profile_id", "[neff]") {
  neff::Header h;
  for (int i = 0; i < 32; ++i)
    h.hash[i] = static_cast<std::uint8_t>(i * 17 + 1);
  const std::string hex = neff::hash_hex(h);
  CHECK(hex.size() == 64);
  CHECK(hex.substr(0, 6) == "011223");
  CHECK(hex.find_first_not_of("0123456789abcdef") == std::string::npos);
  std::uint64_t le = 0;
  for (int i = 7; i >= 0; --i)
    le = (le << 8) | h.hash[i];
  CHECK(neff::profile_id(h) == le % 1000000000000000ull);
  h.hash.fill(0xff);
  CHECK(neff::profile_id(h) == 0xffffffffffffffffull % 1000000000000000ull);
  CHECK(neff::profile_id(h) < 1000000000000000ull);
}

TEST_CASE("neff: payload is def.json first, then sg00/ sorted, with fixed owners and times",
          "[neff]") {
  const auto bytes = neff::write(every_opcode_kernel());
  const auto entries = entries_of(bytes);
  std::vector<std::string> paths;
  for (const auto& e : entries)
    paths.push_back(e.path);
  CHECK(paths == std::vector<std::string>{"def.json", "sg00/", "sg00/const_000001.bin",
                                          "sg00/gpsimd.bin", "sg00/scalar.bin", "sg00/sync.bin",
                                          "sg00/tensor.bin", "sg00/vector.bin"});
  const std::string def(entries[0].data.begin(), entries[0].data.end());
  CHECK(def.find("\"kernel\": \"every_opcode\"") != std::string::npos);
  CHECK(def.find("\"target\": \"trn2\"") != std::string::npos);
  CHECK(def.find("\"file\": \"sg00/const_000001.bin\"") != std::string::npos);
  // The constant's bytes are stored verbatim.
  CHECK(entries[2].data == every_opcode_kernel().tensors[1].data);

  struct archive* a = archive_read_new();
  archive_read_support_filter_gzip(a);
  archive_read_support_format_tar(a);
  REQUIRE(archive_read_open_memory(a, bytes.data() + 1024, bytes.size() - 1024) == ARCHIVE_OK);
  struct archive_entry* e = nullptr;
  while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
    CHECK(archive_entry_mtime(e) == 0);
    CHECK(archive_entry_uid(e) == 0);
    CHECK(archive_entry_gid(e) == 0);
  }
  archive_read_free(a);
}

TEST_CASE("neff: instruction records have the documented sizes", "[neff]") {
  Kernel k;
  k.name = "sizes";
  k.target = "trn2";
  k.allocations = {Allocation{"t", MemSpace::sbuf, DType::fp32, 0, 128, {8}, 0}};
  k.semaphores = {{"s", 0}};
  const auto t = pattern(MemSpace::sbuf, 0, DType::fp32, 128, {{1, 8}});
  k.stream(Engine::vector).push_back(instr(TensorCopy{t, t}, {{0, 1}}, {{0, SemUpdate::set, 2}}));
  k.stream(Engine::vector).push_back(instr(Nop{}));
  const auto entries = entries_of(neff::write(k));
  for (const auto& e : entries) {
    if (e.path != "sg00/vector.bin") continue;
    // stream header 12 + (record header 12 + 2 patterns of 64 + wait 8 + signal 8) + nop 12
    REQUIRE(e.data.size() == 12 + (12 + 128 + 8 + 8) + 12);
    CHECK(detail::load_u32(e.data.data() + 12) == 156);
    CHECK(detail::load_u32(e.data.data() + 12 + 156) == 12);
  }
}

TEST_CASE("neff: write_file is all or nothing and read_file names the file", "[neff]") {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("neff_unit_" + std::to_string(::getpid()) + ".neff"))
                               .string();
  neff::write_file(every_opcode_kernel(), path);
  CHECK(neff::read_file(path).kernel == every_opcode_kernel());
  std::remove(path.c_str());

  Kernel bad = every_opcode_kernel();
  bad.tensors[1].data.pop_back();  // constant of the wrong size
  CHECK_THROWS_WITH(neff::write_file(bad, path),
                    Catch::Contains(path) && Catch::Contains("tensors[1]"));
  CHECK(std::fopen(path.c_str(), "rb") == nullptr);
  CHECK_THROWS_WITH(neff::read_file(path + ".missing"), Catch::Contains(".missing"));
}

TEST_CASE("neff: the writer refuses kernels the reader would refuse", "[neff]") {
  auto refuses = [](const Kernel& k, const std::string& reason) {
    CHECK_THROWS_WITH(neff::write(k), Catch::Contains(reason));
  };
  Kernel k = every_opcode_kernel();
  k.name = std::string(300, 'n');
  refuses(k, "longer than 255");
  k = every_opcode_kernel();
  k.name = "bad\nname";
  refuses(k, "printable");
  k = every_opcode_kernel();
  k.stream(Engine::vector).push_back(instr(Matmul{}));
  refuses(k, "not allowed on the vector engine");
  k = every_opcode_kernel();
  k.stream(Engine::vector).edit(0, [](Instruction& i) {
    std::get<TensorTensor>(i.op).a.buffer = 9;
  });
  refuses(k, "allocation 9 out of range");
  k = every_opcode_kernel();
  k.stream(Engine::vector).edit(0, [](Instruction& i) {
    std::get<TensorTensor>(i.op).a.ndims = 0;
  });
  refuses(k, "ndims 0");
  k = every_opcode_kernel();
  k.stream(Engine::gpsimd).edit(2, [](Instruction& i) { i.waits[0].sem = 2; });
  refuses(k, "semaphore 2 out of range");
  k = every_opcode_kernel();
  k.stream(Engine::sync).edit(0, [](Instruction& i) { std::get<DmaCopy>(i.op).queue = 2; });
  refuses(k, "queue 2 out of range");
  k = every_opcode_kernel();
  k.semaphores.push_back(k.semaphores[0]);
  refuses(k, "duplicate name 's_load'");
  k = every_opcode_kernel();
  k.tensors[0].data = {1};
  refuses(k, "only constant tensors carry data");
  k = every_opcode_kernel();
  k.allocations[0].space = MemSpace::hbm;
  refuses(k, "space must be sbuf or psum");
}

#pragma once
// Kernels and payload builders for the NEFF tests: a kernel that uses every opcode and
// every optional field, and helpers that build payloads by hand (with a correct hash) so
// that the reader's checks behind the hash can be exercised.
#include <archive.h>
#include <archive_entry.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "isa/kernel.hpp"
#include "neff/header_impl.hpp"
#include "neff/neff.hpp"
#include "neff/tarball_impl.hpp"

namespace neff_test {

using namespace neuronsim::isa;
namespace detail = neuronsim::neff::detail;

inline AccessPattern pattern(MemSpace space, std::uint32_t buffer, DType dtype,
                             std::uint32_t partitions, std::vector<Dim> dims) {
  AccessPattern a;
  a.space = space;
  a.buffer = buffer;
  a.dtype = dtype;
  a.partitions = partitions;
  a.ndims = static_cast<std::uint8_t>(dims.size());
  for (std::size_t i = 0; i < dims.size(); ++i)
    a.dims[i] = dims[i];
  return a;
}

inline Instruction instr(Operation op, std::vector<SemWait> waits = {},
                         std::vector<SemSignal> signals = {}) {
  Instruction i;
  i.op = std::move(op);
  i.waits = std::move(waits);
  i.signals = std::move(signals);
  return i;
}

// Every opcode, every optional operand both present and absent, waits and signals of
// both kinds, HBM patterns with partition strides and offsets, a constant tensor.
inline Kernel every_opcode_kernel() {
  Kernel k;
  k.name = "every_opcode";
  k.target = "trn2";
  HbmTensor x{"x", DType::bf16, {128, 64}, TensorRole::input, {}};
  HbmTensor w{"w", DType::fp32, {128, 1}, TensorRole::constant, {}};
  for (int i = 0; i < 128 * 4; ++i)
    w.data.push_back(static_cast<std::uint8_t>(i * 7));
  HbmTensor y{"y", DType::bf16, {128, 64}, TensorRole::output, {}};
  HbmTensor tmp{"tmp", DType::fp32, {2, 3, 4}, TensorRole::scratch, {}};
  k.tensors = {x, w, y, tmp};
  k.allocations = {
      Allocation{"xt", MemSpace::sbuf, DType::bf16, 0, 128, {64}, 0},
      Allocation{"acc", MemSpace::psum, DType::fp32, 0, 128, {64}, 0},
      Allocation{"stat", MemSpace::sbuf, DType::fp32, 32, 32, {2, 3}, 128},
      Allocation{"wt", MemSpace::sbuf, DType::fp32, 0, 128, {1}, 256},
  };
  k.semaphores = {{"s_load", 0}, {"s_done", 3}};
  k.queues = {{"q_in", 0, 16}, {"q_out", 4, 2}};

  const auto xt = pattern(MemSpace::sbuf, 0, DType::bf16, 128, {{1, 64}});
  const auto acc = pattern(MemSpace::psum, 1, DType::fp32, 128, {{1, 64}});
  auto stat = pattern(MemSpace::sbuf, 2, DType::fp32, 32, {{3, 2}, {1, 3}});
  stat.start_partition = 0;
  const auto wt = pattern(MemSpace::sbuf, 3, DType::fp32, 128, {{1, 1}});
  auto hbm_x = pattern(MemSpace::hbm, 0, DType::bf16, 128, {{1, 64}});
  hbm_x.partition_stride = 64;
  auto hbm_y = pattern(MemSpace::hbm, 2, DType::bf16, 128, {{-1, 64}});
  hbm_y.partition_stride = 64;
  hbm_y.byte_offset = 126;
  auto hbm_w = pattern(MemSpace::hbm, 1, DType::fp32, 128, {{1, 1}});
  hbm_w.partition_stride = 1;
  const auto four_d =
      pattern(MemSpace::sbuf, 0, DType::bf16, 64, {{32, 2}, {16, 2}, {4, 4}, {1, 4}});

  auto& sync = k.stream(Engine::sync);
  sync.push_back(instr(DmaCopy{xt, hbm_x, 0, false, false, std::nullopt, std::nullopt, false}, {},
                       {{0, SemUpdate::increment, 1}}));
  sync.push_back(instr(DmaCopy{wt, hbm_w, 1, false, false, std::nullopt, std::nullopt, false}, {},
                       {{0, SemUpdate::increment, 1}}));
  sync.push_back(
      instr(DmaCopy{hbm_y, xt, 1, true, false, std::nullopt, std::nullopt, false}, {{1, 5}}, {}));
  sync.push_back(instr(Nop{}, {{0, 2}, {1, 4}}, {{1, SemUpdate::set, 0}}));

  auto& tensor = k.stream(Engine::tensor);
  tensor.push_back(instr(Matmul{acc, xt, xt, AccumulateFlag::first}, {{0, 2}}, {}));
  tensor.push_back(instr(Matmul{acc, xt, xt, AccumulateFlag::last}));
  tensor.push_back(instr(Transpose{acc, xt}, {}, {{1, SemUpdate::increment, 1}}));

  auto& scalar = k.stream(Engine::scalar);
  scalar.push_back(instr(Activation{xt, acc, ActFunc::gelu_apprx_tanh, wt, wt, wt}));
  scalar.push_back(instr(Activation{xt, xt, ActFunc::rsqrt, 0.5f, std::nullopt, std::nullopt}));
  scalar.push_back(instr(TensorCopy{xt, acc}));
  TensorScalar ts_scalar;  // the Scalar engine's tensor_scalar: (multiply, add)
  ts_scalar.dst = xt;
  ts_scalar.src = acc;
  ts_scalar.op0 = AluOp::multiply;
  ts_scalar.arg0 = wt;
  ts_scalar.op1 = AluOp::add;
  ts_scalar.arg1 = -3.25f;
  scalar.push_back(instr(ts_scalar, {}, {{1, SemUpdate::increment, 2}}));

  auto& vector = k.stream(Engine::vector);
  vector.push_back(instr(TensorTensor{xt, xt, acc, AluOp::subtract}));
  // Fields by name: the struct orders them for size, not as the assembly writes them.
  TensorScalar ts_full;
  ts_full.dst = xt;
  ts_full.src = xt;
  ts_full.op0 = AluOp::multiply;
  ts_full.arg0 = wt;
  ts_full.reverse0 = true;
  ts_full.op1 = AluOp::add;
  ts_full.arg1 = 2.5f;
  ts_full.reverse1 = false;
  ts_full.reduce_dst = wt;
  ts_full.reduce_op = AluOp::max;
  vector.push_back(instr(ts_full));
  TensorScalar ts_plain;
  ts_plain.dst = xt;
  ts_plain.src = acc;
  ts_plain.op0 = AluOp::divide;
  ts_plain.arg0 = -1.0f;
  vector.push_back(instr(ts_plain));
  vector.push_back(instr(ScalarTensorTensor{xt, xt, acc, wt, AluOp::subtract, AluOp::multiply}));
  vector.push_back(instr(ScalarTensorTensor{xt, xt, acc, 1e-6f, AluOp::add, AluOp::min}));
  vector.push_back(instr(TensorReduce{wt, xt, AluOp::max, 1, true}));
  vector.push_back(instr(Select{xt, xt, xt, acc}));
  vector.push_back(instr(BnStats{stat, xt}));
  vector.push_back(instr(BnAggr{stat, stat}));
  vector.push_back(instr(Transpose{xt, xt}));
  vector.push_back(instr(TensorCopy{four_d, four_d}, {{1, 1}}, {{1, SemUpdate::increment, 1}}));

  auto& gpsimd = k.stream(Engine::gpsimd);
  gpsimd.push_back(instr(Iota{xt, -5, 64, {1, 2, -3, 4}}));
  gpsimd.push_back(instr(AffineSelect{xt, xt, 7, -1, {1, 0, 0, 0}, AluOp::is_ge, -1e30f}));
  gpsimd.push_back(instr(Memset{xt, 4294967295.0}, {{0, 1}}, {{1, SemUpdate::increment, 1}}));
  return k;
}

// A minimal ustar archive built by hand, so tests can make entries libarchive's writer
// never would (sizes that lie, symlinks, odd names).
struct RawTarEntry {
  std::string name;
  char type = '0';                 // '0' file, '5' directory, '2' symlink
  std::uint64_t claimed_size = 0;  // the header's size field
  std::vector<std::uint8_t> data;  // what follows (padded to 512)
};

inline std::vector<std::uint8_t> raw_tar(const std::vector<RawTarEntry>& entries) {
  std::vector<std::uint8_t> out;
  for (const auto& e : entries) {
    std::uint8_t h[512] = {};
    std::memcpy(h, e.name.data(), std::min<std::size_t>(e.name.size(), 100));
    std::snprintf(reinterpret_cast<char*>(h + 100), 8, "%07o", e.type == '5' ? 0755 : 0644);
    std::snprintf(reinterpret_cast<char*>(h + 108), 8, "%07o", 0);
    std::snprintf(reinterpret_cast<char*>(h + 116), 8, "%07o", 0);
    std::snprintf(reinterpret_cast<char*>(h + 124), 12, "%011llo",
                  static_cast<unsigned long long>(e.claimed_size));
    std::snprintf(reinterpret_cast<char*>(h + 136), 12, "%011o", 0);
    h[156] = static_cast<std::uint8_t>(e.type);
    std::memcpy(h + 257, "ustar", 6);
    std::memcpy(h + 263, "00", 2);
    std::memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (std::uint8_t b : h)
      sum += b;
    std::snprintf(reinterpret_cast<char*>(h + 148), 8, "%06o", sum);
    out.insert(out.end(), h, h + 512);
    out.insert(out.end(), e.data.begin(), e.data.end());
    out.resize((out.size() + 511) / 512 * 512, 0);
  }
  out.resize(out.size() + 1024, 0);
  return out;
}

// gzip of arbitrary bytes (libarchive's "raw" format).
inline std::vector<std::uint8_t> gzip(const std::vector<std::uint8_t>& bytes) {
  std::vector<std::uint8_t> out;
  struct archive* a = archive_write_new();
  archive_write_add_filter_gzip(a);
  archive_write_set_format_raw(a);
  archive_write_set_bytes_in_last_block(a, 1);
  archive_write_open(
      a, &out, nullptr,
      [](struct archive*, void* client, const void* buf, size_t n) -> la_ssize_t {
        auto* v = static_cast<std::vector<std::uint8_t>*>(client);
        v->insert(v->end(), static_cast<const std::uint8_t*>(buf),
                  static_cast<const std::uint8_t*>(buf) + n);
        return static_cast<la_ssize_t>(n);
      },
      nullptr);
  struct archive_entry* e = archive_entry_new();
  archive_entry_set_pathname(e, "raw");
  archive_entry_set_filetype(e, AE_IFREG);
  archive_write_header(a, e);
  archive_write_data(a, bytes.data(), bytes.size());
  archive_entry_free(e);
  archive_write_close(a);
  archive_write_free(a);
  return out;
}

// A NEFF file around any payload, with a correct header and hash.
inline std::vector<std::uint8_t> wrap(const std::vector<std::uint8_t>& payload,
                                      const std::string& name = "every_opcode",
                                      std::uint64_t minor = 0) {
  auto out = detail::encode_header(detail::make_header(name, payload, minor));
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

// The payload entries of a NEFF, in archive order.
inline std::vector<detail::TarEntry> entries_of(const std::vector<std::uint8_t>& neff) {
  detail::TarReader tar(neff.data() + neuronsim::neff::kHeaderSize,
                        neff.size() - neuronsim::neff::kHeaderSize, "test");
  std::vector<detail::TarEntry> out;
  while (tar.next())
    out.push_back({tar.path(), tar.is_directory() ? std::vector<std::uint8_t>{} : tar.read()});
  return out;
}

// Rewrites one entry of a valid NEFF and re-wraps it with a correct hash.
inline std::vector<std::uint8_t> with_entry(
    const std::vector<std::uint8_t>& neff, const std::string& path,
    const std::function<void(std::vector<std::uint8_t>&)>& mutate) {
  auto entries = entries_of(neff);
  for (auto& e : entries)
    if (e.path == path) mutate(e.data);
  const neuronsim::neff::Header h = detail::decode_header(neff.data(), neff.size(), "test");
  return wrap(detail::pack_tarball(entries), h.name, h.neff_version_minor);
}

}  // namespace neff_test

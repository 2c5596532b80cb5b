#include <array>
#include <type_traits>
#include <utility>

#include "base/error.hpp"
#include "isa/field_kind.hpp"
#include "isa/for_each_field.hpp"
#include "neff/bytes_impl.hpp"
#include "neff/instr_codec_impl.hpp"

namespace neuronsim::neff::detail {

namespace {

using namespace isa;

constexpr std::uint8_t kStreamMagic[4] = {'N', 'S', 'I', 'S'};
constexpr int kMemSpaceCount = 3;
constexpr int kSemUpdateCount = 2;
constexpr std::uint8_t kNoAluOp = 0xff;  // an absent optional AluOp
constexpr std::size_t kWaitBytes = 8;
constexpr std::size_t kSignalBytes = 8;

// Where we are, for error messages, and the checks both directions share.
struct Context {
  const Kernel& k;
  Engine engine;
  const std::string& where;
  std::size_t index = 0;
  Opcode opcode = Opcode::nop;

  [[noreturn]] void fail(const char* field, const std::string& reason) const {
    throw Error(where + ": instruction " + std::to_string(index) + " (" +
                std::string(opcode_name(opcode)) + "): " + field + ": " + reason);
  }
  void check_opcode_on_engine() const {
    if (!(allowed_engines(opcode) & (1u << static_cast<int>(engine))))
      fail("opcode", "not allowed on the " + std::string(engine_name(engine)) + " engine");
  }
  void check_ap(const AccessPattern& a, const char* field) const {
    if (static_cast<int>(a.space) >= kMemSpaceCount)
      fail(field, "memory space " + std::to_string(static_cast<int>(a.space)) + " out of range");
    if (static_cast<int>(a.dtype) >= kDTypeCount)
      fail(field, "dtype " + std::to_string(static_cast<int>(a.dtype)) + " out of range");
    if (a.ndims < 1 || a.ndims > kMaxFreeDims)
      fail(field,
           "ndims " + std::to_string(a.ndims) + " is not in 1.." + std::to_string(kMaxFreeDims));
    if (a.space == MemSpace::hbm) {
      if (a.buffer >= k.tensors.size())
        fail(field, "tensor " + std::to_string(a.buffer) + " out of range (" +
                        std::to_string(k.tensors.size()) + " tensors)");
    } else {
      if (a.buffer >= k.allocations.size())
        fail(field, "allocation " + std::to_string(a.buffer) + " out of range (" +
                        std::to_string(k.allocations.size()) + " allocations)");
      if (k.allocations[a.buffer].space != a.space)
        fail(field, "allocation " + std::to_string(a.buffer) + " is not in " +
                        std::string(mem_space_name(a.space)));
    }
  }
  void check_enum(int value, int count, const char* field) const {
    if (value < 0 || value >= count)
      fail(field, "value " + std::to_string(value) + " out of range (0.." +
                      std::to_string(count - 1) + ")");
  }
  void check_axes(int axes, const char* field) const {
    if (axes < 1 || axes > kMaxFreeDims)
      fail(field, std::to_string(axes) + " is not in 1.." + std::to_string(kMaxFreeDims));
  }
  void check_queue(std::uint32_t queue, const char* field) const {
    if (queue >= k.queues.size())
      fail(field, "queue " + std::to_string(queue) + " out of range (" +
                      std::to_string(k.queues.size()) + " queues)");
  }
  void check_sem(std::uint32_t sem, const char* field) const {
    if (sem >= k.semaphores.size())
      fail(field, "semaphore " + std::to_string(sem) + " out of range (" +
                      std::to_string(k.semaphores.size()) + " semaphores)");
  }
};

// The bytes of the NEFF record's operands and the checks on them (docs/neff.md), shared by
// both directions so that a file this writes is always readable.
class Encoder {
 public:
  Encoder(const Context& ctx, std::vector<std::uint8_t>& out) : ctx_(ctx), out_(out) {}
  const Context& ctx() const { return ctx_; }
  std::vector<std::uint8_t>& out() { return out_; }

 private:
  const Context& ctx_;
  std::vector<std::uint8_t>& out_;
};

class Decoder {
 public:
  Decoder(const Context& ctx, const std::uint8_t* begin, const std::uint8_t* end)
      : ctx_(ctx), p_(begin), end_(end) {}
  const Context& ctx() const { return ctx_; }
  const std::uint8_t* position() const { return p_; }

  const std::uint8_t* take(std::size_t n, const char* field) {
    if (static_cast<std::size_t>(end_ - p_) < n)
      ctx_.fail(field, "the record ends inside this field");
    const std::uint8_t* at = p_;
    p_ += n;
    return at;
  }
  // A byte that is 0 or 1.
  bool flag(const char* field) {
    const std::uint8_t v = *take(1, field);
    if (v > 1) ctx_.fail(field, "flag byte " + std::to_string(v) + " is neither 0 nor 1");
    return v == 1;
  }

 private:
  const Context& ctx_;
  const std::uint8_t* p_;
  const std::uint8_t* end_;
};

// One specialisation per field kind (isa/field_kind.hpp): encode(enc, value, field) and
// decode(dec, value, field), `field` naming it in errors. No primary definition.
template <typename T>
struct NeffField;

// 64 bytes: space, dtype, ndims, a reserved 0, buffer, start partition, partitions
// (u32 each), partition stride, byte offset (u64 each), 4 dims of (stride, size), the
// unused ones zero.
template <>
struct NeffField<AccessPattern> {
  static void encode(Encoder& e, const AccessPattern& a, const char* field) {
    e.ctx().check_ap(a, field);
    auto& out = e.out();
    put_u8(out, static_cast<std::uint8_t>(a.space));
    put_u8(out, static_cast<std::uint8_t>(a.dtype));
    put_u8(out, a.ndims);
    put_u8(out, 0);
    put_u32(out, a.buffer);
    put_u32(out, a.start_partition);
    put_u32(out, a.partitions);
    put_u64(out, static_cast<std::uint64_t>(a.partition_stride));
    put_u64(out, a.byte_offset);
    for (int i = 0; i < kMaxFreeDims; ++i) {  // unused dims are written as zeros
      const bool used = i < a.ndims;
      put_u32(out, used ? static_cast<std::uint32_t>(a.dims[i].stride) : 0);
      put_u32(out, used ? a.dims[i].size : 0);
    }
  }
  static void decode(Decoder& d, AccessPattern& a, const char* field) {
    const Context& ctx = d.ctx();
    const std::uint8_t* b = d.take(kAccessPatternBytes, field);
    ctx.check_enum(b[0], kMemSpaceCount, field);
    ctx.check_enum(b[1], kDTypeCount, field);
    if (b[3] != 0) ctx.fail(field, "reserved byte is not zero");
    a.space = static_cast<MemSpace>(b[0]);
    a.dtype = static_cast<DType>(b[1]);
    a.ndims = b[2];
    a.buffer = load_u32(b + 4);
    a.start_partition = load_u32(b + 8);
    a.partitions = load_u32(b + 12);
    a.partition_stride = static_cast<std::int64_t>(load_u64(b + 16));
    a.byte_offset = load_u64(b + 24);
    ctx.check_ap(a, field);
    for (int i = 0; i < kMaxFreeDims; ++i) {
      const std::uint8_t* dim = b + 32 + 8 * i;
      if (i < a.ndims) {
        a.dims[i].stride = static_cast<std::int32_t>(load_u32(dim));
        a.dims[i].size = load_u32(dim + 4);
      } else if (load_u64(dim) != 0) {
        ctx.fail(field, "unused dim " + std::to_string(i) + " is not zero");
      } else {
        a.dims[i] = Dim{};  // the record is decoded into the previous one's storage
      }
    }
  }
};

// A flag byte, then the pattern when it is 1.
template <>
struct NeffField<std::optional<AccessPattern>> {
  static void encode(Encoder& e, const std::optional<AccessPattern>& a, const char* field) {
    put_u8(e.out(), a ? 1 : 0);
    if (a) NeffField<AccessPattern>::encode(e, *a, field);
  }
  static void decode(Decoder& d, std::optional<AccessPattern>& a, const char* field) {
    if (d.flag(field)) {
      a.emplace();
      NeffField<AccessPattern>::decode(d, *a, field);
    } else {
      a.reset();
    }
  }
};

// A flag byte: 1, the pattern; 0, the fp32 immediate.
template <>
struct NeffField<ScalarArg> {
  static void encode(Encoder& e, const ScalarArg& s, const char* field) {
    if (const auto* a = std::get_if<AccessPattern>(&s)) {
      put_u8(e.out(), 1);
      NeffField<AccessPattern>::encode(e, *a, field);
    } else {
      put_u8(e.out(), 0);
      put_f32(e.out(), std::get<float>(s));
    }
  }
  static void decode(Decoder& d, ScalarArg& s, const char* field) {
    if (d.flag(field)) {
      AccessPattern a;
      NeffField<AccessPattern>::decode(d, a, field);
      s = a;
    } else {
      s = load_f32(d.take(4, field));
    }
  }
};

// One byte, checked against the enum's count (isa::FieldKind<E>::count).
template <typename E>
struct NeffEnum {
  static constexpr int kCount = FieldKind<E>::count;
  static void encode(Encoder& e, E v, const char* field) {
    e.ctx().check_enum(static_cast<int>(v), kCount, field);
    put_u8(e.out(), static_cast<std::uint8_t>(v));
  }
  static void decode(Decoder& d, E& v, const char* field) {
    const std::uint8_t b = *d.take(1, field);
    d.ctx().check_enum(b, kCount, field);
    v = static_cast<E>(b);
  }
};
template <>
struct NeffField<AluOp> : NeffEnum<AluOp> {};
template <>
struct NeffField<ActFunc> : NeffEnum<ActFunc> {};
template <>
struct NeffField<AccumulateFlag> : NeffEnum<AccumulateFlag> {};
template <>
struct NeffField<MatmulPerfMode> : NeffEnum<MatmulPerfMode> {};

// The op's byte, or kNoAluOp when absent.
template <>
struct NeffField<std::optional<AluOp>> {
  static void encode(Encoder& e, const std::optional<AluOp>& op, const char* field) {
    if (op)
      NeffField<AluOp>::encode(e, *op, field);
    else
      put_u8(e.out(), kNoAluOp);
  }
  static void decode(Decoder& d, std::optional<AluOp>& op, const char* field) {
    const std::uint8_t v = *d.take(1, field);
    if (v == kNoAluOp) {
      op.reset();
    } else {
      d.ctx().check_enum(v, kAluOpCount, field);
      op = static_cast<AluOp>(v);
    }
  }
};

// A flag byte.
template <>
struct NeffField<bool> {
  static void encode(Encoder& e, bool b, const char*) { put_u8(e.out(), b ? 1 : 0); }
  static void decode(Decoder& d, bool& b, const char* field) { b = d.flag(field); }
};

// One byte, 1..kMaxFreeDims.
template <>
struct NeffField<Axes> {
  static void encode(Encoder& e, Axes n, const char* field) {
    e.ctx().check_axes(n.count, field);
    put_u8(e.out(), n.count);
  }
  static void decode(Decoder& d, Axes& n, const char* field) {
    n.count = *d.take(1, field);
    d.ctx().check_axes(n.count, field);
  }
};

// A u16 index into the kernel's queues.
template <>
struct NeffField<QueueRef> {
  static void encode(Encoder& e, QueueRef q, const char* field) {
    e.ctx().check_queue(q.index, field);
    put_u16(e.out(), q.index);
  }
  static void decode(Decoder& d, QueueRef& q, const char* field) {
    q.index = load_u16(d.take(2, field));
    d.ctx().check_queue(q.index, field);
  }
};

// Immediates: little-endian bits; errors name them "immediate".
template <>
struct NeffField<std::int32_t> {
  static void encode(Encoder& e, std::int32_t v, const char*) {
    put_u32(e.out(), static_cast<std::uint32_t>(v));
  }
  static void decode(Decoder& d, std::int32_t& v, const char*) {
    v = static_cast<std::int32_t>(load_u32(d.take(4, "immediate")));
  }
};
template <>
struct NeffField<float> {
  static void encode(Encoder& e, float v, const char*) { put_f32(e.out(), v); }
  static void decode(Decoder& d, float& v, const char*) { v = load_f32(d.take(4, "immediate")); }
};
template <>
struct NeffField<double> {
  static void encode(Encoder& e, double v, const char*) { put_f64(e.out(), v); }
  static void decode(Decoder& d, double& v, const char*) { v = load_f64(d.take(8, "immediate")); }
};

// Each coefficient as an int32 immediate.
template <>
struct NeffField<Steps> {
  static void encode(Encoder& e, const Steps& v, const char* field) {
    for (std::int32_t s : v)
      NeffField<std::int32_t>::encode(e, s, field);
  }
  static void decode(Decoder& d, Steps& v, const char* field) {
    for (std::int32_t& s : v)
      NeffField<std::int32_t>::decode(d, s, field);
  }
};

static_assert(specialised_for_every_kind<NeffField>(FieldKinds{}),
              "a field kind without its NEFF encoding (NeffField)");

// The operand fields of an operation, in file order (docs/neff.md): the order of the
// struct's fields() (instruction.hpp).
template <typename Op>
void encode_operands(Encoder& e, const Op& x) {
  for_each_field(x, [&](const auto& f, const auto& v) {
    NeffField<std::decay_t<decltype(v)>>::encode(e, v, f.name.data());  // names are literals
  });
}
template <typename Op>
void decode_operands(Decoder& d, Op& x) {
  for_each_field(x, [&](const auto& f, auto& v) {
    NeffField<std::decay_t<decltype(v)>>::decode(d, v, f.name.data());
  });
}

void patch_u32(std::vector<std::uint8_t>& out, std::size_t at, std::uint32_t v) {
  store_le32(out.data() + at, v);
}

}  // namespace

std::string instruction_total_problem(std::uint64_t total) {
  if (total <= kMaxInstructions) return {};
  return std::to_string(total) + " instructions in all, more than " +
         std::to_string(kMaxInstructions);
}

std::vector<std::uint8_t> encode_stream(const Kernel& k, Engine engine) {
  const auto& stream = k.stream(engine);
  const std::string where = "engine " + std::string(engine_name(engine));
  if (stream.size() > kMaxInstructions)
    throw Error(where + ": " + std::to_string(stream.size()) + " instructions, more than " +
                std::to_string(kMaxInstructions));
  std::vector<std::uint8_t> out;
  out.reserve(kStreamHeaderBytes + stream.size() * 160);
  for (std::uint8_t b : kStreamMagic)  // (an insert here drew a false -Wstringop-overflow)
    put_u8(out, b);
  put_u16(out, kEncodingVersion);
  put_u8(out, static_cast<std::uint8_t>(engine));
  put_u8(out, 0);
  put_u32(out, static_cast<std::uint32_t>(stream.size()));

  Context ctx{k, engine, where};
  Encoder enc(ctx, out);
  InstructionStream::Reader reader(stream);
  Instruction ins;
  for (std::size_t i = 0; reader.next(ins); ++i) {
    ctx.index = i;
    ctx.opcode = ins.opcode();
    ctx.check_opcode_on_engine();
    if (ins.waits.size() > 0xffff || ins.signals.size() > 0xffff)
      ctx.fail("waits/signals", "more than 65535 in one instruction");
    const std::size_t start = out.size();
    put_u32(out, 0);  // record_bytes, patched below
    put_u8(out, static_cast<std::uint8_t>(ins.opcode()));
    put_u8(out, 0);
    put_u16(out, static_cast<std::uint16_t>(ins.waits.size()));
    put_u16(out, static_cast<std::uint16_t>(ins.signals.size()));
    put_u16(out, 0);
    std::visit([&](const auto& op) { encode_operands(enc, op); }, ins.op);
    for (const SemWait& w : ins.waits) {
      ctx.check_sem(w.sem, "wait");
      put_u16(out, w.sem);
      put_u16(out, 0);
      put_u32(out, w.value);
    }
    for (const SemSignal& s : ins.signals) {
      ctx.check_sem(s.sem, "signal");
      ctx.check_enum(static_cast<int>(s.kind), kSemUpdateCount, "signal kind");
      put_u16(out, s.sem);
      put_u8(out, static_cast<std::uint8_t>(s.kind));
      put_u8(out, 0);
      put_u32(out, s.value);
    }
    patch_u32(out, start, static_cast<std::uint32_t>(out.size() - start));
  }
  return out;
}

InstructionStream decode_stream(const Kernel& k, Engine engine,
                                const std::vector<std::uint8_t>& bytes, std::uint64_t count,
                                const std::string& where) {
  auto fail = [&](const std::string& reason) { throw Error(where + ": " + reason); };
  if (bytes.size() < kStreamHeaderBytes)
    fail("truncated: " + std::to_string(bytes.size()) + " bytes, the stream header needs " +
         std::to_string(kStreamHeaderBytes));
  const std::uint8_t* b = bytes.data();
  if (!std::equal(std::begin(kStreamMagic), std::end(kStreamMagic), b))
    fail("not an instruction file (bad magic)");
  if (load_u16(b + 4) != kEncodingVersion)
    fail("encoding version " + std::to_string(load_u16(b + 4)) + ", this reader knows " +
         std::to_string(kEncodingVersion));
  if (b[6] != static_cast<std::uint8_t>(engine))
    fail("holds engine " + std::to_string(b[6]) + ", expected " +
         std::to_string(static_cast<int>(engine)) + " (" + std::string(engine_name(engine)) + ")");
  if (b[7] != 0) fail("reserved stream header byte is not zero");
  if (load_u32(b + 8) != count)
    fail("holds " + std::to_string(load_u32(b + 8)) + " instructions, def.json says " +
         std::to_string(count));
  const std::size_t body = bytes.size() - kStreamHeaderBytes;
  if (count > kMaxInstructions || count > body / kRecordHeaderBytes)
    fail(std::to_string(count) + " instructions cannot fit in " + std::to_string(body) +
         " bytes of records");

  InstructionStream out;
  out.reserve(count);
  Context ctx{k, engine, where};
  Instruction ins;  // one decoded record at a time: the kernel keeps only the encoding
  const std::uint8_t* p = b + kStreamHeaderBytes;
  const std::uint8_t* const end = b + bytes.size();
  for (std::uint64_t i = 0; i < count; ++i) {
    ctx.index = i;
    ctx.opcode = Opcode::nop;
    if (static_cast<std::size_t>(end - p) < kRecordHeaderBytes)
      ctx.fail("record", "truncated record header");
    const std::uint32_t size = load_u32(p);
    if (size < kRecordHeaderBytes || size > static_cast<std::size_t>(end - p))
      ctx.fail("record_bytes", std::to_string(size) + " does not fit the " +
                                   std::to_string(end - p) + " bytes left");
    ctx.check_enum(p[4], kOpcodeCount, "opcode");
    ctx.opcode = static_cast<Opcode>(p[4]);
    if (p[5] != 0 || load_u16(p + 10) != 0) ctx.fail("record", "reserved bytes are not zero");
    ctx.check_opcode_on_engine();
    const std::uint16_t waits = load_u16(p + 6);
    const std::uint16_t signals = load_u16(p + 8);

    if (ins.op.index() != p[4]) reset_operation(ins.op, ctx.opcode);
    Decoder dec(ctx, p + kRecordHeaderBytes, p + size);
    std::visit([&](auto& op) { decode_operands(dec, op); }, ins.op);
    const std::uint8_t* sync = dec.position();
    if (static_cast<std::size_t>(p + size - sync) != waits * kWaitBytes + signals * kSignalBytes)
      ctx.fail("record_bytes", std::to_string(size) + " does not match the operands and " +
                                   std::to_string(waits) + " waits, " + std::to_string(signals) +
                                   " signals");
    ins.waits.resize(waits);
    for (SemWait& w : ins.waits) {
      w.sem = load_u16(sync);
      ctx.check_sem(w.sem, "wait");
      if (load_u16(sync + 2) != 0) ctx.fail("wait", "reserved bytes are not zero");
      w.value = load_u32(sync + 4);
      sync += kWaitBytes;
    }
    ins.signals.resize(signals);
    for (SemSignal& s : ins.signals) {
      s.sem = load_u16(sync);
      ctx.check_sem(s.sem, "signal");
      ctx.check_enum(sync[2], kSemUpdateCount, "signal kind");
      s.kind = static_cast<SemUpdate>(sync[2]);
      if (sync[3] != 0) ctx.fail("signal", "reserved byte is not zero");
      s.value = load_u32(sync + 4);
      sync += kSignalBytes;
    }
    out.push_back(ins);
    p += size;
  }
  if (p != end)
    fail(std::to_string(end - p) + " bytes after the last of " + std::to_string(count) +
         " instructions");
  return out;
}

}  // namespace neuronsim::neff::detail

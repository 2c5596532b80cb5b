#include <array>
#include <type_traits>
#include <utility>

#include "base/error.hpp"
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

// The operand fields of each opcode, in file order (docs/neff.md): the order of the
// struct's fields() (instruction.hpp). One definition serves both the Encoder (const
// operands) and the Decoder (mutable operands); every field type has one encoding and a
// type without one does not compile.
template <typename Codec, typename Op>
void operand_fields(Codec& c, Op& x) {
  for_each_field(x, [&](const auto& f, auto& v) {
    using T = std::remove_const_t<std::remove_reference_t<decltype(v)>>;
    const char* name = f.name.data();  // field names are string literals
    if constexpr (std::is_same_v<T, AccessPattern>) {
      c.ap(v, name);
    } else if constexpr (std::is_same_v<T, std::optional<AccessPattern>>) {
      c.optional_ap(v, name);
    } else if constexpr (std::is_same_v<T, ScalarArg>) {
      c.scalar(v, name);
    } else if constexpr (std::is_same_v<T, AluOp>) {
      c.enumeration(v, kAluOpCount, name);
    } else if constexpr (std::is_same_v<T, ActFunc>) {
      c.enumeration(v, kActFuncCount, name);
    } else if constexpr (std::is_same_v<T, AccumulateFlag>) {
      c.enumeration(v, kAccumulateFlagCount, name);
    } else if constexpr (std::is_same_v<T, std::optional<AluOp>>) {
      c.optional_alu_op(v, name);
    } else if constexpr (std::is_same_v<T, bool>) {
      c.boolean(v, name);
    } else if constexpr (std::is_same_v<T, std::uint8_t>) {
      c.axes(v, name);
    } else if constexpr (std::is_same_v<T, std::uint16_t>) {
      c.queue(v, name);
    } else if constexpr (std::is_same_v<T, std::int32_t>) {
      c.i32(v);
    } else if constexpr (std::is_same_v<T, float>) {
      c.f32(v);
    } else if constexpr (std::is_same_v<T, double>) {
      c.f64(v);
    } else if constexpr (std::is_same_v<T, std::array<std::int32_t, kMaxFreeDims>>) {
      for (auto& step : v)
        c.i32(step);
    } else {
      static_assert(sizeof(T) == 0, "no NEFF encoding for this field type");
    }
  });
}

class Encoder {
 public:
  Encoder(const Context& ctx, std::vector<std::uint8_t>& out) : ctx_(ctx), out_(out) {}

  void ap(const AccessPattern& a, const char* field) {
    ctx_.check_ap(a, field);
    put_u8(out_, static_cast<std::uint8_t>(a.space));
    put_u8(out_, static_cast<std::uint8_t>(a.dtype));
    put_u8(out_, a.ndims);
    put_u8(out_, 0);
    put_u32(out_, a.buffer);
    put_u32(out_, a.start_partition);
    put_u32(out_, a.partitions);
    put_u64(out_, static_cast<std::uint64_t>(a.partition_stride));
    put_u64(out_, a.byte_offset);
    for (int i = 0; i < kMaxFreeDims; ++i) {  // unused dims are written as zeros
      const bool used = i < a.ndims;
      put_u32(out_, used ? static_cast<std::uint32_t>(a.dims[i].stride) : 0);
      put_u32(out_, used ? a.dims[i].size : 0);
    }
  }
  void optional_ap(const std::optional<AccessPattern>& a, const char* field) {
    put_u8(out_, a ? 1 : 0);
    if (a) ap(*a, field);
  }
  void scalar(const ScalarArg& s, const char* field) {
    if (const auto* a = std::get_if<AccessPattern>(&s)) {
      put_u8(out_, 1);
      ap(*a, field);
    } else {
      put_u8(out_, 0);
      put_f32(out_, std::get<float>(s));
    }
  }
  template <typename E>
  void enumeration(const E& e, int count, const char* field) {
    ctx_.check_enum(static_cast<int>(e), count, field);
    put_u8(out_, static_cast<std::uint8_t>(e));
  }
  void optional_alu_op(const std::optional<AluOp>& op, const char* field) {
    if (op)
      enumeration(*op, kAluOpCount, field);
    else
      put_u8(out_, kNoAluOp);
  }
  void boolean(const bool& b, const char*) { put_u8(out_, b ? 1 : 0); }
  void axes(const std::uint8_t& n, const char* field) {
    ctx_.check_axes(n, field);
    put_u8(out_, n);
  }
  void queue(const std::uint16_t& q, const char* field) {
    ctx_.check_queue(q, field);
    put_u16(out_, q);
  }
  void i32(const std::int32_t& v) { put_u32(out_, static_cast<std::uint32_t>(v)); }
  void f32(const float& v) { put_f32(out_, v); }
  void f64(const double& v) { put_f64(out_, v); }

 private:
  const Context& ctx_;
  std::vector<std::uint8_t>& out_;
};

class Decoder {
 public:
  Decoder(const Context& ctx, const std::uint8_t* begin, const std::uint8_t* end)
      : ctx_(ctx), p_(begin), end_(end) {}
  const std::uint8_t* position() const { return p_; }

  const std::uint8_t* take(std::size_t n, const char* field) {
    if (static_cast<std::size_t>(end_ - p_) < n)
      ctx_.fail(field, "the record ends inside this field");
    const std::uint8_t* at = p_;
    p_ += n;
    return at;
  }
  void ap(AccessPattern& a, const char* field) {
    const std::uint8_t* b = take(kAccessPatternBytes, field);
    ctx_.check_enum(b[0], kMemSpaceCount, field);
    ctx_.check_enum(b[1], kDTypeCount, field);
    if (b[3] != 0) ctx_.fail(field, "reserved byte is not zero");
    a.space = static_cast<MemSpace>(b[0]);
    a.dtype = static_cast<DType>(b[1]);
    a.ndims = b[2];
    a.buffer = load_u32(b + 4);
    a.start_partition = load_u32(b + 8);
    a.partitions = load_u32(b + 12);
    a.partition_stride = static_cast<std::int64_t>(load_u64(b + 16));
    a.byte_offset = load_u64(b + 24);
    ctx_.check_ap(a, field);
    for (int i = 0; i < kMaxFreeDims; ++i) {
      const std::uint8_t* d = b + 32 + 8 * i;
      if (i < a.ndims) {
        a.dims[i].stride = static_cast<std::int32_t>(load_u32(d));
        a.dims[i].size = load_u32(d + 4);
      } else if (load_u64(d) != 0) {
        ctx_.fail(field, "unused dim " + std::to_string(i) + " is not zero");
      } else {
        a.dims[i] = Dim{};  // the record is decoded into the previous one's storage
      }
    }
  }
  void optional_ap(std::optional<AccessPattern>& a, const char* field) {
    if (flag(field)) {
      a.emplace();
      ap(*a, field);
    } else {
      a.reset();
    }
  }
  void scalar(ScalarArg& s, const char* field) {
    if (flag(field)) {
      AccessPattern a;
      ap(a, field);
      s = a;
    } else {
      s = load_f32(take(4, field));
    }
  }
  template <typename E>
  void enumeration(E& e, int count, const char* field) {
    const std::uint8_t v = *take(1, field);
    ctx_.check_enum(v, count, field);
    e = static_cast<E>(v);
  }
  void optional_alu_op(std::optional<AluOp>& op, const char* field) {
    const std::uint8_t v = *take(1, field);
    if (v == kNoAluOp) {
      op.reset();
    } else {
      ctx_.check_enum(v, kAluOpCount, field);
      op = static_cast<AluOp>(v);
    }
  }
  void boolean(bool& b, const char* field) { b = flag(field); }
  void axes(std::uint8_t& n, const char* field) {
    n = *take(1, field);
    ctx_.check_axes(n, field);
  }
  void queue(std::uint16_t& q, const char* field) {
    q = load_u16(take(2, field));
    ctx_.check_queue(q, field);
  }
  void i32(std::int32_t& v) { v = static_cast<std::int32_t>(load_u32(take(4, "immediate"))); }
  void f32(float& v) { v = load_f32(take(4, "immediate")); }
  void f64(double& v) { v = load_f64(take(8, "immediate")); }

 private:
  bool flag(const char* field) {
    const std::uint8_t v = *take(1, field);
    if (v > 1) ctx_.fail(field, "flag byte " + std::to_string(v) + " is neither 0 nor 1");
    return v == 1;
  }
  const Context& ctx_;
  const std::uint8_t* p_;
  const std::uint8_t* end_;
};

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
    std::visit([&](const auto& op) { operand_fields(enc, op); }, ins.op);
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
    std::visit([&](auto& op) { operand_fields(dec, op); }, ins.op);
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

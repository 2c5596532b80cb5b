#include "isa/instruction_stream.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "isa/for_each_field.hpp"

namespace neuronsim::isa {

// A record: varint body length, then the body:
//   opcode (1 byte), varint wait count, varint signal count,
//   the operand fields in fields() order (below),
//   per wait: varint semaphore, varint value;
//   per signal: varint semaphore, kind (1 byte), varint value.
// Field encodings: an access pattern is 5 bytes (space, dtype, ndims, a mask of which
// scalar members differ from their defaults, a mask of which dims differ from Dim{})
// followed by the members the masks name as varints (signed ones zigzagged); enums,
// bools and uint8 settings are one raw byte; optionals and ScalarArg a tag byte first;
// uint16 and int32 settings varints; float and double their raw bits.
namespace {

constexpr std::uint8_t kHasBuffer = 1;
constexpr std::uint8_t kHasStartPartition = 2;
constexpr std::uint8_t kHasPartitions = 4;  // partitions != 1
constexpr std::uint8_t kHasPartitionStride = 8;
constexpr std::uint8_t kHasByteOffset = 16;

inline std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
inline std::int64_t unzigzag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

// Writes through a raw pointer into room the caller sized with max_record_bytes: a
// vector push_back per byte was a quarter of loading a NEFF.
class Writer {
 public:
  explicit Writer(std::uint8_t* p) : p_(p) {}
  std::uint8_t* position() const { return p_; }
  void u8(std::uint8_t v) { *p_++ = v; }
  void varint(std::uint64_t v) {
    while (v >= 0x80) {
      *p_++ = static_cast<std::uint8_t>(v | 0x80);
      v >>= 7;
    }
    *p_++ = static_cast<std::uint8_t>(v);
  }
  void svarint(std::int64_t v) { varint(zigzag(v)); }
  std::uint8_t* varint_end(std::uint64_t v) {
    varint(v);
    return p_;
  }
  template <typename T>
  void raw(const T& v) {
    std::memcpy(p_, &v, sizeof(T));
    p_ += sizeof(T);
  }

  void ap(const AccessPattern& a) {
    u8(static_cast<std::uint8_t>(a.space));
    u8(static_cast<std::uint8_t>(a.dtype));
    u8(a.ndims);
    std::uint8_t mask = 0;
    if (a.buffer != 0) mask |= kHasBuffer;
    if (a.start_partition != 0) mask |= kHasStartPartition;
    if (a.partitions != 1) mask |= kHasPartitions;
    if (a.partition_stride != 0) mask |= kHasPartitionStride;
    if (a.byte_offset != 0) mask |= kHasByteOffset;
    u8(mask);
    std::uint8_t dims = 0;
    for (int i = 0; i < kMaxFreeDims; ++i)
      if (a.dims[i] != Dim{}) dims |= static_cast<std::uint8_t>(1u << i);
    u8(dims);
    if (mask & kHasBuffer) varint(a.buffer);
    if (mask & kHasStartPartition) varint(a.start_partition);
    if (mask & kHasPartitions) varint(a.partitions);
    if (mask & kHasPartitionStride) svarint(a.partition_stride);
    if (mask & kHasByteOffset) varint(a.byte_offset);
    for (int i = 0; i < kMaxFreeDims; ++i) {
      if (!(dims & (1u << i))) continue;
      svarint(a.dims[i].stride);
      varint(a.dims[i].size);
    }
  }

 private:
  std::uint8_t* p_;
};

// The most bytes each field type encodes to (varints of 32 bits take 5, of 64 bits 10).
constexpr std::size_t kMaxPatternBytes = 5 + 3 * 5 + 10 + 10 + kMaxFreeDims * (5 + 5);
template <typename T>
constexpr std::size_t max_field_bytes() {
  if constexpr (std::is_same_v<T, AccessPattern>) return kMaxPatternBytes;
  if constexpr (std::is_same_v<T, std::optional<AccessPattern>>) return 1 + kMaxPatternBytes;
  if constexpr (std::is_same_v<T, ScalarArg>) return 1 + kMaxPatternBytes;
  if constexpr (std::is_same_v<T, std::optional<AluOp>>) return 2;
  if constexpr (std::is_same_v<T, std::array<std::int32_t, kMaxFreeDims>>) return kMaxFreeDims * 5;
  return 10;  // enums, bools, integers, float, double: at most 10
}
std::size_t max_record_bytes(const Instruction& instr) {
  const std::size_t fields = std::visit(
      [](const auto& op) {
        std::size_t n = 0;
        for_each_field(op, [&](const auto&, const auto& v) {
          n += max_field_bytes<std::remove_cv_t<std::remove_reference_t<decltype(v)>>>();
        });
        return n;
      },
      instr.op);
  // length, opcode, two counts, the fields, waits (5 + 5), signals (5 + 1 + 5)
  return 10 + 1 + 10 + 10 + fields + instr.waits.size() * 10 + instr.signals.size() * 11;
}

class Decoder {
 public:
  explicit Decoder(const std::uint8_t* p) : p_(p) {}
  const std::uint8_t* position() const { return p_; }
  std::uint8_t u8() { return *p_++; }
  std::uint64_t varint() {
    std::uint64_t v = *p_++;
    if (v < 0x80) return v;
    v &= 0x7f;
    for (int shift = 7;; shift += 7) {
      const std::uint64_t b = *p_++;
      v |= (b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
  }
  std::int64_t svarint() { return unzigzag(varint()); }
  template <typename T>
  T raw() {
    T v;
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }

  void ap(AccessPattern& a) {
    a.space = static_cast<MemSpace>(u8());
    a.dtype = static_cast<DType>(u8());
    a.ndims = u8();
    const std::uint8_t mask = u8();
    const std::uint8_t dims = u8();
    a.buffer = mask & kHasBuffer ? static_cast<std::uint32_t>(varint()) : 0;
    a.start_partition = mask & kHasStartPartition ? static_cast<std::uint32_t>(varint()) : 0;
    a.partitions = mask & kHasPartitions ? static_cast<std::uint32_t>(varint()) : 1;
    a.partition_stride = mask & kHasPartitionStride ? svarint() : 0;
    a.byte_offset = mask & kHasByteOffset ? varint() : 0;
    for (int i = 0; i < kMaxFreeDims; ++i) {
      if (dims & (1u << i)) {
        a.dims[i].stride = static_cast<std::int32_t>(svarint());
        a.dims[i].size = static_cast<std::uint32_t>(varint());
      } else {
        a.dims[i] = Dim{};
      }
    }
  }

 private:
  const std::uint8_t* p_;
};

// Every field type has one encoding here; a type without one does not compile.
template <typename T>
void encode_field(Writer& w, const T& v) {
  if constexpr (std::is_same_v<T, AccessPattern>) {
    w.ap(v);
  } else if constexpr (std::is_same_v<T, std::optional<AccessPattern>>) {
    w.u8(v ? 1 : 0);
    if (v) w.ap(*v);
  } else if constexpr (std::is_same_v<T, ScalarArg>) {
    if (const auto* a = std::get_if<AccessPattern>(&v)) {
      w.u8(1);
      w.ap(*a);
    } else {
      w.u8(0);
      w.raw(std::get<float>(v));
    }
  } else if constexpr (std::is_enum_v<T>) {
    static_assert(sizeof(T) == 1, "enums are encoded as one byte");
    w.u8(static_cast<std::uint8_t>(v));
  } else if constexpr (std::is_same_v<T, std::optional<AluOp>>) {
    w.u8(v ? 1 : 0);
    if (v) w.u8(static_cast<std::uint8_t>(*v));
  } else if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::uint8_t>) {
    w.u8(static_cast<std::uint8_t>(v));
  } else if constexpr (std::is_same_v<T, std::uint16_t>) {
    w.varint(v);
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    w.svarint(v);
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    w.raw(v);
  } else if constexpr (std::is_same_v<T, std::array<std::int32_t, kMaxFreeDims>>) {
    for (std::int32_t s : v)
      w.svarint(s);
  } else {
    static_assert(sizeof(T) == 0, "no stream encoding for this field type");
  }
}

template <typename T>
void decode_field(Decoder& d, T& v) {
  if constexpr (std::is_same_v<T, AccessPattern>) {
    d.ap(v);
  } else if constexpr (std::is_same_v<T, std::optional<AccessPattern>>) {
    if (d.u8()) {
      if (!v) v.emplace();
      d.ap(*v);
    } else {
      v.reset();
    }
  } else if constexpr (std::is_same_v<T, ScalarArg>) {
    if (d.u8()) {
      if (!std::holds_alternative<AccessPattern>(v)) v.template emplace<AccessPattern>();
      d.ap(std::get<AccessPattern>(v));
    } else {
      v = d.raw<float>();
    }
  } else if constexpr (std::is_enum_v<T>) {
    v = static_cast<T>(d.u8());
  } else if constexpr (std::is_same_v<T, std::optional<AluOp>>) {
    if (d.u8())
      v = static_cast<AluOp>(d.u8());
    else
      v.reset();
  } else if constexpr (std::is_same_v<T, bool>) {
    v = d.u8() != 0;
  } else if constexpr (std::is_same_v<T, std::uint8_t>) {
    v = d.u8();
  } else if constexpr (std::is_same_v<T, std::uint16_t>) {
    v = static_cast<std::uint16_t>(d.varint());
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    v = static_cast<std::int32_t>(d.svarint());
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    v = d.raw<T>();
  } else if constexpr (std::is_same_v<T, std::array<std::int32_t, kMaxFreeDims>>) {
    for (std::int32_t& s : v)
      s = static_cast<std::int32_t>(d.svarint());
  } else {
    static_assert(sizeof(T) == 0, "no stream decoding for this field type");
  }
}

// Bytes of the record at p: its length varint and its body.
inline std::size_t skip_record(const std::uint8_t* p) {
  Decoder d(p);
  const std::uint64_t body = d.varint();
  return static_cast<std::size_t>(d.position() - p) + body;
}

}  // namespace

void encode_instruction(const Instruction& instr, std::vector<std::uint8_t>& out) {
  const std::size_t at = out.size();
  out.resize(at + max_record_bytes(instr));
  std::uint8_t* const body = out.data() + at + 1;  // after a one-byte length
  Writer w(body);
  w.u8(static_cast<std::uint8_t>(instr.op.index()));
  w.varint(instr.waits.size());
  w.varint(instr.signals.size());
  std::visit(
      [&](const auto& op) {
        for_each_field(op, [&](const auto&, const auto& v) { encode_field(w, v); });
      },
      instr.op);
  for (const SemWait& s : instr.waits) {
    w.varint(s.sem);
    w.varint(s.value);
  }
  for (const SemSignal& s : instr.signals) {
    w.varint(s.sem);
    w.u8(static_cast<std::uint8_t>(s.kind));
    w.varint(s.value);
  }
  const auto size = static_cast<std::size_t>(w.position() - body);
  std::uint8_t length[10];
  const auto length_bytes = static_cast<std::size_t>(Writer(length).varint_end(size) - length);
  if (length_bytes > 1)  // a body of 128 bytes or more: move it up to make room
    std::memmove(body + length_bytes - 1, body, size);
  std::memcpy(out.data() + at, length, length_bytes);
  out.resize(at + length_bytes + size);
}

const std::uint8_t* decode_instruction(const std::uint8_t* p, Instruction& out) {
  Decoder d(p);
  d.varint();  // body length
  const std::uint8_t opcode = d.u8();
  if (out.op.index() != opcode) reset_operation(out.op, static_cast<Opcode>(opcode));
  const std::size_t waits = d.varint();
  const std::size_t signals = d.varint();
  std::visit(
      [&](auto& op) { for_each_field(op, [&](const auto&, auto& v) { decode_field(d, v); }); },
      out.op);
  out.waits.resize(waits);
  for (std::size_t i = 0; i < waits; ++i) {
    SemWait& s = out.waits[i];
    s.sem = static_cast<std::uint16_t>(d.varint());
    s.value = static_cast<std::uint32_t>(d.varint());
  }
  out.signals.resize(signals);
  for (std::size_t i = 0; i < signals; ++i) {
    SemSignal& s = out.signals[i];
    s.sem = static_cast<std::uint16_t>(d.varint());
    s.kind = static_cast<SemUpdate>(d.u8());
    s.value = static_cast<std::uint32_t>(d.varint());
  }
  return d.position();
}

// --- InstructionStream

InstructionStream::InstructionStream(const std::vector<Instruction>& instrs) {
  reserve(instrs.size());
  for (const Instruction& i : instrs)
    push_back(i);
}

std::size_t InstructionStream::memory_bytes() const {
  return bytes_.capacity() + index_.capacity() * sizeof(std::uint64_t) +
         source_lines_.capacity() * sizeof(std::uint32_t) +
         locations_.capacity() * sizeof(SourceLocation);
}

void InstructionStream::push_back(const Instruction& instr) {
  if (count_ % kIndexStride == 0) index_.push_back(bytes_.size());
  encode_instruction(instr, bytes_);
  if (instr.source_line != 0 || !source_lines_.empty()) {
    source_lines_.resize(count_, 0);  // zeros for the lines before the first known one
    source_lines_.push_back(instr.source_line);
  }
  if (!locations_.empty()) locations_.emplace_back();  // set_location() gives it one
  ++count_;
}

void InstructionStream::clear() {
  bytes_.clear();
  index_.clear();
  source_lines_.clear();
  locations_.clear();
  count_ = 0;
}

void InstructionStream::reserve(std::size_t instructions) {
  bytes_.reserve(instructions * 12);  // a nop with a wait and a signal takes 10-12
  index_.reserve(instructions / kIndexStride + 1);
}

std::size_t InstructionStream::offset_of(std::size_t i) const {
  std::size_t offset = index_[i / kIndexStride];
  for (std::size_t k = i - i % kIndexStride; k < i; ++k)
    offset += skip_record(bytes_.data() + offset);
  return offset;
}

const Instruction InstructionStream::operator[](std::size_t i) const {
  Instruction out;
  decode_instruction(bytes_.data() + offset_of(i), out);
  out.source_line = source_line(i);
  return out;
}

const Instruction InstructionStream::at(std::size_t i) const {
  if (i >= count_)
    throw std::out_of_range("instruction " + std::to_string(i) + " of a stream of " +
                            std::to_string(count_));
  return (*this)[i];
}

void InstructionStream::replace(std::size_t i, const Instruction& instr) {
  if (i >= count_)
    throw std::out_of_range("instruction " + std::to_string(i) + " of a stream of " +
                            std::to_string(count_));
  const std::size_t offset = offset_of(i);
  const std::size_t old_size = skip_record(bytes_.data() + offset);
  std::vector<std::uint8_t> record;
  encode_instruction(instr, record);
  if (record.size() == old_size) {
    std::copy(record.begin(), record.end(), bytes_.begin() + static_cast<std::ptrdiff_t>(offset));
  } else {
    bytes_.erase(bytes_.begin() + static_cast<std::ptrdiff_t>(offset),
                 bytes_.begin() + static_cast<std::ptrdiff_t>(offset + old_size));
    bytes_.insert(bytes_.begin() + static_cast<std::ptrdiff_t>(offset), record.begin(),
                  record.end());
    for (std::size_t b = i / kIndexStride + 1; b < index_.size(); ++b)
      index_[b] = index_[b] + record.size() - old_size;
  }
  set_source_line(i, instr.source_line);
}

void InstructionStream::set_source_line(std::size_t i, std::uint32_t line) {
  if (line != 0 && source_lines_.empty()) source_lines_.assign(count_, 0);
  if (i < source_lines_.size()) source_lines_[i] = line;
}

void InstructionStream::set_location(std::size_t i, SourceLocation location) {
  if (location.known() && locations_.empty()) locations_.assign(count_, SourceLocation{});
  if (i < locations_.size()) locations_[i] = location;
}

bool InstructionStream::operator==(const InstructionStream& o) const {
  if (count_ != o.count_) return false;
  if (has_locations() || o.has_locations())
    for (std::size_t i = 0; i < count_; ++i)
      if (location(i) != o.location(i)) return false;
  Reader a(*this), b(o);
  Instruction x, y;
  while (a.next(x) && b.next(y))
    if (!(x == y)) return false;
  return true;
}

bool InstructionStream::Reader::next(Instruction& out) {
  if (index_ >= s_->count_) return false;
  const std::uint8_t* p = s_->bytes_.data() + offset_;
  const std::uint8_t* end = decode_instruction(p, out);
  out.source_line = s_->source_line(index_);
  offset_ += static_cast<std::size_t>(end - p);
  ++index_;
  return true;
}

void InstructionStream::const_iterator::load() {
  if (loaded_) return;
  while (reader_.index() < index_) {  // skipped by ++ without a read
    reader_.next(current_);
  }
  reader_.next(current_);
  loaded_ = true;
}

InstructionStream::const_iterator& InstructionStream::const_iterator::operator++() {
  if (!loaded_) load();
  ++index_;
  loaded_ = false;
  return *this;
}

}  // namespace neuronsim::isa

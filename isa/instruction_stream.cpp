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
//   the operand fields in fields() order, each as its kind encodes it (field_kind.hpp),
//   per wait: varint semaphore, varint value;
//   per signal: varint semaphore, kind (1 byte), varint value.
namespace {

using stream_detail::Reader;
using stream_detail::Writer;

std::size_t max_record_bytes(const Instruction& instr) {
  const std::size_t fields = std::visit(
      [](const auto& op) {
        std::size_t n = 0;
        for_each_field(op, [&](const auto&, const auto& v) {
          n += FieldKind<std::decay_t<decltype(v)>>::max_stream_bytes;
        });
        return n;
      },
      instr.op);
  // length, opcode, two counts, the fields, waits (5 + 5), signals (5 + 1 + 5)
  return 10 + 1 + 10 + 10 + fields + instr.waits.size() * 10 + instr.signals.size() * 11;
}

// Bytes of the record at p: its length varint and its body.
inline std::size_t skip_record(const std::uint8_t* p) {
  Reader d(p);
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
        for_each_field(op, [&](const auto&, const auto& v) {
          FieldKind<std::decay_t<decltype(v)>>::encode(w, v);
        });
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
  Reader d(p);
  d.varint();  // body length
  const std::uint8_t opcode = d.u8();
  if (out.op.index() != opcode) reset_operation(out.op, static_cast<Opcode>(opcode));
  const std::size_t waits = d.varint();
  const std::size_t signals = d.varint();
  std::visit(
      [&](auto& op) {
        for_each_field(
            op, [&](const auto&, auto& v) { FieldKind<std::decay_t<decltype(v)>>::decode(d, v); });
      },
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

#pragma once
// One engine's instruction stream, held encoded: each instruction is a variable-length
// record of varints and raw immediates (instruction_stream.cpp), about 10 bytes for a nop
// with a wait and a signal and 15-25 bytes per access pattern, instead of the 432 bytes of
// a decoded isa::Instruction. A 10 M-instruction kernel fits in a few hundred MB.
//
// The encoding is lossless for every value an Instruction can hold (invalid ones too:
// validation reports them later) and is private to the process: files use the NEFF
// records (neff/), which this never replaces.
//
// Reading: sequentially with Reader (what the engines do) or a range-for, or at an index
// with operator[] (a skip of at most kIndexStride - 1 records, then a decode). Values are
// returned decoded, by value: there are no references into the stream. Writing:
// push_back, and replace/edit for the rare change to an instruction already appended.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "isa/instruction.hpp"

namespace neuronsim::isa {

class InstructionStream {
 public:
  // One byte offset is kept for every kIndexStride instructions (operator[]'s index).
  static constexpr std::size_t kIndexStride = 16;

  InstructionStream() = default;
  InstructionStream(const std::vector<Instruction>& instrs);  // NOLINT: tests' and tools' lists

  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  // Bytes held: the records, their index and the source lines.
  std::size_t memory_bytes() const;

  void push_back(const Instruction& instr);
  void clear();
  // Reserves room for about `instructions` records of a typical size.
  void reserve(std::size_t instructions);

  // The instruction at `i`, decoded; `at` throws std::out_of_range past the end.
  const Instruction operator[](std::size_t i) const;  // const: assigning to it would be lost
  const Instruction at(std::size_t i) const;
  const Instruction back() const { return (*this)[count_ - 1]; }
  std::uint32_t source_line(std::size_t i) const {
    return i < source_lines_.size() ? source_lines_[i] : 0;
  }
  SourceLocation location(std::size_t i) const {
    return i < locations_.size() ? locations_[i] : SourceLocation{};
  }
  bool has_locations() const { return !locations_.empty(); }

  // Replaces instruction `i` (re-encodes the records after it when the size changes).
  void replace(std::size_t i, const Instruction& instr);
  void set_source_line(std::size_t i, std::uint32_t line);
  // The generating program's line of instruction `i` (kept across replace()).
  void set_location(std::size_t i, SourceLocation location);
  // Decodes instruction `i`, lets `change` modify it, and stores it back.
  template <typename Change>
  void edit(std::size_t i, Change&& change) {
    Instruction instr = at(i);
    change(instr);
    replace(i, instr);
  }

  // Instruction equality (source lines ignored, locations compared), record by record.
  bool operator==(const InstructionStream& o) const;
  bool operator!=(const InstructionStream& o) const { return !(*this == o); }

  // Decodes the stream front to back into a caller's Instruction, reusing its storage.
  class Reader {
   public:
    explicit Reader(const InstructionStream& s) : s_(&s) {}
    std::size_t index() const { return index_; }  // of the instruction next() gives
    bool done() const { return index_ >= s_->count_; }
    // Decodes the next instruction into `out`; false at the end of the stream.
    bool next(Instruction& out);

   private:
    const InstructionStream* s_;
    std::size_t index_ = 0;
    std::size_t offset_ = 0;  // byte offset of record index_
  };

  // An input iterator, for range-for and algorithms over the decoded instructions.
  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Instruction;
    using difference_type = std::ptrdiff_t;
    using pointer = const Instruction*;
    using reference = const Instruction&;

    const_iterator(const InstructionStream* s, std::size_t index) : reader_(*s), index_(index) {}
    const Instruction& operator*() {
      load();
      return current_;
    }
    const Instruction* operator->() {
      load();
      return &current_;
    }
    const_iterator& operator++();
    bool operator==(const const_iterator& o) const { return index_ == o.index_; }
    bool operator!=(const const_iterator& o) const { return index_ != o.index_; }

   private:
    void load();
    Reader reader_;
    std::size_t index_;
    bool loaded_ = false;
    Instruction current_;
  };
  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, count_); }

 private:
  // Byte offset of record `i`.
  std::size_t offset_of(std::size_t i) const;
  // Rebuilds index_ from record `first_block * kIndexStride` on.
  void reindex(std::size_t first_block);

  std::vector<std::uint8_t> bytes_;
  std::vector<std::uint64_t> index_;         // offset of record j * kIndexStride
  std::vector<std::uint32_t> source_lines_;  // empty until a line is not 0
  std::vector<SourceLocation> locations_;    // empty until a location is known
  std::size_t count_ = 0;
};

// Encoding and decoding of single records (instruction_stream.cpp), for the stream and
// its tests: append the record of `instr` to `out`; decode the record at `p` into `out`
// (keeping out.source_line) and return the byte after it.
void encode_instruction(const Instruction& instr, std::vector<std::uint8_t>& out);
const std::uint8_t* decode_instruction(const std::uint8_t* p, Instruction& out);

}  // namespace neuronsim::isa

#pragma once
// The text assembly language of docs/assembly.md -> Kernel. Every error is a
// neuronsim::Error whose message starts with "file:line: " and gives the reason.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "isa/kernel.hpp"

namespace neuronsim::isa {

Kernel assemble(std::string_view source, const std::string& file_name);
Kernel assemble_file(const std::string& path);

// Field values read as the assembly writes them, for a front end that builds a kernel's
// instructions from their parts instead of lines of text (python/core/nki_kernel.cpp):
// the same syntax and checks as the assembler's, over the names `declared` has (its
// tensors, allocations, semaphores, queues and sources). Errors are the assembler's,
// "file:line: reason", at the line given.
class FieldReader {
 public:
  FieldReader(const Kernel& declared, const std::string& file_name);
  ~FieldReader();
  FieldReader(const FieldReader&) = delete;
  FieldReader& operator=(const FieldReader&) = delete;
  // Sets field `key` of `op` from `text`: a `key=value` option's value, or a positional
  // operand's text.
  void read(Operation& op, std::string_view key, std::string_view text, std::uint32_t line);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace neuronsim::isa

#pragma once
// A whole kernel in memory: its HBM tensors, named SBUF/PSUM allocations, semaphores,
// DMA queues and one instruction stream per engine. The assembler, the builder, the
// compiler and the NEFF reader all produce a Kernel; the simulator and the NEFF writer
// consume it. Nothing downstream re-parses text.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "isa/access_pattern.hpp"
#include "isa/engine.hpp"
#include "isa/instruction.hpp"
#include "isa/instruction_stream.hpp"

namespace neuronsim::isa {

enum class TensorRole : std::uint8_t { input, output, constant, scratch };
std::string_view tensor_role_name(TensorRole r);

// A tensor in HBM. Constants carry their bytes (row-major, dtype elements).
struct HbmTensor {
  std::string name;
  DType dtype = DType::fp32;
  std::vector<std::uint64_t> shape;
  TensorRole role = TensorRole::input;
  std::vector<std::uint8_t> data;  // constants only; size == bytes()
  std::uint64_t elems() const;
  std::uint64_t bytes() const;
  bool operator==(const HbmTensor& o) const;
};

// A named region of SBUF or PSUM: partitions [start_partition, start_partition+partitions)
// and, in each of them, bytes [byte_offset, byte_offset + bytes_per_partition()).
struct Allocation {
  std::string name;
  MemSpace space = MemSpace::sbuf;
  DType dtype = DType::fp32;
  std::uint32_t start_partition = 0;
  std::uint32_t partitions = 128;
  std::vector<std::uint32_t> free_shape;  // elements per partition = product
  std::uint32_t byte_offset = 0;          // within each partition
  std::uint64_t bytes_per_partition() const;
  bool operator==(const Allocation& o) const;
};

struct Semaphore {
  std::string name;
  std::uint32_t initial = 0;
  bool operator==(const Semaphore& o) const { return name == o.name && initial == o.initial; }
};

// A DMA queue. Its transfers are split across `engines` DMA engines (1..16), starting at
// DMA engine `first_engine`; queues on the same DMA engine are served round-robin.
struct DmaQueue {
  std::string name;
  std::uint8_t first_engine = 0;
  std::uint8_t engines = 16;
  bool operator==(const DmaQueue& o) const {
    return name == o.name && first_engine == o.first_engine && engines == o.engines;
  }
};

// A file of the program that generated the kernel (a traced NKI kernel's Python file):
// instructions name it by index in their SourceLocation. `text` is the file's contents
// (possibly empty), kept so that a profile's report can show the source on its own.
struct SourceFile {
  std::string name;  // an identifier, as the assembly's `source NAME "path"` declares it
  std::string path;  // as the generating program named it
  std::string text;
  bool operator==(const SourceFile& o) const {
    return name == o.name && path == o.path && text == o.text;
  }
};

// Bounds on the source table (the assembler and the NEFF reader and writer check them): a
// kernel's Python files are a few KiB each; these only cap a hostile file's cost.
inline constexpr std::size_t kMaxSourceFiles = 1024;
inline constexpr std::size_t kMaxSourcePathBytes = 4096;
inline constexpr std::size_t kMaxSourceTextBytes = 4u << 20;    // one file
inline constexpr std::size_t kMaxSourceTotalBytes = 16u << 20;  // all files together

struct Kernel {
  std::string name;
  std::string target;               // "trn1", "trn2", "trn3": the target it was written for
  std::vector<SourceFile> sources;  // empty unless the kernel was generated (instruction.hpp)
  std::vector<HbmTensor> tensors;
  std::vector<Allocation> allocations;
  std::vector<Semaphore> semaphores;
  std::vector<DmaQueue> queues;
  std::array<InstructionStream, kEngineCount> streams;  // encoded (instruction_stream.hpp)

  InstructionStream& stream(Engine e) { return streams[static_cast<int>(e)]; }
  const InstructionStream& stream(Engine e) const { return streams[static_cast<int>(e)]; }
  std::size_t instruction_count() const;
  bool has_locations() const;  // some instruction has a SourceLocation
  bool operator==(const Kernel& o) const;
  bool operator!=(const Kernel& o) const { return !(*this == o); }
};

// The first problem with the kernel's source table or its instructions' locations (names
// that are not unique identifiers, empty or long paths, text over the limits above, a
// location naming no file), or "" when there is none.
std::string source_table_problem(const Kernel& k);

}  // namespace neuronsim::isa

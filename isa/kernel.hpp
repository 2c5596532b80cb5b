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

struct Kernel {
  std::string name;
  std::string target;  // "trn1", "trn2", "trn3": the target it was written for
  std::vector<HbmTensor> tensors;
  std::vector<Allocation> allocations;
  std::vector<Semaphore> semaphores;
  std::vector<DmaQueue> queues;
  std::array<InstructionStream, kEngineCount> streams;  // encoded (instruction_stream.hpp)

  InstructionStream& stream(Engine e) { return streams[static_cast<int>(e)]; }
  const InstructionStream& stream(Engine e) const { return streams[static_cast<int>(e)]; }
  std::size_t instruction_count() const;
  bool operator==(const Kernel& o) const;
  bool operator!=(const Kernel& o) const { return !(*this == o); }
};

}  // namespace neuronsim::isa

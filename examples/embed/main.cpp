// A program that embeds neuronsim in its own SystemC simulation. SystemC elaborates once
// per process, so the scenario is chosen on the command line:
//   embed regs KERNEL.neff      a host module drives one NeuronCore through its register
//                               block and irq, with the data in HBM (register_host.cpp)
//   embed chip N KERNEL.neff    N cores of one chip (neuronsim::Device, the kernel's
//                               target) run the kernel at once (chip.cpp)
//   embed memory KERNEL.neff    one core on a memory model of this program's own that
//                               copies through the data pointer (own_memory.cpp)
#include <exception>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

#include <systemc>

#include "embed.hpp"

namespace embed {

std::vector<std::uint8_t> fill(const neuronsim::isa::HbmTensor& t) {
  const std::size_t size = neuronsim::isa::dtype_size(t.dtype);
  std::uint64_t seed = 0;
  for (char c : t.name)
    seed = seed * 131 + static_cast<unsigned char>(c);
  std::vector<std::uint8_t> bytes(t.bytes());
  for (std::uint64_t i = 0; i < t.elems(); ++i) {
    const std::uint64_t h = (i + seed) * 0x9e3779b97f4a7c15ull;
    const float v = static_cast<float>(h >> 48) / 16384.0f - 2.0f;
    neuronsim::isa::store_fp32(t.dtype, v, bytes.data() + i * size);
  }
  return bytes;
}

Summary summarise(const neuronsim::isa::HbmTensor& t, const std::vector<std::uint8_t>& bytes) {
  Summary s;
  s.checksum = 0xcbf29ce484222325ull;
  for (std::uint8_t b : bytes)
    s.checksum = (s.checksum ^ b) * 0x100000001b3ull;
  const std::size_t size = neuronsim::isa::dtype_size(t.dtype);
  for (std::size_t at = 0; at + size <= bytes.size(); at += size)
    s.sum += neuronsim::isa::load_fp32(t.dtype, bytes.data() + at);
  return s;
}

std::string Summary::text() const {
  std::ostringstream out;
  out << "checksum 0x" << std::hex << std::setw(16) << std::setfill('0') << checksum << std::dec
      << ", sum " << std::setprecision(9) << sum;
  return out.str();
}

std::string describe(const neuronsim::isa::HbmTensor& t) {
  std::string s = t.name + " [";
  for (std::size_t i = 0; i < t.shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(t.shape[i]);
  return s + "] " + std::string(neuronsim::isa::dtype_name(t.dtype));
}

}  // namespace embed

int sc_main(int argc, char* argv[]) {
  const std::string usage =
      "usage: embed regs KERNEL.neff | embed chip N KERNEL.neff | embed memory KERNEL.neff";
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "regs" && argc == 3) return embed::run_register_host(argv[2]);
    if (mode == "chip" && argc == 4) return embed::run_chip(std::stoul(argv[2]), argv[3]);
    if (mode == "memory" && argc == 3) return embed::run_own_memory(argv[2]);
    std::cerr << usage << "\n";
    return 2;
  } catch (const std::exception& e) {  // neuronsim::Error for bad input
    std::cerr << "embed: " << e.what() << "\n";
    return 1;
  }
}

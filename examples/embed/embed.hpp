#pragma once
// What the two scenarios of this example share: a deterministic fill for input tensors
// and a summary of an output tensor, both over the kernel's own tensor descriptions.
#include <cstdint>
#include <string>
#include <vector>

#include <neuronsim/neuronsim.hpp>

namespace embed {

// Element i of tensor `t`: a value in [-2, 2) from a hash of the name and the index,
// stored in the tensor's dtype (neuronsim's own conversion, round to nearest even).
std::vector<std::uint8_t> fill(const neuronsim::isa::HbmTensor& t);

// FNV-1a of the bytes, and the sum of the elements as fp32 values.
struct Summary {
  std::uint64_t checksum = 0;
  double sum = 0;
  std::string text() const;  // "checksum 0x..., sum ..."
};
Summary summarise(const neuronsim::isa::HbmTensor& t, const std::vector<std::uint8_t>& bytes);

// "y [4096, 4096] bf16"
std::string describe(const neuronsim::isa::HbmTensor& t);

// The scenarios: each builds its modules, runs sc_start() and reports. 0 on success.
int run_register_host(const std::string& neff_path);
int run_chip(unsigned cores, const std::string& neff_path);
int run_own_memory(const std::string& neff_path);

}  // namespace embed

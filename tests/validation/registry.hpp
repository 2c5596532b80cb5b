#pragma once
// Measurements by name, as specs.json names them. A measurement is run in two steps
// because every kernel shares one simulation: called before the simulation, it queues
// its launches on the bench (or computes what needs no simulation) and returns a reader;
// the reader is called after the simulation and returns the measured value in base
// units (ns, cycles, bytes, B/ns = GB/s, TFLOPS, GHz, counts). Each measure_*.cpp file
// registers its own with a static Registrar.
#include <cstdint>
#include <functional>
#include <string>

#include "bench.hpp"
#include "isa/dtype.hpp"
#include "isa/engine.hpp"
#include "spec_table.hpp"

namespace validation {

using Reader = std::function<double()>;
using Measure = std::function<Reader(Bench&, const Spec&)>;

// Throws std::runtime_error for an unknown name.
const Measure& find_measure(const std::string& name);

struct Registrar {
  Registrar(const char* name, Measure measure);
};

// Arguments of a spec (its "args" object), with defaults; a wrong type or unknown name
// throws std::runtime_error naming the spec.
std::uint32_t arg_u32(const Spec& s, const char* key, std::uint32_t fallback);
double arg_double(const Spec& s, const char* key, double fallback);
bool arg_bool(const Spec& s, const char* key, bool fallback);
std::string arg_str(const Spec& s, const char* key, const std::string& fallback);
neuronsim::isa::DType arg_dtype(const Spec& s, const char* key, neuronsim::isa::DType fallback);
neuronsim::isa::Engine arg_engine(const Spec& s, const char* key, neuronsim::isa::Engine fallback);

}  // namespace validation

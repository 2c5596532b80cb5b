#pragma once
// A traced neuronsim.nki instruction (python/neuronsim/nki/_core.py: Instr, View) read
// from its Python objects once, and its assembly text. nki_text.cpp writes the lines of
// .asm() from it and nki_kernel.cpp builds the same instructions into an isa::Kernel
// without the text, so both take every value from one reading.
#include <Python.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "python/core/bindings.hpp"

namespace neuronsim::python {

struct TracedView {
  bool hbm = false;
  std::string buffer;  // the HBM tensor, or the SBUF/PSUM pool (_sbuf, _psum)
  std::string dtype;   // on chip: the view's dtype as the assembly names it
  std::int64_t pstride = 0, partitions = 0, pstart = 0, offset = 0;
  // The free dims (stride, size) as the instruction gets them: size-1 dims dropped,
  // contiguous neighbours merged unless the view is exact, at least one dim.
  std::vector<std::pair<std::int64_t, std::int64_t>> dims;
};

struct TracedOption {
  std::string key;
  bool is_view = false;
  TracedView view;   // is_view
  std::string text;  // otherwise: str(value)
};

struct TracedInstr {
  std::string opcode;
  std::vector<TracedView> operands;
  std::vector<TracedOption> options;
  std::vector<std::pair<std::string, std::string>> waits;  // (semaphore, str(value))
  std::vector<std::string> signals;
};

// Reads into `out` (reusing its storage); option values that are instances of view_type
// are views.
void read_view(PyObject* view, TracedView& out);
void read_instr(PyObject* ins, PyObject* view_type, TracedInstr& out);

// View.asm: `t{ap=[[pstride, P], dims...], offset=O}` in HBM, `_sbuf.dt{ap=[[0, P],
// dims...], start=S, offset=O}` on chip (uint8 views have no dtype suffix).
void put_view(std::string& out, const TracedView& v);
// Instr.asm: `opcode operand, ..., key=value, ...  wait s>=n, ...  signal s, ...`.
void put_instr(std::string& out, const TracedInstr& ins);

// A Python str of UTF-8 text.
pybind11::str python_text(const std::string& s);

// Appends `s` (a str) / str(o), as an f-string writes it.
void put_str(std::string& out, PyObject* s);
void put_any(std::string& out, PyObject* o);

}  // namespace neuronsim::python

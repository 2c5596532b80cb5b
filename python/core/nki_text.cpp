// _core.nki_view_text and nki_instr_text: the assembly text of one of neuronsim.nki's
// traced operands or instructions (python/neuronsim/nki/_core.py: View.asm, Instr.asm),
// as nki_traced.cpp writes it. A kernel's instruction lines are written by
// _core.NkiKernelBuilder (nki_kernel.cpp) with the same functions.
#include <Python.h>

#include <string>

#include "python/core/bindings.hpp"
#include "python/core/nki_traced.hpp"
#include "python/core/py_objects.hpp"

namespace py = pybind11;

namespace neuronsim::python {

void bind_nki_text(py::module_& m) {
  m.def(
      "nki_view_text",
      [](py::handle view) {
        TracedView v;
        read_view(view.ptr(), v);
        std::string out;
        put_view(out, v);
        return python_text(out);
      },
      py::arg("view"), "The assembly text of one neuronsim.nki operand view (View.asm).");
  m.def(
      "nki_instr_text",
      [](py::handle ins, py::handle view_type) {
        TracedInstr t;
        read_instr(ins.ptr(), view_type.ptr(), t);
        std::string out;
        put_instr(out, t);
        return python_text(out);
      },
      py::arg("instr"), py::arg("view_type"),
      "The assembly text of one neuronsim.nki instruction (Instr.asm); option values that "
      "are instances of view_type are written as views.");
}

}  // namespace neuronsim::python

// _core.nki_view_text, nki_instr_text and nki_instr_lines: the assembly text of
// neuronsim.nki's traced instructions (python/neuronsim/nki/_core.py: View.asm, Instr.asm;
// _lower.py writes one line per instruction). The text is defined here only: View.asm and
// Instr.asm call these, and lowering writes every instruction line of a kernel with one
// call, so that a kernel of 100k instructions does not spend its time formatting strings
// in Python (docs/python.md, "Tracing speed"). It reads the trace's Python objects
// directly, as nki_lowering.cpp does.
#include <Python.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "python/core/bindings.hpp"
#include "python/core/py_objects.hpp"

namespace py = pybind11;

namespace neuronsim::python {
namespace {

void put_str(std::string& out, PyObject* s) {
  Py_ssize_t n = 0;
  const char* p = PyUnicode_AsUTF8AndSize(s, &n);
  if (p == nullptr) throw py::error_already_set();
  out.append(p, static_cast<std::size_t>(n));
}

// str(o), as an f-string writes it.
void put_any(std::string& out, PyObject* o) {
  if (PyUnicode_Check(o)) {
    put_str(out, o);
    return;
  }
  if (PyLong_CheckExact(o)) {
    out += std::to_string(as_int(o));
    return;
  }
  const py::object s = owned(PyObject_Str(o));
  put_str(out, s.ptr());
}

void put_int(std::string& out, PyObject* o) {
  if (PyLong_CheckExact(o)) {
    out += std::to_string(as_int(o));
  } else {
    put_any(out, o);  // a numpy integer: its str is the same decimal
  }
}

// Item k of a (stride, size) pair: a tuple, or any sequence.
py::object item(PyObject* seq, Py_ssize_t k) {
  if (PyTuple_Check(seq)) return py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(seq, k));
  return owned(PySequence_GetItem(seq, k));
}

// The view's free dims as the instruction gets them: size-1 dims
// dropped, contiguous neighbours merged unless the view is exact, at least one dim.
void put_dims(std::string& out, PyObject* view) {
  const py::object dims = attr(view, "dims");
  const py::object exact = attr(view, "exact");
  const int truth = PyObject_IsTrue(exact.ptr());
  if (truth < 0) throw py::error_already_set();
  const bool merge = truth == 0;
  const py::object seq = owned(PySequence_Fast(dims.ptr(), "View.dims is not a sequence"));
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
  PyObject** items = PySequence_Fast_ITEMS(seq.ptr());
  std::vector<std::pair<std::int64_t, std::int64_t>> kept;
  kept.reserve(static_cast<std::size_t>(n));
  for (Py_ssize_t k = 0; k < n; ++k) {
    const std::int64_t stride = as_int(item(items[k], 0).ptr());
    const std::int64_t size = as_int(item(items[k], 1).ptr());
    if (size == 1) continue;
    if (merge && !kept.empty() && kept.back().first == stride * size) {
      kept.back() = {stride, kept.back().second * size};
    } else {
      kept.emplace_back(stride, size);
    }
  }
  if (kept.empty()) kept.emplace_back(1, 1);
  for (std::size_t k = 0; k < kept.size(); ++k) {
    if (k) out += ", ";
    out += '[';
    out += std::to_string(kept[k].first);
    out += ", ";
    out += std::to_string(kept[k].second);
    out += ']';
  }
}

// View.asm: `t{ap=[[pstride, P], dims...], offset=O}` in HBM, `_sbuf.dt{ap=[[0, P],
// dims...], start=S, offset=O}` on chip (uint8 views have no dtype suffix).
void put_view(std::string& out, PyObject* view) {
  const py::object space = attr(view, "space");
  const bool hbm = PyUnicode_CompareWithASCIIString(space.ptr(), "hbm") == 0;
  put_str(out, attr(view, "buffer").ptr());
  if (hbm) {
    out += "{ap=[[";
    put_int(out, attr(view, "pstride").ptr());
  } else {
    const py::object dt = attr(attr(view, "dtype").ptr(), "asm");
    if (PyUnicode_CompareWithASCIIString(dt.ptr(), "uint8") != 0) {
      out += '.';
      put_str(out, dt.ptr());
    }
    out += "{ap=[[0";
  }
  out += ", ";
  put_int(out, attr(view, "partitions").ptr());
  out += "], ";
  put_dims(out, view);
  out += ']';
  if (!hbm) {
    out += ", start=";
    put_int(out, attr(view, "pstart").ptr());
  }
  out += ", offset=";
  put_int(out, attr(view, "offset").ptr());
  out += '}';
}

// Instr.asm: `opcode operand, ..., key=value, ...  wait s>=n, ...  signal s, ...`.
void put_instr(std::string& out, PyObject* ins, PyObject* view_type) {
  put_str(out, attr(ins, "opcode").ptr());
  bool first = true;
  const auto sep = [&] {
    out += first ? " " : ", ";
    first = false;
  };
  const py::object operands = owned(PySequence_Fast(attr(ins, "operands").ptr(), "operands"));
  for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(operands.ptr()); ++k) {
    sep();
    put_view(out, PySequence_Fast_GET_ITEM(operands.ptr(), k));
  }
  const py::object options = owned(PySequence_Fast(attr(ins, "options").ptr(), "options"));
  for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(options.ptr()); ++k) {
    PyObject* kv = PySequence_Fast_GET_ITEM(options.ptr(), k);
    sep();
    put_any(out, item(kv, 0).ptr());
    out += '=';
    const py::object value = item(kv, 1);
    const int is_view = PyObject_IsInstance(value.ptr(), view_type);
    if (is_view < 0) throw py::error_already_set();
    if (is_view) {
      put_view(out, value.ptr());
    } else {
      put_any(out, value.ptr());
    }
  }
  const py::object waits = owned(PySequence_Fast(attr(ins, "waits").ptr(), "waits"));
  for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(waits.ptr()); ++k) {
    PyObject* w = PySequence_Fast_GET_ITEM(waits.ptr(), k);
    out += k ? ", " : "  wait ";
    put_any(out, item(w, 0).ptr());
    out += ">=";
    put_any(out, item(w, 1).ptr());
  }
  const py::object signals = owned(PySequence_Fast(attr(ins, "signals").ptr(), "signals"));
  for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(signals.ptr()); ++k) {
    out += k ? ", " : "  signal ";
    put_any(out, PySequence_Fast_GET_ITEM(signals.ptr(), k));
  }
}

py::str text(const std::string& s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), nullptr);
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

}  // namespace

void bind_nki_text(py::module_& m) {
  m.def(
      "nki_view_text",
      [](py::handle view) {
        std::string out;
        put_view(out, view.ptr());
        return text(out);
      },
      py::arg("view"), "The assembly text of one neuronsim.nki operand view (View.asm).");
  m.def(
      "nki_instr_text",
      [](py::handle ins, py::handle view_type) {
        std::string out;
        put_instr(out, ins.ptr(), view_type.ptr());
        return text(out);
      },
      py::arg("instr"), py::arg("view_type"),
      "The assembly text of one neuronsim.nki instruction (Instr.asm); option values that "
      "are instances of view_type are written as views.");
  m.def(
      "nki_instr_lines",
      [](const py::list& instrs, py::handle view_type, py::handle at, py::list& lines,
         py::dict& line_map) {
        std::string out;
        for (py::handle ins : instrs) {
          out.assign("    ");
          put_instr(out, ins.ptr(), view_type.ptr());
          out += "  ";
          const py::object location = attr(ins.ptr(), "location");
          const py::object suffix = owned(PyObject_CallOneArg(at.ptr(), location.ptr()));
          put_str(out, suffix.ptr());
          lines.append(text(out));
          line_map[py::int_(lines.size())] = location;
        }
      },
      py::arg("instrs"), py::arg("view_type"), py::arg("at"), py::arg("lines"), py::arg("line_map"),
      "Appends one assembly line per instruction to `lines`: four spaces, its text "
      "(Instr.asm), two spaces and at(instr.location) (the source suffix); line_map[the "
      "line's number, counting from 1] = its location.");
}

}  // namespace neuronsim::python

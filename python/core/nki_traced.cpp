// Reading a traced instruction and writing its text (nki_traced.hpp).
#include "python/core/nki_traced.hpp"

#include "python/core/py_objects.hpp"

namespace py = pybind11;

namespace neuronsim::python {

namespace {

// Item k of a sequence (a tuple's without a new reference).
py::object item(PyObject* seq, Py_ssize_t k) {
  if (PyTuple_Check(seq)) return py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(seq, k));
  return owned(PySequence_GetItem(seq, k));
}

void assign_str(std::string& out, PyObject* s) {
  out.clear();
  put_any(out, s);
}

// A list attribute's items: the sequence kept alive by `holder`.
Py_ssize_t items_of(PyObject* o, const char* name, py::object& holder, PyObject**& items) {
  holder = owned(PySequence_Fast(attr(o, name).ptr(), name));
  items = PySequence_Fast_ITEMS(holder.ptr());
  return PySequence_Fast_GET_SIZE(holder.ptr());
}

void put_decimal(std::string& out, std::int64_t v) {
  out += std::to_string(v);
}

}  // namespace

py::str python_text(const std::string& s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), nullptr);
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

void put_str(std::string& out, PyObject* s) {
  Py_ssize_t n = 0;
  const char* p = PyUnicode_AsUTF8AndSize(s, &n);
  if (p == nullptr) throw py::error_already_set();
  out.append(p, static_cast<std::size_t>(n));
}

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

void read_view(PyObject* view, TracedView& v) {
  const py::object space = attr(view, "space");
  v.hbm = PyUnicode_CompareWithASCIIString(space.ptr(), "hbm") == 0;
  assign_str(v.buffer, attr(view, "buffer").ptr());
  if (v.hbm) {
    v.dtype.clear();
    v.pstride = as_int(attr(view, "pstride").ptr());
    v.pstart = 0;
  } else {
    assign_str(v.dtype, attr(attr(view, "dtype").ptr(), "asm").ptr());
    v.pstride = 0;
    v.pstart = as_int(attr(view, "pstart").ptr());
  }
  v.partitions = as_int(attr(view, "partitions").ptr());
  v.offset = as_int(attr(view, "offset").ptr());
  const int truth = PyObject_IsTrue(attr(view, "exact").ptr());
  if (truth < 0) throw py::error_already_set();
  const bool merge = truth == 0;
  py::object holder;
  PyObject** dims = nullptr;
  const Py_ssize_t n = items_of(view, "dims", holder, dims);
  v.dims.clear();
  for (Py_ssize_t k = 0; k < n; ++k) {
    const std::int64_t stride = as_int(item(dims[k], 0).ptr());
    const std::int64_t size = as_int(item(dims[k], 1).ptr());
    if (size == 1) continue;
    if (merge && !v.dims.empty() && v.dims.back().first == stride * size) {
      v.dims.back() = {stride, v.dims.back().second * size};
    } else {
      v.dims.emplace_back(stride, size);
    }
  }
  if (v.dims.empty()) v.dims.emplace_back(1, 1);
}

void read_instr(PyObject* ins, PyObject* view_type, TracedInstr& out) {
  assign_str(out.opcode, attr(ins, "opcode").ptr());
  py::object holder;
  PyObject** items = nullptr;
  Py_ssize_t n = items_of(ins, "operands", holder, items);
  out.operands.resize(static_cast<std::size_t>(n));
  for (Py_ssize_t k = 0; k < n; ++k)
    read_view(items[k], out.operands[static_cast<std::size_t>(k)]);
  n = items_of(ins, "options", holder, items);
  out.options.resize(static_cast<std::size_t>(n));
  for (Py_ssize_t k = 0; k < n; ++k) {
    TracedOption& o = out.options[static_cast<std::size_t>(k)];
    assign_str(o.key, item(items[k], 0).ptr());
    const py::object value = item(items[k], 1);
    const int is_view = PyObject_IsInstance(value.ptr(), view_type);
    if (is_view < 0) throw py::error_already_set();
    o.is_view = is_view != 0;
    if (o.is_view) {
      read_view(value.ptr(), o.view);
    } else {
      assign_str(o.text, value.ptr());
    }
  }
  n = items_of(ins, "waits", holder, items);
  out.waits.resize(static_cast<std::size_t>(n));
  for (Py_ssize_t k = 0; k < n; ++k) {
    auto& w = out.waits[static_cast<std::size_t>(k)];
    assign_str(w.first, item(items[k], 0).ptr());
    assign_str(w.second, item(items[k], 1).ptr());
  }
  n = items_of(ins, "signals", holder, items);
  out.signals.resize(static_cast<std::size_t>(n));
  for (Py_ssize_t k = 0; k < n; ++k)
    assign_str(out.signals[static_cast<std::size_t>(k)], items[k]);
}

void put_view(std::string& out, const TracedView& v) {
  out += v.buffer;
  if (v.hbm) {
    out += "{ap=[[";
    put_decimal(out, v.pstride);
  } else {
    if (v.dtype != "uint8") {
      out += '.';
      out += v.dtype;
    }
    out += "{ap=[[0";
  }
  out += ", ";
  put_decimal(out, v.partitions);
  out += "], ";
  for (std::size_t k = 0; k < v.dims.size(); ++k) {
    if (k) out += ", ";
    out += '[';
    put_decimal(out, v.dims[k].first);
    out += ", ";
    put_decimal(out, v.dims[k].second);
    out += ']';
  }
  out += ']';
  if (!v.hbm) {
    out += ", start=";
    put_decimal(out, v.pstart);
  }
  out += ", offset=";
  put_decimal(out, v.offset);
  out += '}';
}

void put_instr(std::string& out, const TracedInstr& ins) {
  out += ins.opcode;
  bool first = true;
  const auto sep = [&] {
    out += first ? " " : ", ";
    first = false;
  };
  for (const TracedView& v : ins.operands) {
    sep();
    put_view(out, v);
  }
  for (const TracedOption& o : ins.options) {
    sep();
    out += o.key;
    out += '=';
    if (o.is_view) {
      put_view(out, o.view);
    } else {
      out += o.text;
    }
  }
  for (std::size_t k = 0; k < ins.waits.size(); ++k) {
    out += k ? ", " : "  wait ";
    out += ins.waits[k].first;
    out += ">=";
    out += ins.waits[k].second;
  }
  for (std::size_t k = 0; k < ins.signals.size(); ++k) {
    out += k ? ", " : "  signal ";
    out += ins.signals[k];
  }
}

}  // namespace neuronsim::python

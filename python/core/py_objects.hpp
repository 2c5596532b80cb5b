#pragma once
// Reading Python objects through the C API, for the passes that walk a traced NKI kernel's
// objects (nki_lowering.cpp, nki_text.cpp): one definition of each accessor.
#include <Python.h>
#include <structmember.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>

#include "python/core/bindings.hpp"

namespace neuronsim::python {

// A new reference from the C API, or the Python error raised.
inline pybind11::object owned(PyObject* o) {
  if (o == nullptr) throw pybind11::error_already_set();
  return pybind11::reinterpret_steal<pybind11::object>(o);
}

// One attribute of the trace's objects, read (and written) fast. The tracer's classes keep
// their fields in __slots__ (Instr, View, Allocation: python/neuronsim/nki/_core.py), so
// for an object of such a type the value lies at a fixed offset in the object: the type's
// member descriptor is looked up once per type (the last two types seen are remembered,
// each held so that it outlives its entry), and the slot is read directly. Any other
// attribute (a property, a method, an instance dict's, an unset slot) goes through
// PyObject_GetAttr / PyObject_SetAttr, which also raise the errors. A lowering reads a
// few attributes of every view of a 100k-instruction trace: the generic lookup was a
// tenth of its time (docs/python.md, "Tracing speed").
class SlotAttribute {
 public:
  explicit SlotAttribute(const char* name) : name_(PyUnicode_InternFromString(name)) {
    if (name_ == nullptr) throw pybind11::error_already_set();
  }
  SlotAttribute(const SlotAttribute&) = delete;
  SlotAttribute& operator=(const SlotAttribute&) = delete;

  PyObject* name() const { return name_; }

  // o.name, a new reference.
  pybind11::object get(PyObject* o) {
    const Py_ssize_t at = offset(Py_TYPE(o));
    if (at >= 0) {
      PyObject* v = *slot(o, at);
      if (v != nullptr) return pybind11::reinterpret_borrow<pybind11::object>(v);
    }
    return owned(PyObject_GetAttr(o, name_));
  }

  // o.name = value.
  void set(PyObject* o, PyObject* value) {
    const Py_ssize_t at = offset(Py_TYPE(o));
    if (at < 0) {
      if (PyObject_SetAttr(o, name_, value) != 0) throw pybind11::error_already_set();
      return;
    }
    PyObject** s = slot(o, at);
    PyObject* old = *s;
    Py_INCREF(value);
    *s = value;
    Py_XDECREF(old);
  }

 private:
  struct Seen {
    PyTypeObject* type = nullptr;
    Py_ssize_t offset = -1;  // -1: not a plain object slot of that type
  };

  static PyObject** slot(PyObject* o, Py_ssize_t at) {
    return reinterpret_cast<PyObject**>(reinterpret_cast<char*>(o) + at);
  }

  Py_ssize_t offset(PyTypeObject* type) {
    if (seen_[0].type == type) return seen_[0].offset;
    if (seen_[1].type == type) {
      std::swap(seen_[0], seen_[1]);
      return seen_[0].offset;
    }
    Seen now{type, -1};
    PyObject* d = _PyType_Lookup(type, name_);  // borrowed, no error set
    if (d != nullptr && Py_IS_TYPE(d, &PyMemberDescr_Type)) {
      const PyMemberDef* m = reinterpret_cast<PyMemberDescrObject*>(d)->d_member;
      if (m->type == T_OBJECT_EX && !(m->flags & READONLY)) now.offset = m->offset;
    }
    Py_INCREF(type);
    Py_XDECREF(reinterpret_cast<PyObject*>(seen_[1].type));
    seen_[1] = seen_[0];
    seen_[0] = now;
    return now.offset;
  }

  PyObject* name_;  // interned, kept for the process's life
  Seen seen_[2];
};

// The SlotAttribute of a name. Names are string literals, so they are keyed by address,
// in a small open-addressed table (a lookup per attribute read: a hash map's was a
// twentieth of a lowering).
inline SlotAttribute& slot_attribute(const char* name) {
  constexpr std::size_t kSize = 256;  // well above the passes' few dozen names
  struct Entry {
    const char* name;
    SlotAttribute* attribute;  // kept for the process's life
  };
  static Entry table[kSize] = {};
  static std::size_t used = 0;
  std::size_t h = (reinterpret_cast<std::uintptr_t>(name) >> 3) % kSize;
  while (table[h].name != name) {
    if (table[h].name == nullptr) {
      if (++used > kSize / 2) throw std::logic_error("slot_attribute: too many names");
      table[h] = {name, new SlotAttribute(name)};
      break;
    }
    h = (h + 1) % kSize;
  }
  return *table[h].attribute;
}

inline pybind11::object attr(PyObject* o, const char* name) {
  return slot_attribute(name).get(o);
}

inline void set_attr(PyObject* o, const char* name, PyObject* value) {
  slot_attribute(name).set(o, value);
}

inline std::int64_t as_int(PyObject* o) {
  const long long v = PyLong_AsLongLong(o);
  if (v == -1 && PyErr_Occurred()) throw pybind11::error_already_set();
  return v;
}

}  // namespace neuronsim::python

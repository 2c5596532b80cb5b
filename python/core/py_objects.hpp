#pragma once
// Reading Python objects through the C API, for the passes that walk a traced NKI kernel's
// objects (nki_lowering.cpp, nki_text.cpp): one definition of each accessor.
#include <cstdint>
#include <unordered_map>

#include "python/core/bindings.hpp"

namespace neuronsim::python {

// A new reference from the C API, or the Python error raised.
inline pybind11::object owned(PyObject* o) {
  if (o == nullptr) throw pybind11::error_already_set();
  return pybind11::reinterpret_steal<pybind11::object>(o);
}

inline pybind11::object attr(PyObject* o, const char* name) {
  // Interned once per name: attribute lookups by an interned string skip hashing it.
  static std::unordered_map<const char*, PyObject*> names;
  PyObject*& key = names[name];
  if (key == nullptr) key = PyUnicode_InternFromString(name);
  return owned(PyObject_GetAttr(o, key));
}

inline std::int64_t as_int(PyObject* o) {
  const long long v = PyLong_AsLongLong(o);
  if (v == -1 && PyErr_Occurred()) throw pybind11::error_already_set();
  return v;
}

}  // namespace neuronsim::python

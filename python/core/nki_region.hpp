#pragma once
// The bounding box of one traced neuronsim.nki view (python/neuronsim/nki/_core.py:
// View.region): what the dependency pass orders by and the placement checks against its
// tile. Defined once, here; View.region() in Python is made from it (nki_view_box).
#include <Python.h>

#include <cstdint>

#include "python/core/bindings.hpp"

namespace neuronsim::python {

struct ViewBox {
  bool hbm = false;
  pybind11::object key;  // its HBM tensor's name, or its space
  // Rows [p0, p1) every `step`-th (on chip: partitions, step 1) and the byte range (on
  // chip, per partition) or column range (HBM, in elements of the tensor's rows).
  std::int64_t p0 = 0, p1 = 0, step = 1, b0 = 0, b1 = 0;
};

// A view (View or a subclass) at its current offset. HBM regions are rows x columns of
// the tensor (row = its innermost dimension), so tiles side by side in one row band do
// not overlap; where a view's partitions do not stay within a row band (a stride that is
// not whole rows, or columns past a row's end) the rows it spans, every column.
ViewBox view_box(PyObject* view);

}  // namespace neuronsim::python

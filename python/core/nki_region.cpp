// A traced view's bounding box (nki_region.hpp) and its Python form, _core.nki_view_box.
#include "python/core/nki_region.hpp"

#include <algorithm>

#include "python/core/bindings.hpp"
#include "python/core/py_objects.hpp"

namespace py = pybind11;

namespace neuronsim::python {

namespace {

// Python's floor division and modulo (offsets below a row's start are possible in
// arithmetic on negative strides).
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
  return a - floor_div(a, b) * b;
}

std::int64_t int_attr(PyObject* o, const char* name) {
  return as_int(attr(o, name).ptr());
}

}  // namespace

ViewBox view_box(PyObject* view) {
  // The element span of the free dims: [lo, hi] elements from the offset.
  std::int64_t lo = 0, hi = 0;
  {
    const py::object dims = attr(view, "dims");
    const py::object fast = owned(PySequence_Fast(dims.ptr(), "View.dims"));
    PyObject** items = PySequence_Fast_ITEMS(fast.ptr());
    for (Py_ssize_t k = 0, n = PySequence_Fast_GET_SIZE(fast.ptr()); k < n; ++k) {
      const py::object pair = owned(PySequence_Fast(items[k], "a View.dims entry"));
      if (PySequence_Fast_GET_SIZE(pair.ptr()) != 2)
        throw py::value_error("internal: a View.dims entry is not (stride, size)");
      PyObject** sv = PySequence_Fast_ITEMS(pair.ptr());
      const std::int64_t span = as_int(sv[0]) * (as_int(sv[1]) - 1);
      (span < 0 ? lo : hi) += span;
    }
  }
  const std::int64_t es = int_attr(attr(view, "dtype").ptr(), "size");
  const std::int64_t offset = int_attr(view, "offset");
  const std::int64_t parts = int_attr(view, "partitions");
  const py::object space = attr(view, "space");
  ViewBox b;
  b.hbm = PyUnicode_CompareWithASCIIString(space.ptr(), "hbm") == 0;
  if (!b.hbm) {
    b.key = space;
    b.p0 = int_attr(view, "pstart");
    b.p1 = b.p0 + parts;
    b.b0 = offset + lo * es;
    b.b1 = offset + (hi + 1) * es;
    return b;
  }
  b.key = attr(view, "buffer");
  const std::int64_t row = int_attr(view, "row");
  const std::int64_t pstride = int_attr(view, "pstride");
  if (row <= 0 || es <= 0) throw py::value_error("internal: an HBM view without rows");
  const std::int64_t base = floor_div(offset, es);
  const std::int64_t col0 = floor_mod(base + lo, row);
  if (floor_mod(pstride, row) == 0 && pstride >= 0 && col0 + hi - lo < row) {
    const std::int64_t r0 = floor_div(base + lo, row), step = pstride / row;
    b.p0 = r0;
    b.p1 = r0 + step * (parts - 1) + 1;
    b.step = step > 1 && parts > 1 ? step : 1;
    b.b0 = col0;
    b.b1 = col0 + hi - lo + 1;
    return b;
  }
  const std::int64_t span = pstride * (parts - 1);
  const std::int64_t first = base + lo + std::min<std::int64_t>(0, span);
  const std::int64_t end = base + hi + std::max<std::int64_t>(0, span) + 1;
  b.p0 = floor_div(first, row);
  b.p1 = floor_div(end - 1, row) + 1;
  b.b0 = 0;
  b.b1 = row;
  return b;
}

void bind_nki_region(py::module_& m) {
  m.def(
      "nki_view_box",
      [](py::handle view) {
        const ViewBox b = view_box(view.ptr());
        return py::make_tuple(b.hbm, b.key, b.p0, b.p1, b.step, b.b0, b.b1);
      },
      py::arg("view"),
      "View.region's numbers (python/core/nki_region.hpp): (hbm, tensor name or space, first "
      "row, end row, row step, first byte or column, end byte or column).");
}

}  // namespace neuronsim::python

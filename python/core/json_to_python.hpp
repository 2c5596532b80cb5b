#pragma once
// nlohmann JSON values as Python objects (dict, list, str, int, float, bool, None).
#include <pybind11/pybind11.h>
#include <nlohmann/json.hpp>

namespace neuronsim::python {

template <class Json>
pybind11::object to_python(const Json& j) {
  namespace py = pybind11;
  switch (j.type()) {
    case Json::value_t::object: {
      py::dict d;
      for (auto it = j.begin(); it != j.end(); ++it)
        d[py::str(it.key())] = to_python(it.value());
      return std::move(d);
    }
    case Json::value_t::array: {
      py::list l;
      for (const auto& v : j)
        l.append(to_python(v));
      return std::move(l);
    }
    case Json::value_t::string:
      return py::str(j.template get<std::string>());
    case Json::value_t::boolean:
      return py::bool_(j.template get<bool>());
    case Json::value_t::number_integer:
      return py::int_(j.template get<std::int64_t>());
    case Json::value_t::number_unsigned:
      return py::int_(j.template get<std::uint64_t>());
    case Json::value_t::number_float:
      return py::float_(j.template get<double>());
    default:
      return py::none();
  }
}

}  // namespace neuronsim::python

// _core.HostScheduler: sequence::LaunchScheduler (sequence/host_model.hpp) for a target config,
// so that Python's eager runtime places its launches with the one host model that
// `neuronsim run launch.json` uses (docs/host-model.md, docs/torch.md).
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "config/target_config.hpp"
#include "python/core/bindings.hpp"
#include "python/core/json_to_python.hpp"
#include "python/core/sanitizer_stack.hpp"
#include "sequence/host_model.hpp"

namespace py = pybind11;

namespace neuronsim::python {

namespace {

py::dict interval_dict(const profile::Interval& i) {
  py::dict d;
  d["start_ns"] = i.start_ns;
  d["end_ns"] = i.end_ns;
  return d;
}

py::dict timing_dict(const profile::LaunchTiming& l) {
  py::dict d;
  d["framework_dispatch"] = interval_dict(l.framework_dispatch);
  d["runtime_call"] = interval_dict(l.runtime_call);
  d["device"] = interval_dict(l.device);
  d["host_ns"] = l.host_ns;
  d["device_ns"] = l.device_ns;
  return d;
}

config::HostParams host_of(const std::string& target, const std::vector<std::string>& overrides) {
  return config::load_target(target, overrides).host;
}

}  // namespace

void bind_host_scheduler(py::module_& m) {
  const auto guard = py::call_guard<DeadStackUnpoisoned>();
  py::class_<sequence::LaunchScheduler>(m, "HostScheduler")
      .def(py::init([](const std::string& target, const std::vector<std::string>& overrides) {
             return sequence::LaunchScheduler(host_of(target, overrides));
           }),
           guard, py::arg("target"), py::arg("overrides"))
      .def(
          "launch",
          [](sequence::LaunchScheduler& s, double device_ns) {
            return timing_dict(s.launch(device_ns));
          },
          py::arg("device_ns"))
      .def("host_op", [](sequence::LaunchScheduler& s) { return interval_dict(s.host_op()); })
      .def("synchronize", &sequence::LaunchScheduler::synchronize)
      .def("host_now_ns", &sequence::LaunchScheduler::host_now_ns)
      .def("device_free_ns", &sequence::LaunchScheduler::device_free_ns)
      .def("total_ns", &sequence::LaunchScheduler::total_ns);
  m.def(
      "host_params",
      [](const std::string& target, const std::vector<std::string>& overrides) {
        // {"framework_dispatch_ns": {"value": .., "unit": "ns"}, ...}, as host.json has them
        return to_python(sequence::host_params_json(host_of(target, overrides)));
      },
      guard, py::arg("target"), py::arg("overrides"));
}

}  // namespace neuronsim::python

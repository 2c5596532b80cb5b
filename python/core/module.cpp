// neuronsim._core: the C++ half of the Python module (python/neuronsim/__init__.py is the
// other; docs/python.md). Kernels, in-process runs on live NeuronCores (session.hpp),
// profiles, the compiler and dtype conversions, all through the libraries the CLI uses.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "asm/assembler.hpp"
#include "asm/printer.hpp"
#include "base/error.hpp"
#include "base/file_io.hpp"
#include "compiler/compiler.hpp"
#include "compiler/program_directory.hpp"
#include "config/target_config.hpp"
#include "config/target_dump.hpp"
#include "engines/sim_time.hpp"
#include "isa/dtype.hpp"
#include "isa/engine.hpp"
#include "isa/instruction.hpp"
#include "profile/profiled_run.hpp"
#include "python/core/arrays.hpp"
#include "python/core/bindings.hpp"
#include "python/core/json_to_python.hpp"
#include "python/core/kernel_object.hpp"
#include "python/core/profile_export.hpp"
#include "python/core/profile_summary.hpp"
#include "python/core/sanitizer_stack.hpp"
#include "python/core/session.hpp"
#include "python/core/whatif_call.hpp"
#include "validate/validate.hpp"

namespace py = pybind11;

namespace neuronsim::python {

namespace {

// A target config and the key that identifies it among the live cores: its full dump
// (every parameter's value, and the file that set it).
struct ResolvedConfig {
  config::TargetConfig config;
  std::string key;
};

ResolvedConfig resolve(const std::string& target, const std::vector<std::string>& overrides) {
  // Presets never change within a process: resolved once each. Files are read every run.
  static std::map<std::string, ResolvedConfig> presets;
  const bool preset = overrides.empty() && target.find('/') == std::string::npos &&
                      target.find(".json") == std::string::npos;
  if (preset) {
    auto it = presets.find(target);
    if (it != presets.end()) return it->second;
  }
  ResolvedConfig r{config::load_target(target, overrides),
                   config::dump_target(target, overrides).dump()};
  if (preset) presets.emplace(target, r);
  return r;
}

py::dict tensor_dict(const isa::HbmTensor& t) {
  py::dict d;
  d["name"] = t.name;
  d["dtype"] = std::string(isa::dtype_name(t.dtype));
  py::tuple shape(t.shape.size());
  for (std::size_t i = 0; i < t.shape.size(); ++i)
    shape[i] = py::int_(t.shape[i]);
  d["shape"] = shape;
  d["role"] = std::string(isa::tensor_role_name(t.role));
  return d;
}

py::list tensors_of(const isa::Kernel& k, std::optional<isa::TensorRole> role) {
  py::list l;
  for (const auto& t : k.tensors)
    if (!role || t.role == *role) l.append(tensor_dict(t));
  return l;
}

const isa::HbmTensor* find_tensor(const isa::Kernel& k, const std::string& name,
                                  isa::TensorRole role) {
  for (const auto& t : k.tensors)
    if (t.name == name && t.role == role) return &t;
  return nullptr;
}

// `neuronsim asm`'s rules (kernel_object.hpp: checked_kernel).
KernelObject assemble(const std::string& text, const std::string& name,
                      const std::optional<std::string>& target) {
  return checked_kernel(isa::assemble(text, name), name, target);
}

void add_launch_facts(py::dict& out, const LaunchResult& r, const config::TargetConfig& cfg,
                      const isa::Kernel& k);

KernelObject load_neff_file(const std::string& path) {
  return KernelObject(read_file(path, Limit::neff_file_bytes), path);
}

py::dict run(const KernelObject& kernel, const py::object& inputs,
             const std::optional<std::string>& target, const std::vector<std::string>& overrides,
             bool timing_only, const std::optional<std::string>& profile_dir, bool raw_bits,
             bool raw_outputs, bool fill_uninitialised) {
  const isa::Kernel& k = kernel.kernel();
  const std::string target_name = target ? *target : (k.target.empty() ? "trn2" : k.target);
  const ResolvedConfig resolved = resolve(target_name, overrides);
  const config::TargetConfig& cfg = resolved.config;
  LaunchRequest request;
  request.source = kernel.source();
  // target= chose the core's target: a kernel built for another one runs on it.
  request.other_target = true;
  request.timing_only = timing_only;
  request.fill_uninitialised = fill_uninitialised;
  if (!inputs.is_none())
    for (const auto& [key, value] : inputs.cast<py::dict>()) {
      const std::string name = py::str(key);
      const isa::HbmTensor* t = find_tensor(k, name, isa::TensorRole::input);
      if (!t)
        throw Error(kernel.source() + ": the kernel has no input tensor named '" + name + "'");
      if (timing_only) continue;  // nothing is read
      request.inputs[name] =
          array_to_tensor(value.cast<py::array>(), *t, raw_bits, "input '" + name + "'");
    }
  std::unique_ptr<profile::LaunchProfile> profile;
  if (profile_dir) {
    const std::shared_ptr<const neff::Neff> neff = kernel.neff();
    profile =
        std::make_unique<profile::LaunchProfile>(kernel.neff_bytes(), neff, cfg, *profile_dir);
    request.kernel = std::shared_ptr<const isa::Kernel>(neff, &neff->kernel);
    request.observers.push_back(profile->observer());
  } else {
    request.kernel = kernel.shared();
  }
  const LaunchResult r = Session::get().run(cfg, resolved.key, std::move(request));
  r.rethrow_if_failed();  // a profile not finished removes what it wrote
  if (profile) profile->finish(r);

  py::dict out;
  py::dict outputs;
  for (const auto& t : k.tensors) {
    if (t.role != isa::TensorRole::output) continue;
    auto it = r.outputs.find(t.name);
    if (it != r.outputs.end())
      outputs[py::str(t.name)] = tensor_to_array(it->second, t, raw_outputs);
  }
  out["outputs"] = outputs;
  add_launch_facts(out, r, cfg, k);
  if (profile) {
    out["profile_dir"] = *profile_dir;
    out["profile_neff"] = profile->neff_path;
    out["profile_ntff"] = profile->ntff_path;
  } else {
    out["profile_dir"] = py::none();
  }
  return out;
}

// The one-kernel-per-core run (Session::run_cores): `kernels[i]` on core i of one device,
// all at once, sharing its HBM; every input and output tensor is shared by name (each
// kernel may write its part of an output). Profiles go to profile_dir/core_<i>/.
py::dict run_cores(const std::vector<const KernelObject*>& kernels, const py::object& inputs,
                   const std::optional<std::string>& target,
                   const std::vector<std::string>& overrides, bool timing_only,
                   const std::optional<std::string>& profile_dir, bool raw_bits, bool raw_outputs) {
  if (kernels.empty()) throw Error("run_cores: no kernels");
  const isa::Kernel& first = kernels.front()->kernel();
  const std::string target_name = target ? *target : (first.target.empty() ? "trn2" : first.target);
  const ResolvedConfig resolved = resolve(target_name, overrides);
  const config::TargetConfig& cfg = resolved.config;
  // The shared tensors: every input and output of any kernel, equal wherever named twice.
  std::map<std::string, Session::SharedTensor> shared;
  std::map<std::string, const isa::HbmTensor*> defined;
  for (const KernelObject* ko : kernels)
    for (const isa::HbmTensor& t : ko->kernel().tensors) {
      if (t.role != isa::TensorRole::input && t.role != isa::TensorRole::output) continue;
      auto [it, fresh] = defined.emplace(t.name, &t);
      if (!fresh && (it->second->dtype != t.dtype || it->second->shape != t.shape ||
                     it->second->role != t.role))
        throw Error(ko->source() + ": tensor '" + t.name +
                    "' differs from the tensor of that name in another core's kernel (shared "
                    "tensors need one dtype, shape and role)");
      Session::SharedTensor& s = shared[t.name];
      s.size = t.bytes();
      s.output = t.role == isa::TensorRole::output;
    }
  if (!inputs.is_none())
    for (const auto& [key, value] : inputs.cast<py::dict>()) {
      const std::string name = py::str(key);
      auto it = defined.find(name);
      if (it == defined.end() || it->second->role != isa::TensorRole::input)
        throw Error(first.name + ": no kernel has an input tensor named '" + name + "'");
      if (timing_only) continue;
      shared[name].bytes =
          array_to_tensor(value.cast<py::array>(), *it->second, raw_bits, "input '" + name + "'");
    }
  if (!timing_only)
    for (const auto& [name, t] : defined)
      if (t->role == isa::TensorRole::input && shared[name].bytes.empty())
        throw Error(first.name + ": input '" + name + "' not given");
  std::vector<LaunchRequest> requests;
  std::vector<std::unique_ptr<profile::LaunchProfile>> profiles;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    LaunchRequest request;
    request.source = kernels[i]->source();
    request.other_target = true;  // target= chose the cores' target
    if (profile_dir) {
      const std::shared_ptr<const neff::Neff> neff = kernels[i]->neff();
      profiles.push_back(std::make_unique<profile::LaunchProfile>(
          kernels[i]->neff_bytes(), neff, cfg, *profile_dir + "/core_" + std::to_string(i)));
      request.kernel = std::shared_ptr<const isa::Kernel>(neff, &neff->kernel);
      request.observers.push_back(profiles.back()->observer());
    } else {
      request.kernel = kernels[i]->shared();
    }
    requests.push_back(std::move(request));
  }
  const std::vector<LaunchResult> results =
      Session::get().run_cores(cfg, resolved.key, std::move(requests), shared, timing_only);
  for (const LaunchResult& r : results)
    r.rethrow_if_failed();
  py::dict out;
  py::dict outputs;
  for (const auto& [name, t] : defined)
    if (t->role == isa::TensorRole::output && !timing_only)
      outputs[py::str(name)] = tensor_to_array(shared.at(name).bytes, *t, raw_outputs);
  out["outputs"] = outputs;
  py::list cores;
  double total_ns = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    py::dict core;
    add_launch_facts(core, results[i], cfg, kernels[i]->kernel());
    total_ns = std::max(total_ns, static_cast<double>(results[i].total_ps) / 1000.0);
    if (profile_dir) {
      profiles[i]->finish(results[i]);
      core["profile_dir"] = *profile_dir + "/core_" + std::to_string(i);
      core["profile_neff"] = profiles[i]->neff_path;
      core["profile_ntff"] = profiles[i]->ntff_path;
    } else {
      core["profile_dir"] = py::none();
    }
    cores.append(core);
  }
  out["cores"] = cores;
  out["total_ns"] = total_ns;  // the last core to finish
  out["target"] = cfg.name;
  out["profile_dir"] = profile_dir ? py::object(py::str(*profile_dir)) : py::object(py::none());
  return out;
}

// What every run reports of a launch: times, cycles, statistics and per-engine time.
void add_launch_facts(py::dict& out, const LaunchResult& r, const config::TargetConfig& cfg,
                      const isa::Kernel& k) {
  // Exactly the total_time_ns statistic `neuronsim run` reports (LaunchResult::total_ns may
  // differ from it in the last bit).
  out["total_ns"] = static_cast<double>(r.total_ps) / 1000.0;
  out["total_ps"] = r.total_ps;
  out["neuroncore_cycle_count"] = r.neuroncore_cycle_count;
  out["target"] = cfg.name;
  out["kernel"] = k.name;
  py::dict stats, units;
  for (const auto& s : r.stats.all()) {
    stats[py::str(s.name)] = std::visit([](auto v) { return py::object(py::cast(v)); }, s.value);
    units[py::str(s.name)] = std::string(unit_name(s.unit));
  }
  out["stats"] = stats;
  out["stat_units"] = units;
  py::dict engines;
  for (const auto& e : r.stats.engines) {
    py::dict d;
    const traces::EngineTime& t = e.time;
    const double busy_ns = engines::ps_to_ns(t.busy_ps);
    d["instructions"] = t.instruction_count;
    d["busy_ns"] = busy_ns;
    d["semaphore_wait_ns"] = engines::ps_to_ns(t.semaphore_wait_ps);
    d["port_wait_ns"] = engines::ps_to_ns(t.port_wait_ps);
    d["dma_queue_wait_ns"] = engines::ps_to_ns(t.dma_wait_ps);
    d["idle_ns"] = engines::ps_to_ns(t.idle_ps);
    d["throttled_ns"] = engines::ps_to_ns(t.throttled_ps);  // part of busy_ns
    d["utilisation"] = r.total_ns > 0 ? busy_ns / r.total_ns : 0.0;
    d["clock_ghz"] = e.clock_ghz;
    engines[py::str(std::string(isa::engine_name(e.engine)))] = d;
  }
  out["engines"] = engines;
}

// `neuronsim compile`: the graph (JSON text) compiled for a target, and with `out_dir` the
// program directory the CLI's -o writes (one NEFF per launch and launch.json).
py::dict compile(const std::string& graph_json, const std::string& source, const std::string& mode,
                 const std::string& target, const std::optional<std::string>& out_dir) {
  const auto m = compiler::parse_mode(mode);
  if (!m) throw Error("compile: mode must be eager or fused, not '" + mode + "'");
  const config::TargetConfig config = config::load_target(target);
  const compiler::Graph g = compiler::parse_graph(graph_json, source);
  compiler::CompiledProgram p = compiler::compile(g, *m, config.name, config.limits);
  // With out_dir, exactly what `neuronsim compile -o` writes (the manifest with hashes).
  const std::string launch_json =
      out_dir ? compiler::write_program_directory(p, *out_dir) : compiler::launch_json(p);
  py::dict out;
  out["program"] = p.program;
  out["mode"] = compiler::mode_name(p.mode);
  out["target"] = config.name;
  py::list launches;
  for (auto& l : p.launches) {
    py::dict d;
    d["name"] = l.name;
    d["neff"] = l.neff;
    d["op"] = l.op;
    d["nodes"] = l.nodes;
    const std::string where =
        out_dir ? (std::filesystem::path(*out_dir) / l.neff).string() : source + ":" + l.name;
    d["kernel"] = KernelObject(std::move(l.kernel), where);
    launches.append(d);
  }
  out["launches"] = launches;
  out["launch_json"] = launch_json;
  out["warnings"] = p.warnings;
  return out;
}

// Element-wise dtype conversions of isa/ (what the engines do when they store a float).
py::array_t<float> round_to(const py::array_t<float, py::array::c_style | py::array::forcecast>& a,
                            const std::string& dtype_name) {
  const auto dtype = isa::parse_dtype(dtype_name);
  if (!dtype || !isa::is_float(*dtype))
    throw Error("round_to: '" + dtype_name + "' is not a float dtype");
  py::array_t<float> out(std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim()));
  std::uint8_t element[8];
  const float* src = a.data();
  float* dst = out.mutable_data();
  for (py::ssize_t i = 0; i < a.size(); ++i) {
    isa::store_fp32(*dtype, src[i], element);
    dst[i] = isa::load_fp32(*dtype, element);
  }
  return out;
}

py::array to_bits(const py::array_t<float, py::array::c_style | py::array::forcecast>& a,
                  const std::string& dtype_name) {
  const auto dtype = isa::parse_dtype(dtype_name);
  if (!dtype || !isa::is_float(*dtype))
    throw Error("to_bits: '" + dtype_name + "' is not a float dtype");
  isa::HbmTensor t;
  t.dtype = *dtype;
  t.shape.assign(a.shape(), a.shape() + a.ndim());
  const std::size_t size = isa::dtype_size(*dtype);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(a.size()) * size);
  for (py::ssize_t i = 0; i < a.size(); ++i)
    isa::store_fp32(*dtype, a.data()[i], bytes.data() + i * size);
  return tensor_to_array(bytes, t, true);
}

py::array_t<float> from_bits(const py::array& bits, const std::string& dtype_name) {
  const auto dtype = isa::parse_dtype(dtype_name);
  if (!dtype || !isa::is_float(*dtype))
    throw Error("from_bits: '" + dtype_name + "' is not a float dtype");
  isa::HbmTensor t;
  t.name = "bits";
  t.dtype = *dtype;
  for (py::ssize_t i = 0; i < bits.ndim(); ++i)
    t.shape.push_back(static_cast<std::uint64_t>(bits.shape(i)));
  const std::vector<std::uint8_t> bytes = array_to_tensor(bits, t, true, "from_bits");
  return tensor_to_array(bytes, t, false);
}

}  // namespace

}  // namespace neuronsim::python

PYBIND11_MODULE(_core, m) {
  using namespace neuronsim;
  using namespace neuronsim::python;
  m.doc() = "neuronsim's C++ core (docs/python.md); use the neuronsim package, not this module";
  py::register_exception<Error>(m, "Error");
  const auto guard = py::call_guard<DeadStackUnpoisoned>();  // sanitizer_stack.hpp

  py::class_<KernelObject>(m, "Kernel")
      .def_property_readonly("name", [](const KernelObject& k) { return k.kernel().name; })
      .def_property_readonly("target", [](const KernelObject& k) { return k.kernel().target; })
      .def_property_readonly("source", &KernelObject::source)
      .def_property_readonly("hash",
                             [](const KernelObject& k) {
                               const DeadStackUnpoisoned unpoisoned;
                               return k.hash();
                             })
      .def_property_readonly(
          "inputs",
          [](const KernelObject& k) { return tensors_of(k.kernel(), isa::TensorRole::input); })
      .def_property_readonly(
          "outputs",
          [](const KernelObject& k) { return tensors_of(k.kernel(), isa::TensorRole::output); })
      .def_property_readonly(
          "tensors", [](const KernelObject& k) { return tensors_of(k.kernel(), std::nullopt); })
      .def_property_readonly("instruction_count",
                             [](const KernelObject& k) { return k.kernel().instruction_count(); })
      .def(
          "asm", [](const KernelObject& k) { return isa::print(k.kernel()); }, guard)
      .def("save", &KernelObject::save, guard, py::arg("path"))
      .def("__repr__", [](const KernelObject& k) {
        return "<neuronsim.Kernel " + k.kernel().name + " (" + k.kernel().target + ", " +
               std::to_string(k.kernel().instruction_count()) + " instructions)>";
      });

  m.def("assemble", &assemble, guard, py::arg("text"), py::arg("name") = "kernel",
        py::arg("target") = py::none());
  m.def("load_neff", &load_neff_file, guard, py::arg("path"));
  m.def("run", &run, guard, py::arg("kernel"), py::arg("inputs"), py::arg("target"),
        py::arg("overrides"), py::arg("timing_only"), py::arg("profile_dir"), py::arg("raw_bits"),
        py::arg("raw_outputs"), py::arg("fill_uninitialised"));
  m.def("run_cores", &run_cores, guard, py::arg("kernels"), py::arg("inputs"), py::arg("target"),
        py::arg("overrides"), py::arg("timing_only"), py::arg("profile_dir"), py::arg("raw_bits"),
        py::arg("raw_outputs"));
  m.def("compile", &compile, guard, py::arg("graph_json"), py::arg("source"), py::arg("mode"),
        py::arg("target"), py::arg("out_dir"));
  m.def("profile_summary", &profile_summary, guard, py::arg("path"), py::arg("peak_tflops") = 0.0,
        py::arg("top") = 10);
  m.def(
      "whatif",
      [](const std::optional<std::string>& path, const std::vector<const KernelObject*>& kernels,
         const std::string& source, const std::optional<std::string>& target,
         const std::vector<std::string>& overrides, std::size_t max_waits,
         bool allow_outside_files) {
        std::vector<std::shared_ptr<const isa::Kernel>> shared;
        for (const KernelObject* k : kernels)
          shared.push_back(k->shared());
        return whatif(path, shared, source, target, overrides, max_waits, allow_outside_files);
      },
      guard, py::arg("path"), py::arg("kernels"), py::arg("source"), py::arg("target"),
      py::arg("overrides"), py::arg("max_waits"), py::arg("allow_outside_files"));
  m.def("sequence_perfetto", &sequence_perfetto, guard, py::arg("profile_dir"));
  m.def("round_to", &round_to, guard, py::arg("array"), py::arg("dtype"));
  m.def("to_bits", &to_bits, guard, py::arg("array"), py::arg("dtype"));
  m.def("from_bits", &from_bits, guard, py::arg("bits"), py::arg("dtype"));
  m.def(
      "target_names", [] { return config::target_names(); }, guard);
  // The ISA's tables for the Python front end (python/neuronsim/nki/isa/__init__.py), so that it
  // holds no copy of them: opcode -> the engines that may run it, and the ALU op names.
  m.def("opcode_engines", [] {
    py::dict d;
    for (int i = 0; i < isa::kOpcodeCount; ++i) {
      const auto op = static_cast<isa::Opcode>(i);
      py::list engines;
      for (int e = 0; e < isa::kEngineCount; ++e)
        if (isa::allowed_engines(op) & (1u << e))
          engines.append(std::string(isa::engine_name(static_cast<isa::Engine>(e))));
      d[py::str(std::string(isa::opcode_name(op)))] = py::tuple(engines);
    }
    return d;
  });
  m.def("alu_op_names", [] {
    py::list names;
    for (const isa::AluOpInfo& op : isa::kAluOpTable)
      names.append(std::string(op.name));
    return names;
  });
  m.def(
      "session_info",
      [] {
        const SessionInfo i = Session::get().info();
        py::dict d;
        d["contexts"] = i.contexts;
        d["launches"] = i.launches;
        d["cores"] = i.cores;
        return d;
      },
      guard);
  // True in a sanitizer build: its allocator holds freed memory back, so resident memory
  // says nothing about leaks there (tests/python/test_many_runs.py).
#if defined(__SANITIZE_ADDRESS__)
  m.attr("address_sanitizer") = true;
#else
  m.attr("address_sanitizer") = false;
#endif
  m.def(
      "shutdown", [] { Session::get().shutdown(); }, guard);
  bind_host_scheduler(m);
  bind_example_kernels(m);
  bind_nki_lowering(m);
  bind_nki_placement(m);
  bind_nki_region(m);
  bind_nki_text(m);
  bind_nki_kernel(m);
}

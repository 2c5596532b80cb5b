#include "python/core/session.hpp"

#include <cstdlib>
#include <utility>

#include "base/error.hpp"
#include "neuronsim/hbm.hpp"
#include "neuronsim/neuron_core.hpp"

namespace neuronsim::python {

struct Session::Platform {
  std::string key;
  std::unique_ptr<Hbm> hbm;
  std::unique_ptr<NeuronCore> core;
  std::vector<std::unique_ptr<NeuronCore>> more;  // cores 1.. of a multi-core platform
  std::uint64_t shared_bytes = 0;  // HBM below the cores' windows, for shared tensors
  std::string target;
  NeuronCore& core_at(std::size_t i) { return i == 0 ? *core : *more.at(i - 1); }
};

namespace {

constexpr const char* kCoresSuffix = "|cores=";
constexpr std::uint64_t kPage = 4096;  // tensors start on a page, as a core places them

// Cores of a run_cores platform key ("...|cores=N"), 0 for a plain run's key.
unsigned cores_of(const std::string& key) {
  const std::size_t at = key.rfind(kCoresSuffix);
  if (at == std::string::npos) return 0;
  return static_cast<unsigned>(std::stoul(key.substr(at + std::string(kCoresSuffix).size())));
}

}  // namespace

Session& Session::get() {
  // Never destroyed by static destruction: shutdown() (Python's atexit) tears down the
  // modules while SystemC's own statics are still alive.
  static Session* session = new Session();
  return *session;
}

Session::Session() {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  // SystemC's info messages ("simulation stopped by user") are not the module's to print.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sc_core::sc_get_curr_simcontext();  // the process's first context, made now
}

Session::~Session() = default;

Session::Platform* Session::find(const std::string& key) {
  for (auto& p : platforms_)
    if (p->key == key) return p.get();
  return nullptr;
}

Session::Platform& Session::add(const config::TargetConfig& config, const std::string& key) {
  // Module names are unique within a context; the first core is "core", as in `neuronsim
  // run`, so that messages naming it read the same.
  const std::string suffix = platforms_.empty() ? "" : "_" + std::to_string(platforms_.size());
  auto p = std::make_unique<Platform>();
  p->key = key;
  p->target = config.name;
  p->hbm = std::make_unique<Hbm>(("hbm" + suffix).c_str(), config);
  const unsigned cores = cores_of(key);
  if (cores == 0) {
    p->core = std::make_unique<NeuronCore>(("core" + suffix).c_str(), config);
    p->core->hbm.bind(p->hbm->socket);
  } else {
    // As a Device lays its cores out (sim/device.cpp: equal windows of the HBM), with
    // one more window-sized region first for the tensors the cores share.
    const std::uint64_t window = p->hbm->size() / (cores + 1) / kPage * kPage;
    p->shared_bytes = window;
    for (unsigned i = 0; i < cores; ++i) {
      CoreOptions options;
      options.hbm_window_base = window * (i + 1);
      options.hbm_window_bytes = window;
      // "cores...": a one-core platform's "core_<n>" never names one of these.
      auto core = std::make_unique<NeuronCore>(("cores" + suffix + "_" + std::to_string(i)).c_str(),
                                               config, options);
      core->hbm.bind(p->hbm->socket);
      if (i == 0)
        p->core = std::move(core);
      else
        p->more.push_back(std::move(core));
    }
  }
  platforms_.push_back(std::move(p));
  return *platforms_.back();
}

void Session::simulate() {
  try {
    sc_core::sc_start();
  } catch (...) {
    broken_ = true;
    throw;
  }
}

void Session::remember(const config::TargetConfig& config, const std::string& key) {
  for (auto it = recent_.begin(); it != recent_.end(); ++it)
    if (it->first == key) {
      if (it == recent_.begin()) return;
      recent_.erase(it);
      break;
    }
  recent_.emplace_front(key, config);
  if (recent_.size() > kKeptConfigs) recent_.pop_back();
}

void Session::fresh_context() {
  platforms_.clear();  // the modules go while their context is current
  context_.reset();    // the first context is never deleted: SystemC's statics refer to it
  context_ = std::make_unique<sim::FreshContext>();
  ++contexts_;
}

void Session::run_alone(const std::function<void()>& fn) {
  fresh_context();
  // Whatever fn leaves behind (its modules gone, a simulation started), the next run
  // starts from a fresh context of its own.
  broken_ = true;
  fn();
}

void Session::replace_context() {
  fresh_context();
  broken_ = false;
  for (const auto& [key, config] : recent_)
    add(config, key);
}

Session::Platform& Session::build_core(const config::TargetConfig& config, const std::string& key) {
  try {
    if (sc_core::sc_get_status() == sc_core::SC_ELABORATION) return add(config, key);
    replace_context();  // builds the recent configs, this one first
    return *find(key);
  } catch (...) {
    // A config no core can be built for is forgotten; the next run starts clean.
    recent_.pop_front();
    broken_ = true;
    throw;
  }
}

LaunchResult Session::run(const config::TargetConfig& config, const std::string& key,
                          LaunchRequest request) {
  if (broken_) replace_context();
  Platform* platform = find(key);
  remember(config, key);
  if (!platform) platform = &build_core(config, key);
  const std::string source = request.source;
  LaunchHandle launch = platform->core->launch(std::move(request));
  ++launches_;
  simulate();
  if (!launch->finished()) {
    broken_ = true;
    throw Error(source + ": the simulation ended before the launch finished");
  }
  // The handle's event belongs to this context: it must not outlive the call.
  LaunchResult result = launch->take_result();
  launch.reset();
  return result;
}

std::vector<LaunchResult> Session::run_cores(const config::TargetConfig& config,
                                             const std::string& key,
                                             std::vector<LaunchRequest> requests,
                                             std::map<std::string, SharedTensor>& shared,
                                             bool timing_only) {
  if (requests.empty()) throw Error("run_cores: no kernels");
  if (requests.size() > config.cores_per_chip)
    throw Error("run_cores: " + std::to_string(requests.size()) + " kernels, but a " + config.name +
                " device has " + std::to_string(config.cores_per_chip) + " cores");
  const std::string platform_key = key + kCoresSuffix + std::to_string(requests.size());
  if (broken_) replace_context();
  Platform* platform = find(platform_key);
  remember(config, platform_key);
  if (!platform) platform = &build_core(config, platform_key);
  // The shared tensors, one after the other from address 0, each on its own pages.
  std::map<std::string, std::uint64_t> addresses;
  std::uint64_t cursor = 0;
  for (auto& [name, t] : shared) {
    if (t.size > platform->shared_bytes - cursor)
      throw Error("run_cores: the shared tensors need more than the " +
                  std::to_string(platform->shared_bytes) + " bytes of HBM set aside for them");
    addresses[name] = cursor;
    if (!timing_only) {
      if (!t.output && t.bytes.size() != t.size)
        throw Error("run_cores: input '" + name + "' has " + std::to_string(t.bytes.size()) +
                    " bytes, the tensor needs " + std::to_string(t.size));
      // Outputs start zeroed: an earlier run on this platform left its bytes there.
      const std::vector<std::uint8_t> zeros(t.output ? t.size : 0, 0);
      platform->hbm->write(cursor, t.output ? zeros.data() : t.bytes.data(), t.size);
    }
    cursor = (cursor + t.size + kPage - 1) / kPage * kPage;
  }
  std::vector<LaunchHandle> launches;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    LaunchRequest& r = requests[i];
    for (const isa::HbmTensor& t : r.kernel->tensors) {
      auto it = addresses.find(t.name);
      if (it == addresses.end()) continue;
      if (t.bytes() != shared.at(t.name).size)
        throw Error(r.source + ": tensor '" + t.name + "' has " + std::to_string(t.bytes()) +
                    " bytes, the shared tensor of that name " +
                    std::to_string(shared.at(t.name).size));
      r.tensor_addresses[t.name] = it->second;
    }
    r.collect_outputs = false;  // the shared outputs are read below, the rest are the core's
    r.timing_only = timing_only;
    launches.push_back(platform->core_at(i).launch(std::move(r)));
    ++launches_;
  }
  simulate();
  std::vector<LaunchResult> results;
  for (auto& l : launches) {
    if (!l->finished()) {
      broken_ = true;
      throw Error("run_cores: the simulation ended before every launch finished");
    }
    results.push_back(l->take_result());
    l.reset();
  }
  if (!timing_only)
    for (auto& [name, t] : shared)
      if (t.output) {
        t.bytes.assign(t.size, 0);
        platform->hbm->read(addresses.at(name), t.bytes.data(), t.size);
      }
  return results;
}

void Session::shutdown() {
  platforms_.clear();
  context_.reset();
}

SessionInfo Session::info() const {
  SessionInfo i;
  i.contexts = contexts_;
  i.launches = launches_;
  for (const auto& p : platforms_)
    i.cores.push_back(p->target);
  return i;
}

}  // namespace neuronsim::python

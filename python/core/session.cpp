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
  std::string target;
};

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
  first_context_ = sc_core::sc_get_curr_simcontext();
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
  p->core = std::make_unique<NeuronCore>(("core" + suffix).c_str(), config);
  p->core->hbm.bind(p->hbm->socket);
  platforms_.push_back(std::move(p));
  return *platforms_.back();
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

void Session::replace_context() {
  platforms_.clear();  // the modules go while their context is current
  sc_core::sc_simcontext* old = sc_core::sc_curr_simcontext;
  if (old != first_context_) delete old;
  sc_core::sc_curr_simcontext = new sc_core::sc_simcontext;
  sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
  ++contexts_;
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
  try {
    sc_core::sc_start();
  } catch (...) {
    broken_ = true;
    throw;
  }
  if (!launch->finished()) {
    broken_ = true;
    throw Error(source + ": the simulation ended before the launch finished");
  }
  // The handle's event belongs to this context: it must not outlive the call.
  LaunchResult result = launch->take_result();
  launch.reset();
  return result;
}

void Session::shutdown() {
  platforms_.clear();
  sc_core::sc_simcontext* current = sc_core::sc_curr_simcontext;
  if (current && current != first_context_) {
    delete current;
    sc_core::sc_curr_simcontext = first_context_;
    sc_core::sc_default_global_context = first_context_;
  }
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

#include "host/sequence_runner.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "isa/error.hpp"
#include "isa/file_io.hpp"
#include "neff/neff.hpp"
#include "profile/host_trace.hpp"
#include "profile/profiled_run.hpp"

namespace neuronsim::sim {

namespace fs = std::filesystem;

namespace {

// The child's message: a status byte (0 ok, 1 error) and fields in host byte order (the
// same program reads them back).
class Packer {
 public:
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  void f64(double v) { raw(&v, sizeof v); }
  void bytes(const void* p, std::size_t n) {
    u64(n);
    raw(p, n);
  }
  void text(const std::string& s) { bytes(s.data(), s.size()); }
  void raw(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  }
  std::vector<std::uint8_t> out;
};

class Unpacker {
 public:
  Unpacker(const std::vector<std::uint8_t>& in, std::string what)
      : in_(in), what_(std::move(what)) {}
  std::uint64_t u64() {
    std::uint64_t v;
    raw(&v, sizeof v);
    return v;
  }
  double f64() {
    double v;
    raw(&v, sizeof v);
    return v;
  }
  std::vector<std::uint8_t> bytes() {
    const std::uint64_t n = u64();
    if (n > in_.size() - pos_) fail();
    std::vector<std::uint8_t> v(in_.begin() + static_cast<long>(pos_),
                                in_.begin() + static_cast<long>(pos_ + n));
    pos_ += n;
    return v;
  }
  std::string text() {
    const auto b = bytes();
    return std::string(b.begin(), b.end());
  }
  void raw(void* p, std::size_t n) {
    if (n > in_.size() - pos_) fail();
    std::memcpy(p, in_.data() + pos_, n);
    pos_ += n;
  }

 private:
  [[noreturn]] void fail() const {
    throw Error(what_ + ": truncated result from the child process");
  }
  const std::vector<std::uint8_t>& in_;
  std::string what_;
  std::size_t pos_ = 0;
};

void write_all(int fd, const std::vector<std::uint8_t>& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent reports the truncated message
    done += static_cast<std::size_t>(n);
  }
}

std::vector<std::uint8_t> read_all(int fd) {
  std::vector<std::uint8_t> data;
  std::uint8_t buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.insert(data.end(), buf, buf + n);
  }
  return data;
}

}  // namespace

std::vector<std::uint8_t> run_in_child(const std::string& what,
                                       const std::function<std::vector<std::uint8_t>()>& body) {
  int fds[2];
  if (::pipe(fds) != 0) throw Error(what + ": cannot create a pipe: " + std::strerror(errno));
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw Error(what + ": cannot start a process: " + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    Packer p;
    try {
      const std::vector<std::uint8_t> result = body();
      p.raw("\0", 1);
      p.raw(result.data(), result.size());
    } catch (const std::exception& e) {
      p.out.clear();
      p.raw(dynamic_cast<const Error*>(&e) ? "\1" : "\2", 1);
      p.text(e.what());
    } catch (...) {
      p.out.clear();
      p.raw("\2", 1);
      p.text("unknown exception");
    }
    write_all(fds[1], p.out);
    ::close(fds[1]);
    ::_exit(0);  // no destructors or atexit handlers: SystemC's state stays the child's
  }
  ::close(fds[1]);
  std::vector<std::uint8_t> message = read_all(fds[0]);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status))
    throw Error(what + ": the simulation process died of signal " +
                std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")");
  if (message.empty()) throw Error(what + ": the simulation process ended without a result");
  const std::uint8_t kind = message[0];
  message.erase(message.begin());
  if (kind != 0) {
    Unpacker u(message, what);
    const std::string text = u.text();
    if (kind == 1) throw Error(text);
    throw Error(what + ": internal error: " + text);
  }
  return message;
}

namespace {

std::vector<std::uint8_t> pack_launch(const RunResult& r, const ProfiledRun* profiled,
                                      const isa::Kernel& k) {
  Packer p;
  p.u64(r.total_ps);
  p.u64(r.neuroncore_cycle_count);
  for (const auto& e : r.engines) {
    p.u64(static_cast<std::uint64_t>(e.engine));
    p.f64(e.clock_ghz);
    p.u64(e.instructions);
    p.u64(e.busy_cycles);
    for (double v :
         {e.busy_ns, e.semaphore_wait_ns, e.port_wait_ns, e.dma_queue_wait_ns, e.idle_ns})
      p.f64(v);
  }
  p.text(r.stats.to_json().dump());
  p.u64(profiled ? profiled->trace_bytes : 0);
  p.u64(profiled ? profiled->trace_instructions : 0);
  std::uint64_t outputs = 0;
  for (const auto& t : k.tensors)
    outputs += t.role == isa::TensorRole::output && r.outputs.count(t.name);
  p.u64(outputs);
  for (const auto& t : k.tensors) {
    if (t.role != isa::TensorRole::output || !r.outputs.count(t.name)) continue;
    p.text(t.name);
    const auto& bytes = r.outputs.at(t.name);
    p.bytes(bytes.data(), bytes.size());
  }
  return p.out;
}

LaunchRun unpack_launch(const std::vector<std::uint8_t>& message, const std::string& what,
                        TensorBytes& outputs) {
  Unpacker u(message, what);
  LaunchRun l;
  l.total_ps = u.u64();
  l.neuroncore_cycle_count = u.u64();
  for (auto& e : l.engines) {
    e.engine = static_cast<isa::Engine>(u.u64());
    e.clock_ghz = u.f64();
    e.instructions = u.u64();
    e.busy_cycles = u.u64();
    for (double* v :
         {&e.busy_ns, &e.semaphore_wait_ns, &e.port_wait_ns, &e.dma_queue_wait_ns, &e.idle_ns})
      *v = u.f64();
  }
  l.stats = nlohmann::json::parse(u.text());
  l.trace_bytes = u.u64();
  l.trace_instructions = u.u64();
  const std::uint64_t n = u.u64();
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::string name = u.text();
    outputs[name] = u.bytes();
  }
  return l;
}

// The staging folder a sequence profile is built in, renamed to `dir` when complete.
std::string staging_dir(const std::string& dir) {
  return (fs::path(dir).parent_path() /
          (fs::path(dir).filename().string() + ".partial-" + std::to_string(::getpid())))
      .string();
}

void check_profile_target(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return;
  if (!fs::is_directory(dir, ec)) throw Error(dir + ": exists and is not a directory");
  if (!fs::is_empty(dir, ec))
    throw Error(dir +
                ": the profile directory exists and is not empty; remove it or choose another");
}

}  // namespace

SequenceResult run_sequence(const LaunchSequence& seq, const TargetConfig& config,
                            const SequenceRunOptions& options) {
  // Everything that can be checked without simulating, before anything runs.
  std::vector<std::vector<std::uint8_t>> neff_bytes;
  std::vector<isa::Kernel> kernels;
  for (const auto& l : seq.launches) {
    std::error_code ec;
    if (!fs::exists(l.neff_path, ec))
      throw Error(seq.path + ": launch '" + l.name + "': NEFF " + l.neff_path + " not found");
    neff_bytes.push_back(read_file(l.neff_path));
    kernels.push_back(neff::read(neff_bytes.back(), l.neff_path).kernel);
  }
  check_bindings(seq, kernels);
  SequenceResult result;
  for (const auto& [name, bytes] : options.inputs) {
    const ProgramTensor* t = seq.find(name);
    if (!t || t->role != ProgramTensor::Role::input)
      throw Error(seq.path + ": the program has no input tensor named '" + name + "'");
    if (bytes.size() != t->as_hbm_tensor().bytes())
      throw Error(seq.path + ": input '" + name + "' has " + std::to_string(bytes.size()) +
                  " bytes, the tensor needs " + std::to_string(t->as_hbm_tensor().bytes()));
    result.tensors[name] = bytes;
  }
  for (const auto& t : seq.tensors)
    if (t.role == ProgramTensor::Role::input && !result.tensors.count(t.name)) {
      if (!options.timing_only)
        throw Error(seq.path + ": program input '" + t.name + "' not given");
      result.tensors[t.name] = std::vector<std::uint8_t>(t.as_hbm_tensor().bytes());
    }

  std::string staging;
  if (!options.profile_dir.empty()) {
    check_profile_target(options.profile_dir);
    staging = staging_dir(options.profile_dir);
    std::error_code ec;
    fs::remove_all(staging, ec);
    fs::create_directories(staging, ec);
    if (ec) throw Error(staging + ": cannot create the profile directory: " + ec.message());
  }
  try {
    for (std::size_t i = 0; i < seq.launches.size(); ++i) {
      const Launch& l = seq.launches[i];
      const isa::Kernel& k = kernels[i];
      TensorBytes inputs;
      for (const auto& t : k.tensors)
        if (t.role == isa::TensorRole::input) {
          auto it = result.tensors.find(t.name);  // timing only: outputs are not computed
          inputs[t.name] =
              it != result.tensors.end() ? it->second : std::vector<std::uint8_t>(t.bytes());
        }
      RunOptions run_options;
      run_options.timing_only = options.timing_only;
      run_options.fill_uninitialised = options.fill_uninitialised;
      const std::string what = seq.path + ": launch '" + l.name + "' (" + l.neff_path + ")";
      const std::string launch_dir =
          staging.empty() ? "" : (fs::path(staging) / launch_profile_folder(i)).string();
      const std::vector<std::uint8_t> message = run_in_child(what, [&] {
        if (launch_dir.empty())
          return pack_launch(run_kernel(k, config, inputs, run_options, l.neff_path), nullptr, k);
        const ProfiledRun p =
            run_profiled(neff_bytes[i], config, inputs, run_options, l.neff_path, launch_dir);
        return pack_launch(p.result, &p, k);
      });
      TensorBytes outputs;
      result.launches.push_back(unpack_launch(message, what, outputs));
      for (auto& [name, bytes] : outputs)
        result.tensors[name] = std::move(bytes);
    }
    std::vector<double> device_ns;
    for (const auto& l : result.launches)
      device_ns.push_back(static_cast<double>(l.total_ps) / 1000.0);
    result.timeline = schedule_launches(config.host, device_ns);
    if (!staging.empty()) {
      const HostTrace trace = make_host_trace(seq, config, result.timeline);
      write_file_atomic((fs::path(staging) / kHostTraceFile).string(),
                        host_trace_json(trace).dump(2) + "\n");
      std::error_code ec;
      fs::remove(options.profile_dir, ec);  // an empty directory (checked above)
      fs::rename(staging, options.profile_dir, ec);
      if (ec)
        throw Error(options.profile_dir + ": cannot move the profile into place: " + ec.message());
    }
  } catch (...) {
    if (!staging.empty()) {
      std::error_code ec;
      fs::remove_all(staging, ec);
    }
    throw;
  }
  if (options.timing_only) result.tensors.clear();
  return result;
}

}  // namespace neuronsim::sim

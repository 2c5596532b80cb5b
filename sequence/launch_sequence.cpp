#include "sequence/launch_sequence.hpp"

#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/json_text.hpp"
#include "base/limits.hpp"

namespace neuronsim::sequence {

namespace {

using nlohmann::json;

class Fields {
 public:
  explicit Fields(std::string path) : path_(std::move(path)) {}
  std::string where(const std::string& field) const { return path_ + ": " + field; }
  [[noreturn]] void fail(const std::string& field, const std::string& why) const {
    throw Error(path_ + ": " + field + ": " + why);
  }
  const json& member(const json& obj, const std::string& key, const std::string& field) const {
    if (!obj.contains(key)) fail(field, "missing");
    return obj.at(key);
  }
  std::string text(const json& obj, const std::string& key, const std::string& at) const {
    const std::string field = at + key;
    const json& v = member(obj, key, field);
    if (!v.is_string() || v.get<std::string>().empty()) fail(field, "must be a non-empty string");
    return v.get<std::string>();
  }
  const json& array(const json& obj, const std::string& key, const std::string& at) const {
    const json& v = member(obj, key, at + key);
    if (!v.is_array()) fail(at + key, "must be an array");
    return v;
  }

 private:
  std::string path_;
};

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

ProgramTensor read_tensor(const json& j, const std::string& at, const Fields& f) {
  if (!j.is_object()) f.fail(at, "must be an object");
  ProgramTensor t;
  t.name = f.text(j, "name", at + ".");
  const std::string dtype = f.text(j, "dtype", at + ".");
  const auto dt = isa::parse_dtype(dtype);
  if (!dt) f.fail(at + ".dtype", "unknown dtype '" + dtype + "'");
  t.dtype = *dt;
  const json& shape = f.array(j, "shape", at + ".");
  if (shape.empty()) f.fail(at + ".shape", "must have at least one dimension");
  for (const auto& d : shape) {
    if (!d.is_number_unsigned() || d.get<std::uint64_t>() == 0 ||
        d.get<std::uint64_t>() > (1ull << 40))
      f.fail(at + ".shape", "dimensions must be integers in [1, 2^40]");
    t.shape.push_back(d.get<std::uint64_t>());
  }
  checked_tensor_bytes(t.shape, isa::dtype_size(t.dtype), f.where(at));
  const std::string role = f.text(j, "role", at + ".");
  if (role == "input")
    t.role = ProgramTensor::Role::input;
  else if (role == "output")
    t.role = ProgramTensor::Role::output;
  else if (role == "intermediate")
    t.role = ProgramTensor::Role::intermediate;
  else
    f.fail(at + ".role", "must be input, output or intermediate, not '" + role + "'");
  return t;
}

}  // namespace

isa::HbmTensor ProgramTensor::as_hbm_tensor() const {
  isa::HbmTensor t;
  t.name = name;
  t.dtype = dtype;
  t.shape = shape;
  t.role = role == Role::input ? isa::TensorRole::input : isa::TensorRole::output;
  return t;
}

const ProgramTensor* LaunchSequence::find(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

bool looks_like_launch_sequence(const std::string& path) {
  return std::filesystem::path(path).extension() == ".json";
}

namespace {

// Whether `file` (symlinks resolved) lies inside `folder` (resolved).
bool inside(const std::filesystem::path& folder, const std::filesystem::path& file) {
  std::error_code ec;
  const auto root = std::filesystem::weakly_canonical(folder.empty() ? "." : folder, ec);
  if (ec) return false;
  const auto target = std::filesystem::weakly_canonical(file, ec);
  if (ec) return false;
  auto r = root.begin();
  auto t = target.begin();
  for (; r != root.end(); ++r, ++t)
    if (t == target.end() || *r != *t) return false;
  return t != target.end();
}

}  // namespace

LaunchSequence read_launch_sequence(const std::string& path, bool allow_outside_files) {
  const json j = parse_json_text(read_text_file(path, Limit::json_file_bytes), path);
  const Fields f(path);
  if (!j.is_object()) f.fail("the document", "must be a JSON object");
  if (f.text(j, "format", "") != "neuronsim-launch-sequence")
    f.fail("format", "must be \"neuronsim-launch-sequence\"");
  const json& version = f.member(j, "version", "version");
  if (!version.is_number_integer() || version.get<std::int64_t>() != 1)
    f.fail("version", "only version 1 is known");
  LaunchSequence seq;
  seq.path = path;
  seq.program = f.text(j, "program", "");
  seq.mode = f.text(j, "mode", "");
  if (seq.mode != "eager" && seq.mode != "fused" && seq.mode != "manual")
    f.fail("mode", "must be eager, fused or manual, not '" + seq.mode + "'");

  std::set<std::string> names;
  const json& tensors = f.array(j, "tensors", "");
  std::uint64_t total_bytes = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const std::string at = "tensors[" + std::to_string(i) + "]";
    seq.tensors.push_back(read_tensor(tensors[i], at, f));
    total_bytes = saturating_add(total_bytes, seq.tensors.back().as_hbm_tensor().bytes());
    if (!names.insert(seq.tensors.back().name).second)
      f.fail(at + ".name", "tensor '" + seq.tensors.back().name + "' is declared twice");
  }

  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  std::set<std::string> launch_names;
  check_limit(Limit::kernel_tensor_bytes, total_bytes, path + ": the program's tensors together");
  const json& launches = f.array(j, "launches", "");
  if (launches.empty()) f.fail("launches", "must name at least one launch");
  check_limit(Limit::launches, launches.size(), path + ": launches");
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const std::string at = "launches[" + std::to_string(i) + "]";
    const json& l = launches[i];
    if (!l.is_object()) f.fail(at, "must be an object");
    SequenceLaunch launch;
    launch.name = f.text(l, "name", at + ".");
    if (!launch_names.insert(launch.name).second)
      f.fail(at + ".name", "launch name '" + launch.name + "' is used twice");
    launch.neff = f.text(l, "neff", at + ".");
    launch.neff_path = (folder / launch.neff).string();
    if (!allow_outside_files &&
        (std::filesystem::path(launch.neff).is_absolute() || !inside(folder, launch.neff_path)))
      f.fail(at + ".neff", "'" + launch.neff +
                               "' is not a file inside the launch sequence's directory "
                               "(run --allow-outside-files permits it)");
    launch.op = f.text(l, "op", at + ".");
    if (l.contains("neff_sha256")) {
      launch.neff_sha256 = f.text(l, "neff_sha256", at + ".");
      if (launch.neff_sha256.size() != 64 ||
          launch.neff_sha256.find_first_not_of("0123456789abcdef") != std::string::npos)
        f.fail(at + ".neff_sha256", "must be 64 lowercase hex digits");
    }
    if (l.contains("nodes")) {
      const json& nodes = f.array(l, "nodes", at + ".");
      for (const auto& n : nodes) {
        if (!n.is_string()) f.fail(at + ".nodes", "must be an array of strings");
        launch.nodes.push_back(n.get<std::string>());
      }
    }
    seq.launches.push_back(std::move(launch));
  }
  return seq;
}

void check_bindings(const LaunchSequence& seq, const std::vector<isa::Kernel>& kernels) {
  std::set<std::string> available;
  for (const auto& t : seq.tensors)
    if (t.role == ProgramTensor::Role::input) available.insert(t.name);
  for (std::size_t i = 0; i < seq.launches.size(); ++i) {
    const SequenceLaunch& l = seq.launches[i];
    const std::string who = seq.path + ": launch '" + l.name + "' (" + l.neff_path + ")";
    std::vector<std::string> written;
    for (const auto& t : kernels[i].tensors) {
      if (t.role != isa::TensorRole::input && t.role != isa::TensorRole::output) continue;
      const ProgramTensor* p = seq.find(t.name);
      if (!p) throw Error(who + ": tensor '" + t.name + "' is not a program tensor");
      if (p->dtype != t.dtype || p->shape != t.shape)
        throw Error(who + ": tensor '" + t.name + "' is " + std::string(isa::dtype_name(t.dtype)) +
                    shape_text(t.shape) + " in the NEFF but " +
                    std::string(isa::dtype_name(p->dtype)) + shape_text(p->shape) +
                    " in the program");
      if (t.role == isa::TensorRole::input && !available.count(t.name))
        throw Error(who + ": reads '" + t.name + "' before any launch has written it");
      if (t.role == isa::TensorRole::output) {
        if (p->role == ProgramTensor::Role::input)
          throw Error(who + ": writes the program input '" + t.name + "'");
        written.push_back(t.name);
      }
    }
    available.insert(written.begin(), written.end());
  }
  for (const auto& t : seq.tensors)
    if (t.role == ProgramTensor::Role::output && !available.count(t.name))
      throw Error(seq.path + ": no launch writes the program output '" + t.name + "'");
}

}  // namespace neuronsim::sequence

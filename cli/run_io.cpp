// What the modes of `neuronsim run` share (cli/run.hpp): inputs from the command line,
// saved inputs, kernel outputs and the statistics file.
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "cli/output.hpp"
#include "cli/run.hpp"
#include "io/inputs.hpp"
#include "io/npy.hpp"
#include "io/npz.hpp"

namespace neuronsim::cli {

namespace {

// An archive spec: "PATH.npz" or "PATH.npz,cast" with no "NAME=" (docs/npy.md).
bool is_archive_spec(const std::string& text, std::string* path, bool* cast) {
  if (text.find('=') != std::string::npos) return false;
  const std::string cast_suffix = ",cast";
  std::string p = text;
  *cast = p.size() > cast_suffix.size() &&
          p.compare(p.size() - cast_suffix.size(), cast_suffix.size(), cast_suffix) == 0;
  if (*cast) p.resize(p.size() - cast_suffix.size());
  if (p.size() <= 4 || p.compare(p.size() - 4, 4, ".npz") != 0) return false;
  *path = p;
  return true;
}

// The input tensor named `name` of the kernel or program, or nullopt.
using FindInput = std::function<std::optional<isa::HbmTensor>(const std::string& name)>;

// The bytes of every input named on the command line (--input NAME=SPEC or an .npz
// archive of NAME.npy members), checked against the kernel or program (`owner` in
// messages). Every tensor is given at most once over all specs.
TensorBytes collect_inputs(const RunArgs& args, const std::string& owner, const FindInput& find) {
  TensorBytes bytes;
  for (const auto& text : args.inputs) {
    std::string archive;
    bool cast = false;
    if (is_archive_spec(text, &archive, &cast)) {
      if (args.timing_only) continue;  // data is never read
      std::map<std::string, isa::HbmTensor> tensors;
      auto limit = [&](const std::string& name) {
        const auto t = find(name);
        if (!t)
          throw Error("--input " + text + ": member '" + name + ".npy' names no input tensor of " +
                      owner);
        if (bytes.count(name))
          throw Error("--input " + text + ": tensor '" + name + "' is given twice");
        tensors.emplace(name, *t);
        return io::npy_max_file_bytes(t->elems());
      };
      for (const io::NpzMember& m : io::read_npz(archive, limit))
        bytes[m.name] =
            io::npy_to_tensor(m.array, tensors.at(m.name),
                              archive + ": member '" + m.name + ".npy'", args.raw_bits, cast);
      continue;
    }
    const io::InputSpec spec = io::parse_input_spec(text);
    const auto tensor = find(spec.tensor);
    if (!tensor)
      throw Error("--input " + text + ": " + owner + " has no input tensor named '" + spec.tensor +
                  "'");
    if (bytes.count(spec.tensor))
      throw Error("--input " + text + ": tensor '" + spec.tensor + "' is given twice");
    bytes[spec.tensor] = args.timing_only
                             ? std::vector<std::uint8_t>(tensor->bytes())  // never read
                             : io::make_input(spec, *tensor, args.seed, args.raw_bits);
  }
  return bytes;
}

}  // namespace

TensorBytes kernel_inputs(const isa::Kernel& k, const RunArgs& args) {
  return collect_inputs(args, "the kernel", [&](const std::string& name) {
    for (const auto& t : k.tensors)
      if (t.name == name && t.role == isa::TensorRole::input) return std::optional(t);
    return std::optional<isa::HbmTensor>();
  });
}

// The program inputs named on the command line, checked against the program's tensors.
TensorBytes program_inputs(const sequence::LaunchSequence& seq, const RunArgs& args) {
  return collect_inputs(args, "the program " + seq.path, [&](const std::string& name) {
    const sequence::ProgramTensor* t = seq.find(name);
    if (!t || t->role != sequence::ProgramTensor::Role::input)
      return std::optional<isa::HbmTensor>();
    return std::optional(t->as_hbm_tensor());
  });
}

// --save-inputs: the inputs as the kernel reads them (generated ones included), to inspect
// or edit and give back: DIR/NAME.npy files (--input NAME=DIR/NAME.npy), or one archive
// when the path ends in .npz (--input X.npz).
void save_inputs(const RunArgs& args, const std::vector<isa::HbmTensor>& tensors,
                 const TensorBytes& bytes) {
  if (args.save_inputs.empty()) return;
  if (args.timing_only) throw Error("--save-inputs: a --timing-only run makes no input data");
  const std::string& where = args.save_inputs;
  const bool archive = where.size() > 4 && where.compare(where.size() - 4, 4, ".npz") == 0;
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> members;
  if (!archive) {
    std::error_code ec;
    std::filesystem::create_directories(where, ec);
    if (ec) throw Error(where + ": cannot create the directory: " + ec.message());
  }
  for (const auto& t : tensors) {
    auto it = bytes.find(t.name);
    if (it == bytes.end()) continue;
    if (archive) {
      members.emplace_back(t.name, io::encode_npy(t.dtype, t.shape, it->second, args.raw_bits));
      continue;
    }
    const std::string path = (std::filesystem::path(where) / (t.name + ".npy")).string();
    io::write_npy(path, t.dtype, t.shape, it->second, args.raw_bits);
    std::cout << "wrote " << path << "\n";
  }
  if (archive) {
    const std::vector<std::uint8_t> npz = io::encode_npz(members);
    write_file_atomic(where, npz);
    std::cout << "wrote " << where << " (" << members.size() << " arrays, " << npz.size()
              << " bytes)\n";
  }
}

nlohmann::ordered_json stats_document(const char* what, const std::string& name,
                                      const config::TargetConfig& cfg, const RunArgs& args) {
  nlohmann::ordered_json doc;
  doc[what] = name;
  doc["target"] = cfg.name;
  doc["timing_only"] = args.timing_only;
  return doc;
}

// --stats-json: the file, said so, or stdout alone ("-").
void write_stats(const std::string& path, const nlohmann::ordered_json& doc) {
  const std::string text = doc.dump(2) + "\n";
  write_output(path, text);
  say_wrote(std::cout, path, text.size());
}

void write_outputs(const isa::Kernel& k, const RunResult& r, const RunArgs& args,
                   std::ostream& out) {
  if (args.out_dir.empty() || r.outputs.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(args.out_dir, ec);
  if (ec) throw Error(args.out_dir + ": cannot create the output directory: " + ec.message());
  for (const auto& t : k.tensors) {
    if (t.role != isa::TensorRole::output) continue;
    const std::string path = (std::filesystem::path(args.out_dir) / (t.name + ".npy")).string();
    io::write_npy(path, t.dtype, t.shape, r.outputs.at(t.name), args.raw_bits);
    out << "wrote " << path << "\n";
  }
}

}  // namespace neuronsim::cli

// `neuronsim neff info kernel.neff [--json]`: what a NEFF holds (header fields, hash,
// profile id, tensors, allocations, semaphores, queues, instructions per engine), read
// with every check of the NEFF reader.
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "cli/commands.hpp"
#include "neff/neff.hpp"

namespace neuronsim::cli {
namespace {

struct InfoOptions {
  std::string input;
  bool json = false;
};

std::string uuid_text(const neff::Header& h) {
  std::string s;
  char byte[3];
  for (std::size_t i = 0; i < h.uuid.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    std::snprintf(byte, sizeof byte, "%02x", h.uuid[i]);
    s += byte;
  }
  return s;
}

template <typename T>
std::string join(const std::vector<T>& v) {
  std::ostringstream out;
  for (std::size_t i = 0; i < v.size(); ++i)
    out << (i ? ", " : "") << v[i];
  return out.str();
}

nlohmann::ordered_json info_json(const std::string& path, const neff::Neff& n) {
  const neff::Header& h = n.header;
  const isa::Kernel& k = n.kernel;
  nlohmann::ordered_json j;
  j["file"] = path;
  j["kernel"] = k.name;
  j["target"] = k.target;
  j["header"] = {{"pkg_version", h.pkg_version},
                 {"header_size", h.header_size},
                 {"data_size", h.data_size},
                 {"neff_version_major", h.neff_version_major},
                 {"neff_version_minor", h.neff_version_minor},
                 {"build_version", h.build_version},
                 {"num_tpb", h.num_tpb},
                 {"name", h.name},
                 {"requested_tpb_count", h.requested_tpb_count},
                 {"tpb_per_node", h.tpb_per_node[0]},
                 {"feature_bits", h.feature_bits},
                 {"lnc_size", h.lnc_size}};
  j["hash"] = neff::hash_hex(h);
  j["uuid"] = uuid_text(h);
  j["profile_id"] = neff::profile_id(h);
  j["tensors"] = nlohmann::ordered_json::array();
  for (const auto& t : k.tensors)
    j["tensors"].push_back({{"name", t.name},
                            {"dtype", std::string(isa::dtype_name(t.dtype))},
                            {"shape", t.shape},
                            {"role", std::string(isa::tensor_role_name(t.role))},
                            {"bytes", t.bytes()}});
  j["allocations"] = nlohmann::ordered_json::array();
  for (const auto& a : k.allocations)
    j["allocations"].push_back({{"name", a.name},
                                {"space", std::string(isa::mem_space_name(a.space))},
                                {"dtype", std::string(isa::dtype_name(a.dtype))},
                                {"start_partition", a.start_partition},
                                {"partitions", a.partitions},
                                {"free_shape", a.free_shape},
                                {"byte_offset", a.byte_offset},
                                {"bytes_per_partition", a.bytes_per_partition()}});
  j["semaphores"] = nlohmann::ordered_json::array();
  for (const auto& s : k.semaphores)
    j["semaphores"].push_back({{"name", s.name}, {"initial", s.initial}});
  j["queues"] = nlohmann::ordered_json::array();
  for (const auto& q : k.queues)
    j["queues"].push_back(
        {{"name", q.name}, {"first_engine", q.first_engine}, {"engines", q.engines}});
  j["instructions"] = nlohmann::ordered_json::object();
  for (int e = 0; e < isa::kEngineCount; ++e) {
    const auto engine = static_cast<isa::Engine>(e);
    j["instructions"][std::string(isa::engine_name(engine))] = k.stream(engine).size();
  }
  j["instructions"]["total"] = k.instruction_count();
  if (!k.sources.empty()) {  // a traced kernel's source table (docs/neff.md, version 1.1)
    j["sources"] = nlohmann::ordered_json::array();
    for (const auto& f : k.sources)
      j["sources"].push_back({{"name", f.name}, {"path", f.path}, {"bytes", f.text.size()}});
  }
  return j;
}

void print_text(const std::string& path, const neff::Neff& n) {
  const neff::Header& h = n.header;
  const isa::Kernel& k = n.kernel;
  std::ostream& out = std::cout;
  out << "file           " << path << "\n"
      << "kernel         " << k.name << "\n"
      << "target         " << k.target << "\n"
      << "pkg_version    " << h.pkg_version << " (sha256)\n"
      << "header_size    " << h.header_size << "\n"
      << "data_size      " << h.data_size << "\n"
      << "neff_version   " << h.neff_version_major << "." << h.neff_version_minor << "\n"
      << "build_version  " << h.build_version << "\n"
      << "num_tpb        " << h.num_tpb << "  requested_tpb_count " << h.requested_tpb_count
      << "  tpb_per_node[0] " << int{h.tpb_per_node[0]} << "  lnc_size " << h.lnc_size << "\n"
      << "feature_bits   " << h.feature_bits << "\n"
      << "hash           " << neff::hash_hex(h) << "\n"
      << "uuid           " << uuid_text(h) << "\n"
      << "profile_id     " << neff::profile_id(h) << "  (traces: " << neff::profile_id(h)
      << "_instid_0_vnc_0.ntff)\n";
  out << "tensors        " << k.tensors.size() << "\n";
  for (const auto& t : k.tensors)
    out << "  " << t.name << "  " << isa::dtype_name(t.dtype) << "[" << join(t.shape) << "]  "
        << isa::tensor_role_name(t.role) << "  " << t.bytes() << " bytes\n";
  out << "allocations    " << k.allocations.size() << "\n";
  for (const auto& a : k.allocations)
    out << "  " << a.name << "  " << isa::mem_space_name(a.space) << " " << isa::dtype_name(a.dtype)
        << "[" << a.partitions << ", " << join(a.free_shape) << "]  partitions "
        << a.start_partition << ".." << a.start_partition + a.partitions - 1 << "  offset "
        << a.byte_offset << "  " << a.bytes_per_partition() << " bytes/partition\n";
  out << "semaphores     " << k.semaphores.size() << "\n";
  for (const auto& s : k.semaphores)
    out << "  " << s.name << " = " << s.initial << "\n";
  out << "queues         " << k.queues.size() << "\n";
  for (const auto& q : k.queues)
    out << "  " << q.name << "  first_engine=" << int{q.first_engine}
        << " engines=" << int{q.engines} << "\n";
  out << "instructions   " << k.instruction_count() << "\n";
  for (int e = 0; e < isa::kEngineCount; ++e) {
    const auto engine = static_cast<isa::Engine>(e);
    out << "  " << isa::engine_name(engine) << "  " << k.stream(engine).size() << "\n";
  }
  if (!k.sources.empty()) {  // a traced kernel's source table (docs/neff.md, version 1.1)
    out << "sources        " << k.sources.size() << "\n";
    for (const auto& f : k.sources)
      out << "  " << f.name << "  " << f.path << "  " << f.text.size() << " bytes of text\n";
  }
}

void run_info(const InfoOptions& o) {
  const neff::Neff n = neff::read_file(o.input);
  if (o.json)
    std::cout << info_json(o.input, n).dump(2) << "\n";
  else
    print_text(o.input, n);
}

}  // namespace

void add_neff_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("neff", "Inspect NEFF files");
  cmd->require_subcommand(1);
  auto options = std::make_shared<InfoOptions>();
  auto* info =
      cmd->add_subcommand("info",
                          "Header, hash, profile id, tensors, allocations, semaphores, queues, "
                          "instructions per engine");
  info->add_option("input", options->input, "NEFF file")->required();
  info->add_flag("--json", options->json, "Print JSON instead of text");
  info->callback([options] { run_info(*options); });
}

}  // namespace neuronsim::cli

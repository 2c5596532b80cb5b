#include <nlohmann/json.hpp>

#include <cstdio>
#include <set>

#include "base/error.hpp"
#include "base/json_text.hpp"
#include "neff/def_json_impl.hpp"
#include "neff/instr_codec_impl.hpp"
#include "neff/sources_impl.hpp"

namespace neuronsim::neff::detail {

namespace {

using namespace isa;
using nlohmann::json;
using nlohmann::ordered_json;

constexpr int kTensorRoleCount = 4;
constexpr std::size_t kMaxNameBytes = 255;

// --- rules shared by writer and reader --------------------------------------------------

std::uint64_t checked_product(std::uint64_t bytes, std::uint64_t n, const std::string& where) {
  if (n != 0 && bytes > kMaxBufferBytes / n)
    throw Error(where + ": larger than " + std::to_string(kMaxBufferBytes) + " bytes");
  return bytes * n;
}

void check_name(const std::string& name, std::set<std::string>& seen, const std::string& where) {
  if (name.empty()) throw Error(where + ": name is empty");
  if (name.size() > kMaxNameBytes)
    throw Error(where + ": name is longer than " + std::to_string(kMaxNameBytes) + " bytes");
  if (!seen.insert(name).second) throw Error(where + ": duplicate name '" + name + "'");
}

// Rules on the tables every NEFF must satisfy; `with_data` also checks constants' bytes.
void check_tables(const Kernel& k, const std::string& where, bool with_data) {
  if (k.target.size() > kMaxNameBytes) throw Error(where + ": target name is too long");
  std::set<std::string> names;
  for (std::size_t i = 0; i < k.tensors.size(); ++i) {
    const HbmTensor& t = k.tensors[i];
    const std::string at = where + ": tensors[" + std::to_string(i) + "]";
    check_name(t.name, names, at);
    if (static_cast<int>(t.dtype) >= kDTypeCount) throw Error(at + ": dtype out of range");
    if (static_cast<int>(t.role) >= kTensorRoleCount) throw Error(at + ": role out of range");
    if (t.shape.empty() || t.shape.size() > kMaxTensorDims)
      throw Error(at + ": shape has " + std::to_string(t.shape.size()) + " dims, not 1.." +
                  std::to_string(kMaxTensorDims));
    std::uint64_t bytes = dtype_size(t.dtype);
    for (std::uint64_t d : t.shape) {
      if (d == 0) throw Error(at + ": shape has a zero dim");
      bytes = checked_product(bytes, d, at);
    }
    if (with_data && t.role == TensorRole::constant && t.data.size() != bytes)
      throw Error(at + ": constant holds " + std::to_string(t.data.size()) + " bytes, its shape " +
                  "needs " + std::to_string(bytes));
    if (t.role != TensorRole::constant && !t.data.empty())
      throw Error(at + ": only constant tensors carry data");
  }
  names.clear();
  for (std::size_t i = 0; i < k.allocations.size(); ++i) {
    const Allocation& a = k.allocations[i];
    const std::string at = where + ": allocations[" + std::to_string(i) + "]";
    check_name(a.name, names, at);
    if (a.space != MemSpace::sbuf && a.space != MemSpace::psum)
      throw Error(at + ": space must be sbuf or psum");
    if (static_cast<int>(a.dtype) >= kDTypeCount) throw Error(at + ": dtype out of range");
    if (a.free_shape.empty() || a.free_shape.size() > kMaxAllocationDims)
      throw Error(at + ": free_shape has " + std::to_string(a.free_shape.size()) +
                  " dims, not 1.." + std::to_string(kMaxAllocationDims));
    std::uint64_t bytes = dtype_size(a.dtype);
    for (std::uint64_t d : a.free_shape)
      bytes = checked_product(bytes, d, at);
  }
  names.clear();
  for (std::size_t i = 0; i < k.semaphores.size(); ++i)
    check_name(k.semaphores[i].name, names, where + ": semaphores[" + std::to_string(i) + "]");
  names.clear();
  for (std::size_t i = 0; i < k.queues.size(); ++i)
    check_name(k.queues[i].name, names, where + ": queues[" + std::to_string(i) + "]");
  // Instructions name semaphores and queues with 16-bit indices.
  if (k.semaphores.size() > 0x10000 || k.queues.size() > 0x10000)
    throw Error(where + ": more than 65536 semaphores or queues");
}

// --- reading helpers: each names the JSON path of what it rejects ------------------------

class JsonReader {
 public:
  explicit JsonReader(std::string where) : where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& reason) const {
    throw Error(where_ + ": " + path + ": " + reason);
  }
  // `obj` must be an object with exactly `keys` (and `optional` if present).
  void expect_keys(const json& obj, const std::string& path,
                   std::initializer_list<const char*> keys,
                   std::initializer_list<const char*> optional = {}) const {
    if (!obj.is_object()) fail(path, "is not an object");
    for (const char* key : keys)
      if (!obj.contains(key)) fail(path, "missing key '" + std::string(key) + "'");
    for (const auto& item : obj.items()) {
      bool known = false;
      for (const char* key : keys)
        known = known || item.key() == key;
      for (const char* key : optional)
        known = known || item.key() == key;
      if (!known) fail(path, "unknown key '" + item.key() + "'");
    }
  }
  std::uint64_t uint(const json& v, const std::string& path, std::uint64_t max) const {
    if (!v.is_number_unsigned()) fail(path, "is not a non-negative integer");
    const auto n = v.get<std::uint64_t>();
    if (n > max) fail(path, std::to_string(n) + " is larger than " + std::to_string(max));
    return n;
  }
  const std::string& string(const json& v, const std::string& path) const {
    if (!v.is_string()) fail(path, "is not a string");
    return v.get_ref<const std::string&>();
  }
  const json& array(const json& v, const std::string& path) const {
    if (!v.is_array()) fail(path, "is not an array");
    return v;
  }
  DType dtype(const json& v, const std::string& path) const {
    auto t = parse_dtype(string(v, path));
    if (!t) fail(path, "unknown dtype '" + string(v, path) + "'");
    return *t;
  }

 private:
  std::string where_;
};

std::optional<TensorRole> parse_role(const std::string& s) {
  for (int i = 0; i < kTensorRoleCount; ++i)
    if (tensor_role_name(static_cast<TensorRole>(i)) == s) return static_cast<TensorRole>(i);
  return std::nullopt;
}

std::optional<MemSpace> parse_space(const std::string& s) {
  if (s == "sbuf") return MemSpace::sbuf;
  if (s == "psum") return MemSpace::psum;
  return std::nullopt;
}

std::string index_path(const char* table, std::size_t i) {
  return std::string(table) + "[" + std::to_string(i) + "]";
}

}  // namespace

std::string engine_file_name(Engine e) {
  return std::string(kCoreDir) + std::string(engine_name(e)) + ".bin";
}

std::string constant_file_name(std::size_t tensor) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "const_%06zu.bin", tensor);
  return std::string(kCoreDir) + buf;
}

std::string make_def_json(const Kernel& k) {
  check_tables(k, "kernel '" + k.name + "'", true);
  ordered_json doc;
  doc["format"] = kFormatName;
  doc["encoding_version"] = kEncodingVersion;
  doc["kernel"] = k.name;
  doc["target"] = k.target;
  doc["tensors"] = ordered_json::array();
  for (std::size_t i = 0; i < k.tensors.size(); ++i) {
    const HbmTensor& t = k.tensors[i];
    ordered_json j;
    j["name"] = t.name;
    j["dtype"] = std::string(dtype_name(t.dtype));
    j["shape"] = t.shape;
    j["role"] = std::string(tensor_role_name(t.role));
    if (t.role == TensorRole::constant) j["file"] = constant_file_name(i);
    doc["tensors"].push_back(std::move(j));
  }
  doc["allocations"] = ordered_json::array();
  for (const Allocation& a : k.allocations) {
    ordered_json j;
    j["name"] = a.name;
    j["space"] = std::string(mem_space_name(a.space));
    j["dtype"] = std::string(dtype_name(a.dtype));
    j["start_partition"] = a.start_partition;
    j["partitions"] = a.partitions;
    j["free_shape"] = a.free_shape;
    j["byte_offset"] = a.byte_offset;
    doc["allocations"].push_back(std::move(j));
  }
  doc["semaphores"] = ordered_json::array();
  for (const Semaphore& s : k.semaphores)
    doc["semaphores"].push_back({{"name", s.name}, {"initial", s.initial}});
  doc["queues"] = ordered_json::array();
  for (const DmaQueue& q : k.queues)
    doc["queues"].push_back(
        {{"name", q.name}, {"first_engine", q.first_engine}, {"engines", q.engines}});
  doc["engines"] = ordered_json::array();
  for (int e = 0; e < kEngineCount; ++e) {
    const auto engine = static_cast<Engine>(e);
    ordered_json j;
    j["engine"] = std::string(engine_name(engine));
    j["file"] = engine_file_name(engine);
    j["instructions"] = k.stream(engine).size();
    doc["engines"].push_back(std::move(j));
  }
  if (!k.sources.empty()) {  // NEFF 1.1 (sources_impl.hpp)
    if (const std::string problem = source_table_problem(k); !problem.empty())
      throw Error("kernel '" + k.name + "': " + problem);
    doc["sources"] = ordered_json::array();
    for (std::size_t i = 0; i < k.sources.size(); ++i)
      doc["sources"].push_back({{"name", k.sources[i].name},
                                {"path", k.sources[i].path},
                                {"file", source_file_name(i)},
                                {"bytes", k.sources[i].text.size()}});
    doc["locations"] = kLocationsPath;
  } else if (k.has_locations()) {
    throw Error("kernel '" + k.name +
                "': instructions have source locations but there is no "
                "source table");
  }
  return doc.dump(2) + "\n";
}

Definition parse_def_json(const std::vector<std::uint8_t>& text, const std::string& where) {
  if (text.size() > kMaxDefJsonBytes)
    throw Error(where + ": " + std::to_string(text.size()) + " bytes, more than " +
                std::to_string(kMaxDefJsonBytes));
  const json doc = parse_json_text(std::string(text.begin(), text.end()), where);
  const JsonReader r(where);
  r.expect_keys(doc, "top level",
                {"format", "encoding_version", "kernel", "target", "tensors", "allocations",
                 "semaphores", "queues", "engines"},
                {"sources", "locations"});
  if (r.string(doc["format"], "format") != kFormatName)
    r.fail("format", "is not '" + std::string(kFormatName) + "'");
  if (r.uint(doc["encoding_version"], "encoding_version", 0xffff) != kEncodingVersion)
    r.fail("encoding_version", "this reader knows version " + std::to_string(kEncodingVersion));

  Definition def;
  Kernel& k = def.kernel;
  k.name = r.string(doc["kernel"], "kernel");
  k.target = r.string(doc["target"], "target");

  const json& tensors = r.array(doc["tensors"], "tensors");
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const std::string path = index_path("tensors", i);
    const json& j = tensors[i];
    r.expect_keys(j, path, {"name", "dtype", "shape", "role"}, {"file"});
    HbmTensor t;
    t.name = r.string(j["name"], path + ".name");
    t.dtype = r.dtype(j["dtype"], path + ".dtype");
    const json& shape = r.array(j["shape"], path + ".shape");
    if (shape.size() > kMaxTensorDims) r.fail(path + ".shape", "too many dims");
    for (std::size_t d = 0; d < shape.size(); ++d)
      t.shape.push_back(
          r.uint(shape[d], path + ".shape[" + std::to_string(d) + "]", kMaxBufferBytes));
    const std::string& role = r.string(j["role"], path + ".role");
    auto parsed_role = parse_role(role);
    if (!parsed_role) r.fail(path + ".role", "unknown role '" + role + "'");
    t.role = *parsed_role;
    const bool constant = t.role == TensorRole::constant;
    if (constant != j.contains("file"))
      r.fail(path, constant ? "a constant needs a 'file'" : "only constants have a 'file'");
    if (constant && r.string(j["file"], path + ".file") != constant_file_name(i))
      r.fail(path + ".file", "must be '" + constant_file_name(i) + "'");
    k.tensors.push_back(std::move(t));
  }

  const json& allocations = r.array(doc["allocations"], "allocations");
  for (std::size_t i = 0; i < allocations.size(); ++i) {
    const std::string path = index_path("allocations", i);
    const json& j = allocations[i];
    r.expect_keys(
        j, path,
        {"name", "space", "dtype", "start_partition", "partitions", "free_shape", "byte_offset"});
    Allocation a;
    a.name = r.string(j["name"], path + ".name");
    const std::string& space = r.string(j["space"], path + ".space");
    auto parsed_space = parse_space(space);
    if (!parsed_space) r.fail(path + ".space", "unknown space '" + space + "' (sbuf or psum)");
    a.space = *parsed_space;
    a.dtype = r.dtype(j["dtype"], path + ".dtype");
    a.start_partition = static_cast<std::uint32_t>(
        r.uint(j["start_partition"], path + ".start_partition", 0xffffffffu));
    a.partitions =
        static_cast<std::uint32_t>(r.uint(j["partitions"], path + ".partitions", 0xffffffffu));
    const json& shape = r.array(j["free_shape"], path + ".free_shape");
    if (shape.size() > kMaxAllocationDims) r.fail(path + ".free_shape", "too many dims");
    for (std::size_t d = 0; d < shape.size(); ++d)
      a.free_shape.push_back(static_cast<std::uint32_t>(
          r.uint(shape[d], path + ".free_shape[" + std::to_string(d) + "]", 0xffffffffu)));
    a.byte_offset =
        static_cast<std::uint32_t>(r.uint(j["byte_offset"], path + ".byte_offset", 0xffffffffu));
    k.allocations.push_back(std::move(a));
  }

  const json& semaphores = r.array(doc["semaphores"], "semaphores");
  for (std::size_t i = 0; i < semaphores.size(); ++i) {
    const std::string path = index_path("semaphores", i);
    r.expect_keys(semaphores[i], path, {"name", "initial"});
    Semaphore s;
    s.name = r.string(semaphores[i]["name"], path + ".name");
    s.initial = static_cast<std::uint32_t>(
        r.uint(semaphores[i]["initial"], path + ".initial", 0xffffffffu));
    k.semaphores.push_back(std::move(s));
  }

  const json& queues = r.array(doc["queues"], "queues");
  for (std::size_t i = 0; i < queues.size(); ++i) {
    const std::string path = index_path("queues", i);
    r.expect_keys(queues[i], path, {"name", "first_engine", "engines"});
    DmaQueue q;
    q.name = r.string(queues[i]["name"], path + ".name");
    q.first_engine =
        static_cast<std::uint8_t>(r.uint(queues[i]["first_engine"], path + ".first_engine", 255));
    q.engines = static_cast<std::uint8_t>(r.uint(queues[i]["engines"], path + ".engines", 255));
    k.queues.push_back(std::move(q));
  }

  const json& engines = r.array(doc["engines"], "engines");
  if (engines.size() != kEngineCount)
    r.fail("engines", "has " + std::to_string(engines.size()) + " entries, expected " +
                          std::to_string(kEngineCount));
  std::uint64_t total = 0;
  for (int e = 0; e < kEngineCount; ++e) {
    const auto engine = static_cast<Engine>(e);
    const std::string path = index_path("engines", e);
    const json& j = engines[e];
    r.expect_keys(j, path, {"engine", "file", "instructions"});
    if (r.string(j["engine"], path + ".engine") != engine_name(engine))
      r.fail(path + ".engine", "must be '" + std::string(engine_name(engine)) + "'");
    if (r.string(j["file"], path + ".file") != engine_file_name(engine))
      r.fail(path + ".file", "must be '" + engine_file_name(engine) + "'");
    def.instruction_counts[e] = r.uint(j["instructions"], path + ".instructions", kMaxInstructions);
    total += def.instruction_counts[e];
  }
  if (const std::string problem = instruction_total_problem(total); !problem.empty())
    r.fail("engines", problem);

  if (doc.contains("sources") != doc.contains("locations"))
    r.fail("top level", "'sources' and 'locations' come together");
  if (doc.contains("sources")) {
    if (r.string(doc["locations"], "locations") != kLocationsPath)
      r.fail("locations", "must be '" + std::string(kLocationsPath) + "'");
    const json& sources = r.array(doc["sources"], "sources");
    if (sources.empty()) r.fail("sources", "is empty (leave out 'sources' and 'locations')");
    if (sources.size() > kMaxSourceFiles)
      r.fail("sources", "more than " + std::to_string(kMaxSourceFiles) + " files");
    std::uint64_t bytes = 0;
    for (std::size_t i = 0; i < sources.size(); ++i) {
      const std::string path = index_path("sources", i);
      const json& j = sources[i];
      r.expect_keys(j, path, {"name", "path", "file", "bytes"});
      SourceFile f;
      f.name = r.string(j["name"], path + ".name");
      f.path = r.string(j["path"], path + ".path");
      if (r.string(j["file"], path + ".file") != source_file_name(i))
        r.fail(path + ".file", "must be '" + source_file_name(i) + "'");
      const std::uint64_t n = r.uint(j["bytes"], path + ".bytes", kMaxSourceTextBytes);
      bytes += n;
      def.source_bytes.push_back(n);
      k.sources.push_back(std::move(f));
    }
    if (bytes > kMaxSourceTotalBytes)
      r.fail("sources", "texts of " + std::to_string(bytes) + " bytes together, more than " +
                            std::to_string(kMaxSourceTotalBytes));
    if (const std::string problem = source_table_problem(k); !problem.empty())
      r.fail("sources", problem);
  }
  check_tables(k, where, false);
  return def;
}

}  // namespace neuronsim::neff::detail

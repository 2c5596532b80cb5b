// Reading presets and override files into a ResolvedTarget; see config_resolve.hpp.
#include "config/resolve.hpp"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <utility>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/json_text.hpp"
#include "base/text.hpp"
#include "config/embedded.hpp"
#include "config/schema.hpp"

namespace neuronsim::config {
namespace {

using nlohmann::json;

std::string key_path(const std::string& section, const std::string& key) {
  return section + "." + key;
}

json parse_json(const std::string& text, const std::string& source) {
  // Also refuses a number beyond a double (1e400), without quoting the input.
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw Error(source + ": invalid JSON: " + json_error_reason(e));
  }
}

const embedded::TargetFile* find_preset(const std::string& name) {
  for (std::size_t i = 0; i < embedded::kTargetFileCount; ++i)
    if (embedded::kTargetFiles[i].name == name) return &embedded::kTargetFiles[i];
  return nullptr;
}

std::string require_string(const json& j, const std::string& key, const std::string& source) {
  if (!j.is_string()) throw Error(source + ": '" + key + "' must be a string");
  return j.get<std::string>();
}

// A section's parameters object; `what` names it in errors.
const json& require_section_object(const json& j, const std::string& section,
                                   const std::string& source) {
  if (!schema::is_section(section))
    throw Error(source + ": unknown section '" + section +
                "' (sections: " + join(schema::section_names()) + ")");
  if (!j.is_object())
    throw Error(source + ": section '" + section + "' must be an object of parameters");
  return j;
}

const schema::Param& require_param(const std::string& section, const std::string& key,
                                   const std::string& source) {
  const schema::Param* p = schema::find(section, key);
  if (!p)
    throw Error(source + ": unknown key '" + key_path(section, key) + "' (keys of " + section +
                ": " + join(schema::keys_of(section)) + ")");
  return *p;
}

json checked_value(const schema::Param& p, const json& value, const std::string& source) {
  json normalised;
  std::string reason;
  if (!schema::check_value(p, value, normalised, reason))
    throw Error(source + ": " + key_path(std::string(p.section), std::string(p.key)) + " = " +
                value.dump() + ": " + reason);
  return normalised;
}

// Sets one parameter from a plain value or a {"value", "unit", "doc"} object (the form of
// the presets and of `config --dump`, so a dump loads back as a target file).
void set_param(ResolvedTarget& r, const schema::Param& p, const json& given,
               const std::string& source, bool full_form_required) {
  const std::string path = key_path(std::string(p.section), std::string(p.key));
  ResolvedParam& slot = r.sections[std::string(p.section)][std::string(p.key)];
  const json* value = &given;
  if (given.is_object()) {
    for (const auto& [field, v] : given.items())
      if (field != "value" && field != "unit" && field != "doc")
        throw Error(source + ": unknown key '" + path + "." + field +
                    "' (a parameter object has value, unit, doc)");
    if (!given.contains("value")) throw Error(source + ": " + path + ": missing 'value'");
    value = &given.at("value");
    if (given.contains("unit")) {
      const std::string unit = require_string(given.at("unit"), path + ".unit", source);
      if (unit != p.unit)
        throw Error(source + ": " + path + ": unit '" + unit + "' is not this parameter's unit '" +
                    std::string(p.unit) + "'");
    } else if (full_form_required) {
      throw Error(source + ": " + path + ": missing 'unit'");
    }
    if (given.contains("doc")) {
      slot.doc = require_string(given.at("doc"), path + ".doc", source);
    } else if (full_form_required) {
      throw Error(source + ": " + path + ": missing 'doc'");
    }
  } else if (full_form_required) {
    throw Error(source + ": " + path + " must be an object {\"value\", \"unit\", \"doc\"}");
  }
  slot.value = checked_value(p, *value, source);
  slot.unit = std::string(p.unit);
  slot.source = source;
}

ResolvedTarget load_preset(const std::string& name) {
  const embedded::TargetFile* file = find_preset(name);
  if (!file)
    throw Error("unknown target preset '" + name + "' (presets: " + join(preset_names()) + ")");
  const std::string source = "built-in config/targets/" + name + ".json";
  const json j = parse_json(std::string(file->text), source);
  if (!j.is_object()) throw Error(source + ": must be a JSON object");
  ResolvedTarget r;
  r.base = name;
  for (const auto& [key, value] : j.items()) {
    if (key == "name") {
      if (require_string(value, key, source) != name)
        throw Error(source + ": 'name' must be the file's name '" + name + "'");
      r.name = name;
    } else if (key == "generation") {
      r.generation = require_string(value, key, source);
    } else if (key == "description") {
      r.description = require_string(value, key, source);
    } else {
      const json& params = require_section_object(value, key, source);
      for (const auto& [param_key, given] : params.items())
        set_param(r, require_param(key, param_key, source), given, source, true);
    }
  }
  for (const auto& p : schema::params()) {
    auto section = r.sections.find(std::string(p.section));
    if (section == r.sections.end() || !section->second.count(std::string(p.key)))
      throw Error(source + ": missing parameter '" +
                  key_path(std::string(p.section), std::string(p.key)) + "'");
  }
  if (r.name.empty() || r.generation.empty() || r.description.empty())
    throw Error(source + ": needs 'name', 'generation' and 'description'");
  return r;
}

// An override file: {"base": preset, "<section>": {"<key>": value, ...}, ...}.
void apply_file(ResolvedTarget& r, const json& j, const std::string& source) {
  if (!j.is_object()) throw Error(source + ": must be a JSON object");
  for (const auto& [key, value] : j.items()) {
    if (key == "base") {
      const std::string base = require_string(value, key, source);
      if (base != r.base)
        throw Error(source + ": 'base' is '" + base + "' but the target is based on '" + r.base +
                    "'");
    } else if (key == "name") {
      r.name = require_string(value, key, source);
    } else if (key == "generation") {
      r.generation = require_string(value, key, source);
    } else if (key == "description") {
      r.description = require_string(value, key, source);
    } else {
      const json& params = require_section_object(value, key, source);
      for (const auto& [param_key, given] : params.items())
        set_param(r, require_param(key, param_key, source), given, source, false);
    }
  }
}

json read_json_file(const std::string& path) {
  return parse_json(read_text_file(path, Limit::json_file_bytes), path);
}

// --- Consistency of the merged values.

std::uint64_t u(const ResolvedTarget& r, const char* section, const char* key) {
  return r.at(section, key).value.get<std::uint64_t>();
}

using Keys = std::initializer_list<std::pair<const char*, const char*>>;

[[noreturn]] void inconsistent(const ResolvedTarget& r, const std::string& rule, Keys keys) {
  std::string detail;
  for (const auto& [section, key] : keys) {
    const ResolvedParam& p = r.at(section, key);
    detail += (detail.empty() ? "" : ", ") + key_path(section, key) + " = " + p.value.dump() +
              " (" + p.source + ")";
  }
  throw Error("inconsistent target '" + r.name + "': " + rule + "; " + detail);
}

void check_consistency(const ResolvedTarget& r) {
  const std::uint64_t partitions = u(r, "sbuf", "partitions");
  // PSUM per partition is banks x bank_bytes (target_config.cpp), a 32-bit runtime field.
  const std::uint64_t psum_bytes = u(r, "psum", "banks") * u(r, "psum", "bank_bytes");
  if (psum_bytes > UINT32_MAX)
    inconsistent(r, "psum.banks * psum.bank_bytes (PSUM bytes per partition) must fit 32 bits",
                 {{"psum", "banks"}, {"psum", "bank_bytes"}});
  // Even 1-byte elements must fit one partition of SBUF; PSUM holds fp32 (4 bytes).
  if (u(r, "limits", "max_sbuf_free_elems") > u(r, "sbuf", "bytes_per_partition"))
    inconsistent(r, "limits.max_sbuf_free_elems is beyond the memory (1-byte elements)",
                 {{"limits", "max_sbuf_free_elems"}, {"sbuf", "bytes_per_partition"}});
  if (u(r, "limits", "max_psum_free_elems") * 4 > psum_bytes)
    inconsistent(r,
                 "limits.max_psum_free_elems is beyond the memory (4-byte fp32 elements in "
                 "psum.banks * psum.bank_bytes)",
                 {{"limits", "max_psum_free_elems"}, {"psum", "banks"}, {"psum", "bank_bytes"}});
  // A matmul result (fp32) fits one PSUM bank per partition (reference section 2).
  if (u(r, "tensor", "matmul_max_n") * 4 > u(r, "psum", "bank_bytes"))
    inconsistent(r, "tensor.matmul_max_n fp32 results (4 bytes each) must fit one PSUM bank",
                 {{"tensor", "matmul_max_n"}, {"psum", "bank_bytes"}});
  if (u(r, "tensor", "matmul_psum_banks") > u(r, "psum", "banks"))
    inconsistent(r, "tensor.matmul_psum_banks must not exceed psum.banks",
                 {{"tensor", "matmul_psum_banks"}, {"psum", "banks"}});
  // The contraction runs over partitions, a matmul result has M partitions, and a
  // transpose's result has its source's free size as partitions.
  if (u(r, "tensor", "matmul_max_k") > partitions)
    inconsistent(r, "tensor.matmul_max_k must fit the partitions",
                 {{"tensor", "matmul_max_k"}, {"sbuf", "partitions"}});
  if (u(r, "tensor", "matmul_max_m") > partitions)
    inconsistent(r, "tensor.matmul_max_m must fit the partitions",
                 {{"tensor", "matmul_max_m"}, {"sbuf", "partitions"}});
  if (u(r, "tensor", "transpose_max") > partitions)
    inconsistent(r, "tensor.transpose_max must fit the partitions",
                 {{"tensor", "transpose_max"}, {"sbuf", "partitions"}});
  if (u(r, "vector", "transpose_max") > partitions)
    inconsistent(r, "vector.transpose_max must fit the partitions",
                 {{"vector", "transpose_max"}, {"sbuf", "partitions"}});
  if (u(r, "vector", "bn_stats_max_free") > u(r, "limits", "max_sbuf_free_elems"))
    inconsistent(r, "vector.bn_stats_max_free must not exceed limits.max_sbuf_free_elems",
                 {{"vector", "bn_stats_max_free"}, {"limits", "max_sbuf_free_elems"}});
  if (partitions % u(r, "limits", "partition_start_granule") != 0)
    inconsistent(r, "limits.partition_start_granule must divide sbuf.partitions",
                 {{"limits", "partition_start_granule"}, {"sbuf", "partitions"}});
}

}  // namespace

const ResolvedParam& ResolvedTarget::at(const std::string& section, const std::string& key) const {
  return sections.at(section).at(key);  // every parameter is present once a preset loaded
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < embedded::kTargetFileCount; ++i)
    names.emplace_back(embedded::kTargetFiles[i].name);
  std::sort(names.begin(), names.end());
  return names;
}

ResolvedTarget resolve_target(const std::string& name_or_path,
                              const std::vector<std::string>& overrides,
                              const std::vector<Patch>& patches) {
  ResolvedTarget r;
  if (find_preset(name_or_path)) {
    r = load_preset(name_or_path);
  } else {
    const bool looks_like_path =
        name_or_path.find('/') != std::string::npos || name_or_path.find('.') != std::string::npos;
    if (!looks_like_path)
      throw Error("unknown target '" + name_or_path + "' (presets: " + join(preset_names()) +
                  "; or a JSON file naming one in \"base\")");
    const json j = read_json_file(name_or_path);
    if (!j.is_object() || !j.contains("base"))
      throw Error(name_or_path + ": a target file needs \"base\": one of " + join(preset_names()));
    const std::string base = require_string(j.at("base"), "base", name_or_path);
    if (!find_preset(base))
      throw Error(name_or_path + ": 'base' is '" + base +
                  "', not a preset (presets: " + join(preset_names()) + ")");
    r = load_preset(base);
    apply_file(r, j, name_or_path);
  }
  for (const auto& path : overrides)
    apply_file(r, read_json_file(path), path);
  for (const Patch& p : patches)
    apply_file(r, p.values, p.source);
  check_consistency(r);
  return r;
}

}  // namespace neuronsim::config

#include "neff/neff.hpp"

#include <map>
#include <set>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/limits.hpp"
#include "base/text.hpp"
#include "isa/kernel_limits.hpp"
#include "neff/bytes_impl.hpp"
#include "neff/def_json_impl.hpp"
#include "neff/header_impl.hpp"
#include "neff/instr_codec_impl.hpp"
#include "neff/sources_impl.hpp"
#include "neff/tarball_impl.hpp"

namespace neuronsim::neff {

namespace {

using namespace detail;

// What a payload entry other than def.json is: an engine's stream, a constant's bytes, a
// source file's text or the instructions' locations.
struct ExpectedFile {
  enum Kind { engine, constant, source, locations } kind = engine;
  int engine_index = 0;
  std::size_t index = 0;  // tensor or source
};

}  // namespace

std::vector<std::uint8_t> write(const isa::Kernel& k) {
  // The reader's limit is on all engines together (def_json.cpp), so is the writer's.
  if (const std::string problem = instruction_total_problem(k.instruction_count());
      !problem.empty())
    throw Error("kernel '" + k.name + "': " + problem);
  std::vector<TarEntry> entries;
  const std::string def = make_def_json(k);
  entries.push_back({kDefJsonPath, std::vector<std::uint8_t>(def.begin(), def.end())});
  entries.push_back({kCoreDir, {}});
  for (std::size_t i = 0; i < k.tensors.size(); ++i)
    if (k.tensors[i].role == isa::TensorRole::constant)
      entries.push_back({constant_file_name(i), k.tensors[i].data});
  for (int e = 0; e < isa::kEngineCount; ++e) {
    const auto engine = static_cast<isa::Engine>(e);
    entries.push_back({engine_file_name(engine), encode_stream(k, engine)});
  }
  if (!k.sources.empty()) {  // def.json checked the table
    for (std::size_t i = 0; i < k.sources.size(); ++i)
      entries.push_back({source_file_name(i), std::vector<std::uint8_t>(k.sources[i].text.begin(),
                                                                        k.sources[i].text.end())});
    entries.push_back({kLocationsPath, encode_locations(k)});
  }
  const std::vector<std::uint8_t> payload = pack_tarball(std::move(entries));
  std::vector<std::uint8_t> out =
      encode_header(make_header(k.name, payload, k.sources.empty() ? 0 : kNeffMinorWithSources));
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

void write_file(const isa::Kernel& k, const std::string& path) {
  std::vector<std::uint8_t> bytes;
  try {
    bytes = write(k);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  write_file_atomic(path, bytes);
}

Neff read(const std::vector<std::uint8_t>& bytes, const std::string& source) {
  Neff result;
  result.header = decode_header(bytes.data(), bytes.size(), source);
  const std::uint8_t* payload = bytes.data() + kHeaderSize;
  const std::size_t payload_size = bytes.size() - kHeaderSize;
  if (sha256(payload, payload_size) != result.header.hash)
    throw Error(source + ": payload hash mismatch: the file is corrupted (sha256 " +
                hex_bytes(sha256(payload, payload_size).data(), 32) + ", header says " +
                hash_hex(result.header) + ")");

  TarReader tar(payload, payload_size, source);
  if (!tar.next()) throw Error(source + ": payload: empty tarball, no def.json");
  if (tar.path() != kDefJsonPath || tar.is_directory())
    throw Error(source + ": payload: first entry is '" + tar.path() + "', expected " +
                kDefJsonPath);
  if (tar.size() > kMaxDefJsonBytes)
    throw Error(source + ": def.json: " + std::to_string(tar.size()) + " bytes, more than " +
                std::to_string(kMaxDefJsonBytes));
  Definition def = parse_def_json(tar.read(), source + ": " + kDefJsonPath);
  isa::Kernel& k = def.kernel;
  // The limits, before any stream or constant is decoded.
  std::uint64_t instructions = 0;
  for (const auto count : def.instruction_counts)
    instructions += count;
  check_limit(Limit::instructions, instructions,
              source + ": kernel '" + k.name + "': instructions");
  check_kernel_resources(k, source);
  if (k.name != result.header.name)
    throw Error(source + ": header name '" + result.header.name +
                "' differs from def.json's kernel '" + k.name + "'");

  const bool has_sources = !k.sources.empty();
  if (has_sources && result.header.neff_version_minor < kNeffMinorWithSources)
    throw Error(source + ": def.json has a source table, which needs NEFF version 1." +
                std::to_string(kNeffMinorWithSources) + " (the header says 1." +
                std::to_string(result.header.neff_version_minor) + ")");

  std::map<std::string, ExpectedFile> expected;
  for (int e = 0; e < isa::kEngineCount; ++e)
    expected[engine_file_name(static_cast<isa::Engine>(e))] = {ExpectedFile::engine, e, 0};
  for (std::size_t i = 0; i < k.tensors.size(); ++i)
    if (k.tensors[i].role == isa::TensorRole::constant)
      expected[constant_file_name(i)] = {ExpectedFile::constant, 0, i};
  for (std::size_t i = 0; i < k.sources.size(); ++i)
    expected[source_file_name(i)] = {ExpectedFile::source, 0, i};
  if (has_sources) expected[kLocationsPath] = {ExpectedFile::locations, 0, 0};
  std::set<std::string> seen{kDefJsonPath};
  // The locations entry sorts before the engines' (sg00/l < sg00/s, sg00/t, sg00/v), so
  // it is decoded after the loop, when every stream is.
  std::vector<std::uint8_t> locations;
  std::string locations_where;

  while (tar.next()) {
    const std::string path = tar.path();
    const std::string where = source + ": " + path;
    if (!seen.insert(path).second) throw Error(where + ": duplicate entry in the payload");
    if (tar.is_directory()) {
      if (path != kCoreDir) throw Error(where + ": unknown directory in the payload");
      continue;
    }
    auto it = expected.find(path);
    if (it == expected.end()) throw Error(where + ": unknown entry in the payload");
    const ExpectedFile& file = it->second;
    if (file.kind == ExpectedFile::engine) {
      const auto engine = static_cast<isa::Engine>(file.engine_index);
      k.stream(engine) =
          decode_stream(k, engine, tar.read(), def.instruction_counts[file.engine_index], where);
    } else if (file.kind == ExpectedFile::source) {
      if (tar.size() != def.source_bytes[file.index])
        throw Error(where + ": " + std::to_string(tar.size()) + " bytes, def.json says " +
                    std::to_string(def.source_bytes[file.index]));
      const std::vector<std::uint8_t> text = tar.read();
      k.sources[file.index].text.assign(text.begin(), text.end());
    } else if (file.kind == ExpectedFile::locations) {
      // 8 bytes per instruction and 28 of headers: the instruction limit bounds it.
      const std::uint64_t most = 8 + isa::kEngineCount * 4 + 8 * instructions;
      if (tar.size() > most)
        throw Error(where + ": " + std::to_string(tar.size()) + " bytes, more than " +
                    std::to_string(most) + " for " + std::to_string(instructions) +
                    " instructions");
      locations = tar.read();
      locations_where = where;
    } else {
      isa::HbmTensor& t = k.tensors[file.index];
      if (tar.size() != t.bytes())
        throw Error(where + ": " + std::to_string(tar.size()) + " bytes, tensor '" + t.name +
                    "' needs " + std::to_string(t.bytes()));
      t.data = tar.read();
    }
  }
  for (const auto& [path, file] : expected)
    if (!seen.count(path)) throw Error(source + ": payload: missing entry '" + path + "'");
  if (has_sources) decode_locations(k, locations, locations_where);
  result.kernel = std::move(k);
  return result;
}

Neff read_file(const std::string& path) {
  return read(neuronsim::read_file(path, Limit::neff_file_bytes), path);
}

std::string hash_hex(const Header& h) {
  return hex_bytes(h.hash.data(), h.hash.size());
}

std::uint64_t profile_id(const Header& h) {
  // Reference section 7 shows 15-digit ids (395760075800974): the first 8 hash bytes as
  // a little-endian number, modulo 10^15.
  return load_u64(h.hash.data()) % 1'000'000'000'000'000ull;
}

}  // namespace neuronsim::neff

// validate_specs: measures every published number of tests/validation/specs.json with a
// small kernel in one simulation, checks each ratio against its band, and writes or
// checks the generated tables of docs/validation.md.
//
//   validate_specs --specs S [--results R]          measure, write the values to R
//   validate_specs --specs S [--from-results R] --check-bands
//   validate_specs --specs S [--from-results R] --check-doc D
//   validate_specs --specs S --write-doc D          measure and regenerate the doc
//
// Exit status 1 when a check fails, 2 for bad usage or input.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "bench.hpp"
#include "registry.hpp"
#include "spec_table.hpp"

namespace {

using validation::Outcome;
using validation::SpecFile;
using validation::Status;

struct Options {
  std::string specs, results, from_results, check_doc, write_doc;
  bool check_bands = false;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error(tmp + ": cannot write");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw std::runtime_error(path + ": cannot replace");
}

// Every spec's measured value (base units; NaN where a measurement failed, with why).
std::map<std::string, double> measure(const SpecFile& file,
                                      std::map<std::string, std::string>& errors) {
  validation::Bench bench;
  std::map<std::string, validation::Reader> readers;
  for (const auto& s : file.specs) {
    try {
      readers[s.id] = validation::find_measure(s.measure)(bench, s);
    } catch (const std::exception& e) {  // e.g. a measuring kernel the core refuses
      const std::string why = e.what();
      readers[s.id] = [why]() -> double { throw std::runtime_error(why); };
    }
  }
  bench.simulate();
  std::map<std::string, double> values;
  for (const auto& s : file.specs) {
    try {
      values[s.id] = readers.at(s.id)();
    } catch (const std::exception& e) {
      values[s.id] = std::numeric_limits<double>::quiet_NaN();
      errors[s.id] = e.what();
    }
  }
  return values;
}

std::map<std::string, double> load_results(const std::string& path) {
  std::map<std::string, double> values;
  const auto j = nlohmann::json::parse(read_file(path));
  for (const auto& [id, v] : j.items())
    values[id] = v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>();
  return values;
}

void save_results(const std::string& path, const std::map<std::string, double>& values) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [id, v] : values)
    j[id] = std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v);
  write_file(path, j.dump(1) + "\n");
}

// One line per row; returns whether every row is in band or awaits a listed fix.
bool check_bands(const SpecFile& file, const std::map<std::string, Outcome>& outcomes,
                 const std::map<std::string, std::string>& errors) {
  bool ok = true;
  int awaiting = 0;
  for (const auto& s : file.specs) {
    const Outcome& o = outcomes.at(s.id);
    const char* word = "ok";
    switch (o.status) {
      case Status::ok:
        break;
      case Status::awaiting:
        word = "expected failure";
        ++awaiting;
        break;
      case Status::out_of_band:
        word = "FAIL: ratio out of band";
        ok = false;
        break;
      case Status::passes_but_listed:
        word = "FAIL: in band but still listed: take it off the list";
        ok = false;
        break;
    }
    std::printf("%-44s %-5s published %s %s, measured %s, ratio %.4f, band [%s, %s]: %s%s%s\n",
                s.id.c_str(), s.target.c_str(), validation::format_number(s.published).c_str(),
                s.unit.c_str(), validation::format_number(o.measured).c_str(), o.ratio,
                validation::format_number(s.band_lo).c_str(),
                validation::format_number(s.band_hi).c_str(), word, o.list.empty() ? "" : " on ",
                o.list.c_str());
    auto err = errors.find(s.id);
    if (err != errors.end()) std::printf("    measurement failed: %s\n", err->second.c_str());
  }
  std::printf("%zu rows, %d expected to fail for now: %s\n", file.specs.size(), awaiting,
              ok ? "all as expected" : "FAILED");
  return ok;
}

bool check_doc(const std::string& path, const std::string& generated) {
  const std::string doc = read_file(path);
  const std::string fresh = validation::splice(doc, generated);
  if (fresh == doc) {
    std::printf("%s is up to date\n", path.c_str());
    return true;
  }
  std::istringstream a(doc), b(fresh);
  std::string la, lb;
  int line = 0;
  while (true) {
    ++line;
    const bool more_a = static_cast<bool>(std::getline(a, la));
    const bool more_b = static_cast<bool>(std::getline(b, lb));
    if (!more_a && !more_b) break;
    if (la != lb || more_a != more_b) {
      std::printf(
          "%s:%d differs from what the measurements give:\n  doc:      %s\n  measured: %s\n",
          path.c_str(), line, more_a ? la.c_str() : "(end)", more_b ? lb.c_str() : "(end)");
      break;
    }
  }
  std::printf(
      "%s is stale: regenerate it with `cmake --build <build> --target validation_doc` "
      "(docs/validation.md says how)\n",
      path.c_str());
  return false;
}

int run(const Options& opt) {
  const SpecFile file = validation::load_specs(opt.specs);
  std::map<std::string, std::string> errors;
  const auto values =
      opt.from_results.empty() ? measure(file, errors) : load_results(opt.from_results);
  if (!opt.results.empty()) save_results(opt.results, values);
  std::map<std::string, Outcome> outcomes;
  for (const auto& s : file.specs) {
    auto v = values.find(s.id);
    if (v == values.end())
      throw std::runtime_error("no measured value for " + s.id + " (stale results file?)");
    outcomes[s.id] = validation::evaluate(file, s, v->second);
  }
  bool ok = true;
  if (opt.check_bands) ok = check_bands(file, outcomes, errors) && ok;
  const std::string generated = validation::render_tables(file, outcomes);
  if (!opt.check_doc.empty()) ok = check_doc(opt.check_doc, generated) && ok;
  if (!opt.write_doc.empty()) {
    write_file(opt.write_doc, validation::splice(read_file(opt.write_doc), generated));
    std::printf("wrote %s\n", opt.write_doc.c_str());
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "validate_specs: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--specs")
      opt.specs = next();
    else if (a == "--results")
      opt.results = next();
    else if (a == "--from-results")
      opt.from_results = next();
    else if (a == "--check-bands")
      opt.check_bands = true;
    else if (a == "--check-doc")
      opt.check_doc = next();
    else if (a == "--write-doc")
      opt.write_doc = next();
    else {
      std::cerr << "validate_specs: unknown argument " << a << "\n";
      return 2;
    }
  }
  if (opt.specs.empty()) {
    std::cerr << "usage: validate_specs --specs FILE [--results OUT] [--from-results IN]\n"
                 "                      [--check-bands] [--check-doc DOC] [--write-doc DOC]\n";
    return 2;
  }
  try {
    return run(opt);
  } catch (const std::exception& e) {
    std::cerr << "validate_specs: " << e.what() << "\n";
    return 2;
  }
}

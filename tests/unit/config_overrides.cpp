// Target files and override files: values replace the preset's, files apply in order,
// every class of bad input is an error naming the file, the key, the value and the reason,
// and a dump loads back as the same config.
#include <catch2/catch.hpp>

#include <string>

#include "base/error.hpp"
#include "config/schema.hpp"
#include "config/target_config.hpp"
#include "config/target_dump.hpp"
#include "tests/unit/config_test_support.hpp"

using Catch::Matchers::Contains;
using config_test::ScratchFile;
using neuronsim::Error;
using neuronsim::config::dump_target;
using neuronsim::config::load_target;
using neuronsim::config::target_names;
using neuronsim::config::TargetConfig;

namespace {

// Loading `base` with the single override file `text` fails with a message holding all of
// `parts` (the file name always among them).
void check_override_error(const std::string& text, const std::vector<std::string>& parts) {
  ScratchFile file(text, "bad");
  INFO("override: " << text);
  try {
    load_target("trn2", {file.path()});
    FAIL("no error");
  } catch (const Error& e) {
    const std::string message = e.what();
    INFO("message: " << message);
    CHECK_THAT(message, Contains(file.path()));
    for (const auto& part : parts)
      CHECK_THAT(message, Contains(part));
  }
}

void check_same(const TargetConfig& a, const TargetConfig& b) {
  CHECK(a.name == b.name);
  CHECK(a.generation == b.generation);
  CHECK(a.description == b.description);
  const auto fa = config_test::numeric_fields(a), fb = config_test::numeric_fields(b);
  REQUIRE(fa.size() == fb.size());
  for (std::size_t i = 0; i < fa.size(); ++i) {
    INFO(fa[i].first);
    CHECK(fa[i].second == fb[i].second);
  }
  CHECK(config_test::flag_fields(a) == config_test::flag_fields(b));
  CHECK(config_test::mode_fields(a) == config_test::mode_fields(b));
}

}  // namespace

TEST_CASE("config: a target file overrides its base preset's values", "[config]") {
  ScratchFile file(R"({"base": "trn2", "name": "trn2-fast",
                       "clocks": {"tensor_ghz": 3.0},
                       "dma": {"queue_depth": 8, "strict_priority": true}})");
  const TargetConfig t = load_target(file.path());
  const TargetConfig base = load_target("trn2");
  CHECK(t.name == "trn2-fast");
  CHECK(t.generation == "NeuronCore-v3");
  CHECK(t.tensor_ghz == 3.0);
  CHECK(t.dma.queue_depth == 8);
  CHECK(t.dma.strict_priority);
  // Everything else is the preset's.
  CHECK(t.vector_ghz == base.vector_ghz);
  CHECK(t.limits.sbuf_bytes_per_partition == base.limits.sbuf_bytes_per_partition);
  CHECK(t.dma.engine_bytes_per_ns == base.dma.engine_bytes_per_ns);
}

TEST_CASE("config: override files apply in order after the target", "[config]") {
  ScratchFile first(R"({"clocks": {"tensor_ghz": 3.0, "vector_ghz": 1.0}})", "first");
  ScratchFile second(R"({"base": "trn1", "clocks": {"tensor_ghz": 3.5}})", "second");
  const TargetConfig t = load_target("trn1", {first.path(), second.path()});
  CHECK(t.tensor_ghz == 3.5);  // the later file wins
  CHECK(t.vector_ghz == 1.0);  // the earlier file's other value stays
  CHECK(t.scalar_ghz == 1.4);  // the preset's
}

TEST_CASE("config: a change of geometry is fine when it stays consistent", "[config]") {
  // 4 banks of 4 KiB = 16 KiB; a 1024-wide matmul result (4 KiB of fp32) fits a bank.
  ScratchFile file(R"({"psum": {"banks": 4, "bank_bytes": 4096},
                       "tensor": {"matmul_max_n": 1024}})");
  const TargetConfig t = load_target("trn2", {file.path()});
  CHECK(t.psum_banks == 4);
  CHECK(t.limits.psum_bank_bytes == 4096);
  CHECK(t.limits.matmul_max_n == 1024);
}

TEST_CASE("config: a parameter may be given in the preset's object form", "[config]") {
  ScratchFile file(R"({"clocks": {"tensor_ghz": {"value": 2.0, "unit": "GHz",
                                                 "doc": "a slower part"}},
                       "psum": {"banks": 8.0}})");
  const TargetConfig t = load_target("trn2", {file.path()});
  CHECK(t.tensor_ghz == 2.0);
  CHECK(t.psum_banks == 8);  // 8.0 is an integer
  CHECK(dump_target("trn2", {file.path()})["clocks"]["tensor_ghz"]["doc"] == "a slower part");
}

TEST_CASE("config: unknown sections and keys are errors naming them", "[config]") {
  check_override_error(R"({"clock": {"tensor_ghz": 3.0}})", {"unknown section 'clock'"});
  check_override_error(R"({"psum": {"bankz": 8}})", {"unknown key 'psum.bankz'", "bank_bytes"});
  check_override_error(R"({"psum": {"banks": {"value": 8, "units": "count"}}})",
                       {"unknown key 'psum.banks.units'"});
  check_override_error(R"({"psum": 8})", {"section 'psum' must be an object"});
}

TEST_CASE("config: values of the wrong type are errors naming key and value", "[config]") {
  check_override_error(R"({"sbuf": {"partitions": "128"}})",
                       {"sbuf.partitions = \"128\"", "must be an integer"});
  check_override_error(R"({"clocks": {"tensor_ghz": true}})",
                       {"clocks.tensor_ghz = true", "must be a number"});
  check_override_error(R"({"dma": {"strict_priority": 1}})",
                       {"dma.strict_priority = 1", "must be true or false"});
  check_override_error(R"({"psum": {"banks": [8]}})", {"psum.banks = [8]", "must be an integer"});
  check_override_error(R"({"name": 5})", {"'name' must be a string"});
}

TEST_CASE("config: out-of-range values are errors naming key, value and reason", "[config]") {
  check_override_error(R"({"dma": {"engines": -1}})", {"dma.engines = -1", "must not be negative"});
  check_override_error(R"({"dma": {"engines": 0}})", {"dma.engines = 0", "must be positive"});
  check_override_error(R"({"clocks": {"vector_ghz": 0}})",
                       {"clocks.vector_ghz = 0", "must be positive"});
  check_override_error(R"({"dma": {"fixed_latency_ns": -5}})",
                       {"dma.fixed_latency_ns = -5", "must not be negative"});
  check_override_error(R"({"psum": {"banks": 2.5}})", {"psum.banks = 2.5", "must be an integer"});
  check_override_error(R"({"dma": {"queue_depth": 4294967296}})",
                       {"dma.queue_depth = 4294967296", "too large"});
  check_override_error(R"({"hbm": {"core_share": 1.5}})",
                       {"hbm.core_share = 1.5", "fraction in (0, 1]"});
  check_override_error(R"({"clocks": {"tensor_ghz": {"value": 2.0, "unit": "MHz"}}})",
                       {"clocks.tensor_ghz", "unit 'MHz'", "'GHz'"});
  check_override_error(R"({"clocks": {"tensor_ghz": {"unit": "GHz"}}})",
                       {"clocks.tensor_ghz", "missing 'value'"});
}

TEST_CASE("config: inconsistent values are errors naming every key involved", "[config]") {
  // PSUM is banks x bank_bytes: 3 x 2048 = 6144 bytes hold fewer than 4096 fp32.
  check_override_error(
      R"({"psum": {"banks": 3}})",
      {"limits.max_psum_free_elems is beyond the memory", "psum.banks = 3",
       "psum.bank_bytes = 2048", "limits.max_psum_free_elems = 4096", "config/targets/trn2.json"});
  check_override_error(R"({"psum": {"banks": 4194304}})",
                       {"must fit 32 bits", "psum.banks = 4194304"});
  check_override_error(R"({"limits": {"max_sbuf_free_elems": 300000}})",
                       {"limits.max_sbuf_free_elems = 300000", "beyond the memory"});
  check_override_error(R"({"limits": {"max_psum_free_elems": 8192}})",
                       {"limits.max_psum_free_elems = 8192", "beyond the memory"});
  check_override_error(R"({"tensor": {"matmul_max_n": 1024}})",
                       {"tensor.matmul_max_n = 1024", "one PSUM bank"});
  check_override_error(
      R"({"sbuf": {"bytes_per_partition": 60000}})",
      {"limits.max_sbuf_free_elems is beyond the memory", "sbuf.bytes_per_partition = 60000"});
  check_override_error(R"({"tensor": {"matmul_max_m": 256}})",
                       {"tensor.matmul_max_m must fit the partitions", "sbuf.partitions = 128"});
  check_override_error(R"({"sbuf": {"uninitialised_int_fill": 128}})",
                       {"sbuf.uninitialised_int_fill = 128", "too large (at most 127)"});
  check_override_error(R"({"limits": {"ap_max_free_dims": 5}})",
                       {"limits.ap_max_free_dims = 5", "too large (at most 4)"});
  check_override_error(R"({"dma": {"max_pattern_dims": 5}})",
                       {"dma.max_pattern_dims = 5", "too large (at most 4)"});
}

TEST_CASE("config: real parameters have sane ranges, named in the error", "[config]") {
  // Denormal or vanishing rates once put the HBM model in an endless loop; huge latencies
  // ran past what the simulation counts (docs/config.md, "Sane ranges").
  check_override_error(R"({"dma": {"engine_bytes_per_ns": 1e-300}})",
                       {"dma.engine_bytes_per_ns = 1e-300", "outside the sane range 0.001"});
  check_override_error(R"({"hbm": {"core_share": 5e-324}})",
                       {"hbm.core_share = 5e-324", "at least one millionth"});
  check_override_error(R"({"hbm": {"chip_bandwidth_gbps": 1e7}})",
                       {"hbm.chip_bandwidth_gbps", "1 MB/s to 1 PB/s"});
  check_override_error(R"({"dma": {"fixed_latency_ns": 2e9}})",
                       {"dma.fixed_latency_ns", "at most one second"});
  check_override_error(R"({"clocks": {"vector_ghz": 0.001}})",
                       {"clocks.vector_ghz = 0.001", "10 MHz to 100 GHz"});
  check_override_error(R"({"tensor": {"tflops_bf16": 1e-9}})", {"tensor.tflops_bf16"});
  check_override_error(R"({"host": {"sync_ns": 1e400}})", {"invalid JSON", "1e400"});
  // Every real parameter of every preset lies inside its range.
  for (const auto& name : target_names()) {
    const auto dump = dump_target(name);
    for (const auto& p : neuronsim::config::schema::params()) {
      const auto& v = dump[std::string(p.section)][std::string(p.key)]["value"];
      if (!v.is_number_float()) continue;
      const auto r = neuronsim::config::schema::real_range(p);
      INFO(name << " " << p.section << "." << p.key);
      CHECK(v.get<double>() >= r.lo);
      CHECK(v.get<double>() <= r.hi);
    }
  }
}

TEST_CASE("config: bad files and names are errors naming them", "[config]") {
  CHECK_THROWS_WITH(load_target("trn9"), Contains("unknown target 'trn9'") && Contains("trn1"));
  CHECK_THROWS_WITH(load_target("/nonexistent/target.json"), Contains("/nonexistent/target.json"));
  {
    ScratchFile file(R"({"clocks": {)");
    CHECK_THROWS_WITH(load_target("trn1", {file.path()}),
                      Contains(file.path()) && Contains("invalid JSON"));
  }
  {
    ScratchFile file(R"({"clocks": {"tensor_ghz": 3.0}})");
    CHECK_THROWS_WITH(load_target(file.path()), Contains(file.path()) && Contains("\"base\""));
  }
  {
    ScratchFile file(R"({"base": "trn7"})");
    CHECK_THROWS_WITH(load_target(file.path()),
                      Contains(file.path()) && Contains("'trn7', not a preset"));
  }
  {
    ScratchFile file(R"({"base": "trn1"})");
    CHECK_THROWS_WITH(load_target("trn2", {file.path()}),
                      Contains(file.path()) && Contains("based on 'trn2'"));
  }
  {
    ScratchFile file(R"([1, 2])");
    CHECK_THROWS_WITH(load_target("trn2", {file.path()}),
                      Contains(file.path()) && Contains("must be a JSON object"));
  }
}

TEST_CASE("config: a dump loads back as the same config", "[config]") {
  for (const auto& name : neuronsim::config::target_names()) {
    INFO("preset " << name);
    const auto dump = dump_target(name);
    ScratchFile file(dump.dump(2));
    check_same(load_target(file.path()), load_target(name));
    CHECK(dump_target(file.path()) == dump);
  }
  // With overrides too: the dump carries them.
  ScratchFile over(R"({"clocks": {"tensor_ghz": 3.1}, "dma": {"small_row_min_efficiency": 0.1}})");
  ScratchFile file(dump_target("trn3", {over.path()}).dump(2));
  const TargetConfig reloaded = load_target(file.path());
  check_same(reloaded, load_target("trn3", {over.path()}));
  CHECK(reloaded.tensor_ghz == 3.1);
}

TEST_CASE("config: the dump is complete and deterministic", "[config]") {
  const auto dump = dump_target("trn1");
  CHECK(dump["base"] == "trn1");
  CHECK(dump["name"] == "trn1");
  CHECK(dump["clocks"]["tensor_ghz"]["value"] == 2.8);
  CHECK(dump["clocks"]["tensor_ghz"]["unit"] == "GHz");
  for (const auto& [section, params] : dump.items()) {
    if (!params.is_object()) continue;
    for (const auto& [key, p] : params.items()) {
      INFO(section << "." << key);
      CHECK(p.size() == 3);
      CHECK(p.contains("value"));
      CHECK(p["unit"].is_string());
      CHECK(p["doc"].is_string());
    }
  }
  CHECK(dump_target("trn1").dump(2) == dump.dump(2));
}

TEST_CASE("config: overrides given in memory resolve as an override file does", "[config]") {
  using neuronsim::config::load_target_with;
  const std::string text = R"({"dma": {"engines": 8}, "hbm": {"core_share": 0.25}})";
  ScratchFile file(text, "over");
  const TargetConfig from_file = load_target("trn2", {file.path()});
  const TargetConfig in_memory = load_target_with("trn2", text);
  CHECK(in_memory.dma.engines == 8);
  CHECK(from_file.dma.engines == 8);
  CHECK(in_memory.hbm_core_share == from_file.hbm_core_share);
  CHECK(in_memory.dma.hbm_bytes_per_ns == from_file.dma.hbm_bytes_per_ns);
  // The derived values follow: one core's HBM bandwidth is its share of the chip's.
  CHECK(in_memory.dma.hbm_bytes_per_ns == Approx(load_target("trn2").hbm.chip_bytes_per_ns * 0.25));
  CHECK_THROWS_WITH(load_target_with("trn2", R"({"dma": {"engines": 0}})", "my platform"),
                    Contains("my platform") && Contains("dma.engines"));
  CHECK_THROWS_WITH(load_target_with("trn2", "{\"dma\": "), Contains("overrides: not JSON"));
  CHECK_THROWS_WITH(load_target_with("trn2", "[1, 2]"), Contains("a JSON object of sections"));
}

#include "registry.hpp"

#include <map>
#include <stdexcept>

namespace validation {

namespace {

std::map<std::string, Measure>& measures() {
  static std::map<std::string, Measure> m;  // filled by static Registrars, before main
  return m;
}

[[noreturn]] void bad_arg(const Spec& s, const char* key, const std::string& what) {
  throw std::runtime_error("spec " + s.id + ": args." + key + " " + what);
}

}  // namespace

Registrar::Registrar(const char* name, Measure measure) {
  measures()[name] = std::move(measure);
}

const Measure& find_measure(const std::string& name) {
  auto it = measures().find(name);
  if (it == measures().end()) throw std::runtime_error("no measurement named '" + name + "'");
  return it->second;
}

std::uint32_t arg_u32(const Spec& s, const char* key, std::uint32_t fallback) {
  if (!s.args.contains(key)) return fallback;
  if (!s.args.at(key).is_number_unsigned()) bad_arg(s, key, "must be a non-negative integer");
  return s.args.at(key).get<std::uint32_t>();
}

double arg_double(const Spec& s, const char* key, double fallback) {
  if (!s.args.contains(key)) return fallback;
  if (!s.args.at(key).is_number()) bad_arg(s, key, "must be a number");
  return s.args.at(key).get<double>();
}

bool arg_bool(const Spec& s, const char* key, bool fallback) {
  if (!s.args.contains(key)) return fallback;
  if (!s.args.at(key).is_boolean()) bad_arg(s, key, "must be true or false");
  return s.args.at(key).get<bool>();
}

std::string arg_str(const Spec& s, const char* key, const std::string& fallback) {
  if (!s.args.contains(key)) return fallback;
  if (!s.args.at(key).is_string()) bad_arg(s, key, "must be a string");
  return s.args.at(key).get<std::string>();
}

neuronsim::isa::DType arg_dtype(const Spec& s, const char* key, neuronsim::isa::DType fallback) {
  if (!s.args.contains(key)) return fallback;
  const auto t = neuronsim::isa::parse_dtype(arg_str(s, key, ""));
  if (!t) bad_arg(s, key, "is not a dtype");
  return *t;
}

neuronsim::isa::Engine arg_engine(const Spec& s, const char* key, neuronsim::isa::Engine fallback) {
  if (!s.args.contains(key)) return fallback;
  const auto e = neuronsim::isa::parse_engine(arg_str(s, key, ""));
  if (!e) bad_arg(s, key, "is not an engine");
  return *e;
}

}  // namespace validation

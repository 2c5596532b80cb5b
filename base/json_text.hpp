#pragma once
// Parsing a JSON document from an input file. A syntax error is reported by position
// only: nlohmann's message quotes the bytes it last read, and an input that is not JSON
// at all (a launch.json pointing at /etc/passwd, a binary file) must never have its
// contents echoed into an error message.
#include <string>

#include <nlohmann/json.hpp>

#include "base/error.hpp"

namespace neuronsim {

// nlohmann's message for `e`, without the quoted input ("; last read: '...'").
std::string json_error_reason(const nlohmann::json::exception& e);

template <typename Json = nlohmann::json>
Json parse_json_text(const std::string& text, const std::string& source) {
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(source + ": not valid JSON: " + json_error_reason(e));
  }
}

}  // namespace neuronsim

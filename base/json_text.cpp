#include "base/json_text.hpp"

namespace neuronsim {

std::string json_error_reason(const nlohmann::json::exception& e) {
  std::string what = e.what();
  // "[json.exception.parse_error.101] parse error at line 1, column 2: ...": the bracketed
  // id says nothing to a user.
  if (!what.empty() && what[0] == '[') {
    const auto close = what.find("] ");
    if (close != std::string::npos) what = what.substr(close + 2);
  }
  const auto quoted = what.find("; last read:");
  if (quoted != std::string::npos) what = what.substr(0, quoted);
  // Whatever else nlohmann quotes (a string that is not valid UTF-8 is shown in hex),
  // keep the message to printable ASCII.
  for (char& c : what)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  return what;
}

}  // namespace neuronsim

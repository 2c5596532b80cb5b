#pragma once
// Output conventions shared by every subcommand (docs/cli.md):
//  - an output file option given "-" writes to standard output;
//  - a command says what it wrote ("wrote PATH (N bytes)");
//  - when standard output carries a command's data ("-"), its messages go to stderr, so
//    the data can be piped into another program untouched.
#include <cstddef>
#include <iostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace neuronsim::cli {

inline bool is_stdout(const std::string& path) {
  return path == "-";
}

// `data` to `path` all-or-nothing (write_file_atomic), or to standard output for "-".
void write_output(const std::string& path, std::string_view data);

// "wrote PATH (N bytes)" on `out`; nothing for "-" (the data was the output).
void say_wrote(std::ostream& out, const std::string& path, std::size_t bytes);

// While alive, text written to std::cout goes to stderr; write_output("-", ...) still
// reaches the real standard output (it writes through C stdio, which is unaffected).
class MessagesToStderr {
 public:
  MessagesToStderr() : saved_(std::cout.rdbuf(std::cerr.rdbuf())) {}
  ~MessagesToStderr() { std::cout.rdbuf(saved_); }
  MessagesToStderr(const MessagesToStderr&) = delete;
  MessagesToStderr& operator=(const MessagesToStderr&) = delete;

 private:
  std::streambuf* saved_;
};

}  // namespace neuronsim::cli

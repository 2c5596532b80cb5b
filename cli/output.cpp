#include "cli/output.hpp"

#include <cstdio>

#include "base/error.hpp"
#include "base/file_io.hpp"

namespace neuronsim::cli {

void write_output(const std::string& path, std::string_view data) {
  if (!is_stdout(path)) return write_file_atomic(path, data);
  std::cout.flush();  // whatever went before stays before
  if (std::fwrite(data.data(), 1, data.size(), stdout) != data.size() || std::fflush(stdout) != 0)
    throw Error("standard output: write failed");
}

void say_wrote(std::ostream& out, const std::string& path, std::size_t bytes) {
  if (!is_stdout(path)) out << "wrote " << path << " (" << bytes << " bytes)\n";
}

}  // namespace neuronsim::cli

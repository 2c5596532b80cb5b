#include "report/viewer_script.hpp"

#include "report/embedded_files.hpp"

namespace neuronsim::report {

// Each on a line of its own after its <style> or <script> tag.
std::string viewer_css() {
  return "\n" + std::string(embedded::viewer_css());
}

std::string viewer_script() {
  return "\n" + std::string(embedded::viewer_js());
}

}  // namespace neuronsim::report

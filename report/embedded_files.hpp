#pragma once
// The report's static files, compiled in at build time (cmake/embed_files.cmake, from
// CMakeLists.txt): each function returns its file's bytes exactly. The files are real
// JavaScript and CSS so that they can be checked as such (CTest "cli: viewer_script" runs
// `node --check` on viewer.js).
#include <string_view>

namespace neuronsim::report::embedded {

std::string_view viewer_js();   // report/viewer.js: the interactive viewer (viewer_script.hpp)
std::string_view viewer_css();  // report/viewer.css: the viewer's styles
std::string_view report_css();  // report/report.css: the report's styles but the colours

}  // namespace neuronsim::report::embedded

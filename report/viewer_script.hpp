#pragma once
// The interactive viewer's inline script and styles (docs/report.md, "the viewer"): a
// canvas timeline per run that zooms with the wheel around the cursor, pans by dragging,
// shows an instruction's details on click, highlights search matches and the critical
// path, and draws SBUF/PSUM occupancy under the lanes. It reads the run's data from
// <script type="application/json" id="viewer-data-N"> (report/viewer_json.hpp) and uses
// nothing outside the page. The script and the styles are report/viewer.js and
// report/viewer.css, compiled in (report/embedded_files.hpp).
#include <string>

namespace neuronsim::report {

std::string viewer_script();
std::string viewer_css();

}  // namespace neuronsim::report

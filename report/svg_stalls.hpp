#pragma once
// Stall attribution as stacked bars, one per engine, over the run's end-to-end time:
// busy, semaphore wait (a segment per whom it waited for), port wait, DMA queue wait,
// idle, and for a launch sequence the time the device was not running at all.
#include <string>

#include "report/run.hpp"

namespace neuronsim::report {

std::string stall_svg(const Run& run);

}  // namespace neuronsim::report

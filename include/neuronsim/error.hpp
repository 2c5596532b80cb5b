#pragma once
// neuronsim::Error, the one exception type of neuronsim: every bad input (a malformed
// file, an invalid kernel, a wrong-sized input, a deadlock) is reported by throwing it,
// with a message naming the file, the instruction and the reason.
#include "base/error.hpp"

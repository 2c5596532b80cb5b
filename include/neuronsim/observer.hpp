#pragma once
// What a core reports while a launch runs (instruction, DMA and semaphore events), for
// traces and live views. Attach an engines::Observer to a launch (LaunchRequest::observers);
// with none attached the engines build no records. Times in records are picoseconds
// from the start of the launch.
#include "engines/observer.hpp"

namespace neuronsim {

using engines::Observer;
using traces::DmaRecord;
using traces::InstructionRecord;
using traces::SemaphoreRecord;

}  // namespace neuronsim

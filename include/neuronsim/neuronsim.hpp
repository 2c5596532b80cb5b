#pragma once
// All of neuronsim's public API in one include: the NeuronCore component, the HBM model,
// the Device of N cores, launches, the register map and descriptor format, the one-call
// run driver, target configs, kernels and NEFF loading, the builder, observers and
// statistics.
// Every failure is reported as a neuronsim::Error (base/error.hpp).
#include "neuronsim/builder.hpp"
#include "neuronsim/config.hpp"
#include "neuronsim/device.hpp"
#include "neuronsim/error.hpp"
#include "neuronsim/hbm.hpp"
#include "neuronsim/kernel.hpp"
#include "neuronsim/launch.hpp"
#include "neuronsim/neuron_core.hpp"
#include "neuronsim/observer.hpp"
#include "neuronsim/run.hpp"
#include "neuronsim/statistics.hpp"
#include "neuronsim/tlm.hpp"

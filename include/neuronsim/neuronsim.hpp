#pragma once
// The model's public API in one include (what neuronsim::core links): the NeuronCore
// component, the HBM model, the Device of N cores, launches, the register map and
// descriptor format, the one-call run driver, target configs, kernels and NEFF loading,
// observers and statistics. The builder is optional (<neuronsim/builder.hpp>, linked by
// neuronsim::neuronsim).
// Every failure is reported as a neuronsim::Error (<neuronsim/error.hpp>).
#include "neuronsim/config.hpp"
#include "neuronsim/device.hpp"
#include "neuronsim/error.hpp"
#include "neuronsim/hbm.hpp"
#include "neuronsim/kernel.hpp"
#include "neuronsim/launch.hpp"
#include "neuronsim/neuron_core.hpp"
#include "neuronsim/observer.hpp"
#include "neuronsim/protocol_checker.hpp"
#include "neuronsim/run.hpp"
#include "neuronsim/statistics.hpp"
#include "neuronsim/threads.hpp"
#include "neuronsim/tlm.hpp"

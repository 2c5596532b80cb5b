#include "sim/fresh_context.hpp"

namespace neuronsim::sim {

FreshContext::FreshContext()
    : previous_(sc_core::sc_curr_simcontext), context_(new sc_core::sc_simcontext) {
  sc_core::sc_curr_simcontext = context_;
  sc_core::sc_default_global_context = context_;
}

FreshContext::~FreshContext() {
  delete context_;
  sc_core::sc_curr_simcontext = previous_;
  sc_core::sc_default_global_context = previous_;
}

}  // namespace neuronsim::sim

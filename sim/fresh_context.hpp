#pragma once
// A SystemC simulation context of its own, current for this object's lifetime. SystemC
// elaborates once per context (modules are built before its first sc_start), so a program
// that runs independent simulations one after another (the Python session's cores for a
// new config, the what-if analysis of each profile of a report) runs each in a fresh one.
// Every module built in it must be destroyed before it is; the context current before it
// is current again afterwards.
#include <systemc>

namespace neuronsim::sim {

class FreshContext {
 public:
  FreshContext();
  ~FreshContext();
  FreshContext(const FreshContext&) = delete;
  FreshContext& operator=(const FreshContext&) = delete;

 private:
  sc_core::sc_simcontext* previous_;
  sc_core::sc_simcontext* context_;
};

}  // namespace neuronsim::sim

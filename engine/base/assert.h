// Invariant checks that are part of the design (TigerBeetle's TIGER_STYLE, Redpanda's vassert).
//
// A broken engine invariant inside a simulation is a finding: it must stop the run and name
// the seed and the event, not be swallowed. LOGSIM_ASSERT throws InvariantError. The simulator
// annotates it: an InvariantError that escapes an event of sim::World::run_until is thrown again
// with "; at t=<simulated time>, trace event #<index>, <the event and its node>" appended, so
// this layer knows nothing of the simulator. The CLI reports it with the seed and exits 70.
// Assertions stay on in every build type.
#pragma once

#include <stdexcept>
#include <string>

namespace logsim {

class InvariantError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void invariant_failed(const char* expr, const char* file, int line,
                                   const std::string& message);

}  // namespace logsim

#define LOGSIM_ASSERT(cond, message)                                        \
  do {                                                                      \
    if (!(cond)) ::logsim::invariant_failed(#cond, __FILE__, __LINE__, (message)); \
  } while (0)

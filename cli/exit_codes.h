// DESIGN.md's exit codes, one meaning each, and the one mapping from a verdict to its code.
#pragma once

#include "properties/verdict.h"

namespace logsim::cli {

constexpr int kExitPass = 0;            // all properties held (or the expected failure was found)
constexpr int kExitViolated = 1;        // a property was violated
constexpr int kExitBadInput = 2;        // usage, scenario file
constexpr int kExitNondeterminism = 3;  // the same seed gave two traces
constexpr int kExitLiveness = 4;        // did not catch up after the faults healed
constexpr int kExitInternal = 70;       // an internal error (an engine invariant broke)

// The exit code of a verdict. An engine invariant that broke has no verdict: kExitInternal.
constexpr int exit_code(properties::Outcome outcome) {
  switch (outcome) {
    case properties::Outcome::kPass: return kExitPass;
    case properties::Outcome::kViolated: return kExitViolated;
    case properties::Outcome::kLiveness: return kExitLiveness;
  }
  return kExitInternal;  // not a value of the enum
}

// The exit code of many runs is the worst of theirs, in this order: internal error,
// nondeterminism, violated, liveness, pass. (Bad input stops a batch before it runs.)
constexpr int exit_severity(int code) {
  switch (code) {
    case kExitInternal: return 5;
    case kExitNondeterminism: return 4;
    case kExitViolated: return 3;
    case kExitLiveness: return 2;
    case kExitBadInput: return 1;
    default: return 0;
  }
}
constexpr int worse_exit(int a, int b) { return exit_severity(b) > exit_severity(a) ? b : a; }

}  // namespace logsim::cli

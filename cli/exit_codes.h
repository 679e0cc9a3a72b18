// DESIGN.md's exit codes, one meaning each.
#pragma once

namespace logsim::cli {

constexpr int kExitPass = 0;            // all properties held (or the expected failure was found)
constexpr int kExitViolated = 1;        // a property was violated
constexpr int kExitBadInput = 2;        // usage, scenario file
constexpr int kExitNondeterminism = 3;  // the same seed gave two traces
constexpr int kExitLiveness = 4;        // did not catch up after the faults healed
constexpr int kExitInternal = 70;       // an internal error (an engine invariant broke)

}  // namespace logsim::cli

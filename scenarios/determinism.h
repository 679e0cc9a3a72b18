// The determinism check behind `logsim run --check-determinism`: run the same scenario and
// seed again and compare traces; when they differ, name the first divergent event of each.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "scenarios/runner.h"

namespace logsim::scenarios {

struct Divergence {
  std::uint64_t first_hash = 0;
  std::uint64_t second_hash = 0;
  std::uint64_t index = 0;   // the first trace entry that differs
  std::string first_event;   // as each run recorded it ("(trace ended)" past its end)
  std::string second_event;
};

// Compares two recorded runs; nothing when their traces agree.
std::optional<Divergence> compare_runs(const RunOutput& first, const RunOutput& second);

// Runs `scenario` with `seed` again (recording the trace) and compares with `first`, which
// must have been run with record_trace.
std::optional<Divergence> check_determinism(const Scenario& scenario, std::uint64_t seed, const RunOutput& first,
                                            const AppFactories& apps = {});

}  // namespace logsim::scenarios

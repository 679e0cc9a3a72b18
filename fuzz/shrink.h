// Shrinking a failing fuzz case (see fuzz.h): what one run of a scenario document showed
// (Attempt), the scenario edits that make a failing scenario smaller, and the Shrinker that
// walks RapidCheck's shrink tree of the case, then the edits, keeping a candidate only when it
// fails the same way (the same anomaly). Sequential, bounded in runs and wall-clock seconds.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz/fuzz.h"

namespace logsim::fuzz {

// What one run of a scenario document showed.
struct Attempt {
  bool failed = false;
  std::string anomaly;              // the first violation's anomaly, or "internal-error"
  std::vector<std::string> anomalies;
  std::uint64_t trace_hash = 0;
  std::string error;                // an engine invariant that broke
  // Applications' `sometimes` assertions the run evaluated (api/app.h): message -> whether it held.
  std::map<std::string, bool> sometimes;
};

// Runs `doc` (named `file` in errors) and says what it showed. An engine invariant that breaks
// is a failure with the anomaly "internal-error"; a scenario error propagates. `user`: the
// users' applications its "app" keys may name, and their checkers.
Attempt attempt(const nlohmann::json& doc, const std::string& file, const scenarios::UserCode& user = {});

// Scenario edits that make a failing scenario smaller, biggest cuts first: removing a group,
// producer or consumer (with the timeline steps aimed at it), halving a producer's count,
// removing a timeline step (a fault with its repair), a group member, a partition.
std::vector<nlohmann::json> edits(const nlohmann::json& doc);

// What shrinking keeps: the anomaly a planted bug is known by (else the other one it shows on
// some runs, its `also`), when the failure shows it (a planted bug may show itself in several
// ways; the one it is named for is the point), else the first one found.
std::string anomaly_to_keep(const Attempt& a, const std::vector<std::string>& plants);

// Shrinks f.original (f.seed, f.anomaly set): returns the smallest scenario found that fails
// the same way, and sets f.shrink_runs, f.shrink_steps and f.shrink_complete (the edits reached
// a fixed point). Bounded by options.shrink_max_runs runs and options.shrink_max_s seconds from
// `start`; an interrupted campaign stops it. on_run(n) is called before the n-th run.
nlohmann::json shrink(const FuzzOptions& options, FuzzFailure& f, std::chrono::steady_clock::time_point start,
                      const std::function<void(std::int64_t)>& on_run);

bool interrupted(const FuzzOptions& options);
double seconds_since(std::chrono::steady_clock::time_point t);

}  // namespace logsim::fuzz

// Runs one scenario with one seed: builds the World (brokers and applications on simulated
// nodes), schedules the timeline, runs the event loop, feeds the history to the checkers as
// it grows, and returns the result. One direction, no back-and-forth (DESIGN.md).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "properties/checker.h"
#include "properties/history.h"
#include "properties/verdict.h"
#include "scenarios/samples.h"
#include "scenarios/scenario.h"
#include "sim/trace.h"

namespace logsim::scenarios {

struct RunOptions {
  std::uint64_t seed = 1;
  bool record_trace = false;  // keep every trace entry (for --trace and divergence reports)
  // Called between chunks of the run (about 400 times) with the simulated time reached and the
  // end: for a progress bar. It must not touch the simulation.
  std::function<void(Nanos now, Nanos end)> progress{};
};

struct RunResult {
  std::string scenario;
  std::string file;
  std::uint64_t seed = 0;
  std::uint64_t trace_hash = 0;
  std::uint64_t trace_events = 0;
  Nanos simulated_ns = 0;
  properties::Verdict verdict;
  std::map<std::string, std::int64_t> stats;  // ordered: stable output
  std::vector<std::string> cli_plants;  // plants given on the command line (for the replay command)
  std::vector<std::string> ignored;     // anomalies the scenario's "properties" does not check
  bool expectation_met = true;
  std::string expectation_detail;  // why the expectation was not met
  bool live = false;               // a live run (logsim serve): no seed replays it
};

struct RunOutput {
  RunResult result;
  properties::History history;
  sim::Trace trace{false};
  Samples samples;  // the cluster over time, for the report
};

RunOutput run_scenario(const Scenario& scenario, const RunOptions& options);

// What the run's checkers know of the scenario: its compacted topics and ignored anomalies.
properties::CheckerOptions checker_options(const Scenario& scenario);
// The checkers a run of the scenario attaches, one by one: the default ones and, with a quiet
// period, the unseen checker. A CheckerSet of them ignores checker_options(scenario).ignored.
std::vector<std::unique_ptr<properties::Checker>> scenario_checkers(const Scenario& scenario);

// Compares a verdict with the scenario's `expect`: a scenario that demonstrates a known
// failure passes when exactly the expected anomalies are found.
bool meets_expectation(const Expectation& expect, const properties::Verdict& verdict, std::string& detail);

}  // namespace logsim::scenarios

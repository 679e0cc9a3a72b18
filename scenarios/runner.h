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

#include "engine/env/env.h"
#include "properties/checker.h"
#include "properties/history.h"
#include "properties/verdict.h"
#include "scenarios/samples.h"
#include "scenarios/scenario.h"
#include "sim/trace.h"

namespace logsim::scenarios {

struct RunContext;

// Where a user's application (api/app.h) runs in place of logsim's own: a producer's node or
// a group member's node whose spec names an "app".
struct AppSite {
  std::string app;                         // the registered name
  std::string node;                        // the node's name (the producer's, or the member's)
  const ProducerSpec* producer = nullptr;  // the producer it stands for, or
  const GroupSpec* group = nullptr;        // the group it is a member of
  RunContext* ctx = nullptr;               // the run's history and the harness's memory
  std::vector<NodeId> bootstrap;           // the brokers
  NodeId controller{-1};                   // where its admin client's requests go
  // The run's application steps (scenarios/apps/app_steps.h): a group member's `seek` steps
  // are carried out on its consumer at its next poll, as logsim's own members do.
  const std::vector<TimelineStep>* app_steps = nullptr;
};
// Builds the node of a user's application; called at the node's start and at every restart.
using AppNodeFactory = std::function<std::unique_ptr<Node>(Env&, const AppSite&)>;
// The users' applications a binary can run, by registered name (api/app.h fills it).
using AppFactories = std::map<std::string, AppNodeFactory>;
// Their names, for the loader (an "app" key must name one).
std::vector<std::string> app_names(const AppFactories& apps);
// Makes one of a user's own checkers (api/checker.h) for a run, beside the default ones.
using CheckerFactory = std::function<std::unique_ptr<properties::Checker>()>;
// What of a user's code a run hosts: applications by name, and checkers.
struct UserCode {
  AppFactories apps{};
  std::vector<CheckerFactory> checkers{};
};

struct RunOptions {
  std::uint64_t seed = 1;
  bool record_trace = false;  // keep every trace entry (for --trace and divergence reports)
  // Called between chunks of the run (about 400 times) with the simulated time reached and the
  // end: for a progress bar. It must not touch the simulation.
  std::function<void(Nanos now, Nanos end)> progress{};
  // The users' applications by registered name (api/app.h fills it): every "app" the scenario
  // names must be here.
  AppFactories apps{};
  // The users' own checkers, run beside the default ones.
  std::vector<CheckerFactory> checkers{};
  void host(const UserCode& user) {
    apps = user.apps;
    checkers = user.checkers;
  }
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
  // What a live run saw clients do that no Kafka client should, which no property judges
  // (ServeRecorder's client findings): reported, never a verdict.
  std::vector<std::string> findings;
};

struct RunOutput {
  RunResult result;
  properties::History history;
  sim::Trace trace{false};
  Samples samples;  // the cluster over time, for the report
};

RunOutput run_scenario(const Scenario& scenario, const RunOptions& options);

// What the run's checkers know of the scenario: its compacted topics, ignored anomalies, bounds
// and, with a quiet period, the end of the fault phase (groups owe what came before: unseen).
properties::CheckerOptions checker_options(const Scenario& scenario);
// The checkers a run of the scenario attaches, one by one: the default ones for
// checker_options(scenario). A CheckerSet of them ignores checker_options(scenario).ignored.
std::vector<std::unique_ptr<properties::Checker>> scenario_checkers(const Scenario& scenario);

// Compares a verdict with the scenario's `expect`: a scenario that demonstrates a known
// failure passes when exactly the expected anomalies are found.
bool meets_expectation(const Expectation& expect, const properties::Verdict& verdict, std::string& detail);

}  // namespace logsim::scenarios

// The C++ API for tests written by logsim's users: load a scenario file or build one in code,
// run it with a seed, and assert on the verdict and on the history, in your own test suite.
//
//   const logsim::Scenario s = logsim::load_scenario("scenarios/orders.json");
//   const logsim::RunOutput out = logsim::run(s, {.seed = 7});
//   EXPECT_TRUE(logsim::testing::Passed(out));            // api/gtest.h: names the first violation
//   EXPECT_TRUE(logsim::missing_from(out.history, "billing", "orders").empty());
//
// A thin layer: the types are the scenarios/ and properties/ types under shorter names, and the
// functions call the loader, the runner and the report writers that `logsim run` uses, so a run
// here and `logsim run FILE --seed N` give the same trace hash and the same verdict.
//
// Errors: a bad scenario throws ScenarioError (file, JSON pointer, what is wrong, what would be
// right); a report that cannot be written throws std::runtime_error. A run itself does not throw:
// what it finds is in the verdict. Runs share nothing, so tests may run them on many threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/history_query.h"
#include "properties/history.h"
#include "properties/verdict.h"
#include "scenarios/determinism.h"
#include "scenarios/loader.h"
#include "scenarios/runner.h"
#include "scenarios/scenario.h"

namespace logsim {

using Scenario = scenarios::Scenario;
using ScenarioError = scenarios::ScenarioError;
using RunOutput = scenarios::RunOutput;  // .result (verdict, trace hash, stats), .history, .samples
using RunResult = scenarios::RunResult;
using History = properties::History;
using HistoryEvent = properties::HistoryEvent;
using OpKind = properties::OpKind;
using Verdict = properties::Verdict;
using Violation = properties::Violation;
using Outcome = properties::Outcome;

// The name errors and reports give a scenario built in code when the caller names none. A name
// in angle brackets means "no file": the replay line then asks to rerun with the seed instead
// of naming a `logsim run FILE` command that cannot work.
inline constexpr std::string_view kInCode = "<in-code>";

// Reads and validates a scenario file (docs/scenarios.md). Throws ScenarioError.
Scenario load_scenario(const std::string& path);
// Validates scenario JSON text; `name` stands for the file in errors and reports.
Scenario parse_scenario(std::string_view json_text, const std::string& name = std::string(kInCode));
// The same from a JSON value, for scenarios built or adjusted in code.
Scenario scenario_from_json(const nlohmann::json& scenario, const std::string& name = std::string(kInCode));

// For designated initializers: `logsim::run(s, {.seed = 7})`.
struct RunOptions {
  std::optional<std::uint64_t> seed{};  // none: the scenario's own "seed" (1 when it gives none)
  bool record_trace = false;            // keep every trace entry in RunOutput::trace (memory grows with the run)
};

// The seed a run uses: the one given (RunOptions::seed, `logsim run --seed`), else the scenario's own.
std::uint64_t effective_seed(const Scenario& scenario, std::optional<std::uint64_t> seed);

// Runs the scenario once: same scenario and seed, same run, bit for bit.
RunOutput run(const Scenario& scenario, const RunOptions& options = {});

// Where two runs of one scenario and seed first differ (trace hashes, the first trace entry
// that differs, as each run recorded it).
using Divergence = scenarios::Divergence;
// Runs the scenario twice with the seed (`logsim run --check-determinism`): nothing when the
// two traces agree, else where they first differ. An App that reads the wall clock, starts a
// thread or draws randomness outside ctx.rng() shows up here (docs/api.md).
std::optional<Divergence> check_determinism(const Scenario& scenario, std::optional<std::uint64_t> seed = {});

// Every property held.
bool passed(const RunOutput& out);
// The verdict is what the scenario's "expect" says (a scenario demonstrating a known failure
// meets it when exactly the expected anomalies are found). Why not: out.result.expectation_detail.
bool as_expected(const RunOutput& out);
// The anomalies found, each named once, sorted (e.g. {"inconsistent-offsets", "lost-write"}).
std::vector<std::string> anomalies(const RunOutput& out);
// Whether `anomaly` was found at least once.
bool found(const RunOutput& out, std::string_view anomaly);
// The first violation found (the earliest in the history), or null when none.
const Violation* first_violation(const RunOutput& out);
// A statistic of the run (records.sent, records.acknowledged, records.processed.<process>,
// group.<id>.processed, faults, ...: `logsim run --json` lists them); 0 when absent.
std::int64_t stat(const RunOutput& out, std::string_view name);

// The command that reproduces the run with the CLI: `logsim run FILE --seed N`.
std::string replay_command(const RunOutput& out);
// What `logsim run` prints: verdict, trace hash, counts, the violations, the replay command.
std::string describe(const RunOutput& out);
// Writes what `logsim run --out DIR` writes (report.html, summary.json, history.jsonl,
// junit.xml, samples.json), creating `dir`; returns the path of report.html. Throws
// std::runtime_error naming the file that could not be written.
std::string write_report(const RunOutput& out, const std::string& dir);

}  // namespace logsim

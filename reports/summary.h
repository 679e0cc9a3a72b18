// The run summary: `summary.json` (machine-readable, versioned) and the terminal summary.
//
// summary.json, version 1: {"version", "verdict", "expectation_met", "expectation_detail",
// "scenario", "file", "seed", "trace_hash" (16 hex digits), "trace_events", "simulated_ms",
// "wall_ms", "stats" {name: count}, "violations" [{"anomaly", "first_event", "at_ms",
// "process", "topic", "partition", "offset", "key", "members", "explanation"}],
// "replay" (the command that reproduces the run)}.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "scenarios/runner.h"

namespace logsim::reports {

// An optional offset, partition or generation in JSON: its number, or null when there is none.
template <typename T>
nlohmann::json nullable(const std::optional<T>& v) {
  return v ? nlohmann::json(v->value()) : nlohmann::json(nullptr);
}

constexpr int kSummaryVersion = 1;

std::string trace_hash_hex(std::uint64_t hash);
// The program that reproduce lines name: "logsim", or a user's own binary that runs logsim's
// command line (cli/logsim_main.h sets it from argv[0]).
const std::string& program_name();
void set_program_name(std::string name);
// The command that reproduces a run.
std::string replay_command(const scenarios::RunResult& r);
// A path or argument as one shell word: unchanged when safe, else single-quoted.
std::string shell_word(const std::string& s);

nlohmann::json summary_json(const scenarios::RunResult& r, double wall_ms);
// The short human summary printed after a run.
std::string terminal_summary(const scenarios::RunResult& r, double wall_ms);

}  // namespace logsim::reports

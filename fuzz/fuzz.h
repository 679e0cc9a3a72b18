// `logsim fuzz`: runs generated cases seed after seed, stops at the first failure, shrinks it
// to a small scenario and hands it back as an ordinary scenario file that `logsim run`
// reproduces bit-for-bit.
//
// A case is drawn from fuzz/generators.h (RapidCheck, keyed by the seed) and rendered as
// scenario JSON, which the real loader reads: what the fuzzer runs is exactly what the user
// gets. With a template scenario, the template brings the cluster, topics, workload and groups
// and the case adds a fault schedule to its timeline.
//
// Parallelism is across seeds only (DESIGN.md rule 1): each job runs whole, independent
// simulations. The failure reported is the lowest failing seed, whatever the number of jobs.
// Shrinking is sequential: first along RapidCheck's shrink tree of the case, then by editing
// the scenario itself (removing timeline steps, members, groups, producers; halving record
// counts). A candidate counts as failing only if it shows the same anomaly as the original.
//
// This layer sits between scenarios/ and cli/: it uses threads and the wall clock (for --jobs
// and --time), which DESIGN.md's determinism rules keep out of the layers a run is made of.
// Every simulation it starts is still one thread and one seed.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/plants.h"
#include "fuzz/generators.h"
#include "scenarios/runner.h"

namespace logsim::fuzz {

using scenarios::RunOutput;

struct FuzzOptions {
  std::optional<nlohmann::json> template_doc;  // a scenario to add fault schedules to
  std::string template_file;                   // its path (for names and messages)
  std::uint64_t first_seed = 1;
  std::int64_t seeds = 100;                    // how many seeds at most (0: until the time budget), all shards together
  double time_budget_s = 0;                    // wall-clock budget for the search (0: none)
  int jobs = 1;
  // Shard shard_index of shard_count (0-based): this campaign runs only the seeds
  // first_seed + shard_index + k * shard_count, k = 0, 1, 2, ... (interleaved, so that shards
  // stay disjoint even when each stops on its own clock with a time budget).
  std::int64_t shard_index = 0;
  std::int64_t shard_count = 1;
  std::vector<std::string> plants;             // planted bugs, by name (validated by the caller)
  fuzz::Shape shape;
  bool keep_going = false;                     // search every seed, do not stop at the first failure
  bool shrink = true;
  std::int64_t shrink_max_runs = 400;          // scenario runs the shrinker may spend
  double shrink_max_s = 120;                   // and wall-clock seconds
  // Every confirm_every-th seed (and the first) runs twice; the trace hashes must agree.
  std::int64_t confirm_every = 16;
  const std::atomic<bool>* interrupted = nullptr;  // set by Ctrl-C: stop, keep what finished
  std::string command = "logsim fuzz";         // how this campaign was started (for "found")
  // The users' applications the template's "app" keys may name, and their own checkers (a
  // binary calling logsim::main passes the ones it registered).
  scenarios::UserCode user{};
};

struct FuzzProgress {
  std::int64_t done = 0;
  std::int64_t total = 0;      // 0 when running to a time budget
  std::int64_t failures = 0;
  double elapsed_s = 0;
  double budget_s = 0;
  bool shrinking = false;
  std::int64_t shrink_runs = 0;
};

// Size of a scenario, to show how much shrinking took away.
struct ScenarioSize {
  std::int64_t timeline_steps = 0;
  std::int64_t members = 0;     // group members and standalone consumers
  std::int64_t records = 0;     // records the producers send in all
  std::int64_t groups = 0;
  std::int64_t producers = 0;
  std::string text() const;
};
ScenarioSize scenario_size(const nlohmann::json& doc);

struct FuzzFailure {
  std::uint64_t seed = 0;
  std::string anomaly;              // the first violation's anomaly (what shrinking preserves)
  nlohmann::json original;          // the generated scenario
  ScenarioSize original_size;
  nlohmann::json shrunk;            // the smallest failing scenario found (with "found")
  ScenarioSize shrunk_size;
  RunOutput shrunk_run;             // its run: verdict, history, trace hash
  std::int64_t shrink_runs = 0;     // scenario runs the shrinker spent
  std::int64_t shrink_steps = 0;    // successful shrinks
  bool shrink_complete = false;     // false when the budget ran out first
  std::string error;                // an engine invariant that broke (anomaly internal-error)
};

struct Nondeterminism {
  std::uint64_t seed = 0;
  std::uint64_t first_hash = 0, second_hash = 0;
};

struct FuzzReport {
  std::int64_t seeds_run = 0;
  std::int64_t confirmed = 0;                 // seeds run twice with identical trace hashes
  std::vector<std::uint64_t> failing_seeds;   // ascending
  std::optional<FuzzFailure> failure;         // the lowest failing seed, shrunk
  std::vector<Nondeterminism> nondeterminism;
  // Applications' `sometimes` assertions (api/app.h): in how many seeds each was evaluated, and
  // in how many it held. One evaluated in some seed but held in none is reported.
  struct Sometimes {
    std::int64_t reached = 0;
    std::int64_t held = 0;
  };
  std::map<std::string, Sometimes> sometimes;
  bool interrupted = false;
  double search_s = 0, shrink_s = 0;
};

// The scenario a seed stands for (a whole generated scenario, or the template plus faults).
nlohmann::json fuzz_case_doc(const FuzzOptions& options, std::uint64_t seed);
// Renders a generated case; `template_doc` supplies everything but the faults when given.
nlohmann::json render_case(const fuzz::Case& c, const fuzz::Shape& shape, std::uint64_t seed,
                           const nlohmann::json* template_doc, const std::vector<std::string>& plants);

// Runs a scenario document (loaded by the real loader, named `file` in errors) with its seed.
RunOutput run_doc(const nlohmann::json& doc, const std::string& file, bool record_trace = false,
                  const scenarios::UserCode& user = {});

// How many seeds this shard runs when options.seeds is set (0 when the shard has none of them);
// the seed of its k-th run.
std::int64_t shard_seeds(const FuzzOptions& options);
std::uint64_t shard_seed(const FuzzOptions& options, std::int64_t k);

// Runs the search, then shrinks the lowest failing seed.
FuzzReport fuzz(const FuzzOptions& options, const std::function<void(const FuzzProgress&)>& progress = {});

// Fault kinds from a comma-separated list of names ("crash,member-pause"); an unknown name is
// returned in `unknown` (and the result is then incomplete).
std::vector<fuzz::FaultKind> fault_kinds(std::string_view list, std::string* unknown = nullptr);

// The shape used for a template: faults fall within its duration.
fuzz::Shape shape_for_template(const nlohmann::json& doc, fuzz::Shape shape);

}  // namespace logsim::fuzz

// logsim run and logsim report. One scenario and one seed prints the full summary and writes
// the report; many (files, directories, --seeds) run in parallel with --jobs and print one line
// per run, for CI.
#include "cli/run_commands.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "api/app.h"
#include "api/app_registry.h"
#include "api/logsim.h"
#include "cli/exit_codes.h"
#include "cli/progress_line.h"
#include "cli/shard.h"
#include "engine/base/assert.h"
#include "engine/plants.h"
#include "fuzz/seed_pool.h"
#include "reports/atomic_file.h"
#include "reports/history_jsonl.h"
#include "reports/html.h"
#include "reports/junit.h"
#include "reports/run_dir.h"
#include "reports/samples_json.h"
#include "reports/summary.h"
#include "scenarios/determinism.h"
#include "scenarios/loader.h"
#include "scenarios/runner.h"

namespace logsim::cli {
namespace {

// A run meets its scenario's "expect" (exit 0), or exits with its verdict's code; a verdict of
// pass that was not expected means the expected violation was not found (exit 1).
int exit_code_for(const scenarios::RunResult& r) {
  if (r.expectation_met) return kExitPass;
  if (r.verdict.outcome == properties::Outcome::kPass) return kExitViolated;
  return exit_code(r.verdict.outcome);
}

// A progress bar on stderr while a run takes long, on a terminal only: simulated time done, wall
// time so far and an estimate of what is left, at most ten times a second.
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : line_(enabled, std::chrono::milliseconds(500), std::chrono::milliseconds(100)) {}
  void update(Nanos now, Nanos end) {
    const auto wall = line_.due();
    if (!wall) return;
    const double done = end > 0 ? static_cast<double>(now) / static_cast<double>(end) : 1.0;
    const double left = done > 0 ? *wall / done - *wall : 0;
    line_.draw(done, fmt::format("{:.1f}s of {:.1f}s simulated  {:.1f}s wall  ~{:.0f}s left", static_cast<double>(now) / 1e9,
                                 static_cast<double>(end) / 1e9, *wall, left));
  }
  void clear() { line_.clear(); }

 private:
  ProgressLine line_;
};

std::optional<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// logsim report DIR: rebuilds report.html from the JSON files a run wrote into DIR.
}  // namespace

int report_command(const std::string& dir) {
  for (const char* name : {"summary.json", "samples.json", "history.jsonl"}) {
    if (!read_text_file(dir + "/" + name)) {
      std::fprintf(stderr, "logsim report: %s/%s cannot be read; expected a directory that logsim run --out DIR wrote\n", dir.c_str(), name);
      return kExitBadInput;
    }
  }
  nlohmann::json summary;
  nlohmann::json samples;
  try {
    summary = nlohmann::json::parse(*read_text_file(dir + "/summary.json"));
  } catch (const nlohmann::json::exception& e) {
    std::fprintf(stderr, "logsim report: %s/summary.json: not JSON (%s); expected the summary a run wrote with --out\n", dir.c_str(), e.what());
    return kExitBadInput;
  }
  try {
    samples = nlohmann::json::parse(*read_text_file(dir + "/samples.json"));
  } catch (const nlohmann::json::exception& e) {
    std::fprintf(stderr, "logsim report: %s/samples.json: not JSON (%s); expected the samples a run wrote with --out\n", dir.c_str(), e.what());
    return kExitBadInput;
  }
  scenarios::Samples s;
  try {
    s = reports::samples_from_json(samples);
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "logsim report: %s/samples.json: %s; expected samples.json version %d as logsim run --out writes it\n", dir.c_str(),
                 e.what(), reports::kSamplesVersion);
    return kExitBadInput;
  }
  if (!summary.is_object() || summary.value("version", 0) != reports::kSummaryVersion) {
    std::fprintf(stderr, "logsim report: %s/summary.json: not a summary of version %d; expected the summary logsim run --out writes\n",
                 dir.c_str(), reports::kSummaryVersion);
    return kExitBadInput;
  }
  const properties::History history = reports::read_history_file(dir + "/history.jsonl");
  const std::string err = reports::write_file_atomically(dir + "/report.html", reports::report_html(summary, history, s));
  if (!err.empty()) {
    std::fprintf(stderr, "logsim report: %s\n", err.c_str());
    return kExitInternal;
  }
  std::cout << dir << "/report.html\n";
  return kExitPass;
}

namespace {

// One scenario with one seed: the full summary, and the report with --out.
int run_seed(const RunArgs& args, const scenarios::Scenario& scenario, std::uint64_t seed) {
  const auto start = std::chrono::steady_clock::now();
  ProgressBar bar(!args.quiet && !args.json);
  scenarios::RunOptions options{seed, args.check_determinism || args.trace};
  options.host(logsim::detail::registered_user_code());
  options.progress = [&bar](Nanos now, Nanos end) { bar.update(now, end); };
  scenarios::RunOutput out = scenarios::run_scenario(scenario, options);
  bar.clear();
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (args.check_determinism) {
    if (auto d = scenarios::check_determinism(scenario, seed, out, options.apps)) {
      std::fprintf(stderr, "logsim: NONDETERMINISM: seed %llu gave trace %s, then %s\n  first divergent event #%llu\n"
                           "  run 1: %s\n  run 2: %s\n",
                   static_cast<unsigned long long>(seed), reports::trace_hash_hex(d->first_hash).c_str(),
                   reports::trace_hash_hex(d->second_hash).c_str(), static_cast<unsigned long long>(d->index),
                   d->first_event.c_str(), d->second_event.c_str());
      return kExitNondeterminism;
    }
  }

  out.result.cli_plants = args.plants;
  const scenarios::RunResult& r = out.result;
  std::string err;
  if (!args.out.empty()) {
    reports::RunDirOptions files;
    files.wall_ms = wall_ms;
    files.junit_suite = "logsim run";
    files.trace = args.trace;
    err = reports::write_run_dir(args.out, r, out, files);
  }
  if (err.empty() && !args.history.empty()) err = reports::write_file_atomically(args.history, reports::history_jsonl(out.history));
  if (!err.empty()) {
    std::fprintf(stderr, "logsim: %s\n", err.c_str());
    return kExitInternal;
  }
  if (args.json) {
    std::cout << reports::summary_json(r, wall_ms).dump(2) << "\n";
  } else if (!args.quiet) {
    std::cout << reports::terminal_summary(r, wall_ms);
    if (args.check_determinism) std::cout << "  determinism  the same seed ran twice to the same trace hash\n";
    if (!args.out.empty()) std::cout << "  report     " << args.out << "/report.html (and summary.json, junit.xml, history.jsonl)\n";
  }
  return exit_code_for(r);
}

// An engine invariant that breaks is a finding: it is reported with the command that reproduces
// it, which names the seed the run used (the scenario's own when no --seed was given).
int run_one(const RunArgs& args, const std::string& file) {
  scenarios::Scenario scenario = scenarios::load_scenario_file(file, logsim::registered_apps());
  for (const auto& name : args.plants) scenario.plants.add(*plant_by_name(name));
  const std::uint64_t seed = logsim::effective_seed(scenario, args.seed);
  try {
    return run_seed(args, scenario, seed);
  } catch (const InvariantError& e) {
    scenarios::RunResult where;
    where.file = file;
    where.seed = seed;
    where.cli_plants = args.plants;
    std::fprintf(stderr, "logsim: INTERNAL ERROR (an engine invariant broke; this is a finding): %s\n  reproduce: %s\n", e.what(),
                 reports::replay_command(where).c_str());
    return kExitInternal;
  }
}


// Files named on the command line, directories expanded to their *.json files (sorted; the
// JSON Schema is skipped), each once.
std::vector<std::string> expand(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const auto& name : names) {
    std::error_code ec;
    if (std::filesystem::is_directory(name, ec)) {
      std::vector<std::string> in_dir;
      for (const auto& entry : std::filesystem::directory_iterator(name, ec)) {
        const auto& p = entry.path();
        if (entry.is_regular_file() && p.extension() == ".json" && p.filename() != "schema.json") in_dir.push_back(p.string());
      }
      std::sort(in_dir.begin(), in_dir.end());
      out.insert(out.end(), in_dir.begin(), in_dir.end());
    } else {
      out.push_back(name);
    }
  }
  std::vector<std::string> unique;
  for (const auto& f : out) {
    if (std::find(unique.begin(), unique.end(), f) == unique.end()) unique.push_back(f);
  }
  return unique;
}

struct Job {
  std::size_t scenario = 0;
  std::uint64_t seed = 0;
};

struct Outcome {
  scenarios::RunResult result;
  double wall_ms = 0;
  bool nondeterministic = false;
  std::string error;  // an engine invariant broke, or a report could not be written
};

// The exit code of one run of a batch.
int outcome_exit(const Outcome& o) {
  return o.nondeterministic ? kExitNondeterminism : (!o.error.empty() ? kExitInternal : exit_code_for(o.result));
}

// The exit code of many runs: the worst of them (cli/exit_codes.h's worse_exit).
int worst_exit(const std::vector<Outcome>& outcomes) {
  int code = kExitPass;
  for (const auto& o : outcomes) code = worse_exit(code, outcome_exit(o));
  return code;
}

// Every scenario, loaded (a bad file throws, so nothing has run yet) with the --plant plants.
std::vector<scenarios::Scenario> load_all(const std::vector<std::string>& files, const std::vector<std::string>& plants) {
  std::vector<scenarios::Scenario> loaded;
  for (const auto& f : files) {
    loaded.push_back(scenarios::load_scenario_file(f, logsim::registered_apps()));
    for (const auto& name : plants) loaded.back().plants.add(*plant_by_name(name));
  }
  return loaded;
}

// The runs, scenario by scenario: `seeds` seeds each from --seed (or the scenario's own).
std::vector<Job> jobs_for(const std::vector<scenarios::Scenario>& loaded, std::optional<std::uint64_t> seed, std::int64_t seeds) {
  std::vector<Job> jobs;
  for (std::size_t i = 0; i < loaded.size(); ++i) {
    const std::uint64_t first = logsim::effective_seed(loaded[i], seed);
    for (std::int64_t k = 0; k < seeds; ++k) jobs.push_back({i, first + static_cast<std::uint64_t>(k)});
  }
  return jobs;
}

// One run of a batch (on a pool thread). A run not as expected, or nondeterministic, leaves its
// report directory under --out; an invariant that breaks is the run's error, not the batch's end.
Outcome run_job(const RunArgs& args, const scenarios::Scenario& scenario, std::uint64_t seed) {
  Outcome o;
  const auto start = std::chrono::steady_clock::now();
  try {
    scenarios::RunOutput out = logsim::run(scenario, {.seed = seed, .record_trace = args.check_determinism});
    o.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (args.check_determinism) o.nondeterministic = scenarios::check_determinism(scenario, seed, out, logsim::detail::registered_app_nodes()).has_value();
    out.result.cli_plants = args.plants;
    o.result = out.result;
    // Reports for the runs a person must look at: those not as expected.
    if (!args.out.empty() && (!o.result.expectation_met || o.nondeterministic)) {
      const std::string dir = fmt::format("{}/{}/seed-{}", args.out, scenario.name, seed);
      reports::RunDirOptions written;  // no junit.xml: the batch writes one for every run
      written.wall_ms = o.wall_ms;
      o.error = reports::write_run_dir(dir, o.result, out, written);
    }
  } catch (const InvariantError& e) {
    o.result.scenario = scenario.name;
    o.result.file = scenario.file;
    o.result.seed = seed;
    o.result.cli_plants = args.plants;  // runs.json's replay command reproduces it with the plants
    o.error = std::string("an engine invariant broke (a finding): ") + e.what();
  }
  return o;
}

bool as_expected(const Outcome& o) { return o.result.expectation_met && !o.nondeterministic && o.error.empty(); }

// A run's line in the batch: ok or FAIL, the scenario and seed, the trace hash, the wall time,
// and what it showed.
std::string run_line(const Outcome& o, const std::string& file) {
  const scenarios::RunResult& r = o.result;
  std::string what;
  if (!o.error.empty()) what = "error: " + o.error;
  else if (o.nondeterministic) what = "NONDETERMINISTIC";
  else if (r.expectation_met) what = r.verdict.outcome == properties::Outcome::kPass ? "pass" : "pass (the expected failure was found)";
  else if (r.verdict.violations.empty()) what = r.expectation_detail;
  else what = fmt::format("{}: {}", r.verdict.violations.front().anomaly, r.verdict.violations.front().explanation);
  return fmt::format("{:5} {} seed {}  {}  {:.0f}ms  {}\n", as_expected(o) ? "ok" : "FAIL", file, r.seed,
                     reports::trace_hash_hex(r.trace_hash), o.wall_ms, what);
}

// --out DIR of a batch: junit.xml and runs.json over every run. Returns an error, or "".
std::string write_batch_files(const std::string& out, const std::vector<Outcome>& outcomes) {
  std::vector<reports::JUnitCase> cases;
  for (const auto& o : outcomes) cases.push_back({o.result, o.wall_ms});
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& o : outcomes) {
    nlohmann::json j = reports::summary_json(o.result, o.wall_ms);
    j["nondeterministic"] = o.nondeterministic;
    j["error"] = o.error;
    runs.push_back(std::move(j));
  }
  std::string err = reports::write_file_atomically(out + "/junit.xml", reports::junit_xml("logsim run", cases));
  if (err.empty()) err = reports::write_file_atomically(out + "/runs.json", runs.dump(2) + "\n");
  return err;
}

// The batch's last lines: how many runs of how many scenarios and seeds (and of which shard),
// and how many failed.
void print_batch_summary(const RunArgs& args, std::size_t runs, std::size_t files, std::int64_t seeds, std::size_t failed, double wall_s,
                         int threads, const std::optional<Shard>& shard, std::size_t runs_total) {
  const auto plural = [](std::size_t count, const char* word) {
    return fmt::format("{} {}{}", count, word, count == 1 ? "" : "s");
  };
  const std::string sweep = fmt::format("{} x {}", plural(files, "scenario"), plural(static_cast<std::size_t>(seeds), "seed"));
  const std::string of = shard ? fmt::format("shard {} of {}: {}", shard->text(), plural(runs_total, "run"), sweep) : sweep;
  std::cout << fmt::format("logsim: {} ({}) in {:.1f}s on {}: {} as expected, {} not\n", plural(runs, "run"), of, wall_s,
                           plural(static_cast<std::size_t>(threads), "job"), runs - failed, failed);
  if (!args.out.empty()) {
    std::cout << "  report     " << args.out << "/junit.xml, runs.json" << (shard ? ", shard.json" : "")
              << (failed ? ", and a report.html per failing run" : "") << "\n";
  }
}

// What defines a sweep of `logsim run`, for shard.json: two shards are of one sweep when these
// agree (the scenario files by name and content, the seeds, the plants).
nlohmann::json run_sweep(const RunArgs& args, const std::vector<std::string>& files, std::int64_t seeds) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& f : files) list.push_back({{"file", f}, {"digest", file_digest(f)}});
  return {{"files", list},
          {"seed", args.seed ? nlohmann::json(*args.seed) : nlohmann::json(nullptr)},
          {"seeds_per_scenario", seeds},
          {"plants", args.plants},
          {"check_determinism", args.check_determinism}};
}

// shard.json of a sharded batch with --out (see cli/shard.h).
std::string write_shard_file(const RunArgs& args, const std::vector<std::string>& files, std::int64_t seeds, const Shard& shard,
                             const std::vector<std::size_t>& mine, std::size_t runs_total, int exit_code) {
  nlohmann::json manifest = shard_manifest("run", run_sweep(args, files, seeds), shard);
  manifest["runs_total"] = runs_total;
  manifest["runs"] = mine;
  manifest["exit_code"] = exit_code;
  return reports::write_file_atomically(args.out + "/shard.json", manifest.dump(2) + "\n");
}

// Many scenarios and seeds: loaded first (a bad file stops everything before any run, exit 2),
// then run on --jobs threads (fuzz/seed_pool.h), one simulation per thread; one line per run in
// a fixed order, each printed as soon as it and every run before it are done.
int run_many(const RunArgs& args, const std::vector<std::string>& files, std::int64_t seeds, const std::optional<Shard>& shard) {
  if (!args.history.empty() || args.trace) {
    std::fprintf(stderr, "logsim run: --history and --trace are for one scenario and one seed; with several, use --out DIR\n");
    return kExitBadInput;
  }
  const std::vector<scenarios::Scenario> loaded = load_all(files, args.plants);
  const std::vector<Job> all = jobs_for(loaded, args.seed, seeds);
  std::vector<std::size_t> mine;  // the sweep numbers of the runs this shard runs (all, unsharded)
  for (std::size_t n = 0; n < all.size(); ++n) {
    if (!shard || shard->has(static_cast<std::int64_t>(n))) mine.push_back(n);
  }
  std::vector<Job> jobs;
  for (const std::size_t n : mine) jobs.push_back(all[n]);
  std::vector<Outcome> outcomes(jobs.size());
  std::vector<char> done(jobs.size(), 0);
  std::mutex mu;
  std::size_t printed = 0;
  const auto print_ready = [&] {  // under mu: lines in job order, as soon as each is known
    for (; printed < jobs.size() && done[printed]; ++printed) {
      if (!args.quiet && !args.json) std::cout << run_line(outcomes[printed], files[jobs[printed].scenario]) << std::flush;
    }
  };
  const auto work = [&](std::int64_t index) {
    const auto j = static_cast<std::size_t>(index);
    Outcome o = run_job(args, loaded[jobs[j].scenario], jobs[j].seed);
    std::lock_guard lock(mu);
    outcomes[j] = std::move(o);
    done[j] = 1;
    print_ready();
    return true;
  };
  const auto wall_start = std::chrono::steady_clock::now();
  fuzz::SeedPool pool;
  pool.count = static_cast<std::int64_t>(jobs.size());
  pool.jobs = args.jobs;
  const int n = fuzz::run_seed_pool(pool, work);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  const auto failed = static_cast<std::size_t>(std::count_if(outcomes.begin(), outcomes.end(), [](const Outcome& o) { return !as_expected(o); }));
  const int code = worst_exit(outcomes);
  if (!args.out.empty()) {
    std::string err = write_batch_files(args.out, outcomes);
    if (err.empty() && shard) err = write_shard_file(args, files, seeds, *shard, mine, all.size(), code);
    if (!err.empty()) {
      std::fprintf(stderr, "logsim: %s\n", err.c_str());
      return kExitInternal;
    }
  }
  if (args.json) {
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& o : outcomes) runs.push_back(reports::summary_json(o.result, o.wall_ms));
    std::cout << runs.dump(2) << "\n";
  } else if (!args.quiet) {
    print_batch_summary(args, jobs.size(), files.size(), seeds, failed, wall_s, n, shard, all.size());
  }
  return code;
}

}  // namespace

int run_command(const RunArgs& args) {
  if (args.list_plants) {
    for (const auto& p : all_plants()) std::cout << fmt::format("{:24} {} (found as {}{}{})\n", p.name, p.description, p.anomaly, p.also.empty() ? "" : " or ", p.also);
    return kExitPass;
  }
  for (const auto& name : args.plants) {
    if (!plant_by_name(name)) {
      std::string all;
      for (const auto& info : all_plants()) all += std::string(all.empty() ? "" : ", ") + std::string(info.name);
      std::fprintf(stderr, "logsim: unknown plant \"%s\"; expected one of %s (logsim run --list-plants)\n", name.c_str(), all.c_str());
      return kExitBadInput;
    }
  }
  const std::vector<std::string> files = expand(args.files);
  if (files.empty()) {
    std::fprintf(stderr, "logsim run: no scenario files found in %s; expected .json scenario files\n", args.files.front().c_str());
    return kExitBadInput;
  }
  // --seeds N: N seeds from --seed (or each scenario's own); --seeds A..B: seeds A to B.
  RunArgs a = args;
  std::int64_t seeds = 1;
  if (!args.seeds.empty()) {
    const auto dots = args.seeds.find("..");
    std::uint64_t lo = 0, hi = 0;
    const auto parse = [](const std::string& t, std::uint64_t& v) {
      if (t.empty() || t.find_first_not_of("0123456789") != std::string::npos || t.size() > 18) return false;
      v = std::stoull(t);
      return true;
    };
    const bool ok = dots == std::string::npos ? parse(args.seeds, hi) && hi >= 1 && hi <= 1'000'000
                                               : parse(args.seeds.substr(0, dots), lo) && parse(args.seeds.substr(dots + 2), hi) &&
                                                     lo <= hi && hi - lo < 1'000'000;
    if (!ok) {
      std::fprintf(stderr, "logsim run: --seeds \"%s\" is not a count or a range; expected N (1 to 1000000) or A..B (A <= B, at most a million seeds)\n",
                   args.seeds.c_str());
      return kExitBadInput;
    }
    if (dots == std::string::npos) {
      seeds = static_cast<std::int64_t>(hi);
    } else {
      if (args.seed) {
        std::fprintf(stderr, "logsim run: give --seed N with --seeds COUNT, or --seeds A..B alone\n");
        return kExitBadInput;
      }
      a.seed = lo;
      seeds = static_cast<std::int64_t>(hi - lo + 1);
    }
  }
  std::optional<Shard> shard;
  if (args.shard) {
    std::string error;
    shard = parse_shard(*args.shard, error);
    if (!shard) {
      std::fprintf(stderr, "logsim run: %s\n", error.c_str());
      return kExitBadInput;
    }
  }
  // A shard is always a batch, even of one run, so that it leaves runs.json and shard.json.
  if (files.size() == 1 && seeds == 1 && !shard) return run_one(a, files.front());
  return run_many(a, files, seeds, shard);
}

}  // namespace logsim::cli

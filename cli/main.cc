// The logsim command line. Thin: it parses arguments, calls the layers, and maps outcomes to
// DESIGN.md's exit codes: 0 all properties held (or the scenario's expected failure was
// found), 1 a property was violated, 2 bad input, 3 nondeterminism, 4 liveness, 70 internal.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
#include "cli/fuzz_commands.h"
#include "engine/client/partitioner.h"
#include "engine/env/assert.h"
#include "engine/env/plants.h"
#include "properties/checker.h"
#include "reports/atomic_file.h"
#include "reports/history_jsonl.h"
#include "reports/html.h"
#include "reports/junit.h"
#include "reports/samples_json.h"
#include "reports/summary.h"
#include "scenarios/determinism.h"
#include "scenarios/loader.h"
#include "scenarios/runner.h"

namespace {

using namespace logsim;

using namespace logsim::cli;

struct RunArgs {
  std::string file;
  std::uint64_t seed = 0;
  bool seed_given = false;
  bool check_determinism = false;
  std::string out;
  bool json = false;
  bool quiet = false;
  bool trace = false;
  std::string history;  // --history FILE
  std::vector<std::string> plants;  // --plant NAME ...
  bool list_plants = false;
};

struct CheckArgs {
  std::string file;
  bool json = false;
};

// trace.jsonl: one JSON object per trace entry, in run order.
std::string trace_jsonl(const sim::Trace& trace) {
  std::string out;
  for (const auto& e : trace.entries()) {
    nlohmann::json j{{"index", e.index}, {"at_ns", e.at}, {"kind", sim::trace_kind_name(e.kind)},
                     {"node", e.node}, {"peer", e.peer}, {"detail", e.detail}, {"text", e.text}};
    out += j.dump() + "\n";
  }
  return out;
}

int exit_code_for(const scenarios::RunResult& r) {
  if (r.expectation_met) return kExitPass;
  switch (r.verdict.outcome) {
    case properties::Outcome::kLiveness: return kExitLiveness;
    default: return kExitViolated;  // an unexpected violation, or an expected one not found
  }
}

// A progress bar on stderr while a run takes long, on a terminal only: simulated time done, wall
// time so far and an estimate of what is left. Redrawn at most ten times a second; cleared at
// the end so the summary starts on a clean line.
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : enabled_(enabled && isatty(STDERR_FILENO) != 0) {}
  ~ProgressBar() { clear(); }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void update(Nanos now, Nanos end) {
    if (!enabled_) return;
    const auto t = std::chrono::steady_clock::now();
    const double wall = std::chrono::duration<double>(t - start_).count();
    if (wall < 0.5 || t - last_ < std::chrono::milliseconds(100)) return;  // short runs draw nothing
    last_ = t;
    const double done = end > 0 ? static_cast<double>(now) / static_cast<double>(end) : 1.0;
    const int width = 30;
    const int filled = static_cast<int>(done * width);
    const double left = done > 0 ? wall / done - wall : 0;
    std::fprintf(stderr, "\r  [%s%s] %3.0f%%  %.1fs of %.1fs simulated  %.1fs wall  ~%.0fs left ",
                 std::string(static_cast<std::size_t>(filled), '#').c_str(), std::string(static_cast<std::size_t>(width - filled), '.').c_str(),
                 done * 100, static_cast<double>(now) / 1e9, static_cast<double>(end) / 1e9, wall, left);
    drawn_ = true;
  }
  void clear() {
    if (drawn_) std::fprintf(stderr, "\r\033[K");
    drawn_ = false;
  }

 private:
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

std::optional<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// logsim report DIR: rebuilds report.html from the JSON files a run wrote into DIR.
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

int run_command(const RunArgs& args) {
  if (args.list_plants) {
    for (const auto& p : all_plants()) std::cout << fmt::format("{:24} {} (found as {})\n", p.name, p.description, p.anomaly);
    return kExitPass;
  }
  scenarios::Scenario scenario = scenarios::load_scenario_file(args.file);
  for (const auto& name : args.plants) {
    auto p = plant_by_name(name);
    if (!p) {
      std::string all;
      for (const auto& info : all_plants()) all += std::string(all.empty() ? "" : ", ") + std::string(info.name);
      std::fprintf(stderr, "logsim: unknown plant \"%s\"; expected one of %s (logsim run --list-plants)\n", name.c_str(), all.c_str());
      return kExitBadInput;
    }
    scenario.plants.add(*p);
  }
  const std::uint64_t seed = args.seed_given ? args.seed : scenario.seed;
  const auto start = std::chrono::steady_clock::now();
  ProgressBar bar(!args.quiet && !args.json);
  scenarios::RunOptions options{seed, args.check_determinism || args.trace};
  options.progress = [&bar](Nanos now, Nanos end) { bar.update(now, end); };
  scenarios::RunOutput out = scenarios::run_scenario(scenario, options);
  bar.clear();
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (args.check_determinism) {
    if (auto d = scenarios::check_determinism(scenario, seed, out)) {
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
    err = reports::write_file_atomically(args.out + "/summary.json", reports::summary_json(r, wall_ms).dump(2) + "\n");
    if (err.empty()) err = reports::write_file_atomically(args.out + "/history.jsonl", reports::history_jsonl(out.history));
    if (err.empty()) err = reports::write_file_atomically(args.out + "/junit.xml", reports::junit_xml("logsim run", {{r, wall_ms}}));
    if (err.empty()) err = reports::write_file_atomically(args.out + "/samples.json", reports::samples_json(out.samples).dump() + "\n");
    if (err.empty()) {
      err = reports::write_file_atomically(args.out + "/report.html", reports::report_html(reports::summary_json(r, wall_ms), out.history, out.samples));
    }
    if (err.empty() && args.trace) err = reports::write_file_atomically(args.out + "/trace.jsonl", trace_jsonl(out.trace));
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

// logsim check: the default checkers over a recorded history.
int check_command(const CheckArgs& args) {
  properties::History history = reports::read_history_file(args.file);
  properties::CheckerSet checkers = properties::default_checkers();
  for (const auto& e : history.events()) checkers.observe(e);
  const properties::Verdict v = checkers.finish();
  if (args.json) {
    nlohmann::json j{{"file", args.file}, {"events", history.size()}, {"verdict", properties::outcome_name(v.outcome)}};
    j["violations"] = nlohmann::json::array();
    for (const auto& x : v.violations) {
      j["violations"].push_back({{"anomaly", x.anomaly}, {"first_event", x.first_event}, {"at_ns", x.at},
                                 {"process", x.process}, {"topic", x.topic}, {"partition", x.partition},
                                 {"offset", x.offset}, {"members", x.members}, {"explanation", x.explanation}});
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::string verdict(properties::outcome_name(v.outcome));
    for (auto& c : verdict) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::cout << fmt::format("logsim check: {} ({} events)\n  verdict    {}\n", args.file, history.size(), verdict);
    for (const auto& x : v.violations) {
      std::cout << fmt::format("  VIOLATION  {} at {:.3f}s (event #{}): {}\n", x.anomaly, static_cast<double>(x.at) / 1e9,
                               x.first_event, x.explanation);
    }
  }
  switch (v.outcome) {
    case properties::Outcome::kPass: return kExitPass;
    case properties::Outcome::kLiveness: return kExitLiveness;
    default: return kExitViolated;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"logsim: deterministic simulation and testing of Kafka-style logs"};
  app.require_subcommand(1);

  RunArgs run;
  auto* run_cmd = app.add_subcommand("run", "Run a scenario file with a seed and check its properties");
  auto* scenario_opt = run_cmd->add_option("scenario", run.file, "Scenario file (JSON)");
  run_cmd->add_option("--plant", run.plants, "Switch the engine into a known-wrong behaviour (a planted bug); repeatable");
  run_cmd->add_flag("--list-plants", run.list_plants, "List the plants and exit");
  auto* seed_opt = run_cmd->add_option("--seed", run.seed, "Master seed (default: the scenario's \"seed\")");
  run_cmd->add_flag("--check-determinism", run.check_determinism, "Run twice and compare trace hashes (exit 3 if they differ)");
  run_cmd->add_option("--out", run.out, "Directory for report.html, summary.json, junit.xml, history.jsonl and samples.json");
  run_cmd->add_option("--history", run.history, "Also write the history (JSON lines, docs/history.md) to this file");
  run_cmd->add_flag("--json", run.json, "Print summary.json to stdout instead of the human summary");
  run_cmd->add_flag("--quiet", run.quiet, "Print nothing; the exit code tells the verdict");
  run_cmd->add_flag("--trace", run.trace, "Also write trace.jsonl (every delivered message, timer and fault) to --out");

  CheckArgs check;
  auto* check_cmd = app.add_subcommand("check", "Check a recorded history (JSON lines, docs/history.md) with the default checkers");
  check_cmd->add_option("history", check.file, "History file (history.jsonl)")->required();
  check_cmd->add_flag("--json", check.json, "Print the verdict as JSON");

  cli::FuzzArgs fz;
  auto* fuzz_cmd = app.add_subcommand("fuzz", "Run generated cases seed after seed; shrink the first failure to a small scenario file");
  fuzz_cmd->add_option("template", fz.template_file, "Scenario to add random fault schedules to (default: generate whole scenarios)");
  fuzz_cmd->add_option("--seeds", fz.seeds, "How many seeds (default 100, or as many as --time allows)")->check(CLI::Range(1, 1'000'000'000));
  fuzz_cmd->add_option("--time", fz.time, "Wall-clock budget for the search, e.g. 30s, 5m");
  fuzz_cmd->add_option("--first-seed", fz.first_seed, "The first seed (default 1)");
  fuzz_cmd->add_option("--jobs,-j", fz.jobs, "Seeds run in parallel (one simulation per thread)")->check(CLI::Range(1, 256));
  fuzz_cmd->add_option("--plant", fz.plants, "Switch the engine into a known-wrong behaviour (a planted bug); repeatable");
  fuzz_cmd->add_flag("--list-plants", fz.list_plants, "List the plants and exit");
  fuzz_cmd->add_option("--faults", fz.faults, "Fault kinds to draw from, comma-separated (default: every kind under which Kafka promises "
                                             "safety: crash,isolate,partition,pause,controller-crash,member-crash,member-pause,member-stop; "
                                             "also power-loss)");
  fuzz_cmd->add_option("--out", fz.out, "Where a failure is written (default logsim-fuzz)");
  fuzz_cmd->add_flag("--keep-going", fz.keep_going, "Run every seed instead of stopping at the first failure");
  fuzz_cmd->add_flag("--no-shrink", fz.no_shrink, "Write the failing case as generated");
  fuzz_cmd->add_option("--shrink-runs", fz.shrink_runs, "Scenario runs the shrinker may spend (default 400)")->check(CLI::Range(0, 1'000'000));
  fuzz_cmd->add_flag("--quiet", fz.quiet, "No progress line and no summary; the exit code tells the verdict");
  fuzz_cmd->add_option("--show-case", fz.show_case, "Print the scenario file a seed stands for, and exit (run it with logsim run)");
  fuzz_cmd->add_flag("--json", fz.json, "Print the campaign (fuzz.json) to stdout instead of the human summary");

  std::string replay_file;
  auto* replay_cmd = app.add_subcommand("replay", "Re-run a failure saved by logsim fuzz; confirm its verdict and trace hash");
  replay_cmd->add_option("scenario", replay_file, "The saved scenario (logsim-fuzz/seed-N.json)")->required();

  std::string report_dir;
  auto* report_cmd = app.add_subcommand("report", "Rebuild report.html from the files logsim run --out wrote into a directory");
  report_cmd->add_option("dir", report_dir, "The --out directory of a run")->required();

  std::string key;
  std::int32_t partitions = 0;
  auto* part_cmd = app.add_subcommand("partition", "Print the partition Kafka's default partitioner picks for a key");
  part_cmd->add_option("key", key, "Record key (its UTF-8 bytes are hashed)")->required();
  part_cmd->add_option("--partitions", partitions, "Number of partitions")->required()->check(CLI::Range(1, 1 << 30));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }

  try {
    if (*part_cmd) {
      std::cout << engine::partition_for_key(key, partitions) << "\n";
      return kExitPass;
    }
    if (*check_cmd) return check_command(check);
    if (*fuzz_cmd) return cli::fuzz_command(fz);
    if (*replay_cmd) return cli::replay_command(replay_file);
    if (*report_cmd) return report_command(report_dir);
    if (*run_cmd && !run.list_plants && scenario_opt->count() == 0) {
      std::fprintf(stderr, "logsim run: the scenario file is required (logsim run SCENARIO.json)\n");
      return kExitBadInput;
    }
    run.seed_given = seed_opt->count() > 0;
    if (run.trace && run.out.empty()) {
      std::fprintf(stderr, "logsim: --trace writes trace.jsonl into the --out directory; give --out DIR too\n");
      return kExitBadInput;
    }
    return run_command(run);
  } catch (const scenarios::ScenarioError& e) {
    std::fprintf(stderr, "logsim: %s\n", e.what());
    return kExitBadInput;
  } catch (const reports::HistoryFileError& e) {
    std::fprintf(stderr, "logsim: %s\n", e.what());
    return kExitBadInput;
  } catch (const InvariantError& e) {
    std::fprintf(stderr, "logsim: INTERNAL ERROR (an engine invariant broke; this is a finding): %s\n  reproduce: logsim run %s --seed %llu\n",
                 e.what(), run.file.c_str(), static_cast<unsigned long long>(run.seed));
    return kExitInternal;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "logsim: internal error: %s\n", e.what());
    return kExitInternal;
  }
}

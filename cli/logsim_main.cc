// The logsim command line. Thin: it parses arguments, calls the layers, and maps outcomes to
// DESIGN.md's exit codes: 0 all properties held (or the scenario's expected failure was
// found), 1 a property was violated, 2 bad input, 3 nondeterminism, 4 liveness, 70 internal.
#include "cli/logsim_main.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

#include "cli/check_command.h"
#include "cli/exit_codes.h"
#include "cli/fuzz_commands.h"
#include "cli/merge_command.h"
#include "cli/run_commands.h"
#include "cli/serve_command.h"
#include "engine/client/partitioner.h"
#include "engine/base/assert.h"
#include "reports/history_jsonl.h"
#include "reports/summary.h"
#include "scenarios/loader.h"

namespace {

using namespace logsim;

using namespace logsim::cli;

// Every subcommand's arguments, and the CLI11 handles that say which was given; the add_*
// functions bind them, so a Commands must stay where it is once bound.
struct Commands {
  RunArgs run;
  std::uint64_t seed = 0;  // --seed, copied into run.seed only when given
  CLI::App* run_cmd = nullptr;
  CLI::Option* scenario_opt = nullptr;
  CLI::Option* seed_opt = nullptr;

  CheckArgs check;
  CLI::App* check_cmd = nullptr;

  cli::FuzzArgs fuzz;
  CLI::App* fuzz_cmd = nullptr;

  std::string replay_file;
  CLI::App* replay_cmd = nullptr;

  std::string report_dir;
  CLI::App* report_cmd = nullptr;

  std::string key;
  std::int32_t partitions = 0;
  CLI::App* part_cmd = nullptr;

  cli::ServeArgs serve;
  CLI::App* serve_cmd = nullptr;

  cli::MergeArgs merge;
  CLI::App* merge_cmd = nullptr;
};

void add_serve_command(CLI::App& app, Commands& c) {
  cli::ServeArgs& s = c.serve;
  auto* cmd = app.add_subcommand("serve", "Serve real Kafka clients from the engine on loopback, with the scenario's faults in real time");
  c.serve_cmd = cmd;
  cmd->add_option("scenario", s.scenario, "Scenario file: its cluster, topics and timeline (default: an empty cluster)");
  cmd->add_option("--brokers", s.brokers, "Brokers, without a scenario (default 3)");
  cmd->add_option("--listen", s.listen, "The first broker's HOST:PORT; the others take the next ports (default 127.0.0.1:9092; port 0: any free)");
  cmd->add_flag("--allow-remote", s.allow_remote, "Allow a non-loopback --listen (there is no authentication)");
  cmd->add_option("--bootstrap-file", s.bootstrap_file, "Also write the bootstrap servers (HOST:PORT,...) to this file");
  cmd->add_option("--duration", s.duration, "Stop after this long, e.g. 30s (default: at SIGINT or SIGTERM)");
  cmd->add_option("--data", s.data, "Keep the brokers' logs in this directory (default: in memory)");
  cmd->add_flag("--in-memory", s.in_memory, "Keep the brokers' logs in memory (the default)");
  cmd->add_option("--num-partitions", s.num_partitions, "num.partitions of auto-created topics (default: the scenario's, or 1)");
  cmd->add_flag("--quiet", s.quiet, "No log lines on stderr");
  cmd->add_option("--out", s.out, "At the end, write history.jsonl, summary.json, junit.xml and report.html (the broker-side history) here");
  cmd->add_option("--history", s.history, "At the end, also write the broker-side history (JSON lines) to this file");
}

void add_run_command(CLI::App& app, Commands& c) {
  RunArgs& run = c.run;
  auto* run_cmd = app.add_subcommand("run", "Run a scenario file with a seed and check its properties");
  c.run_cmd = run_cmd;
  c.scenario_opt = run_cmd->add_option("scenario", run.files, "Scenario files, or directories of them (JSON)");
  run_cmd->add_option("--seeds", run.seeds, "Seeds per scenario: N (--seed, or the scenario's seed, and the next N-1) or A..B");
  run_cmd->add_option_function<std::string>("--shard", [&run](const std::string& t) { run.shard = t; }, "Run only shard I of N of the runs (0-based, e.g. $JOB_COMPLETION_INDEX/4); logsim merge joins the shards' --out directories");
  run_cmd->add_option("--jobs,-j", run.jobs, "Runs in parallel when there are several (one simulation per thread)")->check(CLI::Range(1, 256));
  run_cmd->add_option("--plant", run.plants, "Switch the engine into a known-wrong behaviour (a planted bug); repeatable");
  run_cmd->add_flag("--list-plants", run.list_plants, "List the plants and exit");
  c.seed_opt = run_cmd->add_option("--seed", c.seed, "Master seed (default: the scenario's \"seed\")");
  run_cmd->add_flag("--check-determinism", run.check_determinism, "Run twice and compare trace hashes (exit 3 if they differ)");
  run_cmd->add_option("--out", run.out, "Directory for report.html, summary.json, junit.xml, history.jsonl and samples.json");
  run_cmd->add_option("--history", run.history, "Also write the history (JSON lines, docs/history.md) to this file");
  run_cmd->add_flag("--json", run.json, "Print summary.json to stdout instead of the human summary");
  run_cmd->add_flag("--quiet", run.quiet, "Print nothing; the exit code tells the verdict");
  run_cmd->add_flag("--trace", run.trace, "Also write trace.jsonl (every delivered message, timer and fault) to --out");
}

void add_check_command(CLI::App& app, Commands& c) {
  auto* check_cmd = app.add_subcommand("check", "Check a recorded history (JSON lines, docs/history.md) with the default checkers");
  c.check_cmd = check_cmd;
  check_cmd->add_option("history", c.check.file, "History file (history.jsonl)")->required();
  check_cmd->add_flag("--json", c.check.json, "Print the verdict as JSON");
  check_cmd->add_option("--compacted", c.check.compacted,
                        "Topics whose cleanup.policy includes compact (comma-separated), besides those the history's "
                        "admin events show: records compaction may have removed there are not lost")
      ->delimiter(',');
  check_cmd->add_option_function<std::string>(
      "--max-lag",
      [&c](const std::string& text) {
        const auto d = scenarios::parse_duration(text);
        if (!d || *d <= 0) throw CLI::ValidationError("--max-lag", "expected a positive duration such as 10s or 500ms, found \"" + text + "\"");
        c.check.max_lag = *d;
      },
      "The longest an acknowledged record may wait before a reader first processes it (realtime-lag, exit 4 when exceeded)");
  check_cmd->add_flag("--write-isolation", c.check.write_isolation,
                      "Transactions promise isolated writes: another producer's record stored between two sends of "
                      "one transaction to a partition is an int-send-skip (Kafka does not promise it: by default only "
                      "the figure int-send-skip.count)");
  check_cmd->add_flag("--any-compacted", c.check.any_compacted,
                      "Treat every topic as possibly compacted (lenient: a lost keyed record whose key was written "
                      "again is not reported)");
}

void add_fuzz_command(CLI::App& app, Commands& c) {
  cli::FuzzArgs& fz = c.fuzz;
  auto* fuzz_cmd = app.add_subcommand("fuzz", "Run generated cases seed after seed; shrink the first failure to a small scenario file");
  c.fuzz_cmd = fuzz_cmd;
  fuzz_cmd->add_option("template", fz.template_file, "Scenario to add random fault schedules to (default: generate whole scenarios)");
  fuzz_cmd->add_option("--seeds", fz.seeds, "How many seeds (default 100, or as many as --time allows)")->check(CLI::Range(1, 1'000'000'000));
  fuzz_cmd->add_option("--time", fz.time, "Wall-clock budget for the search, e.g. 30s, 5m");
  fuzz_cmd->add_option("--first-seed", fz.first_seed, "The first seed (default 1)");
  fuzz_cmd->add_option_function<std::string>("--shard", [&fz](const std::string& t) { fz.shard = t; }, "Run only shard I of N of the seeds (0-based: seeds first+I, first+I+N, ...); logsim merge joins the shards' --out directories");
  fuzz_cmd->add_option("--jobs,-j", fz.jobs, "Seeds run in parallel (one simulation per thread)")->check(CLI::Range(1, 256));
  fuzz_cmd->add_option("--plant", fz.plants, "Switch the engine into a known-wrong behaviour (a planted bug); repeatable");
  fuzz_cmd->add_flag("--list-plants", fz.list_plants, "List the plants and exit");
  fuzz_cmd->add_option("--faults", fz.faults, "Fault kinds to draw from, comma-separated (default: every kind under which Kafka promises "
                                             "safety: crash,isolate,partition,pause,controller-crash,member-crash,member-pause,member-stop,member-seek; "
                                             "also clog, power-loss and member-power-loss: the kinds of a scenario's faults section)");
  fuzz_cmd->add_option("--out", fz.out, "Where a failure is written (default logsim-fuzz)");
  fuzz_cmd->add_flag("--keep-going", fz.keep_going, "Run every seed instead of stopping at the first failure");
  fuzz_cmd->add_flag("--no-shrink", fz.no_shrink, "Write the failing case as generated");
  fuzz_cmd->add_option("--shrink-runs", fz.shrink_runs, "Scenario runs the shrinker may spend (default 400)")->check(CLI::Range(0, 1'000'000));
  fuzz_cmd->add_flag("--quiet", fz.quiet, "No progress line and no summary; the exit code tells the verdict");
  fuzz_cmd->add_option("--show-case", fz.show_case, "Print the scenario file a seed stands for, and exit (run it with logsim run)");
  fuzz_cmd->add_flag("--json", fz.json, "Print the campaign (fuzz.json) to stdout instead of the human summary");
}

// replay, report and partition: one argument or two each.
void add_small_commands(CLI::App& app, Commands& c) {
  c.replay_cmd = app.add_subcommand("replay", "Re-run a failure saved by logsim fuzz; confirm its verdict and trace hash");
  c.replay_cmd->add_option("scenario", c.replay_file, "The saved scenario (logsim-fuzz/seed-N.json)")->required();

  c.report_cmd = app.add_subcommand("report", "Rebuild report.html from the files logsim run --out wrote into a directory");
  c.report_cmd->add_option("dir", c.report_dir, "The --out directory of a run")->required();

  c.merge_cmd = app.add_subcommand("merge", "Join the --out directories of a sweep's shards (run or fuzz --shard I/N) into one report and exit code");
  c.merge_cmd->add_option("dirs", c.merge.dirs, "The shards' --out directories")->required();
  c.merge_cmd->add_option("--out", c.merge.out, "Directory for the merged runs.json, junit.xml (or fuzz.json), reports and merge.json")->required();
  c.merge_cmd->add_flag("--partial", c.merge.partial, "Merge even when shards are missing (they are named, and the tally is partial)");
  c.merge_cmd->add_flag("--quiet", c.merge.quiet, "Print nothing; the exit code tells the verdict");

  c.part_cmd = app.add_subcommand("partition", "Print the partition Kafka's default partitioner picks for a key");
  c.part_cmd->add_option("key", c.key, "Record key (its UTF-8 bytes are hashed)")->required();
  c.part_cmd->add_option("--partitions", c.partitions, "Number of partitions")->required()->check(CLI::Range(1, 1 << 30));
}

// Parses the command line; an exit code when it is help (0) or bad (2), nothing when a
// command is to run.
std::optional<int> parse(CLI::App& app, int argc, char** argv) {
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
  return std::nullopt;
}

// Runs the subcommand that was given.
int dispatch(Commands& c) {
  if (*c.part_cmd) {
    std::cout << engine::partition_for_key(c.key, c.partitions) << "\n";
    return kExitPass;
  }
  if (*c.check_cmd) return check_command(c.check);
  if (*c.serve_cmd) return cli::serve_command(c.serve);
  if (*c.fuzz_cmd) return cli::fuzz_command(c.fuzz);
  if (*c.replay_cmd) return cli::replay_command(c.replay_file);
  if (*c.merge_cmd) return cli::merge_command(c.merge);
  if (*c.report_cmd) return cli::report_command(c.report_dir);
  if (*c.run_cmd && !c.run.list_plants && c.scenario_opt->count() == 0) {
    std::fprintf(stderr, "logsim run: the scenario file is required (logsim run SCENARIO.json)\n");
    return kExitBadInput;
  }
  if (c.seed_opt->count() > 0) c.run.seed = c.seed;
  if (c.run.trace && c.run.out.empty()) {
    std::fprintf(stderr, "logsim: --trace writes trace.jsonl into the --out directory; give --out DIR too\n");
    return kExitBadInput;
  }
  return cli::run_command(c.run);
}

// dispatch(), with the exceptions that reach the command line turned into messages and exit
// codes: bad input 2, a broken engine invariant (a finding) or anything else 70.
int dispatch_reporting_errors(Commands& c, int argc, char** argv) {
  try {
    return dispatch(c);
  } catch (const scenarios::ScenarioError& e) {
    std::fprintf(stderr, "logsim: %s\n", e.what());
    return kExitBadInput;
  } catch (const reports::HistoryFileError& e) {
    std::fprintf(stderr, "logsim: %s\n", e.what());
    return kExitBadInput;
  } catch (const InvariantError& e) {
    // logsim run reports its own with the seed it used; for the other commands (check, replay,
    // fuzz) the command as given reproduces it.
    std::string command = reports::shell_word(reports::program_name());
    for (int i = 1; i < argc; ++i) command += " " + reports::shell_word(argv[i]);
    std::fprintf(stderr, "logsim: INTERNAL ERROR (an engine invariant broke; this is a finding): %s\n  reproduce: %s\n", e.what(),
                 command.c_str());
    return kExitInternal;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "logsim: internal error: %s\n", e.what());
    return kExitInternal;
  }
}

}  // namespace

namespace logsim {

int main(int argc, char** argv) {
  if (argc > 0 && argv[0] != nullptr && *argv[0] != '\0') {
    const std::string_view path(argv[0]);
    reports::set_program_name(std::string(path.substr(path.find_last_of('/') + 1)));
  }
  CLI::App app{"logsim: deterministic simulation and testing of Kafka-style logs"};
  app.require_subcommand(1);
  Commands commands;
  add_run_command(app, commands);
  add_check_command(app, commands);
  add_fuzz_command(app, commands);
  add_small_commands(app, commands);
  add_serve_command(app, commands);
  if (const std::optional<int> code = parse(app, argc, argv)) return *code;
  return dispatch_reporting_errors(commands, argc, argv);
}

}  // namespace logsim

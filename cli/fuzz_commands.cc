// logsim fuzz and logsim replay: argument handling, progress, and what they write.
#include "cli/fuzz_commands.h"

#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "api/app.h"
#include "api/app_registry.h"
#include "api/logsim.h"
#include "cli/exit_codes.h"
#include "cli/shard.h"
#include "engine/base/assert.h"
#include "engine/plants.h"
#include "fuzz/fuzz.h"
#include "fuzz/plant_campaigns.h"
#include "reports/atomic_file.h"
#include "reports/run_dir.h"
#include "reports/summary.h"
#include "scenarios/loader.h"

namespace logsim::cli {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_sigint(int) { g_interrupted.store(true); }

std::string seconds_text(double s) {
  if (s < 90) return fmt::format("{:.1f}s", s);
  if (s < 5400) return fmt::format("{:.0f}m{:02.0f}s", s / 60 - 0.5, static_cast<double>(static_cast<long>(s) % 60));
  return fmt::format("{:.1f}h", s / 3600);
}

// The progress line: rewritten in place on a terminal, a plain line every few seconds otherwise.
class ProgressPrinter {
 public:
  explicit ProgressPrinter(bool quiet) : quiet_(quiet), tty_(isatty(fileno(stderr)) != 0) {}

  void operator()(const fuzz::FuzzProgress& p) {
    if (quiet_) return;
    std::string line;
    if (p.shrinking) {
      line = fmt::format("fuzz: shrinking the failure ({} runs)", p.shrink_runs);
    } else {
      const double rate = p.elapsed_s > 0 ? static_cast<double>(p.done) / p.elapsed_s : 0;
      std::string left;
      if (p.total > 0 && rate > 0) left = ", ~" + seconds_text(static_cast<double>(p.total - p.done) / rate) + " left";
      else if (p.budget_s > 0) left = ", " + seconds_text(std::max(0.0, p.budget_s - p.elapsed_s)) + " left";
      line = fmt::format("fuzz: {}{} seeds, {} failure{}, {:.1f} seeds/s{}", p.done, p.total > 0 ? "/" + std::to_string(p.total) : "",
                         p.failures, p.failures == 1 ? "" : "s", rate, left);
    }
    if (tty_) {
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
      dirty_ = true;
    } else if (p.elapsed_s - last_ >= 5 || (p.shrinking && !said_shrinking_)) {
      std::fprintf(stderr, "%s\n", line.c_str());
      last_ = p.elapsed_s;
      said_shrinking_ = said_shrinking_ || p.shrinking;
    }
  }
  void finish() {
    if (dirty_) std::fprintf(stderr, "\r\033[K");
    dirty_ = false;
  }

 private:
  bool quiet_, tty_;
  bool dirty_ = false, said_shrinking_ = false;
  double last_ = 0;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw scenarios::ScenarioError(path, "", "cannot read the file", "a readable scenario file");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// logsim fuzz --list-plants: every plant, and the campaign that finds it where there is one.
void print_plants() {
  for (const auto& p : all_plants()) {
    std::cout << fmt::format("{:30} {} (found as {}{}{})\n", p.name, p.description, p.anomaly, p.also.empty() ? "" : " or ", p.also);
    if (const auto* c = fuzz::campaign_for(p.plant)) {
      std::cout << fmt::format("{:30} find it: {}\n", "", fuzz::campaign_command(*c));
    } else {
      std::cout << fmt::format("{:30} find it: no campaign has (engine/plants.h says why)\n", "");
    }
  }
}

// The campaign's options from the arguments; nullopt, having said why on stderr, when an
// argument is bad (exit 2). A template that does not load throws its ScenarioError.
std::optional<fuzz::FuzzOptions> fuzz_options(const FuzzArgs& args) {
  fuzz::FuzzOptions o;
  for (const auto& name : args.plants) {
    if (!plant_by_name(name)) {
      std::string all;
      for (const auto& info : all_plants()) all += std::string(all.empty() ? "" : ", ") + std::string(info.name);
      std::fprintf(stderr, "logsim fuzz: unknown plant \"%s\"; expected one of %s (logsim fuzz --list-plants)\n", name.c_str(), all.c_str());
      return std::nullopt;
    }
  }
  o.plants = args.plants;
  if (!args.faults.empty()) {
    std::string unknown;
    o.shape.kinds = fuzz::fault_kinds(args.faults, &unknown);
    if (!unknown.empty()) {
      std::string all;
      for (const std::string& k : scenarios::fault_kind_names()) all += (all.empty() ? "" : ", ") + k;
      std::fprintf(stderr, "logsim fuzz: --faults: unknown fault kind \"%s\"; expected a comma-separated list of %s\n", unknown.c_str(), all.c_str());
      return std::nullopt;
    }
  }
  if (!args.time.empty()) {
    auto t = scenarios::parse_duration(args.time);
    if (!t || *t <= 0) {
      std::fprintf(stderr, "logsim fuzz: --time \"%s\" is not a duration; expected e.g. 30s, 5m, 1h\n", args.time.c_str());
      return std::nullopt;
    }
    o.time_budget_s = static_cast<double>(*t) / 1e9;
  }
  o.seeds = args.seeds > 0 ? args.seeds : (o.time_budget_s > 0 ? 0 : 100);
  if (args.shard) {
    std::string error;
    const std::optional<Shard> shard = parse_shard(*args.shard, error);
    if (!shard) {
      std::fprintf(stderr, "logsim fuzz: %s\n", error.c_str());
      return std::nullopt;
    }
    o.shard_index = shard->index;
    o.shard_count = shard->count;
  }
  o.first_seed = args.first_seed;
  o.jobs = args.jobs;
  o.keep_going = args.keep_going;
  o.shrink = !args.no_shrink;
  o.shrink_max_runs = args.shrink_runs;
  o.interrupted = &g_interrupted;
  o.command = "logsim fuzz";
  o.user = logsim::detail::registered_user_code();
  if (!args.template_file.empty()) {
    scenarios::load_scenario_file(args.template_file, logsim::registered_apps());  // strict: a bad template is exit 2 now, not 100 times later
    o.template_doc = nlohmann::json::parse(read_text(args.template_file));
    o.template_file = args.template_file;
    o.command += " " + args.template_file;
  }
  for (const auto& p : args.plants) o.command += " --plant " + p;
  if (!args.faults.empty()) o.command += " --faults " + args.faults;
  return o;
}

// The campaign, with the progress line on stderr; Ctrl-C stops the search (what was found is
// still shrunk and written).
fuzz::FuzzReport run_campaign(const fuzz::FuzzOptions& o, bool quiet) {
  std::signal(SIGINT, on_sigint);
  ProgressPrinter printer(quiet);
  fuzz::FuzzReport r = fuzz::fuzz(o, [&](const fuzz::FuzzProgress& p) { printer(p); });
  printer.finish();
  std::signal(SIGINT, SIG_DFL);
  return r;
}

// Writes the failure into `dir`: seed-N.json (shrunk, with "found"), seed-N.original.json and,
// unless an invariant broke, the run's files in seed-N/. Returns an error, or "".
std::string write_failure(const fuzz::FuzzFailure& f, const std::string& dir) {
  const std::string base = dir + "/seed-" + std::to_string(f.seed);
  std::string err = reports::write_file_atomically(base + ".json", f.shrunk.dump(2) + "\n");
  if (err.empty()) err = reports::write_file_atomically(base + ".original.json", f.original.dump(2) + "\n");
  if (err.empty() && f.error.empty()) {
    scenarios::RunResult result = f.shrunk_run.result;
    result.file = base + ".json";  // the reports name the saved scenario, which reproduces the run
    reports::RunDirOptions files;
    files.junit_suite = "logsim fuzz";
    err = reports::write_run_dir(base, result, f.shrunk_run, files);
  }
  return err;
}

nlohmann::json size_json(const fuzz::ScenarioSize& s) {
  return {{"timeline_steps", s.timeline_steps}, {"members", s.members}, {"records", s.records}};
}

// fuzz.json: the campaign and, when one was found, its failure (`written`: the saved scenario).
nlohmann::json campaign_json(const fuzz::FuzzOptions& o, const fuzz::FuzzReport& r, const std::string& written) {
  nlohmann::json campaign{{"command", o.command},
                          {"seeds_run", r.seeds_run},
                          {"first_seed", o.first_seed},
                          {"jobs", o.jobs},
                          {"confirmed_deterministic", r.confirmed},
                          {"failing_seeds", r.failing_seeds},
                          {"nondeterministic_seeds", nlohmann::json::array()},
                          {"search_s", r.search_s},
                          {"shrink_s", r.shrink_s},
                          {"interrupted", r.interrupted}};
  for (const auto& n : r.nondeterminism) campaign["nondeterministic_seeds"].push_back(n.seed);
  if (!r.sometimes.empty()) {
    campaign["sometimes"] = nlohmann::json::array();
    for (const auto& [message, s] : r.sometimes) {
      campaign["sometimes"].push_back({{"message", message}, {"reached_seeds", s.reached}, {"held_seeds", s.held}});
    }
  }
  if (o.shard_count > 1) campaign["shard"] = {{"index", o.shard_index}, {"count", o.shard_count}};
  if (r.failure) {
    const auto& f = *r.failure;
    campaign["failure"] = {{"seed", f.seed},
                           {"anomaly", f.anomaly},
                           {"scenario", written},
                           {"shrink_runs", f.shrink_runs},
                           {"shrink_steps", f.shrink_steps},
                           {"shrink_complete", f.shrink_complete},
                           {"original_size", size_json(f.original_size)},
                           {"shrunk_size", size_json(f.shrunk_size)}};
  }
  return campaign;
}

// The human summary's lines about the failure: what it is, how far it shrank, where it is.
void print_failure(const fuzz::FuzzReport& r, const std::string& written, const std::string& dir) {
  const auto& f = *r.failure;
  std::cout << fmt::format("  FAILURE      seed {}: {}", f.seed, f.anomaly);
  if (r.failing_seeds.size() > 1) std::cout << fmt::format(" (and {} more failing seed(s))", r.failing_seeds.size() - 1);
  std::cout << "\n";
  if (!f.error.empty()) std::cout << "  error        " << f.error << "\n";
  else if (!f.shrunk_run.result.verdict.violations.empty()) {
    const auto& v = f.shrunk_run.result.verdict.violations.front();
    std::cout << fmt::format("  first        {} at {:.3f}s: {}\n", v.anomaly, static_cast<double>(v.at) / 1e9, v.explanation);
  }
  std::cout << fmt::format("  shrunk       from {}\n               to   {}\n               ({} runs, {} smaller, {}{})\n",
                           f.original_size.text(), f.shrunk_size.text(), f.shrink_runs, f.shrink_steps, seconds_text(r.shrink_s),
                           f.shrink_complete ? "" : "; budget spent before a fixed point");
  std::cout << "  scenario     " << written << "\n";
  if (f.error.empty()) std::cout << "  report       " << dir << "/seed-" << f.seed << "/report.html\n";
  const std::string program = reports::shell_word(reports::program_name());
  std::cout << "  reproduce    " << program << " run " << written << "   (" << program << " replay " << written
            << " confirms the trace)\n";
}

// The human summary: the search, determinism, and the verdict or the failure.
void print_summary(const fuzz::FuzzOptions& o, const fuzz::FuzzReport& r, const std::string& written, const std::string& dir) {
  const double rate = r.search_s > 0 ? static_cast<double>(r.seeds_run) / r.search_s : 0;
  const std::string from = o.shard_count > 1 ? fmt::format("{} + {}k (shard {}/{})", o.first_seed + static_cast<std::uint64_t>(o.shard_index),
                                                            o.shard_count, o.shard_index, o.shard_count)
                                             : std::to_string(o.first_seed);
  std::cout << fmt::format("logsim fuzz: {} seed{} from {} in {} ({:.1f} seeds/s, {} job{}){}\n", r.seeds_run, r.seeds_run == 1 ? "" : "s",
                           from, seconds_text(r.search_s), rate, o.jobs, o.jobs == 1 ? "" : "s", r.interrupted ? " — interrupted" : "");
  std::cout << fmt::format("  determinism  {} seed{} run twice to the same trace hash\n", r.confirmed, r.confirmed == 1 ? "" : "s");
  for (const auto& n : r.nondeterminism) {
    std::cout << fmt::format("  NONDETERMINISM seed {}: trace {} then {}\n", n.seed, reports::trace_hash_hex(n.first_hash),
                             reports::trace_hash_hex(n.second_hash));
  }
  for (const auto& [message, s] : r.sometimes) std::cout << "  " << sometimes_line(message, s.reached, s.held) << "\n";
  if (!r.failure) {
    std::cout << (r.failing_seeds.empty() ? "  verdict      PASS: no property was violated\n" : "");
  } else {
    print_failure(r, written, dir);
  }
}

// Nondeterminism first; else the saved scenario's verdict, as logsim run and logsim replay of
// it exit.
int campaign_exit(const fuzz::FuzzReport& r) {
  if (!r.nondeterminism.empty()) return kExitNondeterminism;
  if (r.failure) return r.failure->error.empty() ? exit_code(r.failure->shrunk_run.result.verdict.outcome) : kExitInternal;
  return kExitPass;
}

// What defines a fuzz sweep, for shard.json: two shards are of one sweep when these agree (the
// time budget may differ: each shard stops on its own clock).
nlohmann::json fuzz_sweep(const fuzz::FuzzOptions& o, const FuzzArgs& args) {
  return {{"command", o.command},
          {"template_digest", o.template_file.empty() ? "" : file_digest(o.template_file)},
          {"first_seed", o.first_seed},
          {"seeds", o.seeds},  // 0: as many as the time budget allows
          {"keep_going", o.keep_going},
          {"shrink", o.shrink},
          {"shrink_runs", args.shrink_runs}};
}

// A shard's files: fuzz.json always (a shard that found nothing must still show that it ran),
// and shard.json. Returns an error, or "".
std::string write_shard_files(const fuzz::FuzzOptions& o, const FuzzArgs& args, const nlohmann::json& campaign, int code) {
  std::string err = reports::write_file_atomically(args.out + "/fuzz.json", campaign.dump(2) + "\n");
  if (!err.empty()) return err;
  nlohmann::json manifest = shard_manifest("fuzz", fuzz_sweep(o, args), Shard{o.shard_index, o.shard_count});
  manifest["exit_code"] = code;
  return reports::write_file_atomically(args.out + "/shard.json", manifest.dump(2) + "\n");
}

}  // namespace

int fuzz_command(const FuzzArgs& args) {
  if (args.list_plants) {
    print_plants();
    return kExitPass;
  }
  const std::optional<fuzz::FuzzOptions> options = fuzz_options(args);
  if (!options) return kExitBadInput;
  const fuzz::FuzzOptions& o = *options;
  if (args.show_case >= 0) {
    std::cout << fuzz::fuzz_case_doc(o, static_cast<std::uint64_t>(args.show_case)).dump(2) << "\n";
    return kExitPass;
  }
  const fuzz::FuzzReport r = run_campaign(o, args.quiet);

  // What was found is written before anything is printed about it.
  std::string written, err;
  const std::string& dir = args.out;
  if (r.failure) {
    err = write_failure(*r.failure, dir);
    written = dir + "/seed-" + std::to_string(r.failure->seed) + ".json";
  }
  const nlohmann::json campaign = campaign_json(o, r, written);
  if (args.shard) {
    if (err.empty()) err = write_shard_files(o, args, campaign, campaign_exit(r));
  } else if (err.empty() && (r.failure || !r.nondeterminism.empty())) {
    err = reports::write_file_atomically(dir + "/fuzz.json", campaign.dump(2) + "\n");
  }
  if (!err.empty()) {
    std::fprintf(stderr, "logsim: %s\n", err.c_str());
    return kExitInternal;
  }
  if (args.json) std::cout << campaign.dump(2) << "\n";
  else if (!args.quiet) print_summary(o, r, written, dir);
  return campaign_exit(r);
}

int replay_command(const std::string& file) {
  const scenarios::Scenario s = scenarios::load_scenario_file(file, logsim::registered_apps());
  if (!s.found) {
    std::fprintf(stderr, "logsim replay: %s has no \"found\" section, so there is nothing to confirm: replay re-runs failures "
                         "saved by logsim fuzz. To run a scenario, use logsim run %s\n", file.c_str(), file.c_str());
    return kExitBadInput;
  }
  const scenarios::Found& saved = *s.found;
  std::string verdict, hash, error;
  std::vector<std::string> anomalies;
  scenarios::RunOutput out;
  int code = kExitInternal;  // what the run now shows, whether or not it is what was saved
  try {
    out = logsim::run(s);  // with the seed it was saved with
    code = exit_code(out.result.verdict.outcome);
    verdict = std::string(properties::outcome_name(out.result.verdict.outcome));
    hash = reports::trace_hash_hex(out.result.trace_hash);
    for (const auto& v : out.result.verdict.violations) {
      if (std::find(anomalies.begin(), anomalies.end(), v.anomaly) == anomalies.end()) anomalies.push_back(v.anomaly);
    }
  } catch (const InvariantError& e) {
    verdict = "internal-error";  // no checker anomalies, as logsim fuzz saves it
    error = e.what();
  }
  auto list = [](const std::vector<std::string>& a) {
    std::string text;
    for (const auto& x : a) text += (text.empty() ? "" : ", ") + x;
    return text.empty() ? std::string("none") : text;
  };
  std::cout << fmt::format("logsim replay: {} (seed {})\n", file, s.seed);
  if (!saved.by.empty()) std::cout << "  found by   " << saved.by << "\n";
  std::cout << fmt::format("  saved      {} ({}){}\n", saved.verdict, list(saved.anomalies), saved.trace_hash.empty() ? "" : ", trace " + saved.trace_hash);
  std::cout << fmt::format("  now        {} ({}){}\n", verdict, list(anomalies), hash.empty() ? "" : ", trace " + hash);
  if (!error.empty()) std::cout << "  error      " << error << "\n";
  const bool same_verdict = verdict == saved.verdict && anomalies == saved.anomalies;
  if (same_verdict && hash == saved.trace_hash) {
    std::cout << "  REPRODUCED bit-for-bit: the same verdict and the same trace hash\n";
    return code;
  }
  if (same_verdict) {
    std::cout << "  SAME VERDICT, DIFFERENT TRACE: a different build of logsim ran it, or the run is not deterministic "
                 "(logsim run " << file << " --check-determinism tells which)\n";
    return kExitNondeterminism;
  }
  std::cout << "  NOT REPRODUCED: the run now ends differently (fixed, or a different build)\n";
  return code;
}

std::string sometimes_line(const std::string& message, std::int64_t reached, std::int64_t held) {
  if (held == 0) return fmt::format("sometimes    NEVER HELD: \"{}\" (evaluated in {} seed{}, true in none)", message, reached, reached == 1 ? "" : "s");
  return fmt::format("sometimes    \"{}\": held in {} of the {} seed{} that evaluated it", message, held, reached, reached == 1 ? "" : "s");
}

}  // namespace logsim::cli

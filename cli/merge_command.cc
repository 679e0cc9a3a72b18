// logsim merge (see merge_command.h).
#include "cli/merge_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
#include "cli/fuzz_commands.h"
#include "cli/shard.h"
#include "reports/atomic_file.h"
#include "reports/junit.h"

namespace logsim::cli {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Bad input: the shards do not make one sweep, or a file in them is not what logsim wrote.
struct MergeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

constexpr std::string_view kWhatADirIs =
    "expected the --out directory of logsim run --shard I/N or logsim fuzz --shard I/N";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw MergeError(fmt::format("{} cannot be read; {}", path, kWhatADirIs));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

json read_json(const std::string& path) {
  try {
    return json::parse(read_file(path));
  } catch (const json::parse_error& e) {
    throw MergeError(fmt::format("{}: not JSON ({}); {}", path, e.what(), kWhatADirIs));
  }
}

// One shard's directory and its shard.json.
struct ShardDir {
  std::string dir;
  json manifest;
  Shard shard;
  int exit_code = 0;
};

// `v` at JSON pointer `pointer` in `file`, required to be an integer in [lo, hi].
std::int64_t integer_at(const json& doc, const std::string& file, const std::string& pointer, std::int64_t lo, std::int64_t hi) {
  const json::json_pointer p(pointer);
  if (!doc.contains(p) || !doc.at(p).is_number_integer()) {
    throw MergeError(fmt::format("{}: {}: missing or not an integer; expected the shard.json logsim writes with --shard", file, pointer));
  }
  const auto v = doc.at(p).get<std::int64_t>();
  if (v < lo || v > hi) throw MergeError(fmt::format("{}: {}: {} is out of range; expected {} to {}", file, pointer, v, lo, hi));
  return v;
}

ShardDir load_shard(const std::string& dir) {
  const std::string file = dir + "/shard.json";
  ShardDir s{dir, read_json(file), {}, 0};
  const json& m = s.manifest;
  if (!m.is_object()) throw MergeError(fmt::format("{}: not an object; {}", file, kWhatADirIs));
  integer_at(m, file, "/version", kShardVersion, kShardVersion);
  const std::string kind = m.value("kind", "");
  if (kind != "run" && kind != "fuzz") {
    throw MergeError(fmt::format("{}: /kind: \"{}\"; expected \"run\" or \"fuzz\"", file, kind));
  }
  if (!m.contains("sweep") || !m["sweep"].is_object() || !m.contains("sweep_id") || !m["sweep_id"].is_string()) {
    throw MergeError(fmt::format("{}: /sweep and /sweep_id are missing; {}", file, kWhatADirIs));
  }
  s.shard.count = integer_at(m, file, "/shard/count", 1, kShardCountMax);
  s.shard.index = integer_at(m, file, "/shard/index", 0, s.shard.count - 1);
  s.exit_code = static_cast<int>(integer_at(m, file, "/exit_code", 0, 255));
  return s;
}

// The first key in which two sweeps differ, with both values, for the message that refuses them.
std::string first_difference(const json& a, const json& b) {
  for (const auto& [key, value] : a.items()) {
    if (!b.contains(key) || b[key] != value) {
      std::string theirs = b.contains(key) ? b[key].dump() : "nothing";
      std::string ours = value.dump();
      if (ours.size() > 200) ours = ours.substr(0, 200) + "...";
      if (theirs.size() > 200) theirs = theirs.substr(0, 200) + "...";
      return fmt::format("\"{}\" is {} in one and {} in the other", key, ours, theirs);
    }
  }
  return "they differ in a key the first does not have";
}

// Every shard of one sweep, each once: else a MergeError that says which directories clash.
void check_one_sweep(const std::vector<ShardDir>& shards) {
  const ShardDir& first = shards.front();
  std::map<std::int64_t, const ShardDir*> seen;
  for (const ShardDir& s : shards) {
    if (s.manifest["kind"] != first.manifest["kind"]) {
      throw MergeError(fmt::format("{} holds a logsim {} shard and {} a logsim {} shard; merge the shards of one sweep", first.dir,
                                   first.manifest["kind"].get<std::string>(), s.dir, s.manifest["kind"].get<std::string>()));
    }
    if (s.manifest["sweep_id"] != first.manifest["sweep_id"]) {
      throw MergeError(fmt::format("{} and {} are shards of different sweeps ({}); merge the shards of one sweep, run with the same "
                                   "arguments and files",
                                   first.dir, s.dir, first_difference(first.manifest["sweep"], s.manifest["sweep"])));
    }
    if (s.shard.count != first.shard.count) {
      throw MergeError(fmt::format("{} is shard {} and {} is shard {}: one sweep cut into different numbers of shards overlaps; merge "
                                   "shards with the same N",
                                   first.dir, first.shard.text(), s.dir, s.shard.text()));
    }
    if (s.manifest.value("build", "") != first.manifest.value("build", "")) {
      std::fprintf(stderr, "logsim merge: warning: %s and %s were run by different builds of logsim; their trace hashes need not agree "
                           "with one machine's\n", first.dir.c_str(), s.dir.c_str());
    }
    const auto [at, fresh] = seen.emplace(s.shard.index, &s);
    if (!fresh) {
      throw MergeError(fmt::format("{} and {} are both shard {} (overlapping shards); give each shard once", at->second->dir, s.dir,
                                   s.shard.text()));
    }
  }
}

// The shards of the sweep that are not here, as "I/N".
std::vector<std::string> missing_shards(const std::vector<ShardDir>& shards) {
  std::set<std::int64_t> have;
  for (const auto& s : shards) have.insert(s.shard.index);
  std::vector<std::string> missing;
  for (std::int64_t i = 0; i < shards.front().shard.count; ++i) {
    if (!have.contains(i)) missing.push_back(Shard{i, shards.front().shard.count}.text());
  }
  return missing;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

// The files merge writes itself; everything else in a shard's directory (the reports of failing
// runs, a fuzz failure's scenarios) is copied as it is.
bool merged_not_copied(const fs::path& rel) {
  static const std::set<std::string> names{"shard.json", "runs.json", "junit.xml", "fuzz.json", "merge.json"};
  return rel.has_parent_path() == false && names.contains(rel.filename().string());
}

// Each shard's other files, to be copied into `out`: destination -> source. Two shards that both
// hold a file overlap (each run's report lies under its own scenario and seed).
std::map<std::string, std::string> reports_to_copy(const std::vector<ShardDir>& shards, const std::string& out) {
  std::map<std::string, std::string> copies;
  std::map<std::string, std::string> from;  // relative path -> the shard directory it came from
  for (const auto& s : shards) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(s.dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_regular_file()) continue;
      const fs::path rel = fs::relative(it->path(), s.dir);
      if (merged_not_copied(rel) || rel.filename().string().find(".tmp.") != std::string::npos) continue;
      const auto [at, fresh] = from.emplace(rel.string(), s.dir);
      if (!fresh) throw MergeError(fmt::format("{} and {} both hold {} (overlapping shards)", at->second, s.dir, rel.string()));
      copies.emplace((fs::path(out) / rel).string(), it->path().string());
    }
    if (ec) throw MergeError(fmt::format("{}: cannot be listed ({})", s.dir, ec.message()));
  }
  return copies;
}

// The exit code a run in runs.json had in its batch (run_commands.cc's rules).
int run_exit(const json& run) {
  if (run.value("nondeterministic", false)) return kExitNondeterminism;
  if (!run.value("error", std::string()).empty()) return kExitInternal;
  if (run.value("expectation_met", false)) return kExitPass;
  const std::string verdict = run.value("verdict", "");
  return verdict == "liveness" ? kExitLiveness : kExitViolated;
}

struct Merged {
  int exit_code = kExitPass;
  std::map<std::string, std::string> files;  // path -> contents, written once all is known to fit
  json record;  // what merge.json says besides the shards
  std::vector<std::string> lines;  // the tally, for the terminal
};

// The runs of every shard, in the sweep's order, as runs.json and junit.xml.
Merged merge_runs(const std::vector<ShardDir>& shards, const std::string& out) {
  std::map<std::int64_t, std::pair<json, std::string>> by_number;  // sweep number -> run, junit case
  const std::int64_t total = shards.front().manifest.value("runs_total", std::int64_t{-1});
  for (const auto& s : shards) {
    const json runs = read_json(s.dir + "/runs.json");
    const auto cases = reports::junit_cases(read_file(s.dir + "/junit.xml"));
    const json& numbers = s.manifest.value("runs", json::array());
    if (!runs.is_array() || !cases || runs.size() != numbers.size() || cases->size() != numbers.size()) {
      throw MergeError(fmt::format("{}: runs.json, junit.xml and shard.json's /runs do not list the same runs; {}", s.dir, kWhatADirIs));
    }
    for (std::size_t k = 0; k < numbers.size(); ++k) {
      const auto n = integer_at(s.manifest, s.dir + "/shard.json", fmt::format("/runs/{}", k), 0, total - 1);
      if (!s.shard.has(n)) throw MergeError(fmt::format("{}/shard.json: /runs/{}: run {} is not in shard {}", s.dir, k, n, s.shard.text()));
      if (!by_number.emplace(n, std::make_pair(runs[k], (*cases)[k])).second) {
        throw MergeError(fmt::format("{}/shard.json: /runs/{}: run {} is also in another shard (overlapping shards)", s.dir, k, n));
      }
    }
  }
  Merged m;
  json runs = json::array();
  std::vector<std::string> cases;
  std::int64_t failed = 0;
  for (auto& [n, run] : by_number) {
    const int code = run_exit(run.first);
    m.exit_code = worse_exit(m.exit_code, code);
    if (code != kExitPass) {
      ++failed;
      m.lines.push_back(fmt::format("FAIL  {} seed {}  {}  {}", run.first.value("file", ""), run.first.value("seed", 0),
                                    run.first.value("trace_hash", ""), run.first.value("verdict", "")));
    }
    runs.push_back(std::move(run.first));
    cases.push_back(std::move(run.second));
  }
  for (const auto& s : shards) m.exit_code = worse_exit(m.exit_code, s.exit_code);
  m.files[out + "/runs.json"] = runs.dump(2) + "\n";
  m.files[out + "/junit.xml"] = reports::junit_xml_from_cases("logsim run", cases);
  m.record = {{"runs_total", total}, {"runs_merged", runs.size()}, {"runs_failed", failed}};
  m.lines.insert(m.lines.begin(), fmt::format("{} of {} runs: {} as expected, {} not", runs.size(), total,
                                              static_cast<std::int64_t>(runs.size()) - failed, failed));
  return m;
}

// The shards' fuzz.json files as one campaign: the failure is the lowest failing seed's, as one
// machine reports it, and each `sometimes` assertion's seeds are summed over the shards.
Merged merge_fuzz(const std::vector<ShardDir>& shards, const std::string& out) {
  const json& sweep = shards.front().manifest["sweep"];
  json campaign{{"command", sweep.value("command", "")}, {"first_seed", sweep.value("first_seed", 0)}, {"seeds_run", 0}, {"jobs", 0},
                {"confirmed_deterministic", 0}, {"failing_seeds", json::array()}, {"nondeterministic_seeds", json::array()},
                {"search_s", 0.0}, {"shrink_s", 0.0}, {"interrupted", false}};
  std::set<std::uint64_t> failing, nondeterministic;
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> sometimes;  // message -> seeds reached, held
  const ShardDir* lowest = nullptr;
  json failure;
  for (const auto& s : shards) {
    const json c = read_json(s.dir + "/fuzz.json");
    if (!c.is_object() || !c.contains("seeds_run")) throw MergeError(fmt::format("{}/fuzz.json: not a campaign; {}", s.dir, kWhatADirIs));
    campaign["seeds_run"] = campaign["seeds_run"].get<std::int64_t>() + c.value("seeds_run", std::int64_t{0});
    campaign["jobs"] = campaign["jobs"].get<std::int64_t>() + c.value("jobs", std::int64_t{0});
    campaign["confirmed_deterministic"] = campaign["confirmed_deterministic"].get<std::int64_t>() + c.value("confirmed_deterministic", std::int64_t{0});
    campaign["search_s"] = std::max(campaign["search_s"].get<double>(), c.value("search_s", 0.0));
    campaign["shrink_s"] = std::max(campaign["shrink_s"].get<double>(), c.value("shrink_s", 0.0));
    campaign["interrupted"] = campaign["interrupted"].get<bool>() || c.value("interrupted", false);
    for (const auto& seed : c.value("failing_seeds", json::array())) failing.insert(seed.get<std::uint64_t>());
    for (const auto& seed : c.value("nondeterministic_seeds", json::array())) nondeterministic.insert(seed.get<std::uint64_t>());
    for (const auto& a : c.value("sometimes", json::array())) {
      auto& [reached, held] = sometimes[a.at("message").get<std::string>()];
      reached += a.at("reached_seeds").get<std::int64_t>();
      held += a.at("held_seeds").get<std::int64_t>();
    }
    if (c.contains("failure") && (lowest == nullptr || c["failure"]["seed"].get<std::uint64_t>() < failure["seed"].get<std::uint64_t>())) {
      lowest = &s;
      failure = c["failure"];
    }
  }
  campaign["failing_seeds"] = failing;
  campaign["nondeterministic_seeds"] = nondeterministic;
  Merged m;
  if (!nondeterministic.empty()) m.exit_code = kExitNondeterminism;
  else if (lowest != nullptr) m.exit_code = lowest->exit_code;
  m.lines.push_back(fmt::format("{} seeds, {} failing, {} nondeterministic", campaign["seeds_run"].get<std::int64_t>(), failing.size(),
                                nondeterministic.size()));
  if (!sometimes.empty()) campaign["sometimes"] = json::array();
  for (const auto& [message, tally] : sometimes) {
    campaign["sometimes"].push_back({{"message", message}, {"reached_seeds", tally.first}, {"held_seeds", tally.second}});
    m.lines.push_back(sometimes_line(message, tally.first, tally.second));
  }
  if (lowest != nullptr) {
    const std::string seed = std::to_string(failure["seed"].get<std::uint64_t>());
    failure["scenario"] = out + "/seed-" + seed + ".json";
    campaign["failure"] = failure;
    m.lines.push_back(fmt::format("FAILURE seed {}: {} (from shard {})", seed, failure.value("anomaly", ""), lowest->shard.text()));
    m.lines.push_back(fmt::format("reproduce: logsim run {}/seed-{}.json", out, seed));
  }
  m.files[out + "/fuzz.json"] = campaign.dump(2) + "\n";
  m.record = {{"seeds_run", campaign["seeds_run"]}};
  return m;
}

// --out must not be a shard's own directory, whose files merging would overwrite.
void check_out(const MergeArgs& args) {
  if (args.out.empty()) throw MergeError("--out DIR is required: where the merged runs.json, junit.xml or fuzz.json go");
  std::error_code ec;
  for (const auto& d : args.dirs) {
    if (fs::weakly_canonical(d, ec) == fs::weakly_canonical(args.out, ec)) {
      throw MergeError(fmt::format("--out {} is one of the shards; give a directory of its own", args.out));
    }
  }
}

int merge(const MergeArgs& args) {
  check_out(args);
  std::vector<ShardDir> shards;
  for (const auto& d : args.dirs) shards.push_back(load_shard(d));
  check_one_sweep(shards);
  const std::vector<std::string> missing = missing_shards(shards);
  if (!missing.empty() && !args.partial) {
    throw MergeError(fmt::format("shard{} {} of the sweep {} missing (merge every shard from 0/{} to {}/{}, or pass --partial to merge "
                                 "those at hand)",
                                 missing.size() == 1 ? "" : "s", joined(missing), missing.size() == 1 ? "is" : "are",
                                 shards.front().shard.count, shards.front().shard.count - 1, shards.front().shard.count));
  }
  std::sort(shards.begin(), shards.end(), [](const ShardDir& a, const ShardDir& b) { return a.shard.index < b.shard.index; });
  const bool run = shards.front().manifest["kind"] == "run";
  const std::map<std::string, std::string> copies = reports_to_copy(shards, args.out);
  Merged m = run ? merge_runs(shards, args.out) : merge_fuzz(shards, args.out);
  const json& first = shards.front().manifest;
  json record{{"version", kShardVersion}, {"kind", first["kind"]}, {"sweep", first["sweep"]}, {"sweep_id", first["sweep_id"]}};
  record["shards"] = json::array();
  for (const auto& s : shards) {
    record["shards"].push_back({{"index", s.shard.index}, {"dir", s.dir}, {"exit_code", s.exit_code}, {"build", s.manifest.value("build", "")}});
  }
  record["shard_count"] = shards.front().shard.count;
  record["missing"] = missing;
  record.update(m.record);
  record["exit_code"] = m.exit_code;
  m.files[args.out + "/merge.json"] = record.dump(2) + "\n";
  // Everything was read and found to fit; only now is anything written, each file atomically.
  for (const auto& [to, from] : copies) m.files[to] = read_file(from);
  for (const auto& [path, contents] : m.files) {
    if (const std::string err = reports::write_file_atomically(path, contents); !err.empty()) throw std::runtime_error(err);
  }
  if (!args.quiet) {
    std::cout << fmt::format("logsim merge: {} of {} shard{} of a logsim {} sweep{}: ", shards.size(), shards.front().shard.count,
                             shards.front().shard.count == 1 ? "" : "s", run ? "run" : "fuzz",
                             missing.empty() ? "" : " (PARTIAL: missing " + joined(missing) + ")")
              << m.lines.front() << "\n";
    for (std::size_t i = 1; i < m.lines.size(); ++i) std::cout << "  " << m.lines[i] << "\n";
    std::cout << "  merged     " << args.out << (run ? "/runs.json, junit.xml" : "/fuzz.json") << ", merge.json\n";
  }
  return m.exit_code;
}

}  // namespace

int merge_command(const MergeArgs& args) {
  try {
    return merge(args);
  } catch (const MergeError& e) {
    std::fprintf(stderr, "logsim merge: %s\n", e.what());
    return kExitBadInput;
  } catch (const json::exception& e) {
    // A value of the wrong type where logsim writes a number, a string or an object.
    std::fprintf(stderr, "logsim merge: a shard's runs.json, fuzz.json or shard.json is not as logsim writes it (%s); %s\n", e.what(),
                 std::string(kWhatADirIs).c_str());
    return kExitBadInput;
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "logsim merge: %s\n", e.what());
    return kExitInternal;
  }
}

}  // namespace logsim::cli

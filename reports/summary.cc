// Rendering run results as summary.json and as the terminal summary.
#include "reports/summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>

namespace logsim::reports {

std::string trace_hash_hex(std::uint64_t hash) { return fmt::format("{:016x}", hash); }

std::string shell_word(const std::string& s) {
  const bool safe = !s.empty() && s.find_first_not_of(
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=@%+-") == std::string::npos;
  if (safe) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

namespace {
std::string& program_name_slot() {
  static std::string name = "logsim";
  return name;
}
}  // namespace

const std::string& program_name() { return program_name_slot(); }
void set_program_name(std::string name) { program_name_slot() = std::move(name); }

std::string replay_command(const scenarios::RunResult& r) {
  if (r.live) return "a live run is not reproducible from a seed: logsim check history.jsonl judges its history again";
  // A name in angle brackets is no file (api/logsim.h's kInCode, a fuzz candidate): no `logsim
  // run` line could work, so say how to run it again instead.
  if (!r.file.empty() && r.file.front() == '<') {
    return fmt::format("run the same scenario again with seed {} (it was built in code, so there is no file to replay)", r.seed);
  }
  std::string cmd = fmt::format("{} run {} --seed {}", shell_word(program_name()), shell_word(r.file), r.seed);
  for (const auto& p : r.cli_plants) cmd += " --plant " + p;
  return cmd;
}

nlohmann::json summary_json(const scenarios::RunResult& r, double wall_ms) {
  nlohmann::json j;
  j["version"] = kSummaryVersion;
  j["verdict"] = std::string(properties::outcome_name(r.verdict.outcome));
  j["expectation_met"] = r.expectation_met;
  j["expectation_detail"] = r.expectation_detail;
  j["scenario"] = r.scenario;
  j["file"] = r.file;
  j["seed"] = r.seed;
  j["trace_hash"] = trace_hash_hex(r.trace_hash);
  j["trace_events"] = r.trace_events;
  j["simulated_ms"] = to_millis(r.simulated_ns);
  j["wall_ms"] = wall_ms;
  j["stats"] = nlohmann::json::object();
  for (const auto& [k, v] : r.stats) j["stats"][k] = v;
  j["violations"] = nlohmann::json::array();
  for (const auto& v : r.verdict.violations) {
    nlohmann::json jv{{"anomaly", v.anomaly},       {"first_event", v.first_event}, {"at_ms", to_millis(v.at)},
                      {"process", v.process},       {"topic", v.topic},             {"partition", nullable(v.partition)},
                      {"offset", nullable(v.offset)},         {"members", v.members},         {"explanation", v.explanation}};
    jv["key"] = v.key ? nlohmann::json(*v.key) : nlohmann::json(nullptr);
    j["violations"].push_back(std::move(jv));
  }
  j["ignored"] = r.ignored;
  if (!r.findings.empty()) j["findings"] = r.findings;
  j["replay"] = replay_command(r);
  return j;
}

std::string terminal_summary(const scenarios::RunResult& r, double wall_ms) {
  const auto stat = [&](const std::string& k) {
    auto it = r.stats.find(k);
    return it == r.stats.end() ? std::int64_t{0} : it->second;
  };
  std::string verdict(properties::outcome_name(r.verdict.outcome));
  for (auto& c : verdict) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string out = fmt::format("logsim: {} (seed {})\n", r.scenario, r.seed);
  std::string note;
  if (!r.expectation_met) {
    note = "  — NOT AS EXPECTED: " + r.expectation_detail;
  } else if (r.verdict.outcome != properties::Outcome::kPass) {
    note = "  — as this scenario expects (it demonstrates the failure below)";
  }
  out += fmt::format("  verdict    {}{}\n", verdict, note);
  out += fmt::format("  trace      {} ({} events, {:.3f}s simulated, {:.0f}ms wall)\n", trace_hash_hex(r.trace_hash),
                     r.trace_events, static_cast<double>(r.simulated_ns) / 1e9, wall_ms);
  out += fmt::format("  records    sent {} · acknowledged {} · failed {} · unknown {}\n", stat("records.sent"),
                     stat("records.acknowledged"), stat("records.failed"), stat("records.unknown"));
  if (const auto begun = r.stats.find("transactions.begun"); begun != r.stats.end()) {
    // Begun but never ended (a crash, or still open at the end): their outcome is unknown too.
    const std::int64_t ended = stat("transactions.committed") + stat("transactions.aborted") + stat("transactions.unknown");
    out += fmt::format("  txns       begun {} · committed {} · aborted {} · unknown {}\n", begun->second,
                       stat("transactions.committed"), stat("transactions.aborted"),
                       stat("transactions.unknown") + std::max<std::int64_t>(0, begun->second - ended));
  }
  std::string processed;
  for (const auto& [k, v] : r.stats) {
    if (k.rfind("records.processed.", 0) == 0) processed += fmt::format("{}{} {}", processed.empty() ? "" : " · ", k.substr(18), v);
  }
  if (!processed.empty()) out += "  processed  " + processed + "\n";
  // One line per consumer group: its last generation, records processed, commits.
  for (const auto& [k, v] : r.stats) {
    if (k.rfind("group.", 0) != 0 || k.size() < 17 || k.compare(k.size() - 11, 11, ".generation") != 0) continue;
    const std::string g = k.substr(6, k.size() - 17);
    const auto get = [&](const std::string& what) {
      auto it = r.stats.find("group." + g + "." + what);
      return it == r.stats.end() ? std::int64_t{0} : it->second;
    };
    out += fmt::format("  group      {}: generation {} · processed {} · commits {} accepted, {} rejected\n", g, v,
                       get("processed"), get("commits.accepted"), get("commits.rejected"));
  }
  // The longest an acknowledged record waited before each reader first processed it.
  std::string lag;
  for (const auto& [k, v] : r.verdict.figures) {
    if (k.rfind("realtime-lag.max_ms.", 0) == 0) lag += fmt::format("{}{} {} ms", lag.empty() ? "" : " · ", k.substr(20), v);
  }
  if (!lag.empty()) out += "  lag        " + lag + " (the longest an acknowledged record waited to be read)\n";
  out += fmt::format("  faults     {}\n", stat("faults"));
  if (!r.ignored.empty()) out += fmt::format("  unchecked  {} (the scenario's \"properties\")\n", fmt::join(r.ignored, ", "));
  if (r.stats.contains("admin.operations")) out += fmt::format("  admin      {} topic operations\n", stat("admin.operations"));
  // At most three lines per anomaly, so a cascade does not bury the first finding.
  std::map<std::string, int> shown;
  std::map<std::string, int> hidden;
  for (const auto& v : r.verdict.violations) {
    if (++shown[v.anomaly] > 3) {
      ++hidden[v.anomaly];
      continue;
    }
    out += fmt::format("  VIOLATION  {} at {:.3f}s (event #{}): {}\n", v.anomaly, static_cast<double>(v.at) / 1e9,
                       v.first_event, v.explanation);
  }
  for (const auto& [anomaly, n] : hidden) out += fmt::format("  ...        and {} more {} (all in summary.json and report.html)\n", n, anomaly);
  out += "  replay     " + replay_command(r) + "\n";
  return out;
}

}  // namespace logsim::reports

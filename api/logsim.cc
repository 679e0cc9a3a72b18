// The API's functions: each calls the layer that already does the work (the loader, the
// runner, the report writers), so a run here is the run `logsim run` makes.
#include "api/logsim.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "api/app.h"
#include "api/app_registry.h"
#include "reports/run_dir.h"
#include "reports/summary.h"

namespace logsim {

Scenario load_scenario(const std::string& path) { return scenarios::load_scenario_file(path, registered_apps()); }

Scenario parse_scenario(std::string_view json_text, const std::string& name) { return scenarios::parse_scenario(json_text, name, registered_apps()); }

Scenario scenario_from_json(const nlohmann::json& scenario, const std::string& name) {
  return scenarios::parse_scenario(scenario.dump(), name, registered_apps());
}

std::uint64_t effective_seed(const Scenario& scenario, std::optional<std::uint64_t> seed) { return seed.value_or(scenario.seed); }

RunOutput run(const Scenario& scenario, const RunOptions& options) {
  scenarios::RunOptions o;
  o.seed = effective_seed(scenario, options.seed);
  o.record_trace = options.record_trace;
  o.host(detail::registered_user_code());
  return scenarios::run_scenario(scenario, o);
}

std::optional<Divergence> check_determinism(const Scenario& scenario, std::optional<std::uint64_t> seed) {
  const RunOutput first = run(scenario, {.seed = seed, .record_trace = true});
  return scenarios::check_determinism(scenario, first.result.seed, first, detail::registered_app_nodes());
}

bool passed(const RunOutput& out) { return out.result.verdict.outcome == Outcome::kPass; }

bool as_expected(const RunOutput& out) { return out.result.expectation_met; }

std::vector<std::string> anomalies(const RunOutput& out) {
  std::set<std::string> names;
  for (const auto& v : out.result.verdict.violations) names.insert(v.anomaly);
  return {names.begin(), names.end()};
}

bool found(const RunOutput& out, std::string_view anomaly) {
  const auto& vs = out.result.verdict.violations;
  return std::any_of(vs.begin(), vs.end(), [&](const Violation& v) { return v.anomaly == anomaly; });
}

const Violation* first_violation(const RunOutput& out) {
  const auto& vs = out.result.verdict.violations;
  const auto it = std::min_element(vs.begin(), vs.end(), [](const Violation& a, const Violation& b) { return a.first_event < b.first_event; });
  return it == vs.end() ? nullptr : &*it;
}

std::int64_t stat(const RunOutput& out, std::string_view name) {
  const auto it = out.result.stats.find(std::string(name));
  return it == out.result.stats.end() ? 0 : it->second;
}

std::string replay_command(const RunOutput& out) { return reports::replay_command(out.result); }

std::string describe(const RunOutput& out) { return reports::terminal_summary(out.result, 0); }

std::string write_report(const RunOutput& out, const std::string& dir) {
  const RunResult& r = out.result;
  reports::RunDirOptions options;
  options.junit_suite = "logsim";
  const std::string err = reports::write_run_dir(dir, r, out, options);
  if (!err.empty()) throw std::runtime_error("logsim: " + err);
  return dir + "/report.html";
}

}  // namespace logsim

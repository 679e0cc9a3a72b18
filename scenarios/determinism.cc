// Trace comparison for the determinism check.
#include "scenarios/determinism.h"

namespace logsim::scenarios {

std::optional<Divergence> compare_runs(const RunOutput& first, const RunOutput& second) {
  if (first.result.trace_hash == second.result.trace_hash && first.result.trace_events == second.result.trace_events) {
    return std::nullopt;
  }
  Divergence d;
  d.first_hash = first.result.trace_hash;
  d.second_hash = second.result.trace_hash;
  const auto index = sim::first_divergence(first.trace, second.trace);
  d.index = index.value_or(std::min(first.trace.entries().size(), second.trace.entries().size()));
  const auto describe = [&](const sim::Trace& t) {
    return d.index < t.entries().size() ? sim::format_entry(t.entries()[d.index]) : std::string("(trace ended)");
  };
  d.first_event = describe(first.trace);
  d.second_event = describe(second.trace);
  return d;
}

std::optional<Divergence> check_determinism(const Scenario& scenario, std::uint64_t seed, const RunOutput& first,
                                            const AppFactories& apps) {
  RunOptions again{seed, true};
  again.apps = apps;
  return compare_runs(first, run_scenario(scenario, again));
}

}  // namespace logsim::scenarios

// Simulated seconds per wall second for the order fan-out story (issue #8's goal: at least
// 2,000 simulated seconds per wall second at 1,000 records/s over one simulated hour).
//
// The scenario is scenarios/order-fanout-three-groups.json (three brokers, 6 partitions with
// replication factor 3, the checkout producer with acks=all, and three groups: fulfillment with
// 3 members, notifications with 2, analytics with 1), changed only in its pace: the producer
// sends 1,000 records per simulated second for the whole fault phase (count = 1,000 x the
// duration), and the fault phase lasts the given duration. Its timeline (a fulfillment member
// crashes at 12 s and returns at 30 s, a notifications member stops at 20 s) is kept when the
// duration is at least 60 s, dropped otherwise. The 20 s quiet period and the checkers stay:
// this is the whole run `logsim run` would do, history and verdict included.
//
// Printed: simulated seconds (fault phase + quiet period), wall seconds of run_scenario (the
// parse is excluded), their ratio, simulation events per wall second, the history's size, the
// verdict and peak RSS (getrusage of this process).
//
// Usage: bench_fanout [simulated seconds]   (default 3600; the smoke test passes a short one)
// Wall-clock time is read here, in the harness, never inside the simulation.
#include <sys/resource.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "properties/verdict.h"
#include "scenarios/loader.h"
#include "scenarios/runner.h"

namespace {

constexpr double kRatePerSec = 1000;

nlohmann::json read_json(const std::string& relative) {
  std::ifstream in(std::string(LOGSIM_SOURCE_DIR) + "/" + relative);
  std::stringstream s;
  s << in.rdbuf();
  return nlohmann::json::parse(s.str());
}

}  // namespace

int main(int argc, char** argv) {
  using namespace logsim;
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  const long long duration_s = argc > 1 ? std::atoll(argv[1]) : 3600;
  if (duration_s <= 0) {
    std::fprintf(stderr, "usage: bench_fanout [simulated seconds > 0]\n");
    return 2;
  }
  nlohmann::json doc = read_json("scenarios/order-fanout-three-groups.json");
  doc["name"] = "order-fanout-three-groups-bench";
  doc["duration"] = std::to_string(duration_s) + "s";
  doc["producers"][0]["rate_per_sec"] = kRatePerSec;
  doc["producers"][0]["count"] = static_cast<long long>(kRatePerSec) * duration_s;
  const bool faults = duration_s >= 60;
  if (!faults) doc["timeline"] = nlohmann::json::array();
  const scenarios::Scenario s = scenarios::parse_scenario(doc.dump(), "bench_fanout");

  std::printf("bench_fanout %lld   (order fan-out, %.0f records/s for %lld simulated s, 3 groups, %s)\n", duration_s,
              kRatePerSec, duration_s, faults ? "the story's crash, restart and stop" : "no faults");
  const auto start = std::chrono::steady_clock::now();
  scenarios::RunOptions options;
  options.seed = s.seed;
  const scenarios::RunOutput out = scenarios::run_scenario(s, options);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const scenarios::RunResult& r = out.result;

  const double simulated = static_cast<double>(r.simulated_ns) / 1e9;
  const auto stat = [&](const std::string& k) {
    const auto it = r.stats.find(k);
    return it == r.stats.end() ? std::int64_t{0} : it->second;
  };
  const auto events = stat("sim.events");
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);

  std::printf("simulated  %.1f s (fault phase %lld s + quiet period)\n", simulated, duration_s);
  std::printf("wall       %.3f s\n", wall);
  std::printf("ratio      %.0f simulated s per wall s   (goal >= 2,000)\n", simulated / wall);
  std::printf("events     %" PRId64 " simulation events, %.3g events/s wall; history %zu events\n", events,
              static_cast<double>(events) / wall, out.history.size());
  std::printf("records    sent %" PRId64 ", acknowledged %" PRId64 "; processed by fulfillment %" PRId64
              ", notifications %" PRId64 ", analytics %" PRId64 "\n",
              stat("records.sent"), stat("records.acknowledged"), stat("group.fulfillment.processed"),
              stat("group.notifications.processed"), stat("group.analytics.processed"));
  std::printf("verdict    %s%s%s\n", std::string(properties::outcome_name(r.verdict.outcome)).c_str(),
              r.expectation_met ? "" : "   expectation not met: ", r.expectation_detail.c_str());
  std::printf("peak RSS   %.1f MiB\n", static_cast<double>(usage.ru_maxrss) / 1024.0);
  return r.expectation_met ? 0 : 1;
}

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
// Then the floor under that ratio, measured in the same process: what the run would cost if the
// engine, the network model, the disk and the apps took no time at all. Two parts remain that
// no faithful run can skip: (1) the run's simulation events pushed through and popped from the
// bare event queue (16-byte payloads, kPending events pending, as bench_event_loop's
// EventQueueSmallPayload), and (2) the run's history appended again to a fresh History watched
// by a fresh checker set, the one the runner attaches (recording alone is timed too, to tell the
// two apart; decoding the history is done beforehand, in chunks, and not timed). The ceiling is
// the simulated seconds over the sum of the two; the goal's budget is the simulated seconds over
// 2,000.
//
// Usage: bench_fanout [simulated seconds] [--per-checker]   (default 3600; the smoke test passes
// a short one; --per-checker also times each of the runner's checkers alone over the history)
// Wall-clock time is read here, in the harness, never inside the simulation.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bench/heap_counter.h"
#include "sim/event_queue.h"
#include "engine/env/rng.h"
#include "properties/checker.h"
#include "properties/history.h"
#include "properties/verdict.h"
#include "scenarios/loader.h"
#include "scenarios/runner.h"

namespace logsim {
namespace {

constexpr double kRatePerSec = 1000;
// Events pending in the floor's queue: about the live events at the run's peak (session 13
// counted 153 for the fan-out story).
constexpr std::uint64_t kPending = 160;

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Wall seconds to run `events` events through the bare queue, each pop pushing one new event a
// random delay (1 ns to about 1 ms) after the popped one.
double queue_floor(std::int64_t events) {
  struct SmallPayload {
    std::uint32_t node = 0;
    std::uint32_t kind = 0;
    std::uint64_t tag = 0;
  };
  sim::EventQueue<SmallPayload> queue;
  Rng rng(42);
  const auto delay = [&] { return 1 + static_cast<Nanos>(rng.next_u64() >> 44); };
  for (std::uint64_t i = 0; i < kPending; ++i) queue.push(delay(), SmallPayload{0, 0, i});
  std::uint64_t sum = 0;
  const auto start = Clock::now();
  for (std::int64_t i = 0; i < events; ++i) {
    auto ev = queue.pop();
    sum += ev->payload.tag;
    queue.push(ev->at + delay(), SmallPayload{1, 2, ev->payload.tag + 1});
  }
  const double wall = seconds_since(start);
  if (sum == 42) std::printf(" ");  // keeps the loop's work observable
  return wall;
}

// The checker set the runner attaches for `s`.
properties::CheckerSet runner_checkers(const scenarios::Scenario& s) {
  properties::CheckerSet checkers;
  checkers.ignore(s.ignored);
  for (auto& c : scenarios::scenario_checkers(s)) checkers.add(std::move(c));
  return checkers;
}

// Wall seconds to append `history` again to a fresh History, watched by `checkers` if given
// (then finished too, its verdict returned through `outcome`). The history is decoded
// beforehand, a chunk at a time, untimed.
double record_again(const properties::History& history, properties::CheckerSet* checkers,
                    properties::Outcome& outcome) {
  properties::History again;
  if (checkers != nullptr) checkers->attach(again);
  constexpr std::size_t kChunk = 1 << 20;
  std::vector<properties::HistoryEvent> chunk;
  chunk.reserve(kChunk);
  double wall = 0;
  for (std::size_t from = 0; from < history.size(); from += kChunk) {
    chunk.clear();
    for (std::size_t i = from; i < std::min(history.size(), from + kChunk); ++i) chunk.push_back(history.at(i));
    const auto start = Clock::now();
    for (auto& e : chunk) again.append(std::move(e));
    wall += seconds_since(start);
  }
  if (checkers != nullptr) {
    const auto start = Clock::now();
    outcome = checkers->finish().outcome;
    wall += seconds_since(start);
    again.clear_observers();
  }
  return wall;
}

// Each checker the runner attaches for `s`, timed alone over `history`, less the faster of two
// recordings without checkers timed around it (the heap warms from pass to pass, so one
// baseline for all won't do). A checker whose share is within the recordings' own spread is
// printed as such, not as a figure the noise made (it could come out negative).
// lost-commits feeds the GroupProgress that unseen shares (properties/checker.cc): its line
// counts both, and unseen's only its judgement at the end.
void per_checker(const scenarios::Scenario& s, const properties::History& history) {
  using namespace properties;
  for (auto& c : scenarios::scenario_checkers(s)) {
    const std::string name(c->name());
    CheckerSet one;
    one.add(std::move(c));
    Outcome outcome = Outcome::kPass;
    const double before = record_again(history, nullptr, outcome);
    const double with = record_again(history, &one, outcome);
    const double after = record_again(history, nullptr, outcome);
    const double wall = with - std::min(before, after);
    const double noise = std::abs(before - after);
    if (wall <= noise) {
      std::printf("           %-24s  < %.3f s (within the recordings' spread of %.3f s)\n", name.c_str(),
                  std::max(wall, 0.0) + noise, noise);
    } else {
      std::printf("           %-24s %7.3f s  %9.3g events/s  (+- %.3f s)\n", name.c_str(), wall,
                  static_cast<double>(history.size()) / wall, noise);
    }
  }
}

nlohmann::json read_json(const std::string& relative) {
  std::ifstream in(std::string(LOGSIM_SOURCE_DIR) + "/" + relative);
  std::stringstream s;
  s << in.rdbuf();
  return nlohmann::json::parse(s.str());
}

}  // namespace
}  // namespace logsim

int main(int argc, char** argv) {
  using namespace logsim;
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  const long long duration_s = argc > 1 ? std::atoll(argv[1]) : 3600;
  const bool each_checker = argc > 2 && std::string(argv[2]) == "--per-checker";
  if (duration_s <= 0 || (argc > 2 && !each_checker) || argc > 3) {
    std::fprintf(stderr, "usage: bench_fanout [simulated seconds > 0] [--per-checker]\n");
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

  std::printf("bench_fanout %lld   (order fan-out, %.0f records/s for %lld simulated s, 3 groups, %s; %s)\n", duration_s,
              kRatePerSec, duration_s, faults ? "the story's crash, restart and stop" : "no faults", bench::allocator_name());
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

  // The floor: the same events and the same history with no engine, network, disk or apps.
  const double queue = queue_floor(events);
  properties::Outcome again = properties::Outcome::kPass;
  const double record = record_again(out.history, nullptr, again);
  properties::CheckerSet checkers = runner_checkers(s);
  const double check = record_again(out.history, &checkers, again);
  std::printf("floor      the %" PRId64 " events through the bare event queue alone: %.3f s (%.3g events/s)\n", events,
              queue, static_cast<double>(events) / queue);
  std::printf("           the %zu history events recorded and checked again alone: %.3f s (%.3g events/s; verdict %s),\n"
              "           of which recording them %.3f s and the checkers %.3f s (%.3g events/s)\n",
              out.history.size(), check, static_cast<double>(out.history.size()) / check,
              std::string(properties::outcome_name(again)).c_str(), record, check - record,
              static_cast<double>(out.history.size()) / (check - record));
  const double sent = static_cast<double>(std::max<std::int64_t>(1, stat("records.sent")));
  std::printf("per record %.1f simulation events and %.1f history events\n", static_cast<double>(events) / sent,
              static_cast<double>(out.history.size()) / sent);
  std::printf("ceiling    %.0f simulated s per wall s with no engine at all (the two above); the run reached %.2f of it\n",
              simulated / (queue + check), (queue + check) / wall);
  if (each_checker) per_checker(s, out.history);
  std::printf("budget     the goal allows %.3f s of wall time for this run; the bare queue alone takes %.1f times that,\n"
              "           the history recorded and checked alone %.1f times\n",
              simulated / 2000, queue / (simulated / 2000), check / (simulated / 2000));
  return r.expectation_met && again == r.verdict.outcome ? 0 : 1;
}

// How fast logsim fuzz searches, and how fast it finds each planted bug.
//
//   seeds per minute   the rebalance-storm template (30 simulated seconds: 20 s of member
//                      crashes, stops and pauses, then a 10 s quiet period) with fault
//                      schedules drawn per seed, no failure expected; one job, then J jobs,
//                      with the ratio to one job (issue #8's goal: >= 1,000 seeds/min on one
//                      core). The same figure for the generated whole-scenario cases.
//   detection          per planted bug, its campaign (fuzz/plant_campaigns.h): the seed at
//                      which the fuzzer found it, the wall time to detection, the shrinking
//                      runs and time, and the size of the original and the shrunk scenario.
//
// Usage: bench_fuzz [seeds] [jobs]   (defaults 200 and the number of cores)
// Wall-clock time is read here, in the harness, never inside a simulation.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "fuzz/fuzz.h"
#include "fuzz/plant_campaigns.h"

namespace {

using namespace logsim;
using fuzz::FaultKind;

nlohmann::json read_json(const std::string& relative) {
  std::ifstream in(std::string(LOGSIM_SOURCE_DIR) + "/" + relative);
  std::stringstream s;
  s << in.rdbuf();
  return nlohmann::json::parse(s.str());
}

double seeds_per_minute(fuzz::FuzzOptions o, std::int64_t& seeds_run, std::int64_t& failures) {
  o.keep_going = true;
  o.shrink = false;
  o.confirm_every = 0;
  const auto start = std::chrono::steady_clock::now();
  const fuzz::FuzzReport r = fuzz::fuzz(o);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  seeds_run = r.seeds_run;
  failures = static_cast<std::int64_t>(r.failing_seeds.size());
  return static_cast<double>(r.seeds_run) / s * 60.0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t seeds = argc > 1 ? std::atoll(argv[1]) : 200;
  const int jobs = argc > 2 ? std::atoi(argv[2]) : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::printf("bench_fuzz %lld %d   (seeds, jobs)\n\n", static_cast<long long>(seeds), jobs);

  fuzz::FuzzOptions storm;
  storm.template_doc = read_json("scenarios/templates/rebalance-storm.json");
  storm.shape.kinds = fuzz::fault_kinds("member-crash,member-stop,member-pause");
  storm.seeds = seeds;
  std::int64_t run = 0, failures = 0;
  storm.jobs = 1;
  const double one = seeds_per_minute(storm, run, failures);
  std::printf("rebalance-storm template, 30 simulated s per seed\n");
  std::printf("  1 job     %8.0f seeds/min   (%lld seeds, %lld failing)   goal >= 1,000 seeds/min on one core\n", one,
              static_cast<long long>(run), static_cast<long long>(failures));
  if (jobs > 1) {
    storm.jobs = jobs;
    storm.seeds = seeds * jobs;
    const double many = seeds_per_minute(storm, run, failures);
    std::printf("  %d jobs  %8.0f seeds/min   (%lld seeds, %lld failing)   %.2fx one job\n", jobs, many, static_cast<long long>(run),
                static_cast<long long>(failures), many / one);
  }
  fuzz::FuzzOptions generated;
  generated.seeds = seeds;
  generated.jobs = 1;
  const double gen = seeds_per_minute(generated, run, failures);
  std::printf("generated whole scenarios (20 s of faults, then a quiet period of at least 60 s)\n");
  std::printf("  1 job     %8.0f seeds/min   (%lld seeds, %lld failing)\n\n", gen, static_cast<long long>(run),
              static_cast<long long>(failures));

  std::printf("%-34s %6s %9s %-22s %8s %9s   %s\n", "planted bug", "seed", "found in", "anomaly", "shrinks", "shrink", "shrunk scenario (from)");
  for (const auto& c : fuzz::plant_campaigns()) {
    std::string name;
    for (const auto& p : all_plants()) {
      if (p.plant == c.plant) name = p.name;
    }
    fuzz::FuzzOptions o;
    o.template_doc = read_json(std::string(c.template_file));
    o.shape.kinds = fuzz::fault_kinds(c.faults);
    o.seeds = c.max_seeds * 4;
    o.plants = {name};
    o.confirm_every = 0;
    o.shrink_max_runs = 100;
    const fuzz::FuzzReport r = fuzz::fuzz(o);
    if (!r.failure) {
      std::printf("%-34s %6s   not found in %lld seeds\n", name.c_str(), "-", static_cast<long long>(r.seeds_run));
      continue;
    }
    const auto& f = *r.failure;
    std::printf("%-34s %6llu %8.2fs %-22s %8lld %8.1fs   %lld steps, %lld members, %lld records (%lld, %lld, %lld)\n", name.c_str(),
                static_cast<unsigned long long>(f.seed), r.search_s, f.anomaly.c_str(), static_cast<long long>(f.shrink_runs), r.shrink_s,
                static_cast<long long>(f.shrunk_size.timeline_steps), static_cast<long long>(f.shrunk_size.members),
                static_cast<long long>(f.shrunk_size.records), static_cast<long long>(f.original_size.timeline_steps),
                static_cast<long long>(f.original_size.members), static_cast<long long>(f.original_size.records));
  }
  return 0;
}

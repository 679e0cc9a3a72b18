// logsim fuzz: generated cases are ordinary scenarios the real loader accepts, the same seed
// always stands for the same scenario, templates keep what they bring, the search reports the
// same failing seeds whatever the number of jobs, and a shrunk failure replays bit-for-bit.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "fuzz/fuzz.h"
#include "scenarios/loader.h"

namespace logsim::fuzz {
namespace {

using nlohmann::json;

json read_json(const std::string& relative) {
  std::ifstream in(std::string(LOGSIM_SOURCE_DIR) + "/" + relative);
  std::stringstream s;
  s << in.rdbuf();
  return json::parse(s.str());
}

FuzzOptions zombie_options() {
  FuzzOptions o;
  o.template_doc = read_json("scenarios/templates/zombie-members.json");
  o.shape.kinds = {fuzz::FaultKind::kMemberPause, fuzz::FaultKind::kMemberCrash};
  return o;
}

TEST(Fuzz, GeneratedCasesAreScenariosTheLoaderAcceptsAndASeedIsAlwaysTheSameScenario) {
  const FuzzOptions o;
  std::set<std::string> distinct;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const json doc = fuzz_case_doc(o, seed);
    EXPECT_EQ(doc, fuzz_case_doc(o, seed)) << "seed " << seed;
    scenarios::Scenario s;
    ASSERT_NO_THROW(s = scenarios::parse_scenario(doc.dump(), "seed")) << doc.dump(2);
    EXPECT_EQ(s.seed, seed);
    EXPECT_EQ(s.expect.verdict, "pass");
    EXPECT_TRUE(s.plants.empty());
    EXPECT_GT(s.quiesce, 0) << "liveness is checked after a quiet period";
    // Kafka's durable settings: the configuration under which a violation is a finding.
    EXPECT_EQ(s.cluster.config.min_insync_replicas, 2);
    EXPECT_EQ(s.cluster.config.default_replication_factor, 3);
    for (const auto& p : s.producers) EXPECT_EQ(p.config.acks, -1);
    for (const auto& g : s.groups) EXPECT_NE(g.commit, scenarios::CommitStrategy::kBeforeProcessing);
    distinct.insert(doc.dump());
  }
  EXPECT_EQ(distinct.size(), 40u);
}

// The fault kinds are the scenario "faults" section's (one list): --faults names them the same
// way, and every kind, clog included, renders to steps the loader accepts.
TEST(Fuzz, FaultKindsAreTheScenarioKindsAndClogCarriesItsLength) {
  std::string unknown;
  EXPECT_EQ(fault_kinds("clog,member-stop,power-loss", &unknown),
            (std::vector<fuzz::FaultKind>{fuzz::FaultKind::kClog, fuzz::FaultKind::kMemberStop, fuzz::FaultKind::kPowerLoss}));
  EXPECT_TRUE(unknown.empty());
  fault_kinds("crash,clogg", &unknown);
  EXPECT_EQ(unknown, "clogg");
  FuzzOptions o;
  o.shape.kinds = {fuzz::FaultKind::kClog};
  int clogs = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const json doc = fuzz_case_doc(o, seed);
    for (const auto& step : doc["timeline"]) {
      if (step["action"] != "clog") continue;
      ++clogs;
      EXPECT_TRUE(step.contains("for")) << step.dump();
    }
    scenarios::Scenario s;
    ASSERT_NO_THROW(s = scenarios::parse_scenario(doc.dump(), "seed")) << doc.dump(2);
  }
  EXPECT_GT(clogs, 0);
}

TEST(Fuzz, ATemplateKeepsItsWorkloadAndGainsFaultsAimedAtItsOwnNodes) {
  FuzzOptions o = zombie_options();
  o.plants = {"accept-stale-commit"};
  const json tmpl = *o.template_doc;
  std::size_t with_faults = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const json doc = fuzz_case_doc(o, seed);
    EXPECT_EQ(doc["groups"], tmpl["groups"]);
    EXPECT_EQ(doc["producers"], tmpl["producers"]);
    EXPECT_EQ(doc["plant"], json::array({"accept-stale-commit"}));
    for (const auto& step : doc["timeline"]) {
      const std::string target = step.value("target", "");
      EXPECT_TRUE(target == "ledger-1" || target == "ledger-2" || target == "ledger-3") << step.dump();
    }
    if (!doc["timeline"].empty()) ++with_faults;
    EXPECT_NO_THROW(scenarios::parse_scenario(doc.dump(), "seed"));
  }
  EXPECT_GE(with_faults, 10u);
}

// A template may give its run as phases; the cases give it as duration and quiesce (the loader
// refuses both at once), with faults inside the faults phase.
TEST(Fuzz, ATemplateWrittenWithPhasesGivesCasesTheLoaderAccepts) {
  FuzzOptions o = zombie_options();
  json tmpl = *o.template_doc;
  tmpl.erase("duration");
  tmpl.erase("quiesce");
  tmpl["phases"] = json::array({json{{"phase", "faults"}, {"for", "12s"}}, json{{"phase", "heal-and-quiesce"}, {"for", "7s"}}});
  o.template_doc = tmpl;
  std::size_t with_faults = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const json doc = fuzz_case_doc(o, seed);
    EXPECT_FALSE(doc.contains("phases"));
    scenarios::Scenario s;
    ASSERT_NO_THROW(s = scenarios::parse_scenario(doc.dump(), "seed")) << doc.dump();
    EXPECT_EQ(s.duration, seconds(12));
    EXPECT_EQ(s.quiesce, seconds(7));
    if (!s.timeline.empty()) ++with_faults;
  }
  EXPECT_GE(with_faults, 5u);
}

TEST(Fuzz, TheFailingSeedsAreTheSameWhateverTheNumberOfJobs) {
  FuzzOptions o = zombie_options();
  o.plants = {"accept-stale-commit"};
  o.seeds = 12;
  o.keep_going = true;
  o.shrink = false;
  o.confirm_every = 4;
  const FuzzReport one = fuzz(o);
  o.jobs = 3;
  const FuzzReport three = fuzz(o);
  EXPECT_EQ(one.seeds_run, 12);
  EXPECT_EQ(three.seeds_run, 12);
  EXPECT_FALSE(one.failing_seeds.empty()) << "the planted bug should show within 12 seeds";
  EXPECT_EQ(one.failing_seeds, three.failing_seeds);
  EXPECT_EQ(one.confirmed, 3) << "seeds 1, 5 and 9 run twice";
  EXPECT_TRUE(one.nondeterminism.empty());
  EXPECT_TRUE(three.nondeterminism.empty());
}

// --shard I/N: seeds first+I, first+I+N, ...; the shards' shares are disjoint and make up the
// whole sweep, also when there are more shards than seeds.
TEST(Fuzz, ShardsTakeInterleavedDisjointSharesThatMakeUpTheSweep) {
  for (const std::int64_t seeds : {1, 10, 12}) {
    for (const std::int64_t count : {1, 3, 20}) {
      std::multiset<std::uint64_t> all;
      for (std::int64_t index = 0; index < count; ++index) {
        FuzzOptions o;
        o.first_seed = 5;
        o.seeds = seeds;
        o.shard_index = index;
        o.shard_count = count;
        for (std::int64_t k = 0; k < shard_seeds(o); ++k) {
          const std::uint64_t seed = shard_seed(o, k);
          EXPECT_EQ(static_cast<std::int64_t>(seed - 5) % count, index) << seed << " is not in shard " << index << "/" << count;
          all.insert(seed);
        }
      }
      std::multiset<std::uint64_t> expected;
      for (std::int64_t i = 0; i < seeds; ++i) expected.insert(5 + static_cast<std::uint64_t>(i));
      EXPECT_EQ(all, expected) << seeds << " seeds in " << count << " shards";
    }
  }
}

// The shards of a campaign, run one after another, find exactly the failing seeds one machine finds.
TEST(Fuzz, ShardsTogetherFindTheFailingSeedsOneMachineFinds) {
  FuzzOptions o = zombie_options();
  o.plants = {"accept-stale-commit"};
  o.seeds = 12;
  o.keep_going = true;
  o.shrink = false;
  o.confirm_every = 4;
  const FuzzReport one = fuzz(o);
  ASSERT_FALSE(one.failing_seeds.empty()) << "the planted bug should show within 12 seeds";
  std::vector<std::uint64_t> sharded;
  std::int64_t seeds_run = 0;
  std::int64_t confirmed = 0;
  for (std::int64_t index = 0; index < 3; ++index) {
    o.shard_index = index;
    o.shard_count = 3;
    const FuzzReport r = fuzz(o);
    seeds_run += r.seeds_run;
    confirmed += r.confirmed;
    for (const std::uint64_t seed : r.failing_seeds) {
      EXPECT_EQ((seed - o.first_seed) % 3, static_cast<std::uint64_t>(index));
      sharded.push_back(seed);
    }
  }
  std::sort(sharded.begin(), sharded.end());
  EXPECT_EQ(seeds_run, 12);
  EXPECT_EQ(sharded, one.failing_seeds);
  // One machine confirms seeds 1, 5 and 9; the shards confirm those and each its own first seed
  // (1 is shard 0's first): 2, 3 more.
  EXPECT_EQ(one.confirmed, 3);
  EXPECT_EQ(confirmed, 5);
}

TEST(Fuzz, ItStopsAtTheFirstFailureAndReportsTheLowestFailingSeed) {
  FuzzOptions o = zombie_options();
  o.plants = {"accept-stale-commit"};
  o.seeds = 30;
  o.shrink = false;
  o.keep_going = true;
  const FuzzReport all = fuzz(o);
  ASSERT_FALSE(all.failing_seeds.empty());
  o.keep_going = false;
  o.jobs = 2;
  const FuzzReport first = fuzz(o);
  ASSERT_TRUE(first.failure.has_value());
  EXPECT_EQ(first.failure->seed, all.failing_seeds.front());
  EXPECT_LT(first.seeds_run, 30);
}

TEST(Fuzz, AShrunkFailureIsSmallerStillFailsTheSameWayAndReplaysToItsTraceHash) {
  FuzzOptions o = zombie_options();
  o.plants = {"accept-stale-commit"};
  o.seeds = 30;
  o.shrink_max_runs = 40;
  const FuzzReport r = fuzz(o);
  ASSERT_TRUE(r.failure.has_value());
  const FuzzFailure& f = *r.failure;
  EXPECT_EQ(f.anomaly, "stale-commit-accepted");
  EXPECT_GT(f.shrink_steps, 0);
  EXPECT_LE(f.shrunk_size.timeline_steps, f.original_size.timeline_steps);
  EXPECT_LE(f.shrunk_size.records, f.original_size.records);
  EXPECT_LE(f.shrunk_size.members, f.original_size.members);
  EXPECT_LT(f.shrunk_size.timeline_steps + f.shrunk_size.records + f.shrunk_size.members,
            f.original_size.timeline_steps + f.original_size.records + f.original_size.members);
  // The saved file: an ordinary scenario with its seed, its plant and what was found.
  const scenarios::Scenario s = scenarios::parse_scenario(f.shrunk.dump(), "shrunk.json");
  ASSERT_TRUE(s.found.has_value());
  EXPECT_EQ(s.found->verdict, "violated");
  EXPECT_EQ(s.seed, f.seed);
  EXPECT_TRUE(s.plants.has(Plant::kAcceptStaleCommit));
  const RunOutput again = run_doc(f.shrunk, "shrunk.json");
  EXPECT_EQ(fmt::format("{:016x}", again.result.trace_hash), s.found->trace_hash);
  bool stale = false;
  for (const auto& v : again.result.verdict.violations) stale = stale || v.anomaly == "stale-commit-accepted";
  EXPECT_TRUE(stale);
  // A fault stays together with its repair: a member crash without its restart would fail for
  // another reason (nobody left to process).
  std::map<std::string, int> down;  // target -> faults not yet repaired
  for (const auto& step : f.shrunk["timeline"]) {
    const std::string a = step["action"], t = step.value("target", "");
    if (a == "crash" || a == "stop" || a == "pause") down[t] += 1;
    if (a == "restart" || a == "resume") down[t] -= 1;
  }
  for (const auto& [target, n] : down) EXPECT_EQ(n, 0) << target << " left down by shrinking";
}



}  // namespace
}  // namespace logsim::fuzz

// Proof that the poll-skip checker finds a consumer that skips records: with the broker planted
// to leave a record out of consumer fetches (fetch-skips-record), a small run with a consumer
// group (starting late, behind a backlog, so its fetches return many records) and a manually
// assigned reader is found as poll-skip; the same run without the plant
// passes, with every acknowledged record processed in order.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>

#include "properties/poll_skip_checker.h"
#include "scenarios/loader.h"
#include "scenarios/runner.h"

namespace logsim::scenarios {
namespace {

// `keys` is the producer's key choice: null (no keys) or {"uniform": N}.
std::string scenario(std::string_view keys) {
  std::string text = R"({
  "name": "fetch-skips-record", "duration": "12s", "quiesce": "5s",
  "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "offsets.topic.num.partitions": 2}},
  "topics": [{"name": "orders", "partitions": 2}],
  "producers": [{"name": "shop", "topic": "orders", "rate_per_sec": 200, "count": 1500, "keys": KEYS,
                 "config": {"acks": "all"}}],
  "consumers": [{"name": "audit", "topics": ["orders"], "config": {"auto.offset.reset": "earliest"}}],
  "groups": [{"name": "billing", "topics": ["orders"], "members": 2, "start": "4s", "processing": "1ms",
              "config": {"auto.offset.reset": "earliest"}}]
})";
  text.replace(text.find("KEYS"), 4, keys);
  return text;
}

std::set<std::string> anomalies(const RunOutput& out) {
  std::set<std::string> found;
  for (const auto& v : out.result.verdict.violations) found.insert(v.anomaly);
  return found;
}

TEST(PollSkipPlant, ARecordLeftOutOfFetchesIsFoundAsPollSkip) {
  // Records without keys: compaction could never remove them, so every hole counts.
  Scenario s = parse_scenario(scenario("null"), "mem.json");
  const RunOutput clean = run_scenario(s, RunOptions{5, false});
  EXPECT_EQ(clean.result.verdict.outcome, properties::Outcome::kPass);
  EXPECT_FALSE(anomalies(clean).count("poll-skip"));

  s.plants.add(Plant::kFetchSkipsRecord);
  const RunOutput planted = run_scenario(s, RunOptions{5, false});
  EXPECT_EQ(planted.result.verdict.outcome, properties::Outcome::kViolated);
  EXPECT_TRUE(anomalies(planted).count("poll-skip")) << "the planted bug went unnoticed";
  // Both kinds of consumer skipped: the group member and the manually assigned reader.
  // (A skip inside one poll's records is int-poll-skip, the reader's here; one between polls,
  // poll-skip.)
  std::set<std::string> skippers;
  for (const auto& v : planted.result.verdict.violations) {
    if (v.anomaly == "poll-skip" || v.anomaly == "int-poll-skip") skippers.insert(v.process);
  }
  EXPECT_TRUE(skippers.count("audit"));
  EXPECT_TRUE(skippers.count("billing-1") || skippers.count("billing-2"));
  // The log lost nothing (replicas are served whole), and nothing was read out of order.
  EXPECT_FALSE(anomalies(planted).count("inconsistent-offsets"));
  EXPECT_FALSE(anomalies(planted).count("nonmonotonic-poll"));
}

TEST(PollSkipPlant, KeyedRecordsAreJudgedWhereCompactionCannotExplainTheHole) {
  // 30 keys: by default any topic may be compacted, so a hole over a record whose key came
  // again before the hole was passed is excused. The reader at the log's tail is still caught;
  // the group, which starts behind a backlog in which every key recurs, is caught once the
  // checker is told that no topic is compacted.
  Scenario s = parse_scenario(scenario(R"({"uniform": 30})"), "mem.json");
  s.plants.add(Plant::kFetchSkipsRecord);
  const RunOutput planted = run_scenario(s, RunOptions{5, false});
  std::set<std::string> by_default;
  for (const auto& v : planted.result.verdict.violations) {
    if (v.anomaly == "poll-skip" || v.anomaly == "int-poll-skip") by_default.insert(v.process);
  }
  EXPECT_TRUE(by_default.count("audit"));
  properties::PollSkipChecker told(properties::PollSkipChecker::Options{std::set<std::string>{}});
  for (const auto& e : planted.history.events()) told.observe(e);
  told.finish();
  std::set<std::string> skippers;
  for (const auto& v : told.violations()) skippers.insert(v.process);
  EXPECT_TRUE(skippers.count("audit"));
  EXPECT_TRUE(skippers.count("billing-1") && skippers.count("billing-2"));
}

TEST(PollSkipPlant, WithoutThePlantNoSeedSkips) {
  for (const char* keys : {"null", R"({"uniform": 30})"}) {
    const Scenario s = parse_scenario(scenario(keys), "mem.json");
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const RunOutput out = run_scenario(s, RunOptions{seed, false});
      EXPECT_FALSE(anomalies(out).count("poll-skip")) << "seed " << seed << ", keys " << keys;
      EXPECT_EQ(out.result.verdict.outcome, properties::Outcome::kPass) << "seed " << seed << ", keys " << keys;
      // Told that no topic is compacted, the checker still finds nothing.
      properties::PollSkipChecker told(properties::PollSkipChecker::Options{std::set<std::string>{}});
      for (const auto& e : out.history.events()) told.observe(e);
      told.finish();
      EXPECT_TRUE(told.violations().empty()) << "seed " << seed << ", keys " << keys;
    }
  }
}

}  // namespace
}  // namespace logsim::scenarios

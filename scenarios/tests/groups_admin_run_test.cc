// Group administration end to end (kafka-consumer-groups through the admin node): a reset is
// refused while the group is active and applied once it is empty, a dry run changes nothing,
// the reset group replays from the new offsets, and another group on the same topic is
// untouched — its commits and deliveries are exactly those of a run without the reset.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "scenarios/loader.h"
#include "scenarios/runner.h"

namespace logsim::scenarios {
namespace {

using properties::OpKind;

std::string scenarios_dir() { return LOGSIM_SOURCE_DIR "/scenarios/"; }

std::vector<std::string> admin_notes(const properties::History& h) {
  std::vector<std::string> out;
  for (const auto& e : h.events()) {
    if (e.kind == OpKind::kAdmin) out.push_back(e.note);
  }
  return out;
}

TEST(GroupsAdminRun, ResetIsRefusedWhileActiveThenReplaysFromTheNewOffsets) {
  const Scenario s = load_scenario_file(scenarios_dir() + "replay-after-a-bug-fix.json");
  const RunOutput out = run_scenario(s, RunOptions{s.seed, false});
  const auto notes = admin_notes(out.history);
  ASSERT_EQ(notes.size(), 4u);
  EXPECT_EQ(notes[0],
            "reset-offsets pricing to-datetime 8000 market-data: NON_EMPTY_GROUP Assignments can only be reset if the "
            "group 'pricing' is inactive, but the current state is Stable.");
  EXPECT_TRUE(notes[1].starts_with("describe-group pricing: state Empty")) << notes[1];
  EXPECT_TRUE(notes[2].starts_with("reset-offsets pricing to-datetime 8000 market-data: dry run")) << notes[2];
  EXPECT_TRUE(notes[3].starts_with("reset-offsets pricing to-datetime 8000 market-data: executed")) << notes[3];

  // The executed reset's seeks: one per partition, to the first record written at or after 8 s.
  std::map<std::int32_t, std::int64_t> reset_to;
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kSeek && e.group == "pricing") reset_to[e.partition->value()] = e.offset->value();
  }
  ASSERT_EQ(reset_to.size(), 4u);
  std::map<std::int32_t, std::int64_t> first_at_8s;  // by the producer's acknowledgements
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kSendOk && e.at >= seconds(8) && !first_at_8s.count(e.partition->value())) first_at_8s[e.partition->value()] = e.offset->value();
  }
  for (const auto& [p, o] : reset_to) {
    // The record's timestamp is its send time, a little before its acknowledgement.
    EXPECT_LE(o, first_at_8s[p]) << "partition " << p;
    EXPECT_GE(o, first_at_8s[p] - 5) << "partition " << p;
  }

  // After the restart, pricing starts each partition exactly at the reset offset.
  std::map<std::int32_t, std::int64_t> resumed;
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kProcess && e.group == "pricing" && e.at > seconds(24) && !resumed.count(e.partition->value())) {
      resumed[e.partition->value()] = e.offset->value();
    }
  }
  EXPECT_EQ(resumed, reset_to);
  EXPECT_TRUE(out.result.expectation_met) << out.result.expectation_detail;
}

TEST(GroupsAdminRun, AResetOfOneGroupLeavesAnotherGroupUntouched) {
  Scenario with = load_scenario_file(scenarios_dir() + "replay-after-a-bug-fix.json");
  Scenario without = with;
  std::erase_if(without.timeline, [](const TimelineStep& t) { return t.is<steps::ResetOffsets>(); });
  const RunOutput a = run_scenario(with, RunOptions{with.seed, false});
  const RunOutput b = run_scenario(without, RunOptions{with.seed, false});
  // The audit group processed exactly the same records (each once) with and without the reset.
  const auto audit_processed = [](const properties::History& h) {
    std::multiset<std::pair<std::int32_t, std::int64_t>> out;
    for (const auto& e : h.events()) {
      if (e.group == "audit" && e.kind == OpKind::kProcess) out.insert({e.partition->value(), e.offset->value()});
    }
    return out;
  };
  const auto with_reset = audit_processed(a.history);
  ASSERT_GT(with_reset.size(), 1000u);
  EXPECT_TRUE(with_reset == audit_processed(b.history));
  // Audit's committed offsets moved only forward, by its own commits: no seek aimed at it.
  std::map<std::int32_t, std::int64_t> committed;
  for (const auto& e : a.history.events()) {
    if (e.group != "audit") continue;
    EXPECT_NE(e.kind, OpKind::kSeek);
    if (e.kind == OpKind::kCommitOk) {
      EXPECT_GE(e.offset->value(), committed[e.partition->value()]) << "audit's commit went back at event #" << e.index;
      committed[e.partition->value()] = e.offset->value();
    }
  }
  // And pricing did replay: it processed more records with the reset than without.
  std::size_t replayed_with = 0, replayed_without = 0;
  for (const auto& e : a.history.events()) replayed_with += e.kind == OpKind::kProcess && e.group == "pricing" ? 1u : 0u;
  for (const auto& e : b.history.events()) replayed_without += e.kind == OpKind::kProcess && e.group == "pricing" ? 1u : 0u;
  EXPECT_GT(replayed_with, replayed_without + 1000);
}

}  // namespace
}  // namespace logsim::scenarios

namespace logsim::scenarios {
namespace {

// replay-after-a-bug-fix with its resets replaced by kafka-consumer-groups --delete-offsets:
// refused while pricing is active, done once it is empty; pricing then restarts where
// auto.offset.reset puts it.
Scenario with_delete_offsets(const std::string& reset) {
  std::string text = R"({
    "name": "delete-offsets", "duration": "60s", "quiesce": "20s", "seed": 21,
    "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "min.insync.replicas": 2,
                                         "offsets.topic.num.partitions": 4}},
    "topics": [{"name": "market-data", "partitions": 4}],
    "producers": [{"name": "exchange-feed", "topic": "market-data", "rate_per_sec": 200, "count": 8000,
                   "keys": {"uniform": 40}}],
    "groups": [
      {"name": "pricing", "topics": ["market-data"], "members": 2, "commit": "after-each-batch",
       "config": {"auto.offset.reset": "RESET"}},
      {"name": "audit", "topics": ["market-data"], "members": 1, "config": {"auto.offset.reset": "earliest"}}],
    "timeline": [
      {"at": "15s", "action": "delete-offsets", "group": "pricing", "topic": "market-data"},
      {"at": "20s", "action": "stop", "target": "pricing-1"},
      {"at": "20s", "action": "stop", "target": "pricing-2"},
      {"at": "23s", "action": "delete-offsets", "group": "pricing", "topic": "market-data"},
      {"at": "24s", "action": "restart", "target": "pricing-1"},
      {"at": "24s", "action": "restart", "target": "pricing-2"}]
  })";
  text.replace(text.find("RESET"), 5, reset);
  return parse_scenario(text, "delete-offsets.json");
}

// Where pricing started each partition after the restart.
std::map<std::int32_t, std::int64_t> resumed_at(const properties::History& h) {
  std::map<std::int32_t, std::int64_t> out;
  for (const auto& e : h.events()) {
    if (e.kind == OpKind::kProcess && e.group == "pricing" && e.at > seconds(24) && !out.contains(e.partition->value())) {
      out[e.partition->value()] = e.offset->value();
    }
  }
  return out;
}

TEST(GroupsAdminRun, DeleteOffsetsIsRefusedWhileActiveThenTheGroupStartsOverFromEarliest) {
  const RunOutput out = run_scenario(with_delete_offsets("earliest"), RunOptions{21, false});
  const auto notes = admin_notes(out.history);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_TRUE(notes[0].starts_with("delete-offsets pricing: GROUP_SUBSCRIBED_TO_TOPIC")) << notes[0];
  EXPECT_EQ(notes[1], "delete-offsets pricing: done");
  // One seek without an offset per partition, aimed at pricing, once the group is empty.
  std::set<std::int32_t> forgotten;
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kSeek && e.process == "admin") {
      EXPECT_EQ(e.group, "pricing");
      EXPECT_EQ(e.offset, std::nullopt);
      EXPECT_GT(e.at, seconds(23));
      forgotten.insert(e.partition->value());
    }
  }
  EXPECT_EQ(forgotten, (std::set<std::int32_t>{0, 1, 2, 3}));
  // With no committed offset, auto.offset.reset=earliest starts every partition over at 0.
  EXPECT_EQ(resumed_at(out.history), (std::map<std::int32_t, std::int64_t>{{0, 0}, {1, 0}, {2, 0}, {3, 0}}));
  EXPECT_EQ(out.result.verdict.outcome, properties::Outcome::kPass);
}

TEST(GroupsAdminRun, AfterDeleteOffsetsWithLatestTheSkippedRecordsAreNotCountedAgainstTheGroup) {
  const RunOutput out = run_scenario(with_delete_offsets("latest"), RunOptions{21, false});
  // The group starts past what it committed before the stop: it skipped what came in between,
  // which Kafka allows once its offsets are gone, so no lost-commit, unseen or interference.
  std::map<std::int32_t, std::int64_t> committed_before;
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kCommitOk && e.group == "pricing" && e.at < seconds(20)) committed_before[e.partition->value()] = e.offset->value();
  }
  const auto resumed = resumed_at(out.history);
  ASSERT_EQ(resumed.size(), 4u);
  bool skipped = false;
  for (const auto& [p, o] : resumed) skipped = skipped || o > committed_before[p];
  EXPECT_TRUE(skipped);
  EXPECT_EQ(out.result.verdict.outcome, properties::Outcome::kPass);
  for (const auto& v : out.result.verdict.violations) ADD_FAILURE() << v.anomaly << ": " << v.explanation;
}

}  // namespace
}  // namespace logsim::scenarios

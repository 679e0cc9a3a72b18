// Consumer groups end to end: members join through the coordinator on the brokers, share the
// partitions, commit, and hand partitions over when a member crashes, stops or is too slow, and
// when the coordinator itself moves to another broker. The checks read only the history, as
// the property checkers do.
//
// Debugging aids: GROUPS_SEED=N runs every test with seed N (they must pass for any seed);
// GROUPS_DUMP=1 prints each run's history (sends omitted, every 50th record processed).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "scenarios/loader.h"
#include "scenarios/runner.h"

namespace logsim::scenarios {
namespace {

using properties::HistoryEvent;
using properties::OpKind;

// The member's generation when it acted, -1 where it had none (an assignment a member records
// between generations, such as the empty one when it is fenced, carries none).
std::int32_t generation_of(const HistoryEvent& e) { return e.generation ? e.generation->value() : -1; }

RunOutput run(const std::string& text, std::uint64_t seed = 11) {
  if (const char* s = std::getenv("GROUPS_SEED")) seed = std::strtoull(s, nullptr, 10);
  RunOutput out = run_scenario(parse_scenario(text, "mem.json"), RunOptions{seed, false});
  if (std::getenv("GROUPS_DUMP") != nullptr) {
    for (const auto& e : out.history.events()) {
      if (e.kind == OpKind::kSendInvoke || e.kind == OpKind::kSendOk) continue;
      if (e.kind == OpKind::kProcess && e.offset->value() % 50 != 0) continue;
      std::string a;
      for (const auto& tp : e.assignment) a += std::to_string(tp.partition.value()) + ",";
      std::printf("%lld %s %s g%d p%d o%lld %s %s [%s]\n", static_cast<long long>(e.at / 1000000), std::string(op_kind_name(e.kind)).c_str(),
                  e.process.c_str(), properties::History::packed(e.generation), properties::History::packed(e.partition), static_cast<long long>(properties::History::packed(e.offset)), e.error.c_str(), e.note.c_str(), a.c_str());
    }
  }
  return out;
}

std::set<std::uint64_t> acknowledged(const properties::History& h) {
  std::set<std::uint64_t> out;
  for (const auto& e : h.events()) {
    if (e.kind == OpKind::kSendOk) out.insert(e.value_id);
  }
  return out;
}

std::set<std::uint64_t> processed_by(const properties::History& h, const std::string& group) {
  std::set<std::uint64_t> out;
  for (const auto& e : h.events()) {
    if (e.kind == OpKind::kProcess && e.group == group) out.insert(e.value_id);
  }
  return out;
}

// Within one generation of a group, each partition is processed by at most one member.
void expect_single_owner_per_generation(const properties::History& h, const std::string& group) {
  std::map<std::tuple<std::optional<GenerationId>, std::string, std::optional<PartitionId>>, std::string> owner;
  for (const auto& e : h.events()) {
    if (e.kind != OpKind::kProcess || e.group != group) continue;
    auto [it, fresh] = owner.emplace(std::make_tuple(e.generation, e.topic, e.partition), e.process);
    EXPECT_EQ(it->second, e.process) << group << " generation " << properties::History::packed(e.generation) << " partition "
                                     << properties::History::packed(e.partition)
                                     << " processed by two members (event #" << e.index << ")";
  }
}

// At least once, and commits are honoured: when a member starts a partition in a new
// assignment, its first record is at or after the group's last accepted commit for that
// partition, and at or before the first offset the group has not processed (nothing skipped).
void expect_handover_resumes_at_the_commit(const properties::History& h, const std::string& group) {
  using Key = std::pair<std::string, std::int32_t>;
  std::map<Key, std::int64_t> committed;      // last accepted commit, by partition
  std::map<Key, std::int64_t> next_unseen;    // 1 + highest offset the group processed
  std::map<std::string, std::set<Key>> fresh; // member -> partitions whose next record starts an assignment
  int checked = 0;
  for (const auto& e : h.events()) {
    if (e.group != group) continue;
    const Key key{e.topic, properties::History::packed(e.partition)};
    if (e.kind == OpKind::kCommitOk) {
      committed[key] = std::max(committed[key], e.offset->value());
    } else if (e.kind == OpKind::kAssign) {
      auto& f = fresh[e.process];
      f.clear();
      for (const auto& tp : e.assignment) f.insert({tp.topic, tp.partition.value()});
    } else if (e.kind == OpKind::kProcess) {
      if (fresh[e.process].erase(key) > 0 && committed.count(key) > 0) {
        ++checked;
        EXPECT_GE(e.offset, Offset(committed[key])) << e.process << " rewound " << e.topic << "/" << properties::History::packed(e.partition)
                                            << " below the committed offset (event #" << e.index << ")";
        EXPECT_LE(e.offset, Offset(next_unseen[key])) << e.process << " skipped offsets of " << e.topic << "/" << properties::History::packed(e.partition)
                                              << " (event #" << e.index << ")";
      }
      next_unseen[key] = std::max(next_unseen[key], e.offset->value() + 1);
    }
  }
  EXPECT_GT(checked, 0) << "no partition changed hands after a commit in " << group;
}

std::int32_t last_generation(const properties::History& h, const std::string& group) {
  std::int32_t g = -1;
  for (const auto& e : h.events()) {
    if (e.group == group && e.kind == OpKind::kAssign) g = std::max(g, generation_of(e));
  }
  return g;
}

constexpr const char* kTwoGroups = R"({
  "name": "two-groups", "duration": "30s",
  "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "offsets.topic.num.partitions": 4}},
  "topics": [{"name": "orders", "partitions": 6}],
  "producers": [{"name": "shop", "topic": "orders", "rate_per_sec": 200, "count": 3000, "keys": {"uniform": 40}}],
  "groups": [
    {"name": "fulfillment", "topics": ["orders"], "members": 3, "processing": "1ms",
     "config": {"auto.offset.reset": "earliest"}},
    {"name": "email", "topics": ["orders"], "members": 2, "commit": "after-each-batch",
     "config": {"auto.offset.reset": "earliest", "partition.assignment.strategy": "cooperative-sticky"}}
  ]
})";

TEST(GroupsRun, EachGroupProcessesEveryAcknowledgedRecord) {
  const RunOutput out = run(kTwoGroups);
  const auto acked = acknowledged(out.history);
  ASSERT_EQ(acked.size(), 3000u);
  for (const char* group : {"fulfillment", "email"}) {
    const auto seen = processed_by(out.history, group);
    std::size_t missing = 0;
    for (auto v : acked) missing += seen.count(v) == 0 ? 1u : 0u;
    EXPECT_EQ(missing, 0u) << group;
    expect_single_owner_per_generation(out.history, group);
  }
  // Every member got partitions: 3 members share 6 partitions, 2 members too.
  std::map<std::string, std::set<std::int32_t>> partitions_of;
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kProcess) partitions_of[e.process].insert(e.partition->value());
  }
  for (const char* m : {"fulfillment-1", "fulfillment-2", "fulfillment-3"}) EXPECT_EQ(partitions_of[m].size(), 2u) << m;
  for (const char* m : {"email-1", "email-2"}) EXPECT_EQ(partitions_of[m].size(), 3u) << m;
  EXPECT_GT(out.result.stats.at("commits.accepted"), 0);
  EXPECT_EQ(out.result.stats.count("commits.rejected"), 0u);
  EXPECT_EQ(out.result.verdict.outcome, properties::Outcome::kPass);
}

TEST(GroupsRun, TheSameSeedGivesTheSameRun) {
  const RunOutput a = run(kTwoGroups, 4);
  const RunOutput b = run(kTwoGroups, 4);
  EXPECT_EQ(a.result.trace_hash, b.result.trace_hash);
  EXPECT_EQ(a.history.size(), b.history.size());
}

TEST(GroupsRun, ACrashedMembersPartitionsMoveAfterTheSessionTimeout) {
  const RunOutput out = run(R"({
    "name": "crash", "duration": "40s",
    "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "offsets.topic.num.partitions": 4}},
    "topics": [{"name": "orders", "partitions": 6}],
    "producers": [{"name": "shop", "topic": "orders", "rate_per_sec": 100, "count": 3000, "keys": {"uniform": 30}}],
    "groups": [{"name": "billing", "topics": ["orders"], "members": 3, "processing": "2ms",
                "config": {"auto.offset.reset": "earliest", "session.timeout.ms": 10000, "auto.commit.interval.ms": 1000}}],
    "timeline": [{"at": "8s", "action": "crash", "target": "billing-2"}]
  })");
  // The survivors take over billing-2's partitions in a later generation, no sooner than the
  // session timeout after the crash.
  Nanos moved_at = -1;
  const std::int32_t before = [&] {
    std::int32_t g = -1;
    for (const auto& e : out.history.events()) {
      if (e.kind == OpKind::kAssign && e.at < seconds(8)) g = std::max(g, generation_of(e));
    }
    return g;
  }();
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kAssign && e.at > seconds(8) && generation_of(e) > before && moved_at < 0) moved_at = e.at;
  }
  ASSERT_GT(moved_at, 0) << "no rebalance after the crash";
  EXPECT_GE(moved_at, seconds(18)) << "the group must wait session.timeout.ms for a crashed member";
  EXPECT_LT(moved_at, seconds(25));
  std::set<std::int32_t> late;
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kProcess && e.at > moved_at) late.insert(e.partition->value());
    if (e.kind == OpKind::kProcess && e.at > seconds(8)) {
      EXPECT_NE(e.process, "billing-2");
    }
  }
  EXPECT_EQ(late.size(), 6u) << "every partition is read again after the handover";
  const auto acked = acknowledged(out.history);
  const auto seen = processed_by(out.history, "billing");
  for (auto v : acked) ASSERT_TRUE(seen.count(v)) << "value " << v << " was never processed";
  expect_single_owner_per_generation(out.history, "billing");
  expect_handover_resumes_at_the_commit(out.history, "billing");
}

// A two-member group; billing-1 stops gracefully at 8 s. Checks that billing-2 takes all
// partitions at once (LeaveGroup, not the 30 s session timeout) and resumes each of
// billing-1's partitions exactly at billing-1's closing commit (`closing_note`: how it was made).
void expect_graceful_handover(const std::string& commit, const std::string& closing_note) {
  const RunOutput out = run(R"({
    "name": "stop", "duration": "20s",
    "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "offsets.topic.num.partitions": 4}},
    "topics": [{"name": "orders", "partitions": 4}],
    "producers": [{"name": "shop", "topic": "orders", "rate_per_sec": 200, "count": 3000, "keys": {"uniform": 30}}],
    "groups": [{"name": "billing", "topics": ["orders"], "members": 2, "commit": ")" + commit + R"(",
                "config": {"auto.offset.reset": "earliest", "session.timeout.ms": 30000}}],
    "timeline": [{"at": "8s", "action": "stop", "target": "billing-1"}]
  })");
  Nanos all_at = -1;
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kAssign && e.process == "billing-2" && e.at > seconds(8) && e.assignment.size() == 4) {
      all_at = e.at;
      break;
    }
  }
  ASSERT_GT(all_at, 0);
  EXPECT_LT(all_at, seconds(12));
  // The closing commit is sent as the member stops (it stops before the answer comes).
  std::map<std::int32_t, std::int64_t> closing;  // partition -> committed offset
  std::map<std::int32_t, std::int64_t> resumed;  // partition -> billing-2's first offset after
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kCommitInvoke && e.process == "billing-1" && e.at >= seconds(8)) {
      EXPECT_EQ(e.note, closing_note);
      closing[e.partition->value()] = e.offset->value();
    }
    if (e.kind == OpKind::kProcess && e.process == "billing-2" && e.at >= all_at && closing.count(e.partition->value()) &&
        !resumed.count(e.partition->value())) {
      resumed[e.partition->value()] = e.offset->value();
    }
  }
  ASSERT_EQ(closing.size(), 2u);
  EXPECT_EQ(resumed, closing);
  expect_handover_resumes_at_the_commit(out.history, "billing");
}

TEST(GroupsRun, AGracefulStopCommitsLeavesAndHandsOverAtOnce) { expect_graceful_handover("auto", "auto"); }

TEST(GroupsRun, AsyncCommitsEndWithASyncCommitOnClose) { expect_graceful_handover("after-each-batch-async", "manual"); }

TEST(GroupsRun, CommittedOffsetsSurviveTheCoordinatorMoving) {
  // Every broker crashes in turn, so the group's coordinator moves at least once; a member
  // that restarts afterwards resumes from the committed offsets the new coordinator loaded.
  const RunOutput out = run(R"({
    "name": "coordinator-failover", "duration": "60s",
    "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "min.insync.replicas": 2,
                                         "offsets.topic.num.partitions": 2}},
    "topics": [{"name": "orders", "partitions": 3}],
    "producers": [{"name": "shop", "topic": "orders", "rate_per_sec": 100, "count": 4000}],
    "groups": [{"name": "billing", "topics": ["orders"], "members": 1, "commit": "after-each-batch",
                "config": {"auto.offset.reset": "earliest", "session.timeout.ms": 6000, "heartbeat.interval.ms": 1000}}],
    "timeline": [
      {"at": "5s", "action": "crash", "target": "broker-1"}, {"at": "9s", "action": "restart", "target": "broker-1"},
      {"at": "15s", "action": "crash", "target": "broker-2"}, {"at": "19s", "action": "restart", "target": "broker-2"},
      {"at": "25s", "action": "crash", "target": "broker-3"}, {"at": "29s", "action": "restart", "target": "broker-3"},
      {"at": "35s", "action": "crash", "target": "billing-1"}, {"at": "37s", "action": "restart", "target": "billing-1"}
    ]
  })");
  expect_handover_resumes_at_the_commit(out.history, "billing");
  const auto acked = acknowledged(out.history);
  const auto seen = processed_by(out.history, "billing");
  for (auto v : acked) ASSERT_TRUE(seen.count(v)) << "value " << v << " was never processed";
  // After the restart the member did not start over from the beginning.
  std::int64_t reprocessed = 0;
  std::set<std::uint64_t> before;
  for (const auto& e : out.history.events()) {
    if (e.kind != OpKind::kProcess) continue;
    if (e.at < seconds(35)) {
      before.insert(e.value_id);
    } else if (before.count(e.value_id)) {
      ++reprocessed;
    }
  }
  EXPECT_LT(reprocessed, 100) << "the restarted member re-read far more than its last batch";
  EXPECT_GE(last_generation(out.history, "billing"), 2);
}

TEST(GroupsRun, AMemberPausedPastItsSessionIsFencedAndRejoins) {
  const RunOutput out = run(R"({
    "name": "zombie", "duration": "40s",
    "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "offsets.topic.num.partitions": 4}},
    "topics": [{"name": "orders", "partitions": 4}],
    "producers": [{"name": "shop", "topic": "orders", "rate_per_sec": 100, "count": 3000}],
    "groups": [{"name": "billing", "topics": ["orders"], "members": 2, "commit": "after-each-message",
                "config": {"auto.offset.reset": "earliest", "session.timeout.ms": 6000, "heartbeat.interval.ms": 1000}}],
    "timeline": [{"at": "8s", "action": "pause", "target": "billing-1"}, {"at": "20s", "action": "resume", "target": "billing-1"}]
  })");
  // billing-1 resumes believing in its old generation: its first commit is refused, then it
  // rejoins and gets partitions again.
  std::vector<std::string> after;
  for (const auto& e : out.history.events()) {
    if (e.process != "billing-1" || e.at < seconds(20)) continue;
    if (e.kind == OpKind::kCommitFail) after.push_back("fail:" + e.error);
    if (e.kind == OpKind::kAssign && !e.assignment.empty()) after.push_back("assigned");
  }
  ASSERT_FALSE(after.empty());
  EXPECT_TRUE(after.front() == "fail:ILLEGAL_GENERATION" || after.front() == "fail:UNKNOWN_MEMBER_ID") << after.front();
  EXPECT_NE(std::find(after.begin(), after.end(), "assigned"), after.end()) << "it never rejoined";
  // No commit sent from an old generation after a member was given a newer one was accepted.
  std::int32_t newest = -1;
  std::map<std::pair<std::string, std::uint64_t>, std::int32_t> newest_at_invoke;
  for (const auto& e : out.history.events()) {
    if (e.group != "billing") continue;
    if (e.kind == OpKind::kAssign) newest = std::max(newest, generation_of(e));
    if (e.kind == OpKind::kCommitInvoke) newest_at_invoke[{e.process, e.commit_id}] = newest;
    if (e.kind == OpKind::kCommitOk) {
      const std::int32_t at_invoke = newest_at_invoke[{e.process, e.commit_id}];
      EXPECT_GE(e.generation, GenerationId(at_invoke)) << "stale commit accepted at event #" << e.index;
    }
  }
  expect_single_owner_per_generation(out.history, "billing");
  EXPECT_EQ(out.result.verdict.outcome, properties::Outcome::kPass);
}

}  // namespace
}  // namespace logsim::scenarios

namespace logsim::scenarios {
namespace {

// One member, two partitions, a crash and a restart: what the member processed before the
// crash, what it committed, and where it started again, per partition. The member processes
// slower than the producer writes, so its polls return full batches and the crash falls
// inside one.
struct CrashReplay {
  std::map<std::int32_t, std::int64_t> last_processed_before;  // highest offset processed before the crash
  std::map<std::int32_t, std::int64_t> committed_before;       // last accepted commit before the crash
  std::map<std::int32_t, std::int64_t> resumed_at;             // first offset processed after the restart
  std::map<std::int32_t, std::set<std::int64_t>> processed;    // every offset ever processed
};

CrashReplay crash_replay(const properties::History& h, Nanos crash) {
  CrashReplay r;
  for (const auto& e : h.events()) {
    if (e.kind == OpKind::kCommitOk && e.at < crash) r.committed_before[e.partition->value()] = e.offset->value();
    if (e.kind != OpKind::kProcess) continue;
    r.processed[e.partition->value()].insert(e.offset->value());
    if (e.at < crash) {
      r.last_processed_before[e.partition->value()] = std::max(r.last_processed_before[e.partition->value()], e.offset->value());
    } else if (!r.resumed_at.count(e.partition->value())) {
      r.resumed_at[e.partition->value()] = e.offset->value();
    }
  }
  return r;
}

std::string crash_scenario(const std::string& commit, const std::string& extra_config) {
  return R"({
    "name": "crash-replay", "duration": "40s",
    "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "offsets.topic.num.partitions": 2}},
    "topics": [{"name": "orders", "partitions": 2}],
    "producers": [{"name": "shop", "topic": "orders", "rate_per_sec": 200, "count": 2400, "keys": {"uniform": 20}}],
    "groups": [{"name": "billing", "topics": ["orders"], "processing": "8ms", "commit": ")" + commit + R"(",
                "config": {"auto.offset.reset": "earliest", "max.poll.records": 50, "session.timeout.ms": 6000,
                           "heartbeat.interval.ms": 1000)" + extra_config + R"(}}],
    "timeline": [{"at": "10s", "action": "crash", "target": "billing-1"}, {"at": "11s", "action": "restart", "target": "billing-1"}]
  })";
}

TEST(GroupsRunCrash, AutoCommitReplaysExactlyWhatWasProcessedSinceTheLastCommit) {
  const RunOutput out = run(crash_scenario("auto", R"(, "auto.commit.interval.ms": 5000)"));
  const CrashReplay r = crash_replay(out.history, seconds(10));
  ASSERT_EQ(r.resumed_at.size(), 2u);
  for (const auto& [p, resumed] : r.resumed_at) {
    ASSERT_TRUE(r.committed_before.count(p)) << "partition " << p;
    // Kafka's semantics: the restarted member starts at the last committed offset, so it
    // processes again exactly the records processed after that commit (at least once).
    EXPECT_EQ(resumed, r.committed_before.at(p)) << "partition " << p;
    EXPECT_LE(resumed, r.last_processed_before.at(p) + 1) << "nothing may be skipped";
    EXPECT_GT(r.last_processed_before.at(p) + 1, resumed) << "the crash should replay something on partition " << p;
  }
  // Nothing acknowledged is lost, and the checkers agree.
  const auto acked = acknowledged(out.history);
  const auto seen = processed_by(out.history, "billing");
  for (auto v : acked) ASSERT_TRUE(seen.count(v)) << "value " << v;
  EXPECT_EQ(out.result.verdict.outcome, properties::Outcome::kPass);
}

TEST(GroupsRunCrash, CommittingBeforeProcessingLosesTheRestOfTheBatch) {
  const RunOutput out = run(crash_scenario("before-processing", ""));
  const CrashReplay r = crash_replay(out.history, seconds(10));
  std::int64_t lost = 0;
  for (const auto& [p, resumed] : r.resumed_at) {
    // The batch was committed before it was processed: the restart resumes after it, so the
    // records between the last processed one and the commit are never processed.
    EXPECT_EQ(resumed, r.committed_before.at(p)) << "partition " << p;
    for (std::int64_t o = r.last_processed_before.at(p) + 1; o < resumed; ++o) {
      EXPECT_FALSE(r.processed.at(p).count(o)) << "offset " << o << " of partition " << p;
      ++lost;
    }
  }
  EXPECT_GT(lost, 0) << "the crash should fall inside a batch and lose its rest";
  // The checkers name it: the group committed past records it never processed (and the log
  // itself lost nothing, so no lost-write).
  std::set<std::string> anomalies;
  for (const auto& v : out.result.verdict.violations) anomalies.insert(v.anomaly);
  EXPECT_EQ(anomalies, std::set<std::string>{"lost-commit"});
  EXPECT_LT(acknowledged(out.history).size() - processed_by(out.history, "billing").size(), 100u);
  EXPECT_EQ(acknowledged(out.history).size() - processed_by(out.history, "billing").size(), static_cast<std::size_t>(lost));
}

}  // namespace
}  // namespace logsim::scenarios

namespace logsim::scenarios {
namespace {

std::string failure_scenario(const std::string& failures) {
  return R"({
    "name": "failures", "duration": "30s",
    "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "offsets.topic.num.partitions": 2}},
    "topics": [{"name": "orders", "partitions": 2}, {"name": "orders.dlq"}],
    "producers": [{"name": "shop", "topic": "orders", "rate_per_sec": 100, "count": 1000, "keys": {"uniform": 50}}],
    "groups": [{"name": "billing", "topics": ["orders"], "commit": "after-each-message", "failures": )" + failures + R"(,
                "config": {"auto.offset.reset": "earliest"}}]
  })";
}

TEST(GroupsRunFailures, APoisonRecordRetriedForeverBlocksItsPartition) {
  const RunOutput out = run(failure_scenario(R"({"poison_probability": 0.01, "on_failure": "retry"})"));
  // Each partition stops at its first poison record: nothing after it is processed.
  std::map<std::int32_t, std::int64_t> highest;
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kProcess) highest[e.partition->value()] = std::max(highest[e.partition->value()], e.offset->value());
  }
  std::map<std::int32_t, std::int64_t> end;
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kSendOk) end[e.partition->value()] = std::max(end[e.partition->value()], e.offset->value() + 1);
  }
  ASSERT_EQ(end.size(), 2u);
  for (const auto& [p, e] : end) EXPECT_LT(highest[p] + 1, e) << "partition " << p << " was not blocked";
}

TEST(GroupsRunFailures, SkipAndDeadLetterKeepThePartitionsMoving) {
  const RunOutput skipped = run(failure_scenario(R"({"poison_probability": 0.02, "on_failure": "skip"})"));
  std::size_t skips = 0;
  for (const auto& e : skipped.history.events()) skips += e.kind == OpKind::kProcess && e.note.starts_with("skipped") ? 1u : 0u;
  EXPECT_GT(skips, 5u);
  EXPECT_EQ(processed_by(skipped.history, "billing").size(), 1000u) << "a skipped record still counts as handled";

  const RunOutput dlq = run(failure_scenario(
      R"({"poison_probability": 0.02, "on_failure": "dead-letter", "retries": 2, "dead_letter_topic": "orders.dlq"})"));
  std::size_t lettered = 0, dlq_acks = 0;
  for (const auto& e : dlq.history.events()) {
    lettered += e.kind == OpKind::kProcess && e.note.starts_with("dead-lettered") ? 1u : 0u;
    dlq_acks += e.kind == OpKind::kSendOk && e.topic == "orders.dlq" ? 1u : 0u;
  }
  EXPECT_EQ(lettered, skips) << "the same records are poison under the same seed";
  EXPECT_EQ(dlq_acks, lettered);
}

}  // namespace
}  // namespace logsim::scenarios

namespace logsim::scenarios {
namespace {

std::string restart_scenario(bool static_membership) {
  return std::string(R"({
    "name": "restart", "duration": "40s",
    "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "offsets.topic.num.partitions": 2}},
    "topics": [{"name": "orders", "partitions": 4}],
    "producers": [{"name": "shop", "topic": "orders", "rate_per_sec": 100, "count": 3000, "keys": {"uniform": 50}}],
    "groups": [{"name": "billing", "topics": ["orders"], "members": 2, "static_membership": )") +
         (static_membership ? "true" : "false") + R"(,
                "config": {"auto.offset.reset": "earliest", "session.timeout.ms": 10000, "heartbeat.interval.ms": 1000}}],
    "timeline": [{"at": "10s", "action": "crash", "target": "billing-1"}, {"at": "12s", "action": "restart", "target": "billing-1"}]
  })";
}

// One group.instance.id copied to every member (KIP-345 allows one live holder): each new
// JoinGroup with the id replaces the holder, whose next request is answered FENCED_INSTANCE_ID,
// a fatal error: it stops, and the history says so. One member is left, and it processes
// everything.
TEST(GroupsRunStatic, MembersSharingAGroupInstanceIdFenceEachOtherUntilOneIsLeft) {
  const RunOutput out = run(R"({
    "name": "copied-config", "duration": "30s",
    "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "offsets.topic.num.partitions": 2}},
    "topics": [{"name": "orders", "partitions": 4}],
    "producers": [{"name": "shop", "topic": "orders", "rate_per_sec": 100, "count": 2000, "keys": {"uniform": 50}}],
    "groups": [{"name": "billing", "topics": ["orders"], "members": 3,
                "config": {"auto.offset.reset": "earliest", "group.instance.id": "billing-worker"}}]
  })");
  std::set<std::string> fenced;
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kFault && e.error == "FENCED_INSTANCE_ID") fenced.insert(e.process);
  }
  EXPECT_EQ(fenced.size(), 2u);
  std::set<std::string> processing;
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kProcess) processing.insert(e.process);
  }
  ASSERT_EQ(processing.size(), 1u);
  EXPECT_FALSE(fenced.contains(*processing.begin()));
  const auto seen = processed_by(out.history, "billing");
  for (auto v : acknowledged(out.history)) ASSERT_TRUE(seen.count(v)) << "value " << v;
}

// A static member that crashed keeps its partitions until its session times out (45 s here);
// an operator who knows it will not come back removes it by its group.instance.id
// (Admin.removeMembersFromConsumerGroup): the group rebalances at once.
TEST(GroupsRunStatic, RemovingACrashedStaticMemberHandsItsPartitionsOverAtOnce) {
  const RunOutput out = run(R"({
    "name": "remove-static", "duration": "30s",
    "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "offsets.topic.num.partitions": 2}},
    "topics": [{"name": "orders", "partitions": 4}],
    "producers": [{"name": "shop", "topic": "orders", "rate_per_sec": 100, "count": 2500, "keys": {"uniform": 50}}],
    "groups": [{"name": "billing", "topics": ["orders"], "members": 2, "static_membership": true,
                "config": {"auto.offset.reset": "earliest", "session.timeout.ms": 45000}}],
    "timeline": [{"at": "8s", "action": "crash", "target": "billing-2"},
                 {"at": "9s", "action": "remove-static-members", "group": "billing", "instances": ["billing-2"]}]
  })");
  Nanos took_over = -1;
  bool admin_done = false;
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kAssign && e.process == "billing-1" && e.assignment.size() == 4 && took_over < 0) took_over = e.at;
    if (e.kind == OpKind::kAdmin && e.note.find("remove-static-members billing billing-2") != std::string::npos) {
      admin_done = e.error == "NONE";
    }
  }
  EXPECT_TRUE(admin_done);
  ASSERT_GT(took_over, seconds(9));
  EXPECT_LT(took_over, seconds(12)) << "billing-1 waited for the crashed member's session to expire";
  const auto seen = processed_by(out.history, "billing");
  for (auto v : acknowledged(out.history)) ASSERT_TRUE(seen.count(v)) << "value " << v;
}

// The partitions each member was last assigned, and the generations the group went through.
std::map<std::string, std::vector<TopicPartition>> final_assignments(const properties::History& h) {
  std::map<std::string, std::vector<TopicPartition>> out;
  for (const auto& e : h.events()) {
    if (e.kind == OpKind::kAssign) out[e.process] = e.assignment;
  }
  return out;
}

TEST(GroupsRunStatic, AStaticMemberRestartingWithinTheSessionKeepsItsPartitionsWithoutARebalance) {
  const RunOutput out = run(restart_scenario(true));
  // billing-2 never sees a rebalance: one assignment, in generation 1, for the whole run.
  std::vector<std::int32_t> generations_of_2;
  std::vector<std::pair<std::int32_t, std::size_t>> assigns_of_1;
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kAssign && e.process == "billing-2") generations_of_2.push_back(properties::History::packed(e.generation));
    if (e.kind == OpKind::kAssign && e.process == "billing-1") assigns_of_1.emplace_back(properties::History::packed(e.generation), e.assignment.size());
  }
  EXPECT_EQ(generations_of_2, std::vector<std::int32_t>{1});
  // billing-1 comes back into the same generation with the same two partitions.
  ASSERT_EQ(assigns_of_1.size(), 2u);
  EXPECT_EQ(assigns_of_1[1], (std::pair<std::int32_t, std::size_t>{1, 2}));
  const auto acked = acknowledged(out.history);
  const auto seen = processed_by(out.history, "billing");
  for (auto v : acked) ASSERT_TRUE(seen.count(v)) << "value " << v;
}

TEST(GroupsRunStatic, ADynamicMemberRestartingStallsTheGroupUntilItsOldSessionExpires) {
  const RunOutput out = run(restart_scenario(false));
  // The restarted member joins as a new one and starts a rebalance; billing-2 revokes
  // everything (eager) and rejoins, but the join cannot complete until the crashed
  // incarnation's session (10 s from its last heartbeat, just before 10 s) expires.
  EXPECT_EQ(last_generation(out.history, "billing"), 2);
  Nanos revoked = -1, reassigned = -1;
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kAssign && e.process == "billing-2" && e.note == "revoked" && revoked < 0) revoked = e.at;
    if (e.kind == OpKind::kAssign && e.process == "billing-2" && e.generation == GenerationId(2)) reassigned = e.at;
  }
  EXPECT_GT(revoked, seconds(12));
  EXPECT_LT(revoked, seconds(13));
  EXPECT_GT(reassigned, seconds(19));
  EXPECT_LE(reassigned, seconds(21));
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kProcess && e.at > revoked && e.at < reassigned) {
      ADD_FAILURE() << "processed during the rebalance at event #" << e.index;
      break;
    }
  }
  const auto last = final_assignments(out.history);
  EXPECT_EQ(last.at("billing-1").size() + last.at("billing-2").size(), 4u);
}

}  // namespace
}  // namespace logsim::scenarios

namespace logsim::scenarios {
namespace {

TEST(GroupsRunSizing, MembersBeyondThePartitionCountStayIdle) {
  const RunOutput out = run(R"({
    "name": "extras", "duration": "20s",
    "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "offsets.topic.num.partitions": 2}},
    "topics": [{"name": "orders", "partitions": 2}],
    "producers": [{"name": "shop", "topic": "orders", "rate_per_sec": 100, "count": 1000, "keys": {"uniform": 50}}],
    "groups": [{"name": "billing", "topics": ["orders"], "members": 4, "config": {"auto.offset.reset": "earliest"}}]
  })");
  const auto last = final_assignments(out.history);
  ASSERT_EQ(last.size(), 4u);
  std::size_t idle = 0, busy = 0;
  for (const auto& [member, partitions] : last) (partitions.empty() ? idle : busy) += 1;
  EXPECT_EQ(idle, 2u);
  EXPECT_EQ(busy, 2u);
  EXPECT_EQ(processed_by(out.history, "billing").size(), 1000u);
}

TEST(GroupsRunSizing, ABatchLongerThanMaxPollIntervalDropsTheMemberAndItsCommitFails) {
  const RunOutput out = run(R"({
    "name": "slow", "duration": "60s",
    "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "offsets.topic.num.partitions": 2}},
    "topics": [{"name": "orders", "partitions": 2}],
    "producers": [{"name": "shop", "topic": "orders", "rate_per_sec": 200, "count": 2000, "keys": {"uniform": 50}}],
    "groups": [{"name": "billing", "topics": ["orders"], "members": 2, "processing": "20ms", "commit": "after-each-batch",
                "config": {"auto.offset.reset": "earliest", "max.poll.records": 500, "max.poll.interval.ms": 6000}}]
  })");
  // A batch of up to 500 records at 20 ms each outlasts max.poll.interval.ms: the client
  // leaves the group behind the application's back, and the batch's commit is refused.
  std::size_t refused = 0;
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kCommitFail) {
      ++refused;
      EXPECT_TRUE(e.error == "ILLEGAL_GENERATION" || e.error == "REBALANCE_IN_PROGRESS" || e.error == "UNKNOWN_MEMBER_ID")
          << e.error;
    }
  }
  EXPECT_GT(refused, 0u);
  EXPECT_GE(last_generation(out.history, "billing"), 2);
  expect_single_owner_per_generation(out.history, "billing");
}

}  // namespace
}  // namespace logsim::scenarios

namespace logsim::scenarios {
namespace {

std::string quiesce_scenario(const std::string& timeline, const std::string& quiesce) {
  return R"({
    "name": "quiesce", "duration": "20s", "quiesce": ")" + quiesce + R"(",
    "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "min.insync.replicas": 2,
                                         "offsets.topic.num.partitions": 2}},
    "topics": [{"name": "orders", "partitions": 2}],
    "producers": [{"name": "shop", "topic": "orders", "rate_per_sec": 100, "count": 1500, "keys": {"uniform": 20}}],
    "groups": [{"name": "billing", "topics": ["orders"], "config": {"auto.offset.reset": "earliest"}}],
    "timeline": )" + timeline + "}";
}

TEST(GroupsRunQuiesce, TheQuietPeriodHealsTheClusterAndTheGroupCatchesUp) {
  // Two brokers down at the end of the fault phase: writes stop (min.insync.replicas 2). The
  // quiet period restarts them, the producer finishes, and the group processes everything.
  const RunOutput out = run(quiesce_scenario(R"([{"at": "12s", "action": "crash", "target": "broker-1"},
                                                 {"at": "12s", "action": "crash", "target": "broker-2"},
                                                 {"at": "14s", "action": "pause", "target": "billing-1"}])",
                                             "20s"));
  bool quiesced = false;
  for (const auto& e : out.history.events()) quiesced = quiesced || e.note.starts_with("quiesce");
  EXPECT_TRUE(quiesced);
  EXPECT_EQ(acknowledged(out.history).size(), 1500u);
  EXPECT_EQ(processed_by(out.history, "billing").size(), 1500u);
  EXPECT_EQ(out.result.verdict.outcome, properties::Outcome::kPass) << out.result.verdict.violations.size();
}

TEST(GroupsRunQuiesce, AGroupThatCannotCatchUpIsALivenessFailure) {
  // The group's only member crashes and stays down: applications are not restarted.
  const RunOutput out = run(quiesce_scenario(R"([{"at": "5s", "action": "crash", "target": "billing-1"}])", "10s"));
  ASSERT_FALSE(out.result.verdict.violations.empty());
  EXPECT_EQ(out.result.verdict.outcome, properties::Outcome::kLiveness);
  for (const auto& v : out.result.verdict.violations) EXPECT_EQ(v.anomaly, "liveness");
  // Without a quiet period nothing is checked.
  const RunOutput unchecked = run(quiesce_scenario(R"([{"at": "5s", "action": "crash", "target": "billing-1"}])", "0s"));
  EXPECT_EQ(unchecked.result.verdict.outcome, properties::Outcome::kPass);
}

}  // namespace
}  // namespace logsim::scenarios

namespace logsim::scenarios {
namespace {

std::string scenarios_dir() { return LOGSIM_SOURCE_DIR "/scenarios/"; }

TEST(GroupsRunPlants, AStaleCommitIsFoundWhenTheCoordinatorIsPlantedToAcceptIt) {
  Scenario s = load_scenario_file(scenarios_dir() + "zombie-member-is-fenced.json");
  const RunOutput clean = run_scenario(s, RunOptions{s.seed, false});
  EXPECT_EQ(clean.result.verdict.outcome, properties::Outcome::kPass);
  s.plants.add(Plant::kAcceptStaleCommit);
  const RunOutput planted = run_scenario(s, RunOptions{s.seed, false});
  std::set<std::string> anomalies;
  for (const auto& v : planted.result.verdict.violations) anomalies.insert(v.anomaly);
  EXPECT_TRUE(anomalies.count("stale-commit-accepted")) << "the planted bug went unnoticed";
  // The woken zombie's commit was accepted instead of fenced.
  bool zombie_commit_ok = false;
  for (const auto& e : planted.history.events()) {
    zombie_commit_ok = zombie_commit_ok || (e.kind == OpKind::kCommitOk && e.process == "ledger-1" && e.at > seconds(22) &&
                                            e.generation == GenerationId(1));
  }
  EXPECT_TRUE(zombie_commit_ok);
}

}  // namespace
}  // namespace logsim::scenarios

namespace logsim::scenarios {
namespace {

TEST(GroupsRunStatic, ARollingRestartOfStaticMembersNeverRebalances) {
  const Scenario s = load_scenario_file(scenarios_dir() + "static-members-rolling-restart.json");
  const RunOutput out = run_scenario(s, RunOptions{s.seed, false});
  EXPECT_EQ(out.result.stats.at("group.settlement.generation"), 1);
  EXPECT_EQ(processed_by(out.history, "settlement").size(), 7500u);
  EXPECT_EQ(out.result.verdict.outcome, properties::Outcome::kPass);
  Scenario dynamic = s;
  dynamic.groups[0].static_membership = false;
  const RunOutput d = run_scenario(dynamic, RunOptions{s.seed, false});
  EXPECT_EQ(d.result.stats.at("group.settlement.generation"), 4) << "each dynamic restart is a rebalance";
}

}  // namespace
}  // namespace logsim::scenarios

namespace logsim::scenarios {
namespace {

TEST(GroupsRunPlants, KafkaBug14196AutoCommitOfFetchedRecordsIsFoundAsLostCommit) {
  // Members fall behind (buffers full of fetched records); a member crash makes the others
  // rebalance, and their auto-commit before rejoining is where the planted bug strikes.
  Scenario s = parse_scenario(R"({
    "name": "kafka-14196", "duration": "40s", "quiesce": "20s",
    "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "offsets.topic.num.partitions": 2}},
    "topics": [{"name": "orders", "partitions": 4}],
    "producers": [{"name": "shop", "topic": "orders", "rate_per_sec": 300, "count": 6000, "keys": {"uniform": 40}}],
    "groups": [{"name": "billing", "topics": ["orders"], "members": 3, "processing": "4ms",
                "config": {"auto.offset.reset": "earliest", "max.poll.records": 50, "session.timeout.ms": 6000,
                           "heartbeat.interval.ms": 1000}}],
    "timeline": [{"at": "8s", "action": "crash", "target": "billing-3"}]
  })", "mem.json");
  const RunOutput clean = run_scenario(s, RunOptions{3, false});
  EXPECT_EQ(clean.result.verdict.outcome, properties::Outcome::kPass);
  s.plants.add(Plant::kAutoCommitFetchedOnRebalance);
  const RunOutput planted = run_scenario(s, RunOptions{3, false});
  std::set<std::string> anomalies;
  for (const auto& v : planted.result.verdict.violations) anomalies.insert(v.anomaly);
  EXPECT_TRUE(anomalies.count("lost-commit")) << "the planted bug went unnoticed";
  EXPECT_FALSE(anomalies.count("lost-write")) << "the log lost nothing";
}

// The eager sticky assignor is sticky: members revoke everything before they rejoin, yet the
// assignor still sees what each had (its userData) and moves only the crashed member's
// partition, to an idle member; range shifts the survivors' partitions instead.
std::map<std::string, std::vector<std::int32_t>> assignments_in(const properties::History& h, std::int32_t generation) {
  std::map<std::string, std::vector<std::int32_t>> out;
  for (const auto& e : h.events()) {
    // An eager revocation is an empty assignment in the old generation: skip it.
    if (e.kind != OpKind::kAssign || e.generation != GenerationId(generation) || e.assignment.empty()) continue;
    auto& parts = out[e.process];
    parts.clear();
    for (const auto& tp : e.assignment) parts.push_back(tp.partition.value());
  }
  return out;
}

std::string five_workers(const std::string& strategy) {
  return R"({"name": "five", "duration": "40s", "seed": 4,
    "cluster": {"brokers": 1, "config": {"offsets.topic.num.partitions": 1, "offsets.topic.replication.factor": 1}},
    "topics": [{"name": "invoices", "partitions": 3}],
    "producers": [{"name": "invoicing", "topic": "invoices", "rate_per_sec": 100, "count": 3000, "keys": {"uniform": 200}}],
    "groups": [{"name": "billing", "topics": ["invoices"], "members": 5, "commit": "after-each-batch",
                "config": {"auto.offset.reset": "earliest", "partition.assignment.strategy": ")" + strategy + R"(",
                           "session.timeout.ms": 10000, "heartbeat.interval.ms": 2000}}],
    "timeline": [{"at": "15s", "action": "crash", "target": "billing-1"}]})";
}

TEST(GroupsRunSticky, EagerStickyMovesOnlyTheCrashedMembersPartition) {
  const RunOutput out = run(five_workers("sticky"));
  const auto before = assignments_in(out.history, last_generation(out.history, "billing") - 1);
  const auto after = assignments_in(out.history, last_generation(out.history, "billing"));
  ASSERT_FALSE(before.empty());
  ASSERT_FALSE(after.empty());
  std::size_t kept = 0;
  for (const auto& [member, parts] : before) {
    if (member == "billing-1" || parts.empty()) continue;
    ASSERT_TRUE(after.contains(member)) << member;
    EXPECT_EQ(after.at(member), parts) << member << " lost its partition in a sticky rebalance";
    ++kept;
  }
  EXPECT_EQ(kept, 2u) << "two surviving owners keep their partitions";
}

}  // namespace
}  // namespace logsim::scenarios

// Topic admin at run time, end to end: the timeline's admin steps go through the admin client
// to the controller, the brokers learn of them, and producers and consumers see the effects —
// a created topic is written and read, a deleted topic's writes stop, a grown topic's keys
// spread over the new partitions, and a topic that cannot be placed is refused with Kafka's
// error.
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

RunOutput run(const std::string& text, std::uint64_t seed = 5) {
  return run_scenario(parse_scenario(text, "mem.json"), RunOptions{seed, false});
}

// The admin outcomes recorded in the history, in order.
std::vector<std::string> admin_notes(const properties::History& h) {
  std::vector<std::string> out;
  for (const auto& e : h.events()) {
    if (e.kind == OpKind::kAdmin) out.push_back(e.note);
  }
  return out;
}

constexpr const char* kLifecycle = R"({
  "name": "admin", "duration": "30s",
  "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "min.insync.replicas": 2}},
  "topics": [{"name": "orders", "partitions": 3}],
  "producers": [
    {"name": "shop", "topic": "orders", "rate_per_sec": 200, "count": 5000, "keys": {"uniform": 50},
     "config": {"metadata.max.age.ms": 1000}},
    {"name": "auditor", "topic": "audit", "start": "6s", "rate_per_sec": 100, "count": 1000,
     "config": {"delivery.timeout.ms": 5000, "request.timeout.ms": 2000}}
  ],
  "consumers": [{"name": "reader", "topics": ["orders", "audit"], "config": {"auto.offset.reset": "earliest"}}],
  "timeline": [
    {"at": "5s", "action": "create-topic", "topic": {"name": "audit", "partitions": 2}},
    {"at": "8s", "action": "add-partitions", "topic": "orders", "partitions": 6},
    {"at": "10s", "action": "alter-config", "topic": "orders", "config": {"retention.ms": 3600000}},
    {"at": "12s", "action": "delete-topic", "topic": "audit"}
  ]
})";

TEST(TopicAdminRun, StepsAreCarriedOutInOrder) {
  const RunOutput out = run(kLifecycle);
  const auto notes = admin_notes(out.history);
  ASSERT_EQ(notes.size(), 4u);
  EXPECT_EQ(notes[0], "create-topic audit: done");
  EXPECT_EQ(notes[1], "add-partitions orders to 6 partitions: done");
  EXPECT_EQ(notes[2], "alter-config orders retention.ms=3600000: done");
  EXPECT_EQ(notes[3], "delete-topic audit: done");
  EXPECT_EQ(out.result.stats.at("admin.operations"), 4);
  EXPECT_EQ(out.result.stats.at("faults"), 0) << "admin steps are not faults";
}

TEST(TopicAdminRun, ACreatedTopicIsWrittenAndReadAndADeletedOneIsNot) {
  const RunOutput out = run(kLifecycle);
  std::map<std::string, std::int64_t> acked, failed, processed;
  Nanos last_audit_ack = 0;
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kSendOk) {
      ++acked[e.process];
      if (e.process == "auditor") last_audit_ack = e.at;
    }
    if (e.kind == OpKind::kSendFail || e.kind == OpKind::kSendInfo) ++failed[e.process];
    if (e.kind == OpKind::kProcess) ++processed[e.topic];
  }
  // The auditor writes from 6 s; audit is deleted at 12 s: about 600 records land, the rest
  // cannot (the topic is gone) and end failed or unknown.
  EXPECT_GT(acked["auditor"], 400);
  EXPECT_LT(acked["auditor"], 700);
  EXPECT_LE(last_audit_ack, seconds(12) + millis(100)) << "nothing acknowledged once the topic is gone";
  EXPECT_EQ(acked["auditor"] + failed["auditor"], 1000) << "every send ended";
  EXPECT_GT(failed["auditor"], 0);
  EXPECT_EQ(processed["audit"], acked["auditor"]) << "everything written to audit was read before it went";
  EXPECT_EQ(acked["shop"], 5000);
  EXPECT_EQ(out.result.verdict.outcome, properties::Outcome::kPass);
}

TEST(TopicAdminRun, KeysSpreadOverAddedPartitions) {
  const RunOutput out = run(kLifecycle);
  // Keys move to the new partitions once the producer's metadata knows them (metadata.max.age.ms).
  std::map<std::string, std::set<std::int32_t>> partitions_of_key_before, partitions_of_key_after;
  std::set<std::int32_t> used_after;
  for (const auto& e : out.history.events()) {
    if (e.kind != OpKind::kSendOk || e.process != "shop") continue;
    if (e.at < seconds(8)) partitions_of_key_before[*e.key].insert(e.partition->value());
    if (e.at > seconds(10)) {
      partitions_of_key_after[*e.key].insert(e.partition->value());
      used_after.insert(e.partition->value());
    }
  }
  EXPECT_EQ(used_after, (std::set<std::int32_t>{0, 1, 2, 3, 4, 5}));
  for (const auto& [key, ps] : partitions_of_key_before) EXPECT_EQ(ps.size(), 1u) << key;
  for (const auto& [key, ps] : partitions_of_key_after) EXPECT_EQ(ps.size(), 1u) << key;
  std::size_t moved = 0;
  for (const auto& [key, ps] : partitions_of_key_after) {
    if (partitions_of_key_before.contains(key) && partitions_of_key_before[key] != ps) ++moved;
  }
  EXPECT_GT(moved, 0u) << "some keys now map to another partition, as in Kafka";
}

TEST(TopicAdminRun, ATopicThatCannotBePlacedIsRefusedWithKafkasError) {
  const RunOutput out = run(R"({
    "name": "admin", "duration": "20s",
    "cluster": {"brokers": 3, "config": {"broker.session.timeout.ms": 2000, "broker.heartbeat.interval.ms": 500}},
    "topics": [{"name": "orders"}],
    "timeline": [
      {"at": "1s", "action": "crash", "target": "broker-3"},
      {"at": "5s", "action": "create-topic", "topic": {"name": "wide", "replication_factor": 3}},
      {"at": "6s", "action": "create-topic", "topic": {"name": "narrow", "replication_factor": 2}}
    ]
  })");
  const auto notes = admin_notes(out.history);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0], "create-topic wide: INVALID_REPLICATION_FACTOR Unable to replicate the partition 3 time(s): The "
                      "target replication factor of 3 cannot be reached because only 2 broker(s) are registered.");
  EXPECT_EQ(notes[1], "create-topic narrow: done");
}

TEST(TopicAdminRun, SameSeedSameRun) {
  const RunOutput a = run(kLifecycle, 11);
  const RunOutput b = run(kLifecycle, 11);
  EXPECT_EQ(a.result.trace_hash, b.result.trace_hash);
  EXPECT_EQ(a.history.size(), b.history.size());
}

}  // namespace
}  // namespace logsim::scenarios

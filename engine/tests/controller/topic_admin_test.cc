// The controller's topic admin: Kafka's replica placement, create/delete/grow/alter with
// Kafka's errors and messages, topic config parsing, and the metadata encoding round trip.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "engine/controller/cluster_metadata.h"
#include "engine/controller/topic_config.h"

namespace logsim::engine {
namespace {

std::vector<NodeId> brokers(std::int32_t n) {
  std::vector<NodeId> out;
  for (std::int32_t i = 0; i < n; ++i) out.push_back(NodeId(i));
  return out;
}

// A cluster with `n` registered brokers.
ClusterMetadata cluster(std::int32_t n) {
  ClusterMetadata md;
  for (NodeId b : brokers(n)) md.register_broker(b);
  return md;
}

TopicCreation topic(const std::string& name, std::int32_t partitions, std::int32_t rf) {
  return TopicCreation{name, partitions, rf, TopicConfigs{}};
}

// Kafka's own expectation for the rack-unaware assignment (AdminRackAwareTest /
// ReplicaAssignmentTest: five brokers, ten partitions, three replicas, start index 0).
TEST(ReplicaPlacement, MatchesKafkasRackUnawareAssignment) {
  const std::vector<std::vector<std::int32_t>> expected = {
      {0, 1, 2}, {1, 2, 3}, {2, 3, 4}, {3, 4, 0}, {4, 0, 1}, {0, 2, 3}, {1, 3, 4}, {2, 4, 0}, {3, 0, 1}, {4, 1, 2}};
  for (std::int32_t p = 0; p < 10; ++p) {
    const auto got = assign_replicas(p, 3, brokers(5), 0, 0);
    std::vector<std::int32_t> v;
    for (NodeId n : got) v.push_back(n.value());
    EXPECT_EQ(v, expected[static_cast<std::size_t>(p)]) << "partition " << p;
  }
}

TEST(ReplicaPlacement, GrowingATopicContinuesTheSameAssignment) {
  // Partitions 3..9 added to a 3-partition topic land where a 10-partition topic would have
  // put them, except that the shift restarts counting at the first added partition.
  for (std::int32_t p = 3; p < 10; ++p) {
    const auto grown = assign_replicas(p, 3, brokers(5), 0, 0, 3);
    const auto fresh = assign_replicas(p, 3, brokers(5), 0, 0, 0);
    EXPECT_EQ(grown, fresh) << "partition " << p;  // same multiples of 5 crossed from 3 as from 0
  }
  // Starting at 5 (a multiple of the broker count) bumps the shift at once, as Kafka's loop does.
  EXPECT_EQ(assign_replicas(5, 3, brokers(5), 0, 0, 5), assign_replicas(5, 3, brokers(5), 0, 0, 0));
  EXPECT_NE(assign_replicas(6, 3, brokers(5), 0, 0, 6), assign_replicas(6, 3, brokers(5), 0, 0, 0));
}

// Kafka's AdminRackAwareTest (testGetRackAlternatedBrokerListAndAssignReplicasToBrokers):
// brokers 0..5 in racks rack1, rack3, rack3, rack2, rack2, rack1.
BrokerRacks kafka_test_racks() {
  return {{NodeId(0), "rack1"}, {NodeId(1), "rack3"}, {NodeId(2), "rack3"},
          {NodeId(3), "rack2"}, {NodeId(4), "rack2"}, {NodeId(5), "rack1"}};
}

std::vector<NodeId> ids(std::initializer_list<std::int32_t> v) {
  std::vector<NodeId> out;
  for (const std::int32_t i : v) out.emplace_back(i);
  return out;
}

TEST(ReplicaPlacement, RackAlternatedOrderTakesOneBrokerOfEachRackInTurn) {
  EXPECT_EQ(rack_alternated(brokers(6), kafka_test_racks()), ids({0, 3, 1, 5, 4, 2}));
  // Uneven racks: the larger one fills the tail.
  const BrokerRacks uneven = {{NodeId(0), "a"}, {NodeId(1), "a"}, {NodeId(2), "a"}, {NodeId(3), "b"}};
  EXPECT_EQ(rack_alternated(brokers(4), uneven), ids({0, 3, 1, 2}));
}

TEST(ReplicaPlacement, MatchesKafkasRackAwareAssignment) {
  const std::vector<std::vector<std::int32_t>> expected = {{0, 3, 1}, {3, 1, 5}, {1, 5, 4}, {5, 4, 2},
                                                          {4, 2, 0}, {2, 0, 3}, {0, 4, 2}};
  for (std::int32_t p = 0; p < 7; ++p) {
    std::vector<std::int32_t> got;
    for (const NodeId n : assign_replicas_rack_aware(p, 3, brokers(6), kafka_test_racks(), 0, 0)) got.push_back(n.value());
    EXPECT_EQ(got, expected[static_cast<std::size_t>(p)]) << "partition " << p;
  }
}

TEST(ReplicaPlacement, WithRacksEveryPartitionSpansAsManyRacksAsItCan) {
  ClusterMetadata md = cluster(6);
  const BrokerRacks racks = {{NodeId(0), "a"}, {NodeId(1), "a"}, {NodeId(2), "b"},
                             {NodeId(3), "b"}, {NodeId(4), "c"}, {NodeId(5), "c"}};
  Rng rng(3);
  ASSERT_TRUE(md.create_topic(topic("orders", 12, 3), md.live_brokers(), rng, false, racks).ok());
  ASSERT_TRUE(md.create_partitions("orders", 24, md.live_brokers(), false, racks).ok());
  std::map<NodeId, int> leaders;
  for (std::int32_t p = 0; p < 24; ++p) {
    const PartitionState& s = md.partitions.at({"orders", p});
    std::set<std::string> spanned;
    for (const NodeId b : s.replicas) spanned.insert(racks.at(b));
    EXPECT_EQ(spanned.size(), 3u) << "partition " << p << ": one replica in each rack";
    ++leaders[s.replicas.front()];
  }
  EXPECT_EQ(leaders.size(), 6u) << "leaders spread over every broker";
  // Without racks the same draw can put two replicas in one rack.
  ClusterMetadata unaware = cluster(6);
  Rng rng2(3);
  ASSERT_TRUE(unaware.create_topic(topic("orders", 12, 3), unaware.live_brokers(), rng2).ok());
  bool doubled = false;
  for (std::int32_t p = 0; p < 12; ++p) {
    std::set<std::string> spanned;
    for (const NodeId b : unaware.partitions.at({"orders", p}).replicas) spanned.insert(racks.at(b));
    doubled |= spanned.size() < 3;
  }
  EXPECT_TRUE(doubled);
}

TEST(TopicAdmin, CreateSpreadsLeadersAndReplicas) {
  ClusterMetadata md = cluster(3);
  Rng rng(7);
  ASSERT_TRUE(md.create_topic(topic("orders", 6, 3), md.live_brokers(), rng).ok());
  std::map<std::int32_t, int> leaders;
  for (std::int32_t p = 0; p < 6; ++p) {
    const PartitionState& s = md.partitions.at({"orders", p});
    EXPECT_EQ(s.replicas.size(), 3u);
    EXPECT_EQ(std::set<NodeId>(s.replicas.begin(), s.replicas.end()).size(), 3u) << "distinct replicas";
    EXPECT_EQ(s.leader, s.replicas.front()) << "the preferred replica leads";
    EXPECT_EQ(s.topic_id, md.topics.at("orders").topic_id);
    ++leaders[s.leader.value()];
  }
  for (const auto& [b, n] : leaders) EXPECT_EQ(n, 2) << "broker " << b;
  md.check_invariants();
}

TEST(TopicAdmin, CreateRefusesWithKafkasErrors) {
  ClusterMetadata md = cluster(2);
  Rng rng(1);
  ASSERT_TRUE(md.create_topic(topic("orders", 1, 1), md.live_brokers(), rng).ok());
  auto again = md.create_topic(topic("orders", 1, 1), md.live_brokers(), rng);
  EXPECT_EQ(again.error, ErrorCode::TOPIC_ALREADY_EXISTS);
  EXPECT_EQ(again.message, "Topic 'orders' already exists.");
  auto rf = md.create_topic(topic("wide", 1, 3), md.live_brokers(), rng);
  EXPECT_EQ(rf.error, ErrorCode::INVALID_REPLICATION_FACTOR);
  EXPECT_EQ(rf.message, "Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be "
                        "reached because only 2 broker(s) are registered.");
  EXPECT_EQ(md.create_topic(topic("none", 0, 1), md.live_brokers(), rng).error, ErrorCode::INVALID_PARTITIONS);
  EXPECT_EQ(md.create_topic(topic("a b", 1, 1), md.live_brokers(), rng).error, ErrorCode::INVALID_TOPIC_EXCEPTION);
  EXPECT_EQ(md.create_topic(topic("..", 1, 1), md.live_brokers(), rng).error, ErrorCode::INVALID_TOPIC_EXCEPTION);
  EXPECT_FALSE(md.has_topic("wide"));
  // validate_only checks and changes nothing.
  const auto version = md.version;
  EXPECT_TRUE(md.create_topic(topic("dry", 2, 2), md.live_brokers(), rng, true).ok());
  EXPECT_FALSE(md.has_topic("dry"));
  EXPECT_EQ(md.version, version);
}

TEST(TopicAdmin, DeleteRemovesEveryPartitionAndRecreateGetsANewId) {
  ClusterMetadata md = cluster(3);
  Rng rng(3);
  ASSERT_TRUE(md.create_topic(topic("orders", 3, 2), md.live_brokers(), rng).ok());
  ASSERT_TRUE(md.create_topic(topic("orders-audit", 2, 2), md.live_brokers(), rng).ok());
  const auto old_id = md.topics.at("orders").topic_id;
  ASSERT_TRUE(md.delete_topic("orders").ok());
  EXPECT_FALSE(md.has_topic("orders"));
  EXPECT_EQ(md.partition_count("orders"), 0);
  EXPECT_EQ(md.partition_count("orders-audit"), 2) << "a topic whose name extends the deleted one stays";
  EXPECT_EQ(md.delete_topic("orders").error, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  ASSERT_TRUE(md.create_topic(topic("orders", 1, 1), md.live_brokers(), rng).ok());
  EXPECT_GT(md.topics.at("orders").topic_id, old_id);
  md.check_invariants();
}

TEST(TopicAdmin, CreatePartitionsGrowsOnlyAndPlacesNewReplicas) {
  ClusterMetadata md = cluster(3);
  Rng rng(5);
  ASSERT_TRUE(md.create_topic(topic("orders", 3, 2), md.live_brokers(), rng).ok());
  auto smaller = md.create_partitions("orders", 2, md.live_brokers());
  EXPECT_EQ(smaller.error, ErrorCode::INVALID_PARTITIONS);
  EXPECT_EQ(smaller.message, "Topic currently has 3 partitions, which is higher than the requested 2.");
  auto same = md.create_partitions("orders", 3, md.live_brokers());
  EXPECT_EQ(same.message, "Topic already has 3 partitions.");
  EXPECT_EQ(md.create_partitions("nope", 5, md.live_brokers()).error, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  const PartitionState before = md.partitions.at({"orders", 1});
  ASSERT_TRUE(md.create_partitions("orders", 6, md.live_brokers()).ok());
  EXPECT_EQ(md.partition_count("orders"), 6);
  EXPECT_EQ(md.partitions.at({"orders", 1}).replicas, before.replicas) << "existing partitions do not move";
  for (std::int32_t p = 3; p < 6; ++p) {
    const PartitionState& s = md.partitions.at({"orders", p});
    EXPECT_EQ(s.replicas.size(), 2u);
    EXPECT_EQ(s.leader, s.replicas.front());
    EXPECT_EQ(s.topic_id, md.topics.at("orders").topic_id);
  }
  md.check_invariants();
}

TEST(TopicAdmin, CreatePartitionsNeedsEnoughLiveBrokers) {
  ClusterMetadata md = cluster(3);
  Rng rng(5);
  ASSERT_TRUE(md.create_topic(topic("orders", 1, 3), md.live_brokers(), rng).ok());
  md.broker_failed(NodeId(2));
  EXPECT_EQ(md.create_partitions("orders", 2, md.live_brokers()).error, ErrorCode::INVALID_REPLICATION_FACTOR);
}

TEST(TopicAdmin, AlterConfigsIsAllOrNothingAndReachesPartitions) {
  ClusterMetadata md = cluster(3);
  Rng rng(9);
  ASSERT_TRUE(md.create_topic(topic("orders", 2, 3), md.live_brokers(), rng).ok());
  const TopicConfigs defaults;
  auto bad = md.alter_configs("orders", {{"retention.ms", AlterConfigOp::kSet, "1000"}, {"retention.ms", AlterConfigOp::kSet, "soon"}},
                              defaults);
  EXPECT_EQ(bad.error, ErrorCode::INVALID_CONFIG);
  EXPECT_EQ(bad.message, "Invalid value soon for configuration retention.ms: Not a number of type LONG");
  EXPECT_EQ(md.topics.at("orders").configs.log.retention_ms, LogConfig{}.retention_ms) << "nothing applied";
  ASSERT_TRUE(md.alter_configs("orders", {{"retention.ms", AlterConfigOp::kSet, "1000"}, {"min.insync.replicas", AlterConfigOp::kSet, "2"}},
                               defaults).ok());
  EXPECT_EQ(md.topics.at("orders").configs.log.retention_ms, 1000);
  EXPECT_EQ(md.partitions.at({"orders", 0}).min_insync_replicas, 2);
  EXPECT_EQ(md.partitions.at({"orders", 1}).min_insync_replicas, 2);
  EXPECT_EQ(md.snapshot().topic_configs.at(0).log.retention_ms, 1000) << "brokers hear of it";
  ASSERT_TRUE(md.alter_configs("orders", {{"retention.ms", AlterConfigOp::kDelete, ""}}, defaults).ok());
  EXPECT_EQ(md.topics.at("orders").configs.log.retention_ms, LogConfig{}.retention_ms);
  EXPECT_EQ(md.alter_configs("nope", {}, defaults).error, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  md.check_invariants();
}

TEST(TopicAdmin, TurningUncleanElectionOnElectsOfflinePartitions) {
  ClusterMetadata md = cluster(2);
  Rng rng(2);
  ASSERT_TRUE(md.create_topic(topic("orders", 1, 2), md.live_brokers(), rng).ok());
  const NodeId first = md.partitions.at({"orders", 0}).leader;
  const NodeId second = first == NodeId(0) ? NodeId(1) : NodeId(0);
  // The follower falls out of the ISR, then the leader dies: offline without unclean election.
  PartitionState& s = md.partitions.at({"orders", 0});
  ASSERT_TRUE(md.alter_isr(AlterPartitionRequest{1, first, "orders", PartitionId(0), s.leader_epoch, s.partition_epoch, {first}}) ==
              ErrorCode::NONE);
  md.broker_failed(first);
  EXPECT_EQ(md.partitions.at({"orders", 0}).leader, NodeId(-1));
  ASSERT_TRUE(md.alter_configs("orders", {{"unclean.leader.election.enable", AlterConfigOp::kSet, "true"}}, TopicConfigs{}).ok());
  EXPECT_EQ(md.partitions.at({"orders", 0}).leader, second);
  EXPECT_EQ(md.partitions.at({"orders", 0}).isr, std::vector<NodeId>{second});
  md.check_invariants();
}

TEST(TopicConfig, ParsesWithKafkasTypesBoundsAndMessages) {
  TopicConfigs c;
  EXPECT_EQ(set_topic_config(c, "retention.ms", " 60000 "), "");
  EXPECT_EQ(c.log.retention_ms, 60000);
  EXPECT_EQ(set_topic_config(c, "retention.ms", "-2"), "Invalid value -2 for configuration retention.ms: Value must be at least -1");
  EXPECT_EQ(set_topic_config(c, "segment.bytes", "10"), "Invalid value 10 for configuration segment.bytes: Value must be at least 14");
  EXPECT_EQ(set_topic_config(c, "segment.bytes", "4294967296"),
            "Invalid value 4294967296 for configuration segment.bytes: Not a number of type INT");
  EXPECT_EQ(set_topic_config(c, "unclean.leader.election.enable", "yes"),
            "Invalid value yes for configuration unclean.leader.election.enable: Expected value to be either true or false");
  EXPECT_EQ(set_topic_config(c, "cleanup.policy", "delete, compact"), "");
  EXPECT_EQ(c.log.cleanup_policy, CleanupPolicy::kCompactDelete);
  EXPECT_EQ(set_topic_config(c, "cleanup.policy", "shred"),
            "Invalid value shred for configuration cleanup.policy: String must be one of: compact, delete");
  EXPECT_EQ(set_topic_config(c, "message.timestamp.type", "LogAppendTime"), "");
  EXPECT_EQ(c.log.timestamp_type, TimestampType::kLogAppendTime);
  EXPECT_EQ(set_topic_config(c, "retention.hours", "1"), "Unknown topic config name: retention.hours");
  EXPECT_EQ(set_topic_config(c, "min.insync.replicas", "0"),
            "Invalid value 0 for configuration min.insync.replicas: Value must be at least 1");
}

TEST(TopicConfig, AppendAndSubtractApplyToCleanupPolicyOnly) {
  TopicConfigs c;
  EXPECT_EQ(alter_topic_configs(c, {{"cleanup.policy", AlterConfigOp::kAppend, "compact"}}, {}), "");
  EXPECT_EQ(c.log.cleanup_policy, CleanupPolicy::kCompactDelete);
  EXPECT_EQ(alter_topic_configs(c, {{"cleanup.policy", AlterConfigOp::kSubtract, "delete"}}, {}), "");
  EXPECT_EQ(c.log.cleanup_policy, CleanupPolicy::kCompact);
  EXPECT_NE(alter_topic_configs(c, {{"cleanup.policy", AlterConfigOp::kSubtract, "compact"}}, {}), "") << "empty list";
  EXPECT_EQ(alter_topic_configs(c, {{"retention.ms", AlterConfigOp::kAppend, "5"}}, {}),
            "Config value append is not allowed for config key: retention.ms");
  EXPECT_EQ(c.log.cleanup_policy, CleanupPolicy::kCompact);
}

TEST(TopicConfig, DescribeListsEveryKeyWithValueAndSource) {
  TopicConfigs c;
  ASSERT_EQ(set_topic_config(c, "retention.ms", "1000"), "");
  const auto described = describe_topic_configs(c, TopicConfigs{});
  ASSERT_EQ(described.size(), topic_config_keys().size());
  EXPECT_TRUE(std::is_sorted(described.begin(), described.end(), [](const auto& a, const auto& b) { return a.name < b.name; }));
  for (const auto& d : described) {
    if (d.name == "retention.ms") {
      EXPECT_EQ(d.value, "1000");
      EXPECT_FALSE(d.is_default);
    } else {
      EXPECT_TRUE(d.is_default) << d.name;
    }
    if (d.name == "flush.messages") {
      EXPECT_EQ(d.value, "9223372036854775807");
    }
    if (d.name == "cleanup.policy") {
      EXPECT_EQ(d.value, "delete");
    }
  }
  // Every printed value parses back to the same config.
  TopicConfigs back;
  for (const auto& d : describe_topic_configs(c, TopicConfigs{})) EXPECT_EQ(set_topic_config(back, d.name, d.value), "") << d.name;
  EXPECT_EQ(describe_topic_configs(back, TopicConfigs{}).size(), described.size());
  EXPECT_EQ(topic_config_value(back, "retention.ms"), "1000");
}

TEST(ClusterMetadataEncoding, RoundTripsTopicsIdsAndConfigs) {
  ClusterMetadata md = cluster(3);
  Rng rng(4);
  TopicCreation t = topic("orders", 4, 3);
  ASSERT_EQ(set_topic_config(t.configs, "cleanup.policy", "compact"), "");
  ASSERT_EQ(set_topic_config(t.configs, "unclean.leader.election.enable", "true"), "");
  ASSERT_TRUE(md.create_topic(t, md.live_brokers(), rng).ok());
  ASSERT_TRUE(md.create_topic(topic("audit", 1, 1), md.live_brokers(), rng).ok());
  ASSERT_TRUE(md.delete_topic("audit").ok());
  const auto back = ClusterMetadata::decode(md.encode());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->encode(), md.encode());
  EXPECT_EQ(back->next_topic_id, md.next_topic_id);
  EXPECT_EQ(back->topics.at("orders").topic_id, md.topics.at("orders").topic_id);
  EXPECT_EQ(back->topics.at("orders").configs.log.cleanup_policy, CleanupPolicy::kCompact);
  EXPECT_TRUE(back->topics.at("orders").configs.unclean_leader_election_enable);
  EXPECT_EQ(back->partitions.at({"orders", 3}).topic_id, md.topics.at("orders").topic_id);
  std::string cut = md.encode();
  cut.pop_back();
  EXPECT_FALSE(ClusterMetadata::decode(cut).has_value());
}

}  // namespace
}  // namespace logsim::engine

// Tests of the loader's /groups section: Kafka's consumer defaults and group configs, the
// commit strategies, member node names, and each mistake reported at its JSON pointer.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "scenarios/loader.h"
#include "scenarios/tests/load_error.h"

namespace logsim::scenarios {
namespace {

// Three brokers (so __consumer_offsets can have Kafka's replication factor 3) and a topic.
std::string with_groups(const std::string& groups, const std::string& cluster_config = "{}") {
  return R"({"name": "s", "cluster": {"brokers": 3, "config": )" + cluster_config +
         R"(}, "topics": [{"name": "orders", "partitions": 3}], "groups": )" + groups + "}";
}

TEST(GroupsLoader, DefaultsAreKafkas) {
  const Scenario s = parse_scenario(with_groups(R"([{"name": "g", "topics": ["orders"]}])"), "mem.json");
  ASSERT_EQ(s.groups.size(), 1u);
  const GroupSpec& g = s.groups[0];
  EXPECT_EQ(g.members, 1);
  EXPECT_EQ(g.commit, CommitStrategy::kAuto);
  EXPECT_FALSE(g.static_membership);
  EXPECT_EQ(g.config.session_timeout_ms, 45000);
  EXPECT_EQ(g.config.heartbeat_interval_ms, 3000);
  EXPECT_EQ(g.config.max_poll_interval_ms, 300000);
  EXPECT_EQ(g.config.auto_commit_interval_ms, 5000);
  EXPECT_EQ(g.config.partition_assignment_strategy, (std::vector<std::string>{"range", "cooperative-sticky"}));
  EXPECT_EQ(s.cluster.config.offsets_topic_num_partitions, 50);
  EXPECT_EQ(s.cluster.config.offsets_topic_replication_factor, 3);
  EXPECT_EQ(s.cluster.config.group_initial_rebalance_delay_ms, 3000);
  EXPECT_EQ(s.cluster.config.offsets_retention_minutes, 10080);
  EXPECT_EQ(s.cluster.config.offsets_retention_check_interval_ms, 600000);
  EXPECT_EQ(s.quiesce, 0) << "no quiet period unless asked";
  const Scenario q = parse_scenario(R"({"name": "q", "quiesce": "15s", "topics": [{"name": "t"}]})", "mem.json");
  EXPECT_EQ(q.quiesce, seconds(15));
}

TEST(GroupsLoader, EverySettingIsRead) {
  const Scenario s = parse_scenario(
      with_groups(R"([{"name": "g", "topics": ["orders"], "members": 4, "static_membership": true, "start": "2s",
                       "poll_interval": "5ms", "processing": {"min": "1ms", "max": "3ms"}, "commit": "before-processing",
                       "config": {"session.timeout.ms": 10000, "heartbeat.interval.ms": "1000",
                                  "max.poll.interval.ms": 20000, "partition.assignment.strategy": "roundrobin, sticky",
                                  "auto.commit.interval.ms": 100, "auto.offset.reset": "earliest"}}])",
                  R"({"offsets.topic.num.partitions": 4, "group.initial.rebalance.delay.ms": 0,
                      "offsets.retention.minutes": 2, "offsets.retention.check.interval.ms": "30000"})"),
      "mem.json");
  const GroupSpec& g = s.groups[0];
  EXPECT_EQ(g.members, 4);
  EXPECT_EQ(g.member_name(4), "g-4");
  EXPECT_TRUE(g.static_membership);
  EXPECT_EQ(g.start, seconds(2));
  EXPECT_EQ(g.poll_interval, millis(5));
  EXPECT_EQ(g.processing_min, millis(1));
  EXPECT_EQ(g.processing_max, millis(3));
  EXPECT_EQ(g.commit, CommitStrategy::kBeforeProcessing);
  EXPECT_EQ(g.config.session_timeout_ms, 10000);
  EXPECT_EQ(g.config.heartbeat_interval_ms, 1000);
  EXPECT_EQ(g.config.max_poll_interval_ms, 20000);
  EXPECT_EQ(g.config.partition_assignment_strategy, (std::vector<std::string>{"roundrobin", "sticky"}));
  EXPECT_EQ(s.cluster.config.offsets_topic_num_partitions, 4);
  EXPECT_EQ(s.cluster.config.group_initial_rebalance_delay_ms, 0);
  EXPECT_EQ(s.cluster.config.offsets_retention_minutes, 2);
  EXPECT_EQ(s.cluster.config.offsets_retention_check_interval_ms, 30000);
}

TEST(GroupsLoader, MembersAreTimelineTargets) {
  const Scenario s = parse_scenario(
      R"({"name": "s", "cluster": {"brokers": 3}, "topics": [{"name": "orders"}],
          "groups": [{"name": "billing", "topics": ["orders"], "members": 2}],
          "timeline": [{"at": "1s", "action": "crash", "target": "billing-2"}]})",
      "mem.json");
  EXPECT_EQ(s.timeline[0].targets(), std::vector<std::string>{"billing-2"});
  const ScenarioError e = error_of(
      R"({"name": "s", "cluster": {"brokers": 3}, "topics": [{"name": "orders"}],
          "groups": [{"name": "billing", "topics": ["orders"], "members": 2}],
          "timeline": [{"at": "1s", "action": "crash", "target": "billing-3"}]})");
  EXPECT_EQ(e.pointer(), "/timeline/0/target");
  EXPECT_NE(std::string(e.what()).find("did you mean"), std::string::npos) << e.what();
}

TEST(GroupsLoader, TooFewBrokersForTheOffsetsTopicSaysWhatToChange) {
  const ScenarioError e = error_of(R"({"name": "s", "topics": [{"name": "orders"}],
                                       "groups": [{"name": "g", "topics": ["orders"]}]})");
  EXPECT_EQ(e.pointer(), "/groups");
  EXPECT_NE(e.expected().find("offsets.topic.replication.factor"), std::string::npos) << e.what();
  // Lowering it, as a one-broker Kafka must, is accepted.
  EXPECT_NO_THROW(parse_scenario(R"({"name": "s", "cluster": {"config": {"offsets.topic.replication.factor": 1}},
                                     "topics": [{"name": "orders"}], "groups": [{"name": "g", "topics": ["orders"]}]})",
                                 "mem.json"));
}

TEST(GroupsLoader, AGroupInstanceIdForEveryMemberIsReadAndContradictsStaticMembership) {
  const Scenario s = parse_scenario(
      with_groups(R"([{"name": "g", "topics": ["orders"], "members": 2, "config": {"group.instance.id": "w"}}])"), "mem.json");
  EXPECT_EQ(s.groups[0].config.group_instance_id, std::optional<std::string>("w"));
  const ScenarioError both = error_of(with_groups(
      R"([{"name": "g", "topics": ["orders"], "static_membership": true, "config": {"group.instance.id": "w"}}])"));
  EXPECT_EQ(both.pointer(), "/groups/0/config/group.instance.id");
  EXPECT_EQ(error_of(with_groups(R"([{"name": "g", "topics": ["orders"], "config": {"group.instance.id": ""}}])")).pointer(),
            "/groups/0/config/group.instance.id");
}

TEST(GroupsLoader, MistakesAreReportedWhereTheyAre) {
  EXPECT_EQ(error_of(with_groups(R"([{"name": "g", "topics": ["order"]}])")).pointer(), "/groups/0/topics/0");
  EXPECT_EQ(error_of(with_groups(R"([{"name": "g", "topics": ["orders"], "commit": "after-every-batch"}])")).expected(),
            "did you mean \"after-each-batch\"?");
  EXPECT_EQ(error_of(with_groups(R"([{"name": "g", "topics": ["orders"], "config": {"partition.assignment.strategy": "rnage"}}])"))
                .expected(),
            "did you mean \"range\"?");
  const ScenarioError hb = error_of(with_groups(
      R"([{"name": "g", "topics": ["orders"], "config": {"session.timeout.ms": 6000, "heartbeat.interval.ms": 6000}}])"));
  EXPECT_EQ(hb.pointer(), "/groups/0/config/heartbeat.interval.ms");
  const ScenarioError session = error_of(with_groups(R"([{"name": "g", "topics": ["orders"], "config": {"session.timeout.ms": 5000, "heartbeat.interval.ms": 1000}}])"));
  EXPECT_NE(session.problem().find("INVALID_SESSION_TIMEOUT"), std::string::npos) << session.what();
  EXPECT_EQ(error_of(with_groups(R"([{"name": "g", "topics": ["orders"]}, {"name": "g", "topics": ["orders"]}])")).pointer(),
            "/groups/1/name");
  // Group-only consumer configs are refused under /consumers.
  const ScenarioError manual = error_of(R"({"name": "s", "topics": [{"name": "orders"}],
      "consumers": [{"name": "c", "topics": ["orders"], "config": {"session.timeout.ms": 10000}}]})");
  EXPECT_EQ(manual.pointer(), "/consumers/0/config/session.timeout.ms");
  // A member name that collides with another node.
  const ScenarioError clash = error_of(R"({"name": "s", "cluster": {"brokers": 3}, "topics": [{"name": "orders"}],
      "producers": [{"name": "g-1", "topic": "orders"}], "groups": [{"name": "g", "topics": ["orders"]}]})");
  EXPECT_EQ(clash.pointer(), "/groups/0/name");
  EXPECT_NE(clash.problem().find("g-1"), std::string::npos);
}

// An exactly-once pipeline group: its members' transactional producers, read_committed by
// default, and what it decides itself refused beside it.
std::string pipeline(const std::string& group, const std::string& cluster_config = "{}") {
  return R"({"name": "s", "cluster": {"brokers": 3, "config": )" + cluster_config +
         R"(}, "topics": [{"name": "orders", "partitions": 3}, {"name": "enriched", "partitions": 3}], "groups": [)" + group +
         "]}";
}

TEST(GroupsLoader, AnExactlyOnceGroupCommitsInItsTransactionsAndReadsCommitted) {
  const Scenario s = parse_scenario(pipeline(R"({"name": "copier", "topics": ["orders"], "members": 2,
      "exactly_once": {"to": "enriched", "config": {"transaction.timeout.ms": 8000, "linger.ms": 5}}})"), "mem.json");
  const GroupSpec& g = s.groups[0];
  ASSERT_TRUE(g.exactly_once.has_value());
  EXPECT_EQ(g.exactly_once->to, "enriched");
  EXPECT_EQ(g.commit, CommitStrategy::kInTransaction);
  EXPECT_EQ(g.config.isolation_level, IsolationLevel::kReadCommitted);
  EXPECT_EQ(g.exactly_once->config.transaction_timeout_ms, 8000);
  EXPECT_EQ(g.exactly_once->config.linger_ms, 5);
  EXPECT_TRUE(g.exactly_once->config.enable_idempotence);
  // read_uncommitted when asked (a pipeline that would copy aborted input).
  const Scenario u = parse_scenario(pipeline(R"({"name": "copier", "topics": ["orders"], "exactly_once": {"to": "enriched", "group_metadata": false},
      "config": {"isolation.level": "read_uncommitted"}})"), "mem.json");
  EXPECT_EQ(u.groups[0].config.isolation_level, IsolationLevel::kReadUncommitted);
  EXPECT_TRUE(g.exactly_once->group_metadata);
  EXPECT_FALSE(u.groups[0].exactly_once->group_metadata);
}

TEST(GroupsLoader, AnExactlyOnceGroupRefusesWhatItDecidesItself) {
  const auto refused = [](const std::string& group) { return error_of(pipeline(group)); };
  EXPECT_EQ(refused(R"({"name": "c", "topics": ["orders"], "commit": "auto", "exactly_once": {"to": "enriched"}})").pointer(),
            "/groups/0/commit");
  EXPECT_EQ(refused(R"({"name": "c", "topics": ["orders"], "failures": {"poison_probability": 0.1},
                        "exactly_once": {"to": "enriched"}})").pointer(),
            "/groups/0/failures");
  const ScenarioError own = refused(R"({"name": "c", "topics": ["orders", "enriched"], "exactly_once": {"to": "enriched"}})");
  EXPECT_EQ(own.pointer(), "/groups/0/exactly_once/to");
  EXPECT_NE(own.problem().find("its own output"), std::string::npos) << own.what();
  EXPECT_EQ(refused(R"({"name": "c", "topics": ["orders"], "exactly_once": {"to": "enrich"}})").expected(),
            "did you mean \"enriched\"?");
  EXPECT_EQ(refused(R"({"name": "c", "topics": ["orders"], "exactly_once": {"to": "enriched", "config": {"transactional.id": "x"}}})")
                .pointer(),
            "/groups/0/exactly_once/config/transactional.id");
  EXPECT_EQ(refused(R"({"name": "c", "topics": ["orders"], "exactly_once": {"to": "enriched", "config": {"acks": 1}}})").pointer(),
            "/groups/0/exactly_once/config")
      << "a transactional producer needs acks=all";
  // __transaction_state must fit the cluster, as for a transactional producer.
  const ScenarioError log = error_of(pipeline(R"({"name": "c", "topics": ["orders"], "exactly_once": {"to": "enriched"}})",
                                              R"({"transaction.state.log.replication.factor": 4})"));
  EXPECT_NE(log.problem().find("__transaction_state"), std::string::npos) << log.what();
}

}  // namespace
}  // namespace logsim::scenarios

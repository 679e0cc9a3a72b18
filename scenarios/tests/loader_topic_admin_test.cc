// Loader tests of the topic admin steps (create-topic, delete-topic, add-partitions,
// alter-config): their Kafka values, and the topics they act on checked in time order.
#include "scenarios/loader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scenarios/tests/loader_fixtures.h"

namespace logsim::scenarios {
namespace {

// ---- topic admin steps -------------------------------------------------------------------

TEST(LoaderTopicAdmin, StepsLoadWithKafkaValues) {
  const Scenario s = parse_scenario(with(R"("timeline": [
      {"at": "1s", "action": "create-topic", "topic": {"name": "audit", "partitions": 2, "config": {"retention.ms": 5000, "segment.bytes": "1MiB"}}},
      {"at": "2s", "action": "add-partitions", "topic": "orders", "partitions": 6},
      {"at": "3s", "action": "alter-config", "topic": "orders", "config": {"cleanup.policy": "compact", "retention.ms": null}},
      {"at": "4s", "action": "delete-topic", "topic": "audit"}])"),
                                    "mem.json");
  ASSERT_EQ(s.timeline.size(), 4u);
  EXPECT_TRUE(s.timeline[0].is_admin());
  const auto* create = s.timeline[0].as<steps::CreateTopic>();
  ASSERT_NE(create, nullptr);
  EXPECT_EQ(create->topic.name, "audit");
  EXPECT_EQ(create->topic.partitions, 2);
  EXPECT_EQ(create->topic.log.segment_bytes, 1 << 20);
  ASSERT_TRUE(s.timeline[1].is<steps::AddPartitions>());
  EXPECT_EQ(s.timeline[1].as<steps::AddPartitions>()->partitions, 6);
  const auto* alter = s.timeline[2].as<steps::AlterConfig>();
  ASSERT_NE(alter, nullptr);
  ASSERT_EQ(alter->configs.size(), 2u);
  // nlohmann orders object keys: cleanup.policy, then retention.ms.
  EXPECT_EQ(alter->configs[0].name, "cleanup.policy");
  EXPECT_EQ(alter->configs[0].op, AlterConfigOp::kSet);
  EXPECT_EQ(alter->configs[0].value, "compact");
  EXPECT_EQ(alter->configs[1].name, "retention.ms");
  EXPECT_EQ(alter->configs[1].op, AlterConfigOp::kDelete);
  EXPECT_EQ(s.timeline[3].name(), "delete-topic");
  EXPECT_EQ(s.created_topics, std::vector<std::string>{"audit"});
}

TEST(LoaderTopicAdmin, ProducersMayUseATopicTheTimelineCreates) {
  const Scenario s = parse_scenario(R"({"name": "s", "duration": "10s", "topics": [],
    "producers": [{"name": "p", "topic": "late", "start": "2s"}],
    "timeline": [{"at": "1s", "action": "create-topic", "topic": {"name": "late"}}]})",
                                    "mem.json");
  EXPECT_EQ(s.producers[0].topic, "late");
}

TEST(LoaderTopicAdmin, SizesAndDurationsBecomeKafkaStrings) {
  const Scenario s = parse_scenario(
      with(R"("timeline": [{"at": "1s", "action": "alter-config", "topic": "orders", "config": {"segment.bytes": "16KiB"}}])"), "mem.json");
  ASSERT_TRUE(s.timeline[0].is<steps::AlterConfig>());
  ASSERT_EQ(s.timeline[0].as<steps::AlterConfig>()->configs.size(), 1u);
  EXPECT_EQ(s.timeline[0].as<steps::AlterConfig>()->configs[0].value, "16384");
}

TEST(LoaderTopicAdmin, UnknownTopicIsNamedWithItsTime) {
  const auto e = error_of(with(R"("timeline": [{"at": "1s", "action": "delete-topic", "topic": "ordres"}])"));
  EXPECT_EQ(e.pointer(), "/timeline/0/topic");
  EXPECT_CONTAINS(e.problem(), "topic \"ordres\" does not exist at 1000ms");
}

TEST(LoaderTopicAdmin, DeletedTopicCannotBeAlteredLater) {
  const auto e = error_of(with(R"("timeline": [
      {"at": "5s", "action": "alter-config", "topic": "orders", "config": {"retention.ms": 1}},
      {"at": "1s", "action": "delete-topic", "topic": "orders"}])"));
  EXPECT_EQ(e.pointer(), "/timeline/0/topic") << "steps are checked in time order";
}

TEST(LoaderTopicAdmin, CreatingAnExistingTopicIsRefused) {
  const auto e = error_of(with(R"("timeline": [{"at": "1s", "action": "create-topic", "topic": {"name": "orders"}}])"));
  EXPECT_EQ(e.pointer(), "/timeline/0/topic/name");
  EXPECT_CONTAINS(e.problem(), "already exists");
}

TEST(LoaderTopicAdmin, RecreatingAfterDeleteIsAccepted) {
  const Scenario s = parse_scenario(with(R"("timeline": [
      {"at": "1s", "action": "delete-topic", "topic": "orders"},
      {"at": "2s", "action": "create-topic", "topic": {"name": "orders", "partitions": 1}}])"),
                                    "mem.json");
  EXPECT_EQ(s.timeline.size(), 2u);
}

TEST(LoaderTopicAdmin, AddPartitionsMustGrow) {
  const auto e = error_of(with(R"("timeline": [{"at": "1s", "action": "add-partitions", "topic": "orders", "partitions": 3}])"));
  EXPECT_EQ(e.pointer(), "/timeline/0/partitions");
  EXPECT_CONTAINS(e.problem(), "has 3 partitions");
  EXPECT_CONTAINS(e.expected(), "a larger total");
}

TEST(LoaderTopicAdmin, BadConfigValueIsReportedAtItsKey) {
  const auto e = error_of(with(R"("timeline": [{"at": "1s", "action": "alter-config", "topic": "orders", "config": {"cleanup.policy": "shred"}}])"));
  EXPECT_EQ(e.pointer(), "/timeline/0/config/cleanup.policy");
}

TEST(LoaderTopicAdmin, MisspelledConfigKeyGetsADidYouMean) {
  const auto e = error_of(with(R"("timeline": [{"at": "1s", "action": "alter-config", "topic": "orders", "config": {"retention.mss": 1}}])"));
  EXPECT_EQ(e.pointer(), "/timeline/0/config/retention.mss");
  EXPECT_CONTAINS(e.expected(), "retention.ms");
}

TEST(LoaderTopicAdmin, KeysThatDoNotBelongToTheActionAreRefused) {
  const auto e = error_of(with(R"("timeline": [{"at": "1s", "action": "delete-topic", "topic": "orders", "target": "broker-1"}])"));
  EXPECT_EQ(e.pointer(), "/timeline/0/target");
  EXPECT_CONTAINS(e.problem(), "delete-topic takes no \"target\"");
  const auto crash = error_of(with(R"("timeline": [{"at": "1s", "action": "crash", "target": "broker-1", "topic": "orders"}])"));
  EXPECT_EQ(crash.pointer(), "/timeline/0/topic");
}

TEST(LoaderTopicAdmin, AdminIsAReservedName) {
  const auto e = error_of(R"({"name": "s", "topics": [{"name": "t"}], "producers": [{"name": "admin", "topic": "t"}]})");
  EXPECT_EQ(e.pointer(), "/producers/0/name");
}

TEST(LoaderTopicAdmin, IllegalTopicNameIsRefused) {
  const auto e = error_of(R"({"name": "s", "topics": [{"name": "my topic"}]})");
  EXPECT_EQ(e.pointer(), "/topics/0/name");
  EXPECT_CONTAINS(e.problem(), "not a legal Kafka topic name");
}

}  // namespace
}  // namespace logsim::scenarios

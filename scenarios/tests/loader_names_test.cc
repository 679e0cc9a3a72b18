// Loader tests of names that must refer to something: topics, timeline targets and actions
// (with did-you-mean), and names that must be unique.
#include "scenarios/loader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scenarios/tests/loader_fixtures.h"

namespace logsim::scenarios {
namespace {

// ---- names that must refer to something ------------------------------------------------------

TEST(Loader, UnknownTopicInProducerSuggestsTheTopic) {
  const auto e = error_of(R"({"name": "m", "topics": [{"name": "orders"}],
      "producers": [{"name": "p", "topic": "order"}]})");
  EXPECT_EQ(e.pointer(), "/producers/0/topic");
  EXPECT_EQ(e.problem(), "unknown topic \"order\"");
  EXPECT_EQ(e.expected(), "did you mean \"orders\"?");
}

TEST(Loader, UnknownTopicFarFromAny) {
  const auto e = error_of(R"({"name": "m", "topics": [{"name": "orders"}],
      "producers": [{"name": "p", "topic": "payments"}]})");
  EXPECT_EQ(e.pointer(), "/producers/0/topic");
  EXPECT_EQ(e.expected(), "a topic defined under /topics or created by a create-topic step");
}

TEST(Loader, UnknownTopicInConsumer) {
  const auto e = error_of(R"({"name": "m", "topics": [{"name": "orders"}],
      "consumers": [{"name": "c", "topics": ["orders", "ordres"]}]})");
  EXPECT_EQ(e.pointer(), "/consumers/0/topics/1");
  EXPECT_EQ(e.expected(), "did you mean \"orders\"?");
}

TEST(Loader, UnknownTimelineTargetBroker2) {
  const auto e = error_of(with(R"("timeline": [{"at": "1s", "action": "crash", "target": "broker-2"}])"));
  EXPECT_EQ(e.pointer(), "/timeline/0/target");
  EXPECT_EQ(e.problem(), "unknown target \"broker-2\"");
  EXPECT_EQ(e.expected(), "did you mean \"broker-1\"?");
}

TEST(Loader, UnknownTimelineTargetMisspelled) {
  const auto e = error_of(with(R"("timeline": [{"at": "1s", "action": "crash", "target": "brokr-1"}])"));
  EXPECT_EQ(e.pointer(), "/timeline/0/target");
  EXPECT_EQ(e.problem(), "unknown target \"brokr-1\"");
  EXPECT_EQ(e.expected(), "did you mean \"broker-1\"?");
}

TEST(Loader, UnknownTimelineTargetFarFromAnyListsTheNodes) {
  const auto e = error_of(with(R"("timeline": [{"at": "1s", "action": "pause", "target": "zookeeper-node"}])"));
  EXPECT_EQ(e.pointer(), "/timeline/0/target");
  EXPECT_EQ(e.expected(), "one of: broker-1 controller p c");
}

TEST(Loader, UnknownNodeInPartitionGroup) {
  const auto e = error_of(with(R"("timeline": [{"at": "1s", "action": "partition", "groups": [["broker-1"], ["p", "cc"]]}])"));
  EXPECT_EQ(e.pointer(), "/timeline/0/groups/1/1");
  EXPECT_EQ(e.problem(), "unknown target \"cc\"");
}

TEST(Loader, PartitionNeedsTwoGroups) {
  const auto e = error_of(with(R"("timeline": [{"at": "1s", "action": "partition", "groups": [["broker-1", "p"]]}])"));
  EXPECT_EQ(e.pointer(), "/timeline/0/groups");
  EXPECT_CONTAINS(e.expected(), "two or more groups");
}

TEST(Loader, UnknownTimelineActionSuggestsCrash) {
  const auto e = error_of(with(R"("timeline": [{"at": "1s", "action": "crsh", "target": "broker-1"}])"));
  EXPECT_EQ(e.pointer(), "/timeline/0/action");
  EXPECT_EQ(e.problem(), "unknown action \"crsh\"");
  EXPECT_EQ(e.expected(), "did you mean \"crash\"?");
}

TEST(Loader, UnknownTimelineActionFarFromAnyListsTheActions) {
  const auto e = error_of(with(R"("timeline": [{"at": "1s", "action": "explode", "target": "broker-1"}])"));
  EXPECT_EQ(e.pointer(), "/timeline/0/action");
  EXPECT_CONTAINS(e.expected(), "one of:");
  EXPECT_CONTAINS(e.expected(), "power-loss");
  EXPECT_CONTAINS(e.expected(), "heal");
}

TEST(Loader, MissingTargetForCrash) {
  const auto e = error_of(with(R"("timeline": [{"at": "1s", "action": "crash"}])"));
  EXPECT_EQ(e.pointer(), "/timeline/0");
  EXPECT_EQ(e.problem(), "missing required key \"target\"");
}

TEST(Loader, KeysAnActionDoesNotUseAreRejected) {
  // BUG: scenarios/loader.cc read_timeline allows "target" and "groups" on every step and
  // silently ignores the one the action does not use: {"action": "heal", "target": "brokr-1"}
  // loads (the misspelled name is never checked) and heals *every* link, not only broker-1's;
  // "groups" on a crash is dropped the same way. A strict loader should reject them, e.g.
  // "heal takes no target; expected no \"target\" (heal ends every network partition)", with
  // the pointer /timeline/0/target.
  const auto heal = error_of(with(R"("timeline": [{"at": "1s", "action": "heal", "target": "brokr-1"}])"));
  EXPECT_EQ(heal.pointer(), "/timeline/0/target");
  const auto crash = error_of(
      with(R"("timeline": [{"at": "1s", "action": "crash", "target": "p", "groups": [["p"], ["c"]]}])"));
  EXPECT_EQ(crash.pointer(), "/timeline/0/groups");
}

TEST(Loader, TimelineStepAfterTheEnd) {
  const auto e = error_of(with(R"("timeline": [{"at": "10s", "action": "crash", "target": "broker-1"},
                                              {"at": "11s", "action": "restart", "target": "broker-1"}])"));
  EXPECT_EQ(e.pointer(), "/timeline/1/at");
  EXPECT_CONTAINS(e.problem(), "after the end of the run");
  EXPECT_CONTAINS(e.problem(), "10000ms");
  EXPECT_EQ(e.expected(), "a time no later than the scenario's duration");
}

TEST(Loader, StepExactlyAtTheEndIsAllowed) {
  const auto s = parse_scenario(with(R"("timeline": [{"at": "10s", "action": "crash", "target": "broker-1"}])"), "mem.json");
  ASSERT_EQ(s.timeline.size(), 1u);
  EXPECT_EQ(s.timeline[0].at, seconds(10));
}

TEST(Loader, DuplicateTopicNames) {
  const auto e = error_of(R"({"name": "m", "topics": [{"name": "t"}, {"name": "u"}, {"name": "t", "partitions": 2}]})");
  EXPECT_EQ(e.pointer(), "/topics/2/name");
  EXPECT_EQ(e.problem(), "topic \"t\" is defined twice");
  EXPECT_EQ(e.expected(), "unique topic names");
}

TEST(Loader, DuplicateNodeNamesAreRejected) {
  const auto e = error_of(R"({"name": "m", "topics": [{"name": "t"}],
      "producers": [{"name": "app", "topic": "t"}], "consumers": [{"name": "app", "topics": ["t"]}]})");
  EXPECT_EQ(e.problem(), "the name \"app\" is already used at /producers/0/name");
  EXPECT_EQ(e.expected(), "a name no other broker, producer or consumer has");
}

TEST(Loader, NodeNamedLikeABrokerIsRejected) {
  const auto e = error_of(R"({"name": "m", "topics": [{"name": "t"}],
      "consumers": [{"name": "broker-1", "topics": ["t"]}]})");
  EXPECT_EQ(e.pointer(), "/consumers/0/name");
  EXPECT_EQ(e.problem(), "the name \"broker-1\" is already used at /cluster/brokers");
}

TEST(Loader, DuplicateNodeNamePointsAtTheSecondName) {
  // BUG: scenarios/loader.cc check_unique_names reports every duplicate node name at the root
  // pointer "/" (root.fail), so in a file with many clients the user must hunt for it. The
  // loader's contract is the pointer of the bad value: point at the second use, here
  // /consumers/0/name (e.g. check names while reading producers and consumers, passing the
  // name's JsonReader, and say where the first use is in the problem).
  const auto e = error_of(R"({"name": "m", "topics": [{"name": "t"}],
      "producers": [{"name": "app", "topic": "t"}], "consumers": [{"name": "app", "topics": ["t"]}]})");
  EXPECT_EQ(e.pointer(), "/consumers/0/name");
}

}  // namespace
}  // namespace logsim::scenarios

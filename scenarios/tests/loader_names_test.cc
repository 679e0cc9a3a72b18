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

// Each bad name is refused at its pointer, with the problem and what would be right (a
// did-you-mean when a name is close, else the list or the place to define one).
TEST(Loader, NamesThatReferToNothingAreRefusedWhereTheyAre) {
  constexpr const char* kOrders = R"({"name": "m", "topics": [{"name": "orders"}], )";
  struct Case {
    const char* what;
    std::string text;
    std::string pointer;
    std::string problem;   // empty: not checked
    std::string expected;  // exact, unless partial
    bool partial = false;  // expected is a part of the message
  };
  auto step = [](const std::string& json) { return with(R"("timeline": [)" + json + "]"); };
  const std::vector<Case> cases = {
      {"a misspelled topic in a producer", std::string(kOrders) + R"("producers": [{"name": "p", "topic": "order"}]})",
       "/producers/0/topic", "unknown topic \"order\"", "did you mean \"orders\"?"},
      {"a topic far from any", std::string(kOrders) + R"("producers": [{"name": "p", "topic": "payments"}]})",
       "/producers/0/topic", "", "a topic defined under /topics or created by a create-topic step"},
      {"a misspelled topic in a consumer", std::string(kOrders) + R"("consumers": [{"name": "c", "topics": ["orders", "ordres"]}]})",
       "/consumers/0/topics/1", "", "did you mean \"orders\"?"},
      {"a broker the cluster does not have", step(R"({"at": "1s", "action": "crash", "target": "broker-2"})"),
       "/timeline/0/target", "unknown target \"broker-2\"", "did you mean \"broker-1\"?"},
      {"a misspelled target", step(R"({"at": "1s", "action": "crash", "target": "brokr-1"})"), "/timeline/0/target",
       "unknown target \"brokr-1\"", "did you mean \"broker-1\"?"},
      {"a target far from any", step(R"({"at": "1s", "action": "pause", "target": "zookeeper-node"})"),
       "/timeline/0/target", "", "one of: broker-1 controller p c"},
      {"an unknown node in a partition's group", step(R"({"at": "1s", "action": "partition", "groups": [["broker-1"], ["p", "cc"]]})"),
       "/timeline/0/groups/1/1", "unknown target \"cc\"", "", true},
      {"a partition of one group", step(R"({"at": "1s", "action": "partition", "groups": [["broker-1", "p"]]})"),
       "/timeline/0/groups", "", "two or more groups", true},
      {"a misspelled action", step(R"({"at": "1s", "action": "crsh", "target": "broker-1"})"), "/timeline/0/action",
       "unknown action \"crsh\"", "did you mean \"crash\"?"},
      {"an action far from any", step(R"({"at": "1s", "action": "explode", "target": "broker-1"})"), "/timeline/0/action",
       "unknown action \"explode\"", "one of: crash power-loss stop restart pause resume isolate partition heal", true},
      {"a crash with no target", step(R"({"at": "1s", "action": "crash"})"), "/timeline/0", "missing required key \"target\"",
       "", true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const auto e = error_of(c.text);
    EXPECT_EQ(e.pointer(), c.pointer);
    if (!c.problem.empty()) {
      EXPECT_EQ(e.problem(), c.problem);
    }
    if (c.partial) {
      EXPECT_CONTAINS(e.expected(), c.expected);
    } else {
      EXPECT_EQ(e.expected(), c.expected);
    }
  }
}

TEST(Loader, KeysAnActionDoesNotUseAreRejected) {
  // A key the action does not take is refused, not ignored: {"action": "heal", "target":
  // "brokr-1"} would otherwise heal every link, not only broker-1's, and never check the name.
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
  // The pointer of the bad value: the second use of the name, not the root.
  const auto e = error_of(R"({"name": "m", "topics": [{"name": "t"}],
      "producers": [{"name": "app", "topic": "t"}], "consumers": [{"name": "app", "topics": ["t"]}]})");
  EXPECT_EQ(e.pointer(), "/consumers/0/name");
}

}  // namespace
}  // namespace logsim::scenarios

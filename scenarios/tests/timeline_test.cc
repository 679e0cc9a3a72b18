// Tests of the typed timeline: every action a scenario file may name loads into its own step
// type with its keys, in the order of the file's times; the names, targets and kinds the runner
// and the apps go by.
#include "scenarios/timeline.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "scenarios/loader.h"

namespace logsim::scenarios {
namespace {

// One step of every action, at 1s, 2s, ... in the order of action_names().
constexpr const char* kEveryAction = R"({"name": "every-action", "duration": "60s",
  "cluster": {"brokers": 3},
  "topics": [{"name": "orders", "partitions": 3}],
  "producers": [{"name": "p", "topic": "orders"}],
  "consumers": [{"name": "c", "topics": ["orders"]}],
  "groups": [{"name": "g", "topics": ["orders"], "members": 2}],
  "timeline": [
    {"at": "1s", "action": "crash", "target": "broker-1"},
    {"at": "2s", "action": "power-loss", "target": "broker-2"},
    {"at": "3s", "action": "stop", "target": "g-1"},
    {"at": "4s", "action": "restart", "target": "broker-1"},
    {"at": "5s", "action": "pause", "target": "c"},
    {"at": "6s", "action": "resume", "target": "c"},
    {"at": "7s", "action": "isolate", "target": "broker-2"},
    {"at": "8s", "action": "partition", "groups": [["broker-1", "p"], ["broker-2"]], "one_way": true},
    {"at": "9s", "action": "heal"},
    {"at": "10s", "action": "clog", "target": "p", "for": "2s"},
    {"at": "11s", "action": "set-network", "network": {"latency_min": "5ms"}},
    {"at": "12s", "action": "clock-skew", "target": "g-2", "offset": "-2s", "drift_ppm": 50},
    {"at": "13s", "action": "create-topic", "topic": {"name": "audit", "partitions": 2}},
    {"at": "14s", "action": "delete-topic", "topic": "audit"},
    {"at": "15s", "action": "add-partitions", "topic": "orders", "partitions": 5},
    {"at": "16s", "action": "alter-config", "topic": "orders", "config": {"retention.ms": 5000}},
    {"at": "17s", "action": "reset-offsets", "group": "g", "topic": "orders", "to": {"shift_by": -3}},
    {"at": "18s", "action": "delete-offsets", "group": "g", "topic": "orders"},
    {"at": "19s", "action": "delete-group", "group": "g"},
    {"at": "20s", "action": "describe-group", "group": "g"},
    {"at": "21s", "action": "remove-static-members", "group": "g", "instances": ["g-1"]},
    {"at": "22s", "action": "produce", "target": "p", "count": 10, "rate": 5},
    {"at": "23s", "action": "seek", "target": "c", "topic": "orders", "partition": 4, "to": "latest"},
    {"at": "24s", "action": "add-member", "group": "g"},
    {"at": "25s", "action": "remove-member", "target": "g-3"},
    {"at": "26s", "action": "client-faults", "target": "broker-2", "for": "5s", "delay": "200ms", "drop": 0.1, "reset": 0.01,
     "error": "NOT_LEADER_OR_FOLLOWER", "error_share": 0.3}]})";

TEST(Timeline, EveryActionLoadsIntoItsOwnType) {
  const Scenario s = parse_scenario(kEveryAction, "every-action.json");
  const auto& names = action_names();
  ASSERT_EQ(s.timeline.size(), names.size()) << "one step per action";
  std::set<std::size_t> kinds;
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(s.timeline[i].name(), names[i]);
    EXPECT_EQ(s.timeline[i].at, seconds(static_cast<std::int64_t>(i) + 1));
    EXPECT_EQ(s.timeline[i].pointer, "/timeline/" + std::to_string(i));
    kinds.insert(s.timeline[i].action.index());
  }
  EXPECT_EQ(kinds.size(), std::variant_size_v<Action>) << "each action its own alternative";
}

TEST(Timeline, StepsCarryTheirKeys) {
  const Scenario s = parse_scenario(kEveryAction, "every-action.json");
  const auto* partition = s.timeline[7].as<steps::Partition>();
  ASSERT_NE(partition, nullptr);
  EXPECT_TRUE(partition->one_way);
  EXPECT_EQ(partition->groups, (std::vector<std::vector<std::string>>{{"broker-1", "p"}, {"broker-2"}}));
  EXPECT_EQ(s.timeline[7].targets(), (std::vector<std::string>{"broker-1,p", "broker-2"}));
  EXPECT_EQ(s.timeline[7].nodes(), (std::vector<std::string>{"broker-1", "p", "broker-2"}));

  EXPECT_EQ(s.timeline[9].as<steps::Clog>()->length, seconds(2));
  EXPECT_FALSE(s.timeline[10].as<steps::SetNetwork>()->target.has_value());
  EXPECT_TRUE(s.timeline[10].targets().empty()) << "set-network of every link names no node";
  EXPECT_EQ(s.timeline[11].as<steps::ClockSkew>()->offset, -seconds(2));
  EXPECT_EQ(s.timeline[11].as<steps::ClockSkew>()->drift_ppm, 50);

  const auto* reset = s.timeline[16].as<steps::ResetOffsets>();
  ASSERT_NE(reset, nullptr);
  EXPECT_EQ(reset->request.group_id, "g");
  EXPECT_EQ(reset->topic(), "orders");
  EXPECT_EQ(reset->request.mode, engine::ResetMode::kShiftBy);
  EXPECT_EQ(reset->request.value, -3);
  EXPECT_TRUE(reset->request.execute) << "a timeline's reset executes unless it says \"execute\": false";
  // delete-offsets takes every partition the topic has at its time: 5 after add-partitions.
  EXPECT_EQ(s.timeline[17].as<steps::DeleteOffsets>()->partitions, 5);

  const auto* remove = s.timeline[20].as<steps::RemoveStaticMembers>();
  ASSERT_NE(remove, nullptr);
  EXPECT_EQ(remove->group, "g");
  EXPECT_EQ(remove->instances, std::vector<std::string>{"g-1"});
  EXPECT_TRUE(s.timeline[20].is_group_admin());
  const auto* produce = s.timeline[21].as<steps::Produce>();
  EXPECT_EQ(produce->count, 10);
  EXPECT_EQ(produce->rate_per_sec, 5);
  const auto* seek = s.timeline[22].as<steps::Seek>();
  EXPECT_EQ(seek->partition, 4) << "a partition add-partitions made";
  EXPECT_EQ(seek->mode, engine::ResetMode::kToLatest);
  EXPECT_EQ(s.timeline[23].as<steps::AddMember>()->target, "g-3") << "the group's next member";
  EXPECT_EQ(s.timeline[24].targets(), std::vector<std::string>{"g-3"});
  const auto* faults = s.timeline[25].as<steps::ClientFaults>();
  ASSERT_NE(faults, nullptr);
  EXPECT_EQ(faults->target, "broker-2");
  EXPECT_EQ(faults->length, seconds(5));
  EXPECT_EQ(faults->delay, millis(200));
  EXPECT_DOUBLE_EQ(faults->drop, 0.1);
  EXPECT_DOUBLE_EQ(faults->reset, 0.01);
  EXPECT_EQ(faults->error, ErrorCode::NOT_LEADER_OR_FOLLOWER);
  EXPECT_DOUBLE_EQ(faults->error_share, 0.3);
}

TEST(Timeline, ClientFaultsAreCheckedAsTheyLoad) {
  const auto refused = [](const std::string& step) {
    const std::string doc = R"({"name": "x", "cluster": {"brokers": 2}, "topics": [{"name": "t"}],
      "producers": [{"name": "p", "topic": "t"}], "timeline": [)" + step + "]}";
    try {
      parse_scenario(doc, "x.json");
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(refused(R"({"at": "1s", "action": "client-faults", "for": "2s", "error": "OFFSET_OUT_OF_RANGE"})").find("NOT_LEADER_OR_FOLLOWER"),
            std::string::npos)
      << "an error no healthy broker gives names the ones it may";
  EXPECT_NE(refused(R"({"at": "1s", "action": "client-faults", "target": "p", "for": "2s", "drop": 0.5})").find("a broker"),
            std::string::npos);
  EXPECT_NE(refused(R"({"at": "1s", "action": "client-faults", "for": "2s"})").find("at least one of"), std::string::npos);
  EXPECT_NE(refused(R"({"at": "1s", "action": "client-faults", "for": "2s", "drop": 1.5})").find("/timeline/0/drop"), std::string::npos);
  EXPECT_EQ(refused(R"({"at": "1s", "action": "client-faults", "for": "2s", "reset": 0.5})"), "");
}

// A scenario without groups (one for logsim serve) may name its real clients' groups in group
// admin steps; one with groups must name one of them; add-member always needs a defined group.
TEST(Timeline, GroupAdminStepsNameAnyGroupOnlyInAScenarioWithoutGroups) {
  const auto refused = [](const std::string& groups, const std::string& step) {
    const std::string doc = R"({"name": "x", "cluster": {"brokers": 3}, "topics": [{"name": "t"}],)" + groups +
                            R"( "timeline": [)" + step + "]}";
    try {
      parse_scenario(doc, "x.json");
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string none;
  const std::string billing = R"("groups": [{"name": "billing", "topics": ["t"], "members": 1}],)";
  const std::string reset = R"({"at": "1s", "action": "reset-offsets", "group": "readers", "topic": "t", "to": "earliest"})";
  EXPECT_EQ(refused(none, reset), "");
  EXPECT_EQ(refused(none, R"({"at": "1s", "action": "delete-group", "group": "readers"})"), "");
  EXPECT_NE(refused(billing, reset).find("unknown group \"readers\""), std::string::npos) << refused(billing, reset);
  EXPECT_NE(refused(none, R"({"at": "1s", "action": "add-member", "group": "readers"})").find("unknown group"), std::string::npos);
}

TEST(Timeline, KindsSayWhoCarriesAStepOut) {
  const Scenario s = parse_scenario(kEveryAction, "every-action.json");
  std::vector<std::string> admin, group_admin, app;
  for (const auto& step : s.timeline) {
    if (step.is_admin()) admin.emplace_back(step.name());
    if (step.is_group_admin()) group_admin.emplace_back(step.name());
    if (step.is_app_step()) app.emplace_back(step.name());
  }
  EXPECT_EQ(admin, (std::vector<std::string>{"create-topic", "delete-topic", "add-partitions", "alter-config", "reset-offsets",
                                             "delete-offsets", "delete-group", "describe-group", "remove-static-members"}));
  EXPECT_EQ(group_admin, (std::vector<std::string>{"reset-offsets", "delete-offsets", "delete-group", "describe-group",
                                                   "remove-static-members"}));
  EXPECT_EQ(app, (std::vector<std::string>{"produce", "seek"}));
}

TEST(Timeline, FaultsNameTheirRepairs) {
  EXPECT_EQ(repair_of("crash"), "restart");
  EXPECT_EQ(repair_of("power-loss"), "restart");
  EXPECT_EQ(repair_of("stop"), "restart");
  EXPECT_EQ(repair_of("pause"), "resume");
  EXPECT_EQ(repair_of("isolate"), "heal");
  EXPECT_EQ(repair_of("partition"), "heal");
  EXPECT_FALSE(repair_of("clog").has_value()) << "a clog carries its length";
  EXPECT_FALSE(repair_of("restart").has_value());
  for (const auto& name : action_names()) {
    EXPECT_EQ(is_repair(name), name == "restart" || name == "resume" || name == "heal") << name;
  }
}

}  // namespace
}  // namespace logsim::scenarios

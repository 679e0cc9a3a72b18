// The "faults" section: loading it strictly, drawing a schedule from the seed that keeps its
// promises (times, kinds, one fault per target, concurrency, every fault repaired), and
// running it: the same seed draws the same faults, and the drawing moves nothing else.
#include "scenarios/faults.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "scenarios/loader.h"
#include "scenarios/runner.h"
#include "scenarios/tests/load_error.h"

namespace logsim::scenarios {
namespace {

std::string doc(const std::string& faults, const std::string& groups = R"(, "groups": [{"name": "g", "topics": ["t"], "members": 3}])") {
  return R"({"name": "f", "duration": "60s",
    "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "min.insync.replicas": 2}},
    "topics": [{"name": "t", "partitions": 3}],
    "producers": [{"name": "p", "topic": "t", "rate_per_sec": 50, "count": 500, "config": {"acks": "all"}}])" +
         groups + (faults.empty() ? "" : R"(, "faults": )" + faults) + "}";
}

std::vector<TimelineStep> draw(const Scenario& s, std::uint64_t seed) {
  Rng rng = Rng::for_stream(seed, "faults");
  return draw_faults(*s.faults, s, rng);
}

std::string text(const std::vector<TimelineStep>& steps) {
  std::string out;
  for (const auto& s : steps) {
    out += std::to_string(to_millis(s.at)) + " " + std::string(s.name());
    for (const auto& t : s.targets()) out += " " + t;
    out += "\n";
  }
  return out;
}

TEST(Faults, TheSameSeedDrawsTheSameScheduleAnotherSeedAnother) {
  const Scenario s = parse_scenario(doc(R"({"every": "5s", "for": "2s"})"), "f.json");
  EXPECT_EQ(text(draw(s, 1)), text(draw(s, 1)));
  EXPECT_NE(text(draw(s, 1)), text(draw(s, 2)));
  EXPECT_GT(draw(s, 1).size(), 4u) << "60 s at one fault per 5 s draws several";
}

// Walks a schedule and checks what faults.h promises.
void check_schedule(const std::vector<TimelineStep>& steps, const FaultSchedule& f, Nanos until) {
  std::map<std::string, Nanos> busy;  // target -> since
  bool network = false;
  std::int32_t at_once = 0;
  std::set<std::string> actions;
  Nanos last = 0;
  for (const auto& s : steps) {
    EXPECT_GE(s.at, last) << "sorted";
    last = s.at;
    EXPECT_GE(s.at, f.from);
    EXPECT_LE(s.at, until);
    actions.emplace(s.name());
    const std::string target = s.targets().empty() ? "" : s.targets().front();
    if (s.name() == "restart" || s.name() == "resume") {
      ASSERT_TRUE(busy.contains(target)) << s.name() << " of " << target << " with no fault on it";
      busy.erase(target);
      --at_once;
    } else if (s.name() == "heal") {
      ASSERT_TRUE(network);
      network = false;
      --at_once;
    } else if (s.name() == "clog" || s.name() == "seek") {  // one step each, no repair
      if (const auto* clog = s.as<steps::Clog>()) {
        EXPECT_LE(s.at + clog->length, until);
      }
      EXPECT_LE(at_once + 1, f.concurrency);
      if (const auto* seek = s.as<steps::Seek>()) {
        EXPECT_FALSE(seek->topic.empty());
        const auto m = seek->mode;
        EXPECT_TRUE(m == engine::ResetMode::kToEarliest || m == engine::ResetMode::kToLatest ||
                    (m == engine::ResetMode::kShiftBy && seek->value >= -100 && seek->value <= -1));
      }
    } else {
      EXPECT_FALSE(busy.contains(target)) << "two faults on " << target << " at " << to_millis(s.at) << " ms";
      if (s.name() == "isolate" || s.name() == "partition") {
        EXPECT_FALSE(network) << "two network faults at once";
        network = true;
      } else {
        busy[target] = s.at;
      }
      ++at_once;
      EXPECT_LE(at_once, f.concurrency);
    }
  }
  EXPECT_TRUE(busy.empty()) << "a fault was never repaired: " << busy.begin()->first;
  EXPECT_FALSE(network) << "a network fault was never healed";
}

TEST(Faults, DrawnSchedulesKeepTheirPromises) {
  for (const char* spec : {R"({"every": "2s", "for": "3s"})", R"({"every": "1s", "for": "5s", "concurrency": 3})",
                           R"({"every": "1s", "for": "4s", "from": "10s", "until": "30s", "concurrency": 2,
                               "kinds": ["crash", "power-loss", "isolate", "partition", "pause", "controller-crash",
                                         "member-crash", "member-pause", "member-stop", "member-seek",
                                         "member-power-loss"]})"}) {
    const Scenario s = parse_scenario(doc(spec), "f.json");
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
      SCOPED_TRACE(std::string(spec) + " seed " + std::to_string(seed));
      check_schedule(draw(s, seed), *s.faults, s.faults->until < 0 ? s.duration : s.faults->until);
    }
  }
}

TEST(Faults, OnlyTheNamedKindsAndByDefaultOnlyTheSafeOnes) {
  const Scenario crash_only = parse_scenario(doc(R"({"kinds": ["crash"], "every": "2s"})"), "f.json");
  std::set<std::string> actions;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    for (const auto& st : draw(crash_only, seed)) {
      actions.emplace(st.name());
      EXPECT_EQ(st.targets().front().rfind("broker-", 0), 0u) << st.targets().front();
    }
  }
  EXPECT_EQ(actions, (std::set<std::string>{"crash", "restart"}));

  const Scenario defaults = parse_scenario(doc(R"({"every": "1s"})"), "f.json");
  actions.clear();
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    for (const auto& st : draw(defaults, seed)) actions.emplace(st.name());
  }
  EXPECT_FALSE(actions.contains("power-loss")) << "power loss is unsafe under Kafka's rules (KIP-966): only when named";
  EXPECT_TRUE(actions.contains("stop")) << "member faults are drawn when the scenario has members";
  EXPECT_TRUE(actions.contains("seek")) << "member-seek is safe: a seek is the group's own choice";
  EXPECT_TRUE(actions.contains("partition"));

  // member-power-loss: a power loss of a group member (never of a broker), and only when named.
  EXPECT_FALSE(actions.contains("power-loss"));
  const Scenario member_power = parse_scenario(doc(R"({"kinds": ["member-power-loss"], "every": "2s"})"), "f.json");
  actions.clear();
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    for (const auto& st : draw(member_power, seed)) {
      actions.emplace(st.name());
      EXPECT_EQ(st.targets().front().rfind("broker-", 0), std::string::npos) << st.targets().front();
    }
  }
  EXPECT_EQ(actions, (std::set<std::string>{"power-loss", "restart"}));

  const Scenario no_members = parse_scenario(doc(R"({"every": "1s"})", ""), "f.json");
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    for (const auto& st : draw(no_members, seed)) {
      EXPECT_NE(st.name(), "stop") << "no members to stop";
      EXPECT_NE(st.name(), "seek") << "no members to seek";
    }
  }
}

// member-crash and member-pause also hit transactional producers (an application instance whose
// pause makes a zombie); a plain producer is never a target, and member-stop stays with members.
TEST(Faults, TransactionalProducersAreCrashedAndPausedLikeMembers) {
  const auto transactional = [](std::string d) {
    const std::string plain = R"("config": {"acks": "all"})";
    return d.replace(d.find(plain), plain.size(), R"("config": {"acks": "all", "transactional.id": "p-tx"})");
  };
  const Scenario s = parse_scenario(transactional(doc(R"({"kinds": ["member-crash", "member-pause"], "every": "1s"})", "")), "f.json");
  std::set<std::string> actions;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    for (const auto& st : draw(s, seed)) {
      actions.emplace(st.name());
      EXPECT_EQ(st.targets().front(), "p");
    }
  }
  EXPECT_TRUE(actions.contains("crash"));
  EXPECT_TRUE(actions.contains("pause"));
  EXPECT_EQ(error_of(transactional(doc(R"({"kinds": ["member-stop"]})", ""))).pointer(), "/faults/kinds/0")
      << "member-stop needs a group member";
  // Without a transactional.id the producer is no target: member faults have none.
  EXPECT_NE(error_of(doc(R"({"kinds": ["member-pause"]})", "")).problem().find("no group members"), std::string::npos);
}

TEST(Faults, LoadingIsStrict) {
  auto e = error_of(doc(R"({"kinds": ["crsh"]})"));
  EXPECT_EQ(e.pointer(), "/faults/kinds/0");
  EXPECT_NE(e.expected().find("did you mean \"crash\""), std::string::npos) << e.what();

  e = error_of(doc(R"({"kinds": ["member-crash"]})", ""));
  EXPECT_EQ(e.pointer(), "/faults/kinds/0");
  EXPECT_NE(e.problem().find("no group members"), std::string::npos) << e.what();

  EXPECT_EQ(error_of(doc(R"({"until": "90s"})")).pointer(), "/faults/until");
  EXPECT_EQ(error_of(doc(R"({"from": "20s", "until": "10s"})")).pointer(), "/faults/until");
  EXPECT_EQ(error_of(doc(R"({"every": "0s"})")).pointer(), "/faults/every");
  EXPECT_EQ(error_of(doc(R"({"concurrency": 0})")).pointer(), "/faults/concurrency");
  EXPECT_EQ(error_of(doc(R"({"kinds": []})")).pointer(), "/faults/kinds");
  e = error_of(doc(R"({"evry": "5s"})"));
  EXPECT_NE(e.expected().find("every"), std::string::npos) << e.what();
}

TEST(Faults, ARunAppliesTheDrawnFaultsAndMovesNothingElse) {
  const Scenario with = parse_scenario(doc(R"({"kinds": ["crash", "member-crash"], "every": "8s", "for": "3s"})"), "f.json");
  const RunOutput a = run_scenario(with, {5, false});
  const RunOutput again = run_scenario(with, {5, false});
  EXPECT_EQ(a.result.trace_hash, again.result.trace_hash);
  // The faults in the history are the drawn ones, in order.
  std::vector<std::string> applied;
  for (const auto& e : a.history.events()) {
    if (e.kind == properties::OpKind::kFault) applied.push_back(std::to_string(to_millis(e.at)) + " " + e.note);
  }
  const auto drawn = draw(with, 5);
  ASSERT_EQ(applied.size(), drawn.size());
  for (std::size_t i = 0; i < drawn.size(); ++i) {
    EXPECT_EQ(applied[i], std::to_string(to_millis(drawn[i].at)) + " " + std::string(drawn[i].name()) + " " + drawn[i].targets().front());
  }
  EXPECT_EQ(a.result.verdict.outcome, properties::Outcome::kPass) << "acks=all, min.insync.replicas=2 under crashes";

  // A schedule that draws nothing leaves the run exactly as without the section.
  const Scenario none = parse_scenario(doc(R"({"every": "1h"})"), "f.json");
  const Scenario without = parse_scenario(doc(""), "f.json");
  EXPECT_TRUE(draw(none, 5).empty());
  EXPECT_EQ(run_scenario(none, {5, false}).result.trace_hash, run_scenario(without, {5, false}).result.trace_hash);
}

}  // namespace
}  // namespace logsim::scenarios

// An example project's tests of its own scenarios with logsim: a scenario built in code, a
// scenario file over several seeds, and the same file changed in code to show a known failure.
// A failing assertion prints the first violations and the replay command, and writes
// logsim-reports/<Suite>.<Test>/seed-N/report.html.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "api/gtest.h"
#include "api/logsim.h"

namespace {

const std::string kPayments = std::string(EXAMPLE_SCENARIOS) + "/payments.json";

// A scenario in code: an orders topic read by a billing group of two members, one of which
// crashes mid-stream and comes back. A short session timeout lets the group rebalance soon
// after the crash; the quiet period at the end lets it catch up.
constexpr const char* kBilling = R"json({
  "name": "billing-survives-a-member-crash",
  "duration": "15s",
  "quiesce": "10s",
  "cluster": {"brokers": 1, "config": {"offsets.topic.replication.factor": 1, "offsets.topic.num.partitions": 1}},
  "topics": [{"name": "orders", "partitions": 4}],
  "producers": [{"name": "shop", "topic": "orders", "rate_per_sec": 100, "count": 1000, "keys": {"uniform": 20}}],
  "groups": [{"name": "billing", "topics": ["orders"], "members": 2, "commit": "after-each-batch",
              "config": {"auto.offset.reset": "earliest", "session.timeout.ms": 6000}}],
  "timeline": [{"at": "9s", "action": "crash", "target": "billing-1"},
               {"at": "11s", "action": "restart", "target": "billing-1"}]
})json";

TEST(Billing, EveryAcknowledgedOrderIsBilledDespiteAMemberCrash) {
  const logsim::Scenario scenario = logsim::parse_scenario(kBilling);
  const logsim::RunOutput out = logsim::run(scenario, {.seed = 7});

  ASSERT_TRUE(logsim::testing::Passed(out));
  EXPECT_EQ(logsim::acknowledged(out.history, "shop").size(), 1000u);
  EXPECT_TRUE(logsim::missing_from(out.history, "billing", "orders").empty());
  // At least once, not exactly once: the crash may make the group process some orders twice.
  EXPECT_GE(logsim::processed_by(out.history, "billing").size(), 1000u);
}

TEST(Payments, AcksAllLosesNothingWhileBrokersCrash) {
  const logsim::Scenario scenario = logsim::load_scenario(kPayments);
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const logsim::RunOutput out = logsim::run(scenario, {.seed = seed});
    EXPECT_TRUE(logsim::testing::Passed(out));
    EXPECT_TRUE(logsim::missing_from(out.history, "ledger", "payments").empty()) << "seed " << seed;
  }
}

TEST(Payments, AcksOneLosesAcknowledgedWritesWhenTheLeaderFails) {
  // The same file, changed in code: with acks=1 a leader acknowledges before its followers
  // have the record, so a failover loses acknowledged writes.
  nlohmann::json j = nlohmann::json::parse(std::ifstream(kPayments));
  j["producers"][0]["config"]["acks"] = 1;
  const logsim::RunOutput out = logsim::run(logsim::scenario_from_json(j), {.seed = 2});

  EXPECT_TRUE(logsim::testing::Found(out, {"lost-write"}));
  EXPECT_FALSE(logsim::missing_from(out.history, "ledger", "payments").empty());
}

}  // namespace

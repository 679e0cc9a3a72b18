// The timeline's application steps and member changes, loaded and run: `produce` bursts (all
// at once, at a rate, across a crash of the producer), `seek` (to an offset, by a shift, to
// earliest, latest or a time; on group members at their next poll and on consumers at once),
// `add-member` and `remove-member`; and the loader's errors for each.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "scenarios/loader.h"
#include "scenarios/runner.h"
#include "scenarios/tests/load_error.h"

namespace logsim::scenarios {
namespace {

using properties::HistoryEvent;
using properties::OpKind;

// Three brokers; orders with three partitions; a steady producer and one that only bursts;
// a consumer and a group of two.
std::string with_timeline(const std::string& timeline, const std::string& processing = "2ms") {
  return R"({
    "name": "app-steps", "duration": "30s", "quiesce": "10s", "seed": 5,
    "cluster": {"brokers": 3},
    "topics": [{"name": "orders", "partitions": 3, "replication_factor": 3}],
    "producers": [
      {"name": "checkout", "topic": "orders", "rate_per_sec": 50, "count": 500, "keys": {"uniform": 20}, "config": {"acks": "all"}},
      {"name": "backfill", "topic": "orders", "count": 0, "keys": {"uniform": 20}, "config": {"acks": "all"}}
    ],
    "consumers": [{"name": "audit", "topics": ["orders"], "config": {"auto.offset.reset": "earliest"}}],
    "groups": [{"name": "billing", "topics": ["orders"], "members": 2, "processing": ")" +
         processing + R"(", "commit": "after-each-batch", "config": {"auto.offset.reset": "earliest"}}],
    "timeline": )" +
         timeline + R"(,
    "expect": {"verdict": "pass"}
  })";
}

RunOutput run_text(const std::string& text) {
  const Scenario s = parse_scenario(text, "app-steps.json");
  RunOutput out = run_scenario(s, RunOptions{s.seed, false});
  EXPECT_TRUE(out.result.expectation_met) << out.result.expectation_detail;
  return out;
}

std::vector<HistoryEvent> events_of(const properties::History& h, OpKind kind, const std::string& process) {
  std::vector<HistoryEvent> out;
  for (const auto& e : h.events()) {
    if (e.kind == kind && e.process == process) out.push_back(e);
  }
  return out;
}

// ---- produce

TEST(AppSteps, AProduceStepSendsItsBurstAllAtOnce) {
  const RunOutput out = run_text(with_timeline(R"([{"at": "5s", "action": "produce", "target": "backfill", "count": 300}])"));
  const auto sends = events_of(out.history, OpKind::kSendInvoke, "backfill");
  ASSERT_EQ(sends.size(), 300u);
  for (const auto& e : sends) EXPECT_EQ(e.at, seconds(5));
  EXPECT_EQ(events_of(out.history, OpKind::kSendOk, "backfill").size(), 300u) << "acks=all, no faults: every one acknowledged";
  EXPECT_EQ(out.result.stats.at("records.sent"), 800);
}

TEST(AppSteps, AProduceStepWithARateSpreadsItsBurstAndARestartedProducerFinishesIt) {
  // 100 records at 20/s from 5 s would end at about 10 s; the producer is down from 6 s to 8 s.
  const RunOutput out = run_text(with_timeline(R"([
    {"at": "5s", "action": "produce", "target": "backfill", "count": 100, "rate": 20},
    {"at": "6s", "action": "crash", "target": "backfill"},
    {"at": "8s", "action": "restart", "target": "backfill"}])"));
  const auto sends = events_of(out.history, OpKind::kSendInvoke, "backfill");
  ASSERT_EQ(sends.size(), 100u) << "the burst is neither cut short nor repeated by the restart";
  std::set<std::uint64_t> values;
  for (const auto& e : sends) values.insert(e.value_id);
  EXPECT_EQ(values.size(), 100u);
  EXPECT_EQ(sends.front().at, seconds(5));
  EXPECT_EQ(sends[1].at, seconds(5) + millis(50)) << "one every 50 ms";
  for (const auto& e : sends) EXPECT_TRUE(e.at < seconds(6) || e.at >= seconds(8)) << "nothing sent while down, at " << e.at;
  EXPECT_EQ(sends.back().at, seconds(8) + millis(50) * (100 - 21)) << "the rest goes on at the rate after the restart";
  const auto notes = events_of(out.history, OpKind::kFault, "backfill");
  ASSERT_FALSE(notes.empty());
  EXPECT_EQ(notes.front().note, "produce backfill: a burst of 100 records at 20/s");
}

TEST(AppSteps, AProduceStepDueWhileTheProducerIsDownGoesWhenItIsBack) {
  const RunOutput out = run_text(with_timeline(R"([
    {"at": "4s", "action": "stop", "target": "backfill"},
    {"at": "5s", "action": "produce", "target": "backfill", "count": 10},
    {"at": "7s", "action": "restart", "target": "backfill"}])"));
  const auto sends = events_of(out.history, OpKind::kSendInvoke, "backfill");
  ASSERT_EQ(sends.size(), 10u);
  for (const auto& e : sends) EXPECT_EQ(e.at, seconds(7));
}

// ---- seek

TEST(AppSteps, AConsumerSeeksAtOnceAndReadsAgainFromThere) {
  const RunOutput out = run_text(with_timeline(R"([{"at": "15s", "action": "seek", "target": "audit", "topic": "orders", "partition": 1, "to": {"offset": 10}}])"));
  const auto seeks = events_of(out.history, OpKind::kSeek, "audit");
  ASSERT_EQ(seeks.size(), 1u);
  EXPECT_EQ(seeks[0].at, seconds(15));
  EXPECT_EQ(seeks[0].partition, PartitionId(1));
  EXPECT_EQ(seeks[0].offset, Offset(10));
  // The next record of partition 1 after the seek is offset 10, read a second time.
  std::int64_t next = -1;
  std::int64_t times_10 = 0;
  for (const auto& e : events_of(out.history, OpKind::kProcess, "audit")) {
    if (e.partition != PartitionId(1)) continue;
    if (e.offset == Offset(10)) ++times_10;
    if (e.index > seeks[0].index && next < 0) next = e.offset->value();
  }
  EXPECT_EQ(next, 10);
  EXPECT_EQ(times_10, 2);
}

TEST(AppSteps, AMemberSeeksToEarliestAtItsNextPollAndProcessesItsPartitionsAgain) {
  const RunOutput out = run_text(with_timeline(R"([{"at": "15s", "action": "seek", "target": "billing-1", "topic": "orders", "to": "earliest"}])"));
  const auto seeks = events_of(out.history, OpKind::kSeek, "billing-1");
  ASSERT_FALSE(seeks.empty());
  std::set<std::int32_t> partitions;
  for (const auto& e : seeks) {
    EXPECT_EQ(e.offset, Offset(0)) << "the log start";
    EXPECT_EQ(e.note, "seekToBeginning");
    EXPECT_GE(e.at, seconds(15));
    EXPECT_EQ(e.group, "billing");
    partitions.insert(e.partition->value());
  }
  // Every partition it sought, it processed from offset 0 a second time.
  for (const std::int32_t p : partitions) {
    std::int64_t zeros = 0;
    for (const auto& e : events_of(out.history, OpKind::kProcess, "billing-1")) zeros += e.partition == PartitionId(p) && e.offset == Offset(0);
    EXPECT_EQ(zeros, 2) << "partition " << p;
  }
}

TEST(AppSteps, AMemberThatSeeksPastRecordsSkipsThemAndTheCheckersCountThatAsItsOwnChoice) {
  // A burst the group is still working through when billing-2 jumps to the end.
  const RunOutput out = run_text(with_timeline(R"([
    {"at": "10s", "action": "produce", "target": "backfill", "count": 3000},
    {"at": "11s", "action": "seek", "target": "billing-2", "topic": "orders", "to": "latest"}])", "5ms"));
  const auto seeks = events_of(out.history, OpKind::kSeek, "billing-2");
  ASSERT_FALSE(seeks.empty());
  EXPECT_EQ(seeks[0].note, "seekToEnd");
  EXPECT_LT(out.result.stats.at("group.billing.processed"), 3500) << "some of the burst was skipped";
  EXPECT_EQ(out.result.verdict.outcome, properties::Outcome::kPass);
}

TEST(AppSteps, ASeekByAShiftMovesFromThePosition) {
  const RunOutput out = run_text(with_timeline(R"([{"at": "15s", "action": "seek", "target": "audit", "topic": "orders", "partition": 0, "to": {"shift_by": -5}}])"));
  const auto seeks = events_of(out.history, OpKind::kSeek, "audit");
  ASSERT_EQ(seeks.size(), 1u);
  std::int64_t last = -1;  // the last offset of partition 0 processed before the seek
  for (const auto& e : events_of(out.history, OpKind::kProcess, "audit")) {
    if (e.partition == PartitionId(0) && e.index < seeks[0].index) last = e.offset->value();
  }
  ASSERT_GE(last, 5);
  EXPECT_EQ(seeks[0].offset, Offset(last + 1 - 5));
  EXPECT_EQ(seeks[0].note, "seek by -5 from position " + std::to_string(last + 1));
}

TEST(AppSteps, ASeekToATimeLandsOnTheFirstRecordSentAtOrAfterIt) {
  const RunOutput out = run_text(with_timeline(R"([{"at": "15s", "action": "seek", "target": "audit", "topic": "orders", "partition": 2, "to": {"datetime": "4s"}}])"));
  const auto seeks = events_of(out.history, OpKind::kSeek, "audit");
  ASSERT_EQ(seeks.size(), 1u);
  EXPECT_EQ(seeks[0].note, "offsetsForTimes(4000ms) then seek");
  // The records' timestamps are their send times: the first acknowledged on partition 2 that
  // was sent at or after 4 s.
  std::map<std::uint64_t, Nanos> sent_at;
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kSendInvoke) sent_at[e.value_id] = e.at;
  }
  std::int64_t first = -1;
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kSendOk && e.partition == PartitionId(2) && sent_at[e.value_id] >= seconds(4) && (first < 0 || e.offset->value() < first)) first = e.offset->value();
  }
  EXPECT_EQ(seeks[0].offset, Offset(first));
}

TEST(AppSteps, ASeekOnAPartitionNotHeldOnlyNotesIt) {
  // At 1 s the group has not formed yet (group.initial.rebalance.delay.ms is 3 s).
  const RunOutput out = run_text(with_timeline(R"([{"at": "1s", "action": "seek", "target": "billing-1", "topic": "orders", "to": "earliest"}])"));
  EXPECT_TRUE(events_of(out.history, OpKind::kSeek, "billing-1").empty());
  const auto notes = events_of(out.history, OpKind::kFault, "billing-1");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].note, "seek orders: nothing to seek, no partition of it is assigned now");
}

// ---- add-member, remove-member

TEST(AppSteps, AnAddedMemberJoinsAtItsStepAndARemovedOneLeavesTheGroup) {
  const RunOutput out = run_text(with_timeline(R"([
    {"at": "8s", "action": "add-member", "group": "billing"},
    {"at": "16s", "action": "remove-member", "target": "billing-1"}])"));
  // billing-3 exists from 8 s on and is given partitions.
  const auto joined = events_of(out.history, OpKind::kAssign, "billing-3");
  ASSERT_FALSE(joined.empty());
  EXPECT_GE(joined.front().at, seconds(8));
  bool got_some = false;
  for (const auto& e : joined) got_some |= !e.assignment.empty();
  EXPECT_TRUE(got_some);
  // billing-1 gives its partitions back when it leaves, and does nothing after.
  for (const auto& e : out.history.events()) {
    if (e.process == "billing-1") {
      EXPECT_LE(e.at, seconds(16)) << e.note;
    }
  }
  // The two left share all three partitions at the end.
  std::map<std::string, std::size_t> last_assignment;
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kAssign && e.group == "billing") last_assignment[e.process] = e.assignment.size();
  }
  EXPECT_EQ(last_assignment["billing-2"] + last_assignment["billing-3"], 3u);
}

TEST(AppSteps, AddedMembersAreNamedInTimeOrderAndCanBeAimedAtLater) {
  const Scenario s = parse_scenario(with_timeline(R"([
    {"at": "12s", "action": "add-member", "group": "billing"},
    {"at": "8s", "action": "add-member", "group": "billing"},
    {"at": "20s", "action": "crash", "target": "billing-4"}])"), "mem.json");
  ASSERT_EQ(s.groups[0].added_at, (std::vector<Nanos>{seconds(8), seconds(12)}));
  EXPECT_EQ(s.groups[0].member_count(), 4);
  ASSERT_EQ(s.timeline.size(), 3u);
  EXPECT_EQ(s.timeline[0].targets(), (std::vector<std::string>{"billing-3"}));
  EXPECT_EQ(s.timeline[1].targets(), (std::vector<std::string>{"billing-4"}));
}

// ---- loader errors

TEST(AppSteps, MistakesAreReportedWhereTheyAre) {
  struct Case {
    std::string timeline;
    std::string pointer;
    std::string problem;
    std::string expected_part;
  };
  const std::vector<Case> cases = {
      {R"([{"at": "5s", "action": "produce", "target": "broker-1", "count": 5}])", "/timeline/0/target",
       "produce is aimed at \"broker-1\", which is not a producer", "checkout backfill"},
      {R"([{"at": "5s", "action": "produce", "target": "backfill"}])", "/timeline/0", "missing required key \"count\"", "\"count\" to be present"},
      {R"([{"at": "5s", "action": "produce", "target": "backfill", "count": 5, "rate": 0}])", "/timeline/0/rate",
       "found a rate of 0", "records per second"},
      {R"([{"at": "5s", "action": "produce", "target": "backfill", "count": 2000000}])", "/timeline/0/count",
       "found a burst of 2000000 records all at once", "or a \"rate\""},
      {R"([{"at": "5s", "action": "produce", "target": "backfill", "count": 5, "topic": "orders"}])", "/timeline/0/topic",
       "produce takes no \"topic\"", "\"count\""},
      {R"([{"at": "5s", "action": "seek", "target": "checkout", "topic": "orders", "to": "earliest"}])", "/timeline/0/target",
       "seek is aimed at \"checkout\", which is not a group member or consumer", "billing-1"},
      {R"([{"at": "5s", "action": "seek", "target": "audit", "topic": "payments", "to": "earliest"}])", "/timeline/0/topic",
       "audit does not read topic \"payments\"", "orders"},
      {R"([{"at": "5s", "action": "seek", "target": "audit", "topic": "orders", "partition": 3, "to": "earliest"}])",
       "/timeline/0/partition", "topic \"orders\" has 3 partitions at 5000ms", "from 0 to 2"},
      {R"([{"at": "5s", "action": "seek", "target": "audit", "topic": "orders", "to": "erliest"}])", "/timeline/0/to",
       "unknown reset \"erliest\"", "did you mean \"earliest\"?"},
      {R"([{"at": "5s", "action": "add-member", "group": "biling"}])", "/timeline/0/group", "unknown group \"biling\"",
       "did you mean \"billing\"?"},
      {R"([{"at": "5s", "action": "remove-member", "target": "audit"}])", "/timeline/0/target",
       "remove-member is aimed at \"audit\", which is not a group member", "billing-1 billing-2"},
      {R"([{"at": "9s", "action": "add-member", "group": "billing"}, {"at": "5s", "action": "pause", "target": "billing-3"}])",
       "/timeline/1/target", "\"billing-3\" is added at 9000ms, after this step (at 5000ms)", "at or after its add-member"},
  };
  for (const auto& c : cases) {
    const ScenarioError e = error_of(with_timeline(c.timeline));
    EXPECT_EQ(e.pointer(), c.pointer) << c.timeline;
    EXPECT_EQ(e.problem(), c.problem) << c.timeline;
    EXPECT_NE(e.expected().find(c.expected_part), std::string::npos) << c.timeline << "\n" << e.expected();
  }
}

}  // namespace
}  // namespace logsim::scenarios

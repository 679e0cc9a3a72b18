// Runs whole scenarios through the simulator: the thin path from scenario to verdict.
#include "scenarios/runner.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "scenarios/loader.h"

namespace logsim::scenarios {
namespace {

std::string quickstart_path() { return LOGSIM_SOURCE_DIR "/scenarios/quickstart.json"; }

Scenario small(const std::string& timeline = "[]", const std::string& extra_consumer_config = "") {
  const std::string text = R"({
    "name": "small", "duration": "10s",
    "topics": [{"name": "t", "partitions": 2}],
    "producers": [{"name": "p", "topic": "t", "rate_per_sec": 100, "count": 300, "keys": {"uniform": 10},
                   "config": {"request.timeout.ms": 1000, "delivery.timeout.ms": 5000}}],
    "consumers": [{"name": "c", "topics": ["t"], "config": {"auto.offset.reset": "earliest")" +
                           extra_consumer_config + R"(}}],
    "timeline": )" + timeline + "}";
  return parse_scenario(text, "small.json");
}

std::int64_t stat(const RunResult& r, const std::string& k) {
  auto it = r.stats.find(k);
  return it == r.stats.end() ? -1 : it->second;
}

TEST(Runner, QuickstartPassesAndEveryAcknowledgedRecordIsProcessed) {
  const Scenario s = load_scenario_file(quickstart_path());
  const RunOutput out = run_scenario(s, {7, false});
  EXPECT_EQ(out.result.verdict.outcome, properties::Outcome::kPass);
  EXPECT_TRUE(out.result.expectation_met) << out.result.expectation_detail;
  EXPECT_EQ(stat(out.result, "records.sent"), 2000);
  EXPECT_EQ(stat(out.result, "records.acknowledged"), 2000);
  EXPECT_EQ(stat(out.result, "records.processed.email"), 2000);
  EXPECT_EQ(stat(out.result, "records.processed.analytics"), 2000);
  EXPECT_EQ(stat(out.result, "faults"), 4);
}

// The checkers that watched the run are gone when it returns: the history the caller gets must
// not call them (under AddressSanitizer, a dangling observer is a stack-use-after-return).
TEST(Runner, TheReturnedHistoryOutlivesTheRunsCheckers) {
  RunOutput out = run_scenario(small(), {3, false});
  const std::size_t before = out.history.size();
  properties::HistoryEvent e;
  e.kind = properties::OpKind::kProcess;
  e.process = "late-reader";
  e.topic = "orders";
  e.partition = PartitionId(0);
  e.offset = Offset(1);
  e.value_id = 1;
  EXPECT_EQ(out.history.append(e), before);
  EXPECT_EQ(out.history.size(), before + 1);
}

TEST(Runner, SameSeedSameTraceDifferentSeedDifferentTrace) {
  const Scenario s = small();
  const RunOutput a = run_scenario(s, {11, false});
  const RunOutput b = run_scenario(s, {11, true});  // recording must not change the hash
  const RunOutput c = run_scenario(s, {12, false});
  EXPECT_EQ(a.result.trace_hash, b.result.trace_hash);
  EXPECT_EQ(a.result.trace_events, b.result.trace_events);
  EXPECT_EQ(b.trace.entries().size(), b.result.trace_events);
  EXPECT_NE(a.result.trace_hash, c.result.trace_hash);
  EXPECT_EQ(a.history.size(), b.history.size());
}

TEST(Runner, HistoryRecordsEverySendAndItsOutcomeWithOffsets) {
  const RunOutput out = run_scenario(small(), {3, false});
  std::set<std::uint64_t> invoked, acked, processed;
  std::set<std::pair<std::int32_t, std::int64_t>> acked_offsets;
  for (const auto& e : out.history.events()) {
    if (e.kind == properties::OpKind::kSendInvoke) invoked.insert(e.value_id);
    if (e.kind == properties::OpKind::kSendOk) {
      acked.insert(e.value_id);
      EXPECT_GE(e.offset, Offset(0));
      EXPECT_TRUE(acked_offsets.insert({e.partition->value(), e.offset->value()}).second) << "two acks at one offset";
    }
    if (e.kind == properties::OpKind::kProcess) processed.insert(e.value_id);
  }
  EXPECT_EQ(invoked.size(), 300u);
  EXPECT_EQ(acked, invoked);
  EXPECT_EQ(processed, acked);
}

TEST(Runner, KeysAlwaysLandOnTheirMurmur2Partition) {
  const RunOutput out = run_scenario(small(), {5, false});
  std::map<std::string, std::optional<PartitionId>> partition_of_key;
  for (const auto& e : out.history.events()) {
    if (e.kind != properties::OpKind::kSendOk) continue;
    auto [it, fresh] = partition_of_key.emplace(*e.key, e.partition);
    EXPECT_EQ(it->second, e.partition) << "key " << *e.key << " moved partitions";
  }
  EXPECT_EQ(partition_of_key.size(), 10u);
}

TEST(Runner, BrokerCrashLosesNothingButPowerLossLosesUnflushedAcknowledgedRecords) {
  // A process crash keeps the page cache: every acknowledged record is still read.
  const RunOutput crash = run_scenario(
      small(R"([{"at": "1s", "action": "crash", "target": "broker-1"}, {"at": "2s", "action": "restart", "target": "broker-1"}])"),
      {9, false});
  EXPECT_EQ(stat(crash.result, "records.acknowledged"), 300);
  EXPECT_EQ(stat(crash.result, "records.processed.c"), 300);
  // A power loss drops what was never fsynced (Kafka leaves flushing to the OS by default), so
  // records acknowledged before it are gone: fewer are processed than acknowledged.
  const RunOutput power = run_scenario(
      small(R"([{"at": "1s", "action": "power-loss", "target": "broker-1"}, {"at": "2s", "action": "restart", "target": "broker-1"}])"),
      {9, false});
  EXPECT_GT(stat(power.result, "records.acknowledged"), 150);
  EXPECT_LT(stat(power.result, "records.processed.c"), stat(power.result, "records.acknowledged"));
}

TEST(Runner, AConsumerPausedPastTheRunSeesNothingAfterThePause) {
  const RunOutput out = run_scenario(small(R"([{"at": "500ms", "action": "pause", "target": "c"}])"), {4, false});
  for (const auto& e : out.history.events()) {
    if (e.kind == properties::OpKind::kProcess) {
      EXPECT_LE(e.at, millis(500)) << "processed while paused";
    }
  }
  EXPECT_GT(stat(out.result, "records.processed.c"), 0);
  EXPECT_LT(stat(out.result, "records.processed.c"), 300);
}

// The network and clock steps change what happens, and only while they should.
TEST(Runner, AClogHoldsEveryAcknowledgementUntilItEnds) {
  const RunOutput out = run_scenario(small(R"([{"at": "1s", "action": "clog", "target": "broker-1", "for": "2s"}])"), {3, false});
  int during = 0, after = 0;
  for (const auto& e : out.history.events()) {
    if (e.kind != properties::OpKind::kSendOk) continue;
    if (e.at > seconds(1) + millis(5) && e.at < seconds(3)) ++during;
    if (e.at >= seconds(3) && e.at < seconds(3) + millis(50)) ++after;
  }
  EXPECT_EQ(during, 0) << "an acknowledgement crossed a clogged link";
  EXPECT_GT(after, 50) << "the held requests are answered when the clog ends";
  EXPECT_EQ(stat(out.result, "records.acknowledged"), 300);
  EXPECT_EQ(out.result.verdict.outcome, properties::Outcome::kPass);
}

TEST(Runner, SetNetworkSlowsTheLinksOfItsTargetOnly) {
  const auto mean_ack_delay = [](const RunOutput& out) {
    std::map<std::uint64_t, Nanos> sent;
    double total = 0;
    int n = 0;
    for (const auto& e : out.history.events()) {
      if (e.kind == properties::OpKind::kSendInvoke) sent[e.value_id] = e.at;
      if (e.kind == properties::OpKind::kSendOk && e.at > seconds(2)) {
        total += static_cast<double>(e.at - sent.at(e.value_id));
        ++n;
      }
    }
    return total / n / 1e6;
  };
  const RunOutput base = run_scenario(small(), {3, false});
  const RunOutput slow = run_scenario(small(R"([{"at": "1s", "action": "set-network", "target": "broker-1", "network": {"latency_min": "40ms"}}])"), {3, false});
  const RunOutput other = run_scenario(small(R"([{"at": "1s", "action": "set-network", "target": "c", "network": {"latency_min": "40ms"}}])"), {3, false});
  EXPECT_GT(mean_ack_delay(slow), mean_ack_delay(base) + 70) << "two 40 ms hops more per produce round trip";
  EXPECT_LT(mean_ack_delay(other), mean_ack_delay(base) + 5) << "the consumer's links do not slow the producer";
}

TEST(Runner, AClockThatRunsFastFiresItsTimersSooner) {
  const auto sent_by = [](const RunOutput& out, Nanos t) {
    int n = 0;
    for (const auto& e : out.history.events()) n += e.kind == properties::OpKind::kSendInvoke && e.at < t ? 1 : 0;
    return n;
  };
  const RunOutput base = run_scenario(small(), {3, false});
  // The producer's clock gains 10%: its 100 records/s, paced by its own timers, come 10% faster.
  const RunOutput fast = run_scenario(small(R"([{"at": "0s", "action": "clock-skew", "target": "p", "offset": "-2s", "drift_ppm": 100000}])"), {3, false});
  EXPECT_NEAR(sent_by(base, seconds(2)), 200, 3);
  EXPECT_NEAR(sent_by(fast, seconds(2)), 220, 3);
  EXPECT_EQ(stat(fast.result, "records.acknowledged"), 300);
  EXPECT_EQ(fast.result.verdict.outcome, properties::Outcome::kPass);
  bool noted = false;
  for (const auto& e : fast.history.events()) noted = noted || e.note.find("clock-skew p offset -2000ms") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(Runner, ExpectationsCompareVerdictAndAnomalies) {
  properties::Verdict pass;
  properties::Verdict violated;
  violated.outcome = properties::Outcome::kViolated;
  violated.violations.push_back({});
  violated.violations.back().anomaly = "nonmonotonic-poll";
  std::string detail;
  EXPECT_TRUE(meets_expectation(Expectation{}, pass, detail));
  EXPECT_FALSE(meets_expectation(Expectation{}, violated, detail));
  EXPECT_NE(detail.find("expected verdict \"pass\""), std::string::npos);
  EXPECT_TRUE(meets_expectation(Expectation{"violated", {"nonmonotonic-poll"}}, violated, detail));
  EXPECT_FALSE(meets_expectation(Expectation{"violated", {"lost-write"}}, violated, detail));
  EXPECT_NE(detail.find("lost-write"), std::string::npos);
  EXPECT_FALSE(meets_expectation(Expectation{"violated", {}}, pass, detail));
}

}  // namespace
}  // namespace logsim::scenarios

#include "scenarios/determinism.h"

namespace logsim::scenarios {
namespace {

TEST(Determinism, TheSameSeedAgreesAndADifferentRunIsNamedAtItsFirstDivergentEvent) {
  const Scenario s = small();
  const RunOutput first = run_scenario(s, {31, true});
  EXPECT_FALSE(check_determinism(s, 31, first).has_value());
  // A run that is not the same (here: another seed) is caught, and the report names the
  // first event where the traces part, as each run recorded it.
  const RunOutput other = run_scenario(s, {32, true});
  const auto d = compare_runs(first, other);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->first_hash, first.result.trace_hash);
  EXPECT_EQ(d->second_hash, other.result.trace_hash);
  ASSERT_LT(d->index, first.trace.entries().size());
  for (std::uint64_t i = 0; i < d->index; ++i) {
    EXPECT_EQ(first.trace.entries()[i].detail, other.trace.entries()[i].detail) << "entry " << i;
  }
  EXPECT_EQ(d->first_event, sim::format_entry(first.trace.entries()[d->index]));
  EXPECT_NE(d->first_event, d->second_event);
  EXPECT_EQ(d->first_event.rfind("#" + std::to_string(d->index) + " ", 0), 0u);
}

}  // namespace
}  // namespace logsim::scenarios

namespace logsim::scenarios {
namespace {

std::string retention_path() {
  return LOGSIM_SOURCE_DIR "/scenarios/retention-too-short-to-replay.json";
}

TEST(Retention, AReplayAfterRetentionStartsAtTheMovedLogStart) {
  const RunOutput out = run_scenario(load_scenario_file(retention_path()), {11, false});
  EXPECT_EQ(out.result.verdict.outcome, properties::Outcome::kPass);
  std::int64_t first_replayed = -1, replayed_after_restart = 0;
  for (const auto& e : out.history.events()) {
    if (e.kind != properties::OpKind::kProcess || e.process != "replay" || e.at < seconds(30)) continue;
    if (first_replayed < 0) first_replayed = e.offset->value();
    ++replayed_after_restart;
  }
  // The live reader saw every record; the replay from "earliest" began well past offset 0:
  // by 30 s every closed segment is older than retention.ms, and only the active one is left.
  EXPECT_EQ(stat(out.result, "records.processed.live"), 2500);
  EXPECT_GT(first_replayed, 1500);
  EXPECT_LT(replayed_after_restart, 1000);
  EXPECT_EQ(first_replayed + replayed_after_restart, 2500);  // from the log start to the end, no gap
}

}  // namespace
}  // namespace logsim::scenarios

namespace logsim::scenarios {
namespace {

// An asymmetric cut: the brokers cannot reach the producer, the producer still reaches them.
// What it sends lands in the log (the consumer reads it) while no acknowledgement comes back.
TEST(Runner, AOneWayPartitionCutsOnlyTheFirstGroupsMessages) {
  const Scenario s = small(R"([{"at": "1s", "action": "partition", "groups": [["broker-1"], ["p"]], "one_way": true},
                               {"at": "2500ms", "action": "heal"}])");
  ASSERT_TRUE(s.timeline[0].as<steps::Partition>()->one_way);
  const RunOutput out = run_scenario(s, {1, false});
  std::set<std::uint64_t> sent_in_cut;
  std::int64_t acked_in_cut = 0;
  std::int64_t read_in_cut = 0;
  for (const auto& e : out.history.events()) {
    const bool in_cut = e.at > seconds(1) + millis(10) && e.at < millis(2500);
    if (e.kind == properties::OpKind::kSendInvoke && in_cut) sent_in_cut.insert(e.value_id);
    if (e.kind == properties::OpKind::kSendOk && in_cut) ++acked_in_cut;
    if (e.kind == properties::OpKind::kProcess && in_cut && sent_in_cut.contains(e.value_id)) ++read_in_cut;
  }
  ASSERT_FALSE(sent_in_cut.empty());
  EXPECT_EQ(acked_in_cut, 0) << "no answer crosses the cut";
  EXPECT_GT(read_in_cut, 0) << "the records themselves did";
  EXPECT_EQ(out.result.verdict.outcome, properties::Outcome::kPass);

  // Both directions: nothing sent during the cut is read before the heal.
  const Scenario both = small(R"([{"at": "1s", "action": "partition", "groups": [["broker-1"], ["p"]]}, {"at": "2500ms", "action": "heal"}])");
  const RunOutput b = run_scenario(both, {1, false});
  std::set<std::uint64_t> sent;
  for (const auto& e : b.history.events()) {
    if (e.kind == properties::OpKind::kSendInvoke && e.at > seconds(1) + millis(10) && e.at < millis(2500)) sent.insert(e.value_id);
    if (e.kind == properties::OpKind::kProcess && e.at < millis(2500)) {
      EXPECT_FALSE(sent.contains(e.value_id));
    }
  }
  EXPECT_FALSE(sent.empty());
}

TEST(Runner, APartitionNamesEachNodeOnce) {
  try {
    small(R"([{"at": "3s", "action": "partition", "groups": [["broker-1", "p"], ["p"]]}])");
    FAIL() << "loaded";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.pointer(), "/timeline/0/groups/1/0");
    EXPECT_EQ(e.problem(), "\"p\" is already named at /timeline/0/groups/0/1");
  }
}

}  // namespace
}  // namespace logsim::scenarios

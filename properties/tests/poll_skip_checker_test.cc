// The poll-skip checker on hand-written histories: a hole in one consumer's run of offsets over
// an acknowledged record is flagged at the record processed after the hole; the legitimate gaps
// stay clean: a start at a committed offset, a reset (retention), a rebalance that starts a new
// run, offsets never acknowledged, records compaction could have removed, records lost to
// truncation (their offsets are reused, so no hole).
#include "properties/poll_skip_checker.h"

#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "properties/checker.h"
#include "properties/history.h"

namespace logsim::properties {
namespace {

class Events {
 public:
  explicit Events(Checker& checker) : checker_(checker) {
    history_.observe([this](const HistoryEvent& e) { checker_.observe(e); });
  }

  // A send of `value` with `key` (invoked now); returns the invoke's index.
  std::uint64_t invoke(std::uint64_t value, std::optional<std::string> key, const std::string& producer = "shop") {
    HistoryEvent e = base(OpKind::kSendInvoke, producer);
    e.topic = "t";
    e.key = std::move(key);
    e.value_id = value;
    return append(e);
  }
  std::uint64_t outcome(OpKind kind, std::uint64_t value, std::optional<std::string> key, std::int32_t partition,
                        std::int64_t offset, const std::string& producer = "shop") {
    HistoryEvent e = base(kind, producer);
    e.topic = "t";
    e.partition = properties::known(PartitionId(partition));
    e.offset = properties::known(Offset(offset));
    e.key = std::move(key);
    e.value_id = value;
    return append(e);
  }
  // An invoked and acknowledged send: value 100 + offset, key "k<offset>" unless given.
  std::uint64_t ack(std::int64_t offset, std::optional<std::string> key = std::nullopt, std::int32_t partition = 0) {
    const std::uint64_t value = 100 + static_cast<std::uint64_t>(offset) + 1000 * static_cast<std::uint64_t>(partition);
    if (!key) key = "k" + std::to_string(offset);
    invoke(value, key);
    return outcome(OpKind::kSendOk, value, key, partition, offset);
  }
  void acks(std::int64_t from, std::int64_t to) {
    for (std::int64_t o = from; o < to; ++o) ack(o);
  }
  std::uint64_t assign(const std::string& member, std::vector<TopicPartition> tps, const std::string& group = "g") {
    HistoryEvent e = base(OpKind::kAssign, member);
    e.group = group;
    e.generation = GenerationId(1);
    e.assignment = std::move(tps);
    return append(e);
  }
  std::uint64_t process(const std::string& member, std::int64_t offset, std::int32_t partition = 0,
                        const std::string& group = "g") {
    HistoryEvent e = base(OpKind::kProcess, member);
    e.group = group;
    e.generation = GenerationId(1);
    e.topic = "t";
    e.partition = properties::known(PartitionId(partition));
    e.offset = properties::known(Offset(offset));
    e.value_id = 100 + static_cast<std::uint64_t>(offset);
    return append(e);
  }
  void processes(const std::string& member, std::int64_t from, std::int64_t to) {
    for (std::int64_t o = from; o < to; ++o) process(member, o);
  }
  // A reset; with `high_watermark`, the out-of-range answer's (its log start: 0).
  std::uint64_t seek(const std::string& member, std::int64_t offset, std::optional<std::int64_t> high_watermark = std::nullopt) {
    HistoryEvent e = base(OpKind::kSeek, member);
    e.group = "g";
    e.topic = "t";
    e.partition = PartitionId(0);
    e.offset = properties::known(Offset(offset));
    e.note = "auto.offset.reset: offset 3 was out of range";
    if (high_watermark) {
      e.high_watermark = Offset(*high_watermark);
      e.log_start_offset = Offset(0);
    }
    return append(e);
  }
  std::uint64_t poll(const std::string& member, std::uint32_t records) {
    HistoryEvent e = base(OpKind::kPoll, member);
    e.group = "g";
    e.generation = GenerationId(1);
    e.records = records;
    return append(e);
  }
  std::uint64_t admin(const std::string& note) {
    HistoryEvent e = base(OpKind::kAdmin, "admin");
    e.topic = "t";
    e.error = "NONE";
    e.note = note;
    return append(e);
  }
  std::vector<Violation> finish() {
    checker_.finish();
    return checker_.violations();
  }

 private:
  HistoryEvent base(OpKind kind, const std::string& process) {
    HistoryEvent e;
    e.kind = kind;
    e.process = process;
    e.at = static_cast<Nanos>(history_.size()) * 1000000;
    return e;
  }
  std::uint64_t append(HistoryEvent e) { return history_.append(std::move(e)); }

  Checker& checker_;
  History history_;
};

PollSkipChecker::Options not_compacted() { return PollSkipChecker::Options{std::set<std::string>{}}; }

TEST(PollSkipChecker, AContiguousRunPasses) {
  PollSkipChecker c;
  Events h(c);
  h.acks(0, 10);
  h.assign("m1", {{"t", PartitionId(0)}});
  h.processes("m1", 0, 10);
  EXPECT_TRUE(h.finish().empty());
}

// With poll events, a hole between two records of one poll is int-poll-skip; across two polls
// it stays poll-skip.
TEST(PollSkipChecker, AHoleInsideOnePollIsIntPollSkip) {
  PollSkipChecker c;
  Events h(c);
  h.acks(0, 10);
  h.assign("m1", {{"t", PartitionId(0)}});
  h.poll("m1", 3);
  h.processes("m1", 0, 2);
  const std::uint64_t inside = h.process("m1", 3);  // 2 skipped inside the poll
  h.poll("m1", 2);
  h.process("m1", 4);
  const std::uint64_t across = h.process("m1", 5);
  h.poll("m1", 1);
  const std::uint64_t next = h.process("m1", 8);  // 6 and 7 skipped between polls
  const auto v = h.finish();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].anomaly, "int-poll-skip");
  EXPECT_EQ(v[0].first_event, inside);
  EXPECT_NE(v[0].explanation.find("in the same poll"), std::string::npos) << v[0].explanation;
  EXPECT_EQ(v[1].anomaly, "poll-skip");
  EXPECT_EQ(v[1].first_event, next);
  EXPECT_NE(v[1].explanation.find("(event #" + std::to_string(across) + ") within one assignment"), std::string::npos)
      << v[1].explanation;
}

TEST(PollSkipChecker, AHoleOverAnAcknowledgedRecordIsASkipNamedAtTheRecordAfterIt) {
  PollSkipChecker c;
  Events h(c);
  h.acks(0, 10);
  h.assign("m1", {{"t", PartitionId(0)}});
  h.processes("m1", 0, 4);
  const std::uint64_t after = h.process("m1", 6);  // 4 and 5 skipped
  h.processes("m1", 7, 10);
  const auto v = h.finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "poll-skip");
  EXPECT_EQ(v[0].first_event, after);
  EXPECT_EQ(v[0].process, "m1");
  EXPECT_EQ(v[0].offset, Offset(4));
  EXPECT_EQ(v[0].key, "k4");
  EXPECT_NE(v[0].explanation.find("skipping 2 acknowledged record(s)"), std::string::npos) << v[0].explanation;
  EXPECT_NE(v[0].explanation.find("offset 6"), std::string::npos) << v[0].explanation;
}

TEST(PollSkipChecker, AnAcknowledgementThatArrivesAfterTheSkipStillCounts) {
  // acks=all: a consumer can read a record before its producer hears the acknowledgement.
  PollSkipChecker c;
  Events h(c);
  h.acks(0, 3);
  h.invoke(103, "k3");
  h.ack(4);
  h.assign("m1", {{"t", PartitionId(0)}});
  h.processes("m1", 0, 3);
  h.process("m1", 4);
  h.outcome(OpKind::kSendOk, 103, "k3", 0, 3);
  const auto v = h.finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].offset, Offset(3));
}

TEST(PollSkipChecker, HolesOverOffsetsNoAcknowledgementWroteAreNotJudged) {
  // Offsets 3..4 were written by sends whose outcome is unknown or failed: nothing proves a
  // record is there (logsim has no control markers; a real log's would be such offsets).
  PollSkipChecker c(not_compacted());
  Events h(c);
  h.acks(0, 3);
  h.invoke(103, std::nullopt);
  h.outcome(OpKind::kSendInfo, 103, std::nullopt, 0, -1);
  h.invoke(104, std::nullopt);
  h.outcome(OpKind::kSendFail, 104, std::nullopt, 0, -1);
  h.acks(5, 7);
  h.assign("m1", {{"t", PartitionId(0)}});
  h.processes("m1", 0, 3);
  h.processes("m1", 5, 7);
  EXPECT_TRUE(h.finish().empty());
}

TEST(PollSkipChecker, TheFirstRecordOfAnAssignmentIsAStartNotASkip) {
  // A member that starts at its group's committed offset mid-log, and again after a rebalance.
  PollSkipChecker c(not_compacted());
  Events h(c);
  h.acks(0, 20);
  h.assign("m1", {{"t", PartitionId(0)}});
  h.processes("m1", 7, 10);
  h.assign("m1", {});
  h.assign("m1", {{"t", PartitionId(0)}});
  h.processes("m1", 15, 20);
  EXPECT_TRUE(h.finish().empty());
}

TEST(PollSkipChecker, RecordsProcessedAgainAfterARebalanceStartANewRun) {
  // At-least-once: after the rebalance the member starts again below where it was; no hole.
  PollSkipChecker c(not_compacted());
  Events h(c);
  h.acks(0, 12);
  h.assign("m1", {{"t", PartitionId(0)}});
  h.processes("m1", 0, 8);
  h.assign("m1", {{"t", PartitionId(0)}});
  h.processes("m1", 5, 12);
  EXPECT_TRUE(h.finish().empty());
}

TEST(PollSkipChecker, AResetAfterRetentionEndsTheRun) {
  // Retention removed 3..9 while the member was at 3: its fetch was out of range, it reset to
  // the log start (recorded as a seek) and went on from 10.
  PollSkipChecker c(not_compacted());
  Events h(c);
  h.acks(0, 14);
  h.assign("m1", {{"t", PartitionId(0)}});
  h.processes("m1", 0, 3);
  h.seek("m1", 10);
  h.processes("m1", 10, 14);
  EXPECT_TRUE(h.finish().empty());
}

// An unclean election: the new leader's log ends at 5, below the member's position 10. Its
// next fetch is out of range (high watermark 5), and auto.offset.reset=latest moves it to 8,
// past the records 5..7 the new leader has written since: skipped, as by a consumer without
// KIP-320's truncation detection.
TEST(PollSkipChecker, AResetToLatestPastATruncatedLogEndSkipsTheNewLeadersRecords) {
  PollSkipChecker c(not_compacted());
  Events h(c);
  h.acks(0, 10);
  h.assign("m1", {{"t", PartitionId(0)}});
  h.processes("m1", 0, 10);
  for (std::int64_t o = 5; o < 8; ++o) {
    h.invoke(200 + static_cast<std::uint64_t>(o), "k" + std::to_string(o));
    h.outcome(OpKind::kSendOk, 200 + static_cast<std::uint64_t>(o), "k" + std::to_string(o), 0, o);
  }
  const std::uint64_t reset = h.seek("m1", 8, 5);
  const auto v = h.finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "poll-skip");
  EXPECT_EQ(v[0].first_event, reset);
  EXPECT_EQ(v[0].offset, Offset(5));
  EXPECT_NE(v[0].explanation.find("skipping 3 record(s)"), std::string::npos) << v[0].explanation;
  EXPECT_NE(v[0].explanation.find("KIP-320"), std::string::npos);
}

// The same truncation with KIP-320: the member moves back to 5, where the logs diverge, and
// reads the new records. And a reset below the log end (retention) is no truncation.
TEST(PollSkipChecker, AResetToTheDivergencePointOrAfterRetentionSkipsNothing) {
  PollSkipChecker c(not_compacted());
  Events h(c);
  h.acks(0, 10);
  h.assign("m1", {{"t", PartitionId(0)}});
  h.processes("m1", 0, 10);
  h.invoke(205, "k5");
  h.outcome(OpKind::kSendOk, 205, "k5", 0, 5);
  h.seek("m1", 5, 5);
  h.assign("m2", {{"t", PartitionId(0)}});
  h.processes("m2", 0, 3);
  h.seek("m2", 8, 10);  // position 3, high watermark 10: out of range below the log start
  EXPECT_TRUE(h.finish().empty());
}

TEST(PollSkipChecker, ASeekOfAnotherProcessDoesNotEndTheRun) {
  PollSkipChecker c(not_compacted());
  Events h(c);
  h.acks(0, 10);
  h.assign("m1", {{"t", PartitionId(0)}});
  h.processes("m1", 0, 3);
  h.seek("m2", 8);
  h.process("m1", 8);
  EXPECT_EQ(h.finish().size(), 1u);
}

TEST(PollSkipChecker, RecordsLostToTruncationLeaveNoHole) {
  // acks=1: value 105 acknowledged at offset 5 is lost in a failover and offset 5 is reused by
  // value 205 (lost-write and inconsistent-offsets, the log checker's): the member reads 4, 5, 6.
  PollSkipChecker c(not_compacted());
  Events h(c);
  h.acks(0, 6);
  h.invoke(205, "k5");
  h.outcome(OpKind::kSendOk, 205, "k5", 0, 5);
  h.ack(6);
  h.assign("m1", {{"t", PartitionId(0)}});
  h.processes("m1", 0, 7);
  EXPECT_TRUE(h.finish().empty());
}

TEST(PollSkipChecker, ARecordALaterOneOfItsKeySupersededMayBeCompactedAway) {
  // Offsets 3 and 4 carry key "a", offset 6 key "a" again (sent before the member passed 3..4):
  // compaction may have removed 3 and 4 before the fetch, so 2 -> 5 is no skip.
  PollSkipChecker c;  // topic policies unknown: any topic may be compacted
  Events h(c);
  h.acks(0, 3);
  h.ack(3, "a");
  h.ack(4, "a");
  h.ack(5);
  h.ack(6, "a");
  h.assign("m1", {{"t", PartitionId(0)}});
  h.processes("m1", 0, 3);
  h.processes("m1", 5, 7);
  EXPECT_TRUE(h.finish().empty());
}

TEST(PollSkipChecker, OnATopicKnownNotToBeCompactedTheSameHoleIsASkip) {
  PollSkipChecker c(not_compacted());
  Events h(c);
  h.acks(0, 3);
  h.ack(3, "a");
  h.ack(4, "a");
  h.ack(5);
  h.ack(6, "a");
  h.assign("m1", {{"t", PartitionId(0)}});
  h.processes("m1", 0, 3);
  h.processes("m1", 5, 7);
  const auto v = h.finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].offset, Offset(3));
}

TEST(PollSkipChecker, ATopicAlteredToCompactMayHaveGaps) {
  PollSkipChecker c(not_compacted());
  Events h(c);
  h.admin("alter-config t cleanup.policy=compact: done");
  h.acks(0, 3);
  h.ack(3, "a");
  h.ack(4, "a");
  h.assign("m1", {{"t", PartitionId(0)}});
  h.processes("m1", 0, 3);
  h.process("m1", 4);
  EXPECT_TRUE(h.finish().empty());
}

TEST(PollSkipChecker, ASupersedingRecordSentOnlyAfterTheSkipExcusesNothing) {
  // The only later record of key "a" was sent after the member had passed offset 3: it was
  // not in the log when the member fetched, so compaction cannot explain the hole.
  PollSkipChecker c;
  Events h(c);
  h.acks(0, 3);
  h.ack(3, "a");
  h.ack(4);
  h.assign("m1", {{"t", PartitionId(0)}});
  h.processes("m1", 0, 3);
  const std::uint64_t after = h.process("m1", 4);
  h.ack(5, "a");
  const auto v = h.finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].first_event, after);
  EXPECT_EQ(v[0].offset, Offset(3));
}

TEST(PollSkipChecker, ASendOfTheKeyWithAnUnknownOutcomeMaySupersedeIt) {
  PollSkipChecker c;
  Events h(c);
  h.acks(0, 3);
  h.ack(3, "a");
  h.invoke(900, "a");
  h.outcome(OpKind::kSendInfo, 900, "a", 0, -1);
  h.ack(4);
  h.assign("m1", {{"t", PartitionId(0)}});
  h.processes("m1", 0, 3);
  h.process("m1", 4);
  EXPECT_TRUE(h.finish().empty());
}

TEST(PollSkipChecker, CompactionKeepsRecordsWithoutAKey) {
  PollSkipChecker c;
  Events h(c);
  h.acks(0, 3);
  h.invoke(103, std::nullopt);
  h.outcome(OpKind::kSendOk, 103, std::nullopt, 0, 3);
  h.ack(4);
  h.assign("m1", {{"t", PartitionId(0)}});
  h.processes("m1", 0, 3);
  h.process("m1", 4);
  EXPECT_EQ(h.finish().size(), 1u);
}

TEST(PollSkipChecker, RunsArePerProcessAndPerPartition) {
  PollSkipChecker c(not_compacted());
  Events h(c);
  h.acks(0, 6);
  h.ack(0, std::nullopt, 1);
  h.ack(1, std::nullopt, 1);
  h.assign("m1", {{"t", PartitionId(0)}, {"t", PartitionId(1)}});
  h.assign("m2", {{"t", PartitionId(0)}});
  h.process("m1", 0);
  h.process("m2", 3);  // another member's start
  h.process("m1", 0, 1);
  h.process("m1", 1);
  h.process("m1", 1, 1);
  h.process("m2", 4);
  EXPECT_TRUE(h.finish().empty());
}

TEST(PollSkipChecker, ManuallyAssignedConsumersAreJudgedToo) {
  PollSkipChecker c(not_compacted());
  Events h(c);
  h.acks(0, 5);
  h.assign("reader", {{"t", PartitionId(0)}}, "");
  h.process("reader", 0, 0, "");
  h.process("reader", 2, 0, "");
  EXPECT_EQ(h.finish().size(), 1u);
}

TEST(PollSkipChecker, ANonmonotonicStepIsLeftToTheOrderChecker) {
  PollSkipChecker c(not_compacted());
  Events h(c);
  h.acks(0, 8);
  h.assign("m1", {{"t", PartitionId(0)}});
  h.processes("m1", 0, 6);
  h.processes("m1", 3, 8);  // goes back (nonmonotonic-poll), then on without a hole
  EXPECT_TRUE(h.finish().empty());
}

TEST(PollSkipChecker, HolesAtHighSparseOffsetsAreFound) {
  // A history from elsewhere: offsets above 2^40, far apart. The hole spans pages of offsets.
  PollSkipChecker c(not_compacted());
  Events h(c);
  const std::int64_t base = std::int64_t{1} << 40;
  for (const std::int64_t o : {base, base + 1, base + 3000, base + 100000, base + 100001}) h.ack(o);
  h.assign("m1", {{"t", PartitionId(0)}});
  h.process("m1", base);
  const std::uint64_t after = h.process("m1", base + 100001);
  const auto v = h.finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].first_event, after);
  EXPECT_EQ(v[0].offset, Offset(base + 1));
  EXPECT_NE(v[0].explanation.find("skipping 3 acknowledged record(s)"), std::string::npos) << v[0].explanation;
}

TEST(PollSkipChecker, OnlyTheFirstAcknowledgementOfAnOffsetCounts) {
  // Offset 3 acknowledged twice (a reused offset after truncation): the hole names the first.
  PollSkipChecker c(not_compacted());
  Events h(c);
  h.acks(0, 3);
  h.invoke(500, "x");
  h.outcome(OpKind::kSendOk, 500, "x", 0, 3);
  h.invoke(600, "y", "other");
  h.outcome(OpKind::kSendOk, 600, "y", 0, 3, "other");
  h.ack(4);
  h.assign("m1", {{"t", PartitionId(0)}});
  h.processes("m1", 0, 3);
  h.process("m1", 4);
  const auto v = h.finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].key, "x");
  EXPECT_NE(v[0].explanation.find("skipping 1 acknowledged record(s)"), std::string::npos) << v[0].explanation;
  EXPECT_NE(v[0].explanation.find("(value 500, acknowledged to shop"), std::string::npos) << v[0].explanation;
}

TEST(PollSkipChecker, ManyProcessesKeepTheirOwnRunsAndViolationsComeInHistoryOrder) {
  // 300 members each read one of 30 partitions; members 7 and 123 skip (123 first).
  PollSkipChecker c(not_compacted());
  Events h(c);
  for (std::int32_t p = 0; p < 30; ++p) {
    for (std::int64_t o = 0; o < 4; ++o) h.ack(o, std::nullopt, p);
  }
  for (int m = 0; m < 300; ++m) h.assign("m" + std::to_string(m), {{"t", PartitionId(m % 30)}});
  for (int m = 0; m < 300; ++m) h.process("m" + std::to_string(m), 0, m % 30);
  const std::uint64_t first = h.process("m123", 2, 123 % 30);
  for (int m = 0; m < 300; ++m) {
    if (m != 123) h.process("m" + std::to_string(m), m == 7 ? 3 : 1, m % 30);
  }
  const auto v = h.finish();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].first_event, first);
  EXPECT_EQ(v[0].process, "m123");
  EXPECT_EQ(v[0].partition, PartitionId(123 % 30));
  EXPECT_EQ(v[1].process, "m7");
  EXPECT_EQ(v[1].offset, Offset(1));
}

TEST(PollSkipChecker, TheDefaultCheckersReportIt) {
  // default_checkers() runs it: a skipped record in a plain history is reported as poll-skip.
  CheckerSet set = default_checkers();
  History h;
  set.attach(h);
  auto add = [&h](HistoryEvent e) { h.append(std::move(e)); };
  for (std::int64_t o = 0; o < 4; ++o) {
    HistoryEvent s;
    s.kind = OpKind::kSendOk;
    s.process = "shop";
    s.topic = "t";
    s.partition = PartitionId(0);
    s.offset = properties::known(Offset(o));
    s.value_id = 1 + static_cast<std::uint64_t>(o);
    add(s);
  }
  HistoryEvent a;
  a.kind = OpKind::kAssign;
  a.process = "r";
  a.assignment = {{"t", PartitionId(0)}};
  add(a);
  for (std::int64_t o : {0, 1, 3}) {
    HistoryEvent p;
    p.kind = OpKind::kProcess;
    p.process = "r";
    p.topic = "t";
    p.partition = PartitionId(0);
    p.offset = properties::known(Offset(o));
    p.value_id = 1 + static_cast<std::uint64_t>(o);
    add(p);
  }
  const Verdict v = set.finish();
  bool found = false;
  for (const auto& x : v.violations) found = found || x.anomaly == "poll-skip";
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace logsim::properties

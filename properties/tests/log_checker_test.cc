// The log-integrity checker on small hand-written histories, with and without each anomaly.
#include "properties/log_checker.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace logsim::properties {
namespace {

class LogCheckerTest : public ::testing::Test {
 protected:
  LogCheckerTest() = default;
  explicit LogCheckerTest(std::set<std::string> compacted) : checker(std::move(compacted)) {}

  void ack(std::uint64_t value, std::int32_t partition, std::int64_t offset) {
    add(OpKind::kSendOk, "producer", value, partition, offset);
  }
  void process(const std::string& who, std::uint64_t value, std::int32_t partition, std::int64_t offset) {
    add(OpKind::kProcess, who, value, partition, offset);
  }
  std::vector<Violation> finish() {
    checker.finish();
    return checker.violations();
  }
  // A group member's processing or accepted commit.
  void process_in(const std::string& group, const std::string& who, std::uint64_t value, std::int32_t partition,
                  std::int64_t offset) {
    add(OpKind::kProcess, who, value, partition, offset, group);
  }
  void commit(const std::string& group, const std::string& who, std::int32_t partition, std::int64_t offset) {
    add(OpKind::kCommitOk, who, 0, partition, offset, group);
  }
  // A keyed send, invoked and acknowledged; a tombstone (a null value) if so.
  void keyed_ack(std::uint64_t value, const std::string& key, std::int32_t partition, std::int64_t offset,
                 bool tombstone = false) {
    for (const OpKind kind : {OpKind::kSendInvoke, OpKind::kSendOk}) {
      HistoryEvent e;
      e.kind = kind;
      e.process = "producer";
      e.topic = "t";
      if (kind == OpKind::kSendOk) {
        e.partition = PartitionId(partition);
        e.offset = Offset(offset);
      }
      e.key = key;
      e.value_id = value;
      e.tombstone = tombstone && kind == OpKind::kSendInvoke;
      e.at = now + static_cast<Nanos>(history.size());
      history.append(e);
    }
  }
  // An admin event with this note about topic t.
  void admin(const std::string& note) {
    HistoryEvent e;
    e.kind = OpKind::kAdmin;
    e.process = "admin";
    e.topic = "t";
    e.error = "NONE";
    e.note = note;
    e.at = now + static_cast<Nanos>(history.size());
    history.append(e);
  }
  void add(OpKind kind, const std::string& process, std::uint64_t value, std::int32_t partition, std::int64_t offset,
           const std::string& group = "") {
    HistoryEvent e;
    e.kind = kind;
    e.process = process;
    e.group = group;
    e.topic = "t";
    e.partition = properties::known(PartitionId(partition));
    e.offset = properties::known(Offset(offset));
    e.value_id = value;
    e.at = now + static_cast<Nanos>(history.size());
    history.append(e);
  }

  Nanos now = 0;  // added to each event's time (its index otherwise)
  History history;
  LogChecker checker;
  void SetUp() override {
    history.observe([this](const HistoryEvent& e) { checker.observe(e); });
  }
};

// The same with the topic's policy known: not compacted (or compacted, with kCompacted).
class KnownPolicyLogCheckerTest : public LogCheckerTest {
 protected:
  explicit KnownPolicyLogCheckerTest(bool compacted = false)
      : LogCheckerTest(compacted ? std::set<std::string>{"t"} : std::set<std::string>{}) {}
};

TEST_F(LogCheckerTest, ConsistentAcknowledgedAndProcessedRecordsPass) {
  ack(1, 0, 0);
  ack(2, 0, 1);
  ack(3, 1, 0);
  process("c", 1, 0, 0);
  process("c", 2, 0, 1);
  process("d", 1, 0, 0);  // another consumer re-reading is fine
  process("c", 3, 1, 0);
  EXPECT_TRUE(finish().empty());
}

TEST_F(LogCheckerTest, TwoValuesAtOneOffsetAreInconsistentOffsetsNamedAtTheSecond) {
  ack(1, 0, 5);
  ack(2, 0, 5);  // the new leader gave offset 5 away again
  process("c", 2, 0, 5);
  ASSERT_EQ(checker.violations().size(), 1u);  // online: found before the end
  const Violation& v = checker.violations()[0];
  EXPECT_EQ(v.anomaly, "inconsistent-offsets");
  EXPECT_EQ(v.first_event, 1u);
  EXPECT_EQ(v.offset, Offset(5));
  EXPECT_EQ(v.partition, PartitionId(0));
  // The same offset on another partition is another place.
  ack(3, 1, 5);
  EXPECT_EQ(checker.violations().size(), 1u);
}

TEST_F(LogCheckerTest, AnAcknowledgedValueNeverReadPastItsOffsetIsLost) {
  ack(1, 0, 0);
  ack(2, 0, 1);
  ack(3, 0, 2);
  process("c", 1, 0, 0);
  process("c", 3, 0, 2);  // read past offset 1: value 2 should have been seen
  const auto v = finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "lost-write");
  EXPECT_EQ(v[0].offset, Offset(1));
  EXPECT_EQ(v[0].first_event, 4u);  // the processing of offset 2 shows the loss
  EXPECT_NE(v[0].explanation.find("value 2"), std::string::npos);
}

// A reader that began above the offset (auto.offset.reset=latest, a seek past it) never read
// through it: the record is unread, not lost. One that began at or below it and went past is.
TEST_F(LogCheckerTest, OnlyAReadThroughTheOffsetShowsALoss) {
  ack(1, 0, 0);
  ack(2, 0, 1);
  ack(3, 0, 2);
  add(OpKind::kAssign, "late", 0, -1, -1);
  process("late", 3, 0, 2);  // started at the end (latest): 0 and 1 are unread, not lost
  add(OpKind::kSeek, "seeker", 0, 0, 2);
  process("seeker", 3, 0, 2);  // seeked to 2: the same
  EXPECT_TRUE(finish().empty());
}

TEST_F(LogCheckerTest, ASeekBelowTheOffsetThenPastItShowsTheLoss) {
  ack(1, 0, 0);
  ack(2, 0, 1);
  ack(3, 0, 2);
  add(OpKind::kAssign, "c", 0, -1, -1);
  add(OpKind::kSeek, "c", 0, 0, 1);  // positioned at 1, then the next record it gets is 2
  process("c", 3, 0, 2);
  const auto v = finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "lost-write");
  EXPECT_EQ(v[0].offset, Offset(1));
}

TEST_F(LogCheckerTest, ANewAssignmentEndsAContinuousRead) {
  ack(1, 0, 0);
  ack(2, 0, 1);
  ack(3, 0, 2);
  process("c", 1, 0, 0);
  add(OpKind::kAssign, "c", 0, -1, -1);  // resumes wherever its group committed (past 1)
  process("c", 3, 0, 2);
  EXPECT_TRUE(finish().empty());
}

// An acknowledgement that arrives after the reads passed its offset is shown by the first
// processing after it, in history order, among reads that began at or below the offset.
TEST_F(LogCheckerTest, ALateAcknowledgementIsShownByTheFirstProcessingAfterIt) {
  process("fast", 1, 0, 0);
  process("fast", 3, 0, 2);   // passed offset 1 before it was acknowledged: shows nothing yet
  add(OpKind::kSeek, "above", 0, 0, 2);
  ack(2, 0, 1);               // event 3
  process("above", 3, 0, 2);  // began above offset 1: not a witness
  process("slow", 1, 0, 0);   // read from 0, not yet past 1
  process("slow", 4, 0, 3);   // event 6: the first witness after the acknowledgement
  process("fast", 5, 0, 4);   // a later witness
  const auto v = finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "lost-write");
  EXPECT_EQ(v[0].offset, Offset(1));
  EXPECT_EQ(v[0].first_event, 6u);
  EXPECT_EQ(v[0].process, "slow");
  EXPECT_NE(v[0].explanation.find("read that partition from offset 0 to offset 3"), std::string::npos)
      << v[0].explanation;
}

// A value acknowledged twice (a hand-written history may do that) is judged by its last
// acknowledgement: reads past the first one's offset before the second say nothing.
TEST_F(LogCheckerTest, AValueAcknowledgedAgainIsJudgedByItsLastAcknowledgement) {
  ack(2, 0, 1);
  process("c", 1, 0, 0);
  process("c", 3, 0, 2);  // past offset 1: would show value 2 lost
  ack(2, 0, 5);           // event 3: now said to be at offset 5, not read yet
  EXPECT_TRUE(finish().empty());
}

TEST_F(LogCheckerTest, AValueAcknowledgedAgainIsShownPastItsNewOffset) {
  ack(2, 0, 1);
  ack(2, 0, 5);           // event 1
  process("c", 1, 0, 0);
  process("c", 3, 0, 2);  // past 1 but not 5
  process("c", 7, 0, 6);  // event 4: past 5
  const auto v = finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].offset, Offset(5));
  EXPECT_EQ(v[0].first_event, 4u);
}

TEST_F(LogCheckerTest, AnAcknowledgedValueNotYetReachedIsNotLost) {
  ack(1, 0, 0);
  ack(2, 0, 1);
  process("c", 1, 0, 0);  // the consumer has not reached offset 1
  EXPECT_TRUE(finish().empty());
}

// An auto.offset.reset whose out-of-range answer showed the log start above the high
// watermark: the offsets in between were deleted before they were committed.
class DeletedAboveHwTest : public LogCheckerTest {
 protected:
  void reset(const std::string& who, std::int32_t partition, std::int64_t log_start, std::int64_t hw) {
    HistoryEvent e;
    e.kind = OpKind::kSeek;
    e.process = who;
    e.topic = "t";
    e.partition = properties::known(PartitionId(partition));
    e.offset = properties::known(Offset(log_start));  // where auto.offset.reset=earliest put it
    e.log_start_offset = properties::known(Offset(log_start));
    e.high_watermark = properties::known(Offset(hw));
    e.at = static_cast<Nanos>(history.size());
    history.append(e);
  }
};

TEST_F(DeletedAboveHwTest, AcknowledgedValuesDeletedAboveTheHighWatermarkAreLost) {
  ack(1, 0, 0);
  process("c", 1, 0, 0);
  reset("c", 0, 4, 1);  // log start 4, high watermark 1: offsets 1..3 deleted uncommitted
  ack(2, 0, 1);         // the acknowledgements came after (acks=all: once followers skipped ahead)
  ack(3, 0, 2);
  ack(9, 1, 2);         // another partition: not in the range
  ack(4, 0, 4);
  process("c", 4, 0, 4);
  const auto v = finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "lost-write");
  EXPECT_EQ(v[0].offset, Offset(1));
  EXPECT_EQ(v[0].first_event, 3u);  // the first acknowledgement, after the reset
  EXPECT_NE(v[0].explanation.find("log start offset 4 above high watermark 1"), std::string::npos) << v[0].explanation;
  EXPECT_NE(v[0].explanation.find("2 acknowledged record(s)"), std::string::npos) << v[0].explanation;
}

TEST_F(DeletedAboveHwTest, AResetWithinKafkasRuleExcusesTheSkippedRecords) {
  ack(1, 0, 0);
  ack(2, 0, 1);
  ack(3, 0, 2);
  reset("c", 0, 2, 3);  // retention took 0 and 1 after they were committed: no loss
  process("c", 3, 0, 2);
  EXPECT_TRUE(finish().empty());
}

TEST_F(DeletedAboveHwTest, AValueSomeoneProcessedIsNotLost) {
  ack(1, 0, 0);
  ack(2, 0, 1);
  process("d", 2, 0, 1);  // another consumer got it before it went
  reset("c", 0, 2, 1);
  const auto v = finish();
  EXPECT_TRUE(v.empty()) << v[0].explanation;
}

TEST_F(LogCheckerTest, AValueReadAtAnotherOffsetIsNotLost) {
  ack(1, 0, 0);
  process("c", 1, 0, 0);
  ack(2, 0, 1);
  process("c", 9, 0, 1);  // offset 1 holds another value: inconsistent, and 2 is lost
  process("c", 2, 0, 2);  // ...unless it shows up (a retry wrote it again): then not lost
  const auto v = finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "inconsistent-offsets");
}

TEST_F(LogCheckerTest, DefaultCheckersIncludeLogIntegrity) {
  CheckerSet set = default_checkers();
  History h;
  set.attach(h);
  HistoryEvent a;
  a.kind = OpKind::kSendOk;
  a.topic = "t";
  a.partition = PartitionId(0);
  a.offset = Offset(0);
  a.value_id = 1;
  h.append(a);
  a.value_id = 2;
  h.append(a);
  const Verdict v = set.finish();
  EXPECT_EQ(v.outcome, Outcome::kViolated);
  ASSERT_EQ(v.violations.size(), 1u);
  EXPECT_EQ(v.violations[0].anomaly, "inconsistent-offsets");
}

TEST_F(LogCheckerTest, RecordsAGroupCommittedPastWithoutProcessingAreNotLostWrites) {
  // The commit-before-processing bug: the group committed offset 4 but processed only 0; a
  // later member reads from 4. The log lost nothing (lost-commit reports the group's loss).
  for (std::int64_t o = 0; o < 6; ++o) ack(static_cast<std::uint64_t>(o + 1), 0, o);
  process("m1", 1, 0, 0);
  add(OpKind::kCommitOk, "m1", 0, 0, 4);
  process("m2", 5, 0, 4);
  process("m2", 6, 0, 5);
  EXPECT_TRUE(finish().empty());
}

TEST_F(LogCheckerTest, AnOffsetReadWithAnotherValueIsALostWriteEvenPastACommit) {
  // Offset 1 was truncated away and given to value 9: whoever committed past it, value 2 is lost.
  ack(1, 0, 0);
  ack(2, 0, 1);
  ack(9, 0, 1);
  process("m1", 1, 0, 0);
  process("m1", 9, 0, 1);
  add(OpKind::kCommitOk, "m1", 0, 0, 2);
  const auto v = finish();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[1].anomaly, "lost-write");
  EXPECT_EQ(v[1].offset, Offset(1));
}

// A commit is not a read: another group's committed offset passing the record excuses nobody.
TEST_F(LogCheckerTest, AnotherGroupsCommitDoesNotHideALostWrite) {
  ack(1, 0, 0);
  ack(2, 0, 1);
  ack(3, 0, 2);
  process_in("billing", "b1", 1, 0, 0);
  process_in("billing", "b1", 3, 0, 2);   // event 4: read past offset 1, never processed value 2
  commit("audit", "a1", 0, 3);            // a group that never read it commits past it
  const auto v = finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "lost-write");
  EXPECT_EQ(v[0].offset, Offset(1));
  EXPECT_EQ(v[0].first_event, 4u);
  EXPECT_NE(v[0].explanation.find("b1 of group billing"), std::string::npos) << v[0].explanation;
}

// The reader's own group committing past the record may mean the reader skipped it (lost-commit
// says so); a reader of another group that read through it too shows the log lost it.
TEST_F(LogCheckerTest, EachReaderIsJudgedByItsOwnGroupsCommits) {
  ack(1, 0, 0);
  ack(2, 0, 1);
  ack(3, 0, 2);
  process_in("billing", "b1", 1, 0, 0);
  process_in("billing", "b1", 3, 0, 2);  // skipped value 2 ...
  commit("billing", "b1", 0, 3);         // ... and its group committed past it: excused alone
  {
    LogChecker alone;
    for (const auto& e : history.events()) alone.observe(e);
    alone.finish();
    EXPECT_TRUE(alone.violations().empty());
  }
  process_in("audit", "a1", 1, 0, 0);
  const std::uint64_t shown = history.size();
  process_in("audit", "a1", 3, 0, 2);    // another group read through offset 1 as well
  const auto v = finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "lost-write");
  EXPECT_EQ(v[0].first_event, shown);
  EXPECT_EQ(v[0].process, "a1");
}

TEST_F(LogCheckerTest, AReaderWithoutAGroupIsNeverExcusedByCommits) {
  ack(1, 0, 0);
  ack(2, 0, 1);
  ack(3, 0, 2);
  process("manual", 1, 0, 0);
  process("manual", 3, 0, 2);
  commit("billing", "b1", 0, 3);
  const auto v = finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].process, "manual");
}

// Compaction removes a record once a later record of its key is in the log: on a compacted
// topic a read that passes it is no loss; on a topic known not to be compacted it is.
class CompactedLogCheckerTest : public KnownPolicyLogCheckerTest {
 protected:
  CompactedLogCheckerTest() : KnownPolicyLogCheckerTest(true) {}
};

TEST_F(CompactedLogCheckerTest, ARecordSupersededByALaterRecordOfItsKeyIsNotLost) {
  keyed_ack(1, "a", 0, 0);
  keyed_ack(2, "b", 0, 1);
  keyed_ack(3, "a", 0, 2);  // supersedes offset 0
  process("c", 2, 0, 1);
  process("c", 3, 0, 2);
  add(OpKind::kAssign, "c", 0, -1, -1);
  add(OpKind::kSeek, "c", 0, 0, 0);
  process("c", 2, 0, 1);    // read from 0: offset 0 was compacted away
  EXPECT_TRUE(finish().empty());
}

TEST_F(CompactedLogCheckerTest, ARecordWhoseKeyWasWrittenAgainOnlyAfterTheReadIsLost) {
  keyed_ack(1, "a", 0, 0);
  keyed_ack(2, "b", 0, 1);
  add(OpKind::kSeek, "c", 0, 0, 0);
  process("c", 2, 0, 1);    // passed offset 0, whose key had no later record yet
  keyed_ack(3, "a", 0, 2);
  process("c", 3, 0, 2);
  const auto v = finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "lost-write");
  EXPECT_EQ(v[0].offset, Offset(0));
}

TEST_F(KnownPolicyLogCheckerTest, OnATopicNotCompactedALaterRecordOfTheKeyExcusesNothing) {
  keyed_ack(1, "a", 0, 0);
  keyed_ack(2, "b", 0, 1);
  keyed_ack(3, "a", 0, 2);
  add(OpKind::kSeek, "c", 0, 0, 0);
  process("c", 2, 0, 1);
  process("c", 3, 0, 2);
  const auto v = finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].offset, Offset(0));
}

// A tombstone (a null value) is removed itself once delete.retention.ms has passed since it was
// written: a read that passes its offset after that is no loss, before that it is.
TEST_F(CompactedLogCheckerTest, ATombstonePastDeleteRetentionMayBeGone) {
  admin("create-topic t cleanup.policy=compact delete.retention.ms=100: done");
  keyed_ack(1, "a", 0, 0);
  keyed_ack(2, "a", 0, 1, true);  // deletes a, superseding offset 0
  keyed_ack(3, "b", 0, 2);
  now = millis(100);              // the tombstone's delete.retention.ms has passed
  add(OpKind::kSeek, "c", 0, 0, 0);
  process("c", 3, 0, 2);          // read from 0: offsets 0 and 1 were compacted away
  EXPECT_TRUE(finish().empty());
}

TEST_F(CompactedLogCheckerTest, ATombstonePassedWithinDeleteRetentionIsLost) {
  admin("create-topic t cleanup.policy=compact delete.retention.ms=100: done");
  keyed_ack(1, "a", 0, 0);
  keyed_ack(2, "a", 0, 1, true);
  keyed_ack(3, "b", 0, 2);
  now = millis(99);               // not yet
  add(OpKind::kSeek, "c", 0, 0, 0);
  process("c", 3, 0, 2);
  const auto v = finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "lost-write");
  EXPECT_EQ(v[0].offset, Offset(1)) << "the tombstone; offset 0 was superseded by it";
}

TEST_F(CompactedLogCheckerTest, WithoutANoteATombstoneStaysKafkasDefaultDay) {
  keyed_ack(2, "a", 0, 0, true);
  keyed_ack(3, "b", 0, 1);
  now = 23 * 3600 * seconds(1);
  add(OpKind::kSeek, "c", 0, 0, 0);
  process("c", 3, 0, 1);
  ASSERT_EQ(finish().size(), 1u) << "23 hours: within delete.retention.ms's default";
}

TEST_F(CompactedLogCheckerTest, AnAlterConfigThatShortensDeleteRetentionExcusesOlderTombstones) {
  keyed_ack(2, "a", 0, 0, true);  // written under the default day
  keyed_ack(3, "b", 0, 1);
  admin("alter-config t delete.retention.ms=10: done");
  now = millis(10);
  add(OpKind::kSeek, "c", 0, 0, 0);
  process("c", 3, 0, 1);
  EXPECT_TRUE(finish().empty());
}

TEST_F(KnownPolicyLogCheckerTest, OnATopicNotCompactedATombstoneIsNeverGone) {
  keyed_ack(2, "a", 0, 0, true);
  keyed_ack(3, "b", 0, 1);
  now = 2 * 24 * 3600 * seconds(1);
  add(OpKind::kSeek, "c", 0, 0, 0);
  process("c", 3, 0, 1);
  ASSERT_EQ(finish().size(), 1u);
}

}  // namespace
}  // namespace logsim::properties

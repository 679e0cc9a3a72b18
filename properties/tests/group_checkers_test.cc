// The consumer-group checkers (`double-ownership`, `stale-commit-accepted`, `lost-commit`,
// `unseen`) on small hand-written histories: each anomaly is flagged at the event that shows
// it, with the members and an explanation naming group, partition, offsets and events; the
// legal look-alikes (handovers, late commit answers, admin resets, records below where the
// group started or acknowledged after the cutoff) stay clean.
#include "properties/group_checkers.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "properties/checker.h"
#include "properties/history.h"

namespace logsim::properties {
namespace {

// Builds a history event by event (indexes assigned by History, time = 1 ms per event) and
// shows each to one checker.
class Events {
 public:
  explicit Events(Checker& checker) {
    history_.observe([&checker](const HistoryEvent& e) { checker.observe(e); });
  }

  std::uint64_t ack(std::int32_t partition, std::int64_t offset, const std::string& topic = "orders") {
    HistoryEvent e = base(OpKind::kSendOk, "shop");
    e.topic = topic;
    e.partition = properties::known(PartitionId(partition));
    e.offset = properties::known(Offset(offset));
    e.key = "k" + std::to_string(offset);
    e.value_id = static_cast<std::uint64_t>(1000 * (partition + 1) + offset);
    return append(e);
  }
  void acks(std::int32_t partition, std::int64_t from, std::int64_t to) {
    for (std::int64_t o = from; o < to; ++o) ack(partition, o);
  }
  std::uint64_t assign(const std::string& member, const std::string& group, std::int32_t generation,
                       std::vector<TopicPartition> tps) {
    HistoryEvent e = base(OpKind::kAssign, member);
    e.group = group;
    e.generation = properties::known(GenerationId(generation));
    e.assignment = std::move(tps);
    e.note = "assigned";
    return append(e);
  }
  std::uint64_t process(const std::string& member, const std::string& group, std::int32_t generation,
                        std::int32_t partition, std::int64_t offset) {
    HistoryEvent e = base(OpKind::kProcess, member);
    e.group = group;
    e.generation = properties::known(GenerationId(generation));
    e.topic = "orders";
    e.partition = properties::known(PartitionId(partition));
    e.offset = properties::known(Offset(offset));
    e.key = "k" + std::to_string(offset);
    return append(e);
  }
  void processes(const std::string& member, const std::string& group, std::int32_t generation, std::int32_t partition,
                 std::int64_t from, std::int64_t to) {
    for (std::int64_t o = from; o < to; ++o) process(member, group, generation, partition, o);
  }
  std::uint64_t commit(OpKind kind, const std::string& member, const std::string& group, std::int32_t generation,
                       std::uint64_t id, std::int32_t partition, std::int64_t offset) {
    HistoryEvent e = base(kind, member);
    e.group = group;
    e.generation = properties::known(GenerationId(generation));
    e.topic = "orders";
    e.partition = properties::known(PartitionId(partition));
    e.offset = properties::known(Offset(offset));
    e.commit_id = id;
    e.note = "manual";
    return append(e);
  }
  // An accepted commit, invoked just before.
  std::uint64_t committed(const std::string& member, const std::string& group, std::int32_t generation,
                          std::int32_t partition, std::int64_t offset) {
    ++commit_id_;
    commit(OpKind::kCommitInvoke, member, group, generation, commit_id_, partition, offset);
    return commit(OpKind::kCommitOk, member, group, generation, commit_id_, partition, offset);
  }
  // An executed reset-offsets, as the admin records it.
  std::uint64_t reset(const std::string& group, std::int32_t partition, std::int64_t offset) {
    HistoryEvent e = base(OpKind::kSeek, "admin");
    e.group = group;
    e.topic = "orders";
    e.partition = properties::known(PartitionId(partition));
    e.offset = properties::known(Offset(offset));
    e.note = "reset-offsets to-offset";
    return append(e);
  }
  // An admin's successful delete-group.
  std::uint64_t deleted(const std::string& group) {
    HistoryEvent e = base(OpKind::kAdmin, "admin");
    e.group = group;
    e.error = "NONE";
    e.note = "delete-group " + group + ": done";
    return append(e);
  }
  // A commit's invoke and acceptance under an explicit commit id (a restarted process counts
  // its ids from 1 again).
  std::uint64_t committed_as(std::uint64_t id, const std::string& member, const std::string& group,
                             std::int32_t generation, std::int32_t partition, std::int64_t offset) {
    commit(OpKind::kCommitInvoke, member, group, generation, id, partition, offset);
    return commit(OpKind::kCommitOk, member, group, generation, id, partition, offset);
  }
  Nanos now() const { return millis(static_cast<std::int64_t>(history_.size())); }

 private:
  HistoryEvent base(OpKind kind, const std::string& process) const {
    HistoryEvent e;
    e.kind = kind;
    e.process = process;
    e.at = now();
    return e;
  }
  std::uint64_t append(const HistoryEvent& e) { return history_.append(e); }

  History history_;
  std::uint64_t commit_id_ = 0;
};

std::vector<Violation> finish(Checker& c) {
  c.finish();
  return c.violations();
}

bool mentions(const Violation& v, const std::string& text) { return v.explanation.find(text) != std::string::npos; }

// --- double-ownership -------------------------------------------------------------------

TEST(DoubleOwnershipChecker, TwoMembersProcessingOnePartitionInOneGenerationAreFlaggedOnce) {
  DoubleOwnershipChecker c;
  Events h(c);
  h.assign("billing-1", "billing", 1, {{"orders", PartitionId(0)}});
  const std::uint64_t first = h.process("billing-1", "billing", 1, 0, 10);
  h.process("billing-1", "billing", 1, 0, 11);
  const std::uint64_t second = h.process("billing-2", "billing", 1, 0, 12);
  h.process("billing-2", "billing", 1, 0, 13);  // one report per group, generation and partition
  h.process("billing-1", "billing", 1, 0, 14);
  const auto v = finish(c);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "double-ownership");
  EXPECT_EQ(v[0].first_event, second);
  EXPECT_EQ(v[0].process, "billing-2");
  EXPECT_EQ(v[0].topic, "orders");
  EXPECT_EQ(v[0].partition, PartitionId(0));
  EXPECT_EQ(v[0].offset, Offset(12));
  EXPECT_EQ(v[0].key, "k12");
  EXPECT_EQ(v[0].members, (std::vector<std::string>{"billing-1", "billing-2"}));
  EXPECT_TRUE(mentions(v[0], "generation 1 of group billing, orders/0 was processed by billing-1 (offset 10, event #" +
                                 std::to_string(first) + ") and by billing-2 (offset 12, event #" + std::to_string(second) + ")"))
      << v[0].explanation;
}

TEST(DoubleOwnershipChecker, HandoversAcrossGenerationsAndOtherGroupsAreFine) {
  DoubleOwnershipChecker c;
  Events h(c);
  h.processes("billing-1", "billing", 1, 0, 0, 3);
  h.processes("billing-2", "billing", 2, 0, 3, 6);  // handed over in generation 2
  h.process("billing-1", "billing", -1, 0, 2);      // no generation at the time: not counted
  h.processes("email-1", "email", 1, 0, 0, 6);      // another group, its own generation 1
  h.processes("billing-1", "billing", 1, 1, 0, 3);  // another partition of generation 1
  h.process("audit", "", -1, 0, 0);                 // manual assignment: no group
  h.process("audit-2", "", -1, 0, 1);
  EXPECT_TRUE(finish(c).empty());
}

TEST(DoubleOwnershipChecker, DefaultCheckersReportIt) {
  CheckerSet set = default_checkers();
  History history;
  set.attach(history);
  for (const char* member : {"billing-1", "billing-2"}) {
    HistoryEvent e;
    e.kind = OpKind::kProcess;
    e.process = member;
    e.group = "billing";
    e.generation = GenerationId(3);
    e.topic = "orders";
    e.partition = PartitionId(2);
    e.offset = Offset(7);
    history.append(e);
  }
  const Verdict v = set.finish();
  EXPECT_EQ(v.outcome, Outcome::kViolated);
  ASSERT_EQ(v.violations.size(), 1u);
  EXPECT_EQ(v.violations[0].anomaly, "double-ownership");
  EXPECT_EQ(v.violations[0].first_event, 1u);
}

// --- stale-commit-accepted --------------------------------------------------------------

TEST(StaleCommitChecker, ACommitSentFromALeftGenerationAndAcceptedIsFlaggedOncePerCommit) {
  StaleCommitChecker c;
  Events h(c);
  h.assign("billing-1", "billing", 1, {{"orders", PartitionId(0)}, {"orders", PartitionId(1)}});
  const std::uint64_t newer = h.assign("billing-2", "billing", 2, {{"orders", PartitionId(0)}, {"orders", PartitionId(1)}});
  // billing-1 wakes up from a pause, still in generation 1, and commits both partitions.
  const std::uint64_t sent = h.commit(OpKind::kCommitInvoke, "billing-1", "billing", 1, 7, 0, 40);
  h.commit(OpKind::kCommitInvoke, "billing-1", "billing", 1, 7, 1, 41);
  const std::uint64_t ok = h.commit(OpKind::kCommitOk, "billing-1", "billing", 1, 7, 0, 40);
  h.commit(OpKind::kCommitOk, "billing-1", "billing", 1, 7, 1, 41);
  const auto v = finish(c);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "stale-commit-accepted");
  EXPECT_EQ(v[0].first_event, ok);
  EXPECT_EQ(v[0].process, "billing-1");
  EXPECT_EQ(v[0].topic, "orders");
  EXPECT_EQ(v[0].partition, PartitionId(0));
  EXPECT_EQ(v[0].offset, Offset(40));
  EXPECT_EQ(v[0].members, (std::vector<std::string>{"billing-1"}));
  EXPECT_TRUE(mentions(v[0], "group billing accepted billing-1's commit of orders/0 offset 40 from generation 1 (event #" +
                                 std::to_string(ok) + ", sent at event #" + std::to_string(sent) +
                                 "), although the group had already reached generation 2 (event #" +
                                 std::to_string(newer) + ")"))
      << v[0].explanation;
}

TEST(StaleCommitChecker, ACommitCurrentWhenSentIsFineEvenIfItsAnswerComesAfterANewerAssignment) {
  StaleCommitChecker c;
  Events h(c);
  h.assign("billing-1", "billing", 1, {{"orders", PartitionId(0)}});
  h.commit(OpKind::kCommitInvoke, "billing-1", "billing", 1, 1, 0, 10);
  h.assign("billing-2", "billing", 2, {{"orders", PartitionId(0)}});
  h.commit(OpKind::kCommitOk, "billing-1", "billing", 1, 1, 0, 10);
  // A commit sent without a generation (the admin's, or manual assignment) is never stale.
  h.commit(OpKind::kCommitInvoke, "tool", "billing", -1, 1, 0, 5);
  h.commit(OpKind::kCommitOk, "tool", "billing", -1, 1, 0, 5);
  // A stale commit that is refused is the fencing working.
  h.commit(OpKind::kCommitInvoke, "billing-1", "billing", 1, 2, 0, 11);
  h.commit(OpKind::kCommitFail, "billing-1", "billing", 1, 2, 0, 11);
  // Another group's generations do not fence this one.
  h.assign("email-1", "email", 9, {{"orders", PartitionId(0)}});
  h.commit(OpKind::kCommitInvoke, "billing-2", "billing", 2, 1, 0, 12);
  h.commit(OpKind::kCommitOk, "billing-2", "billing", 2, 1, 0, 12);
  EXPECT_TRUE(finish(c).empty());
}

// A commit is remembered until each of its partitions has its outcome, then forgotten (an
// hour's commits otherwise fill memory); one awaiting an outcome still pairs with it.
TEST(StaleCommitChecker, ForgetsACommitOnceEachPartitionHasItsOutcome) {
  StaleCommitChecker c;
  Events h(c);
  h.assign("billing-1", "billing", 1, {{"orders", PartitionId(0)}, {"orders", PartitionId(1)}});
  for (std::uint64_t id = 1; id <= 100; ++id) {
    h.commit(OpKind::kCommitInvoke, "billing-1", "billing", 1, id, 0, static_cast<std::int64_t>(id));
    h.commit(OpKind::kCommitInvoke, "billing-1", "billing", 1, id, 1, static_cast<std::int64_t>(id));
    h.commit(OpKind::kCommitOk, "billing-1", "billing", 1, id, 0, static_cast<std::int64_t>(id));
    h.commit(id % 2 == 0 ? OpKind::kCommitOk : OpKind::kCommitFail, "billing-1", "billing", 1, id, 1,
             static_cast<std::int64_t>(id));
  }
  EXPECT_EQ(c.commits_awaiting_outcome(), 0u);
  // Commit 101 is half answered when billing-2 reaches generation 2; its other half, accepted
  // afterwards, was sent while generation 1 was the newest: not stale.
  h.commit(OpKind::kCommitInvoke, "billing-1", "billing", 1, 101, 0, 101);
  h.commit(OpKind::kCommitInvoke, "billing-1", "billing", 1, 101, 1, 101);
  h.commit(OpKind::kCommitOk, "billing-1", "billing", 1, 101, 0, 101);
  EXPECT_EQ(c.commits_awaiting_outcome(), 1u);
  h.assign("billing-2", "billing", 2, {{"orders", PartitionId(0)}, {"orders", PartitionId(1)}});
  h.commit(OpKind::kCommitOk, "billing-1", "billing", 1, 101, 1, 101);
  EXPECT_EQ(c.commits_awaiting_outcome(), 0u);
  // Commit 102, sent after generation 2, is stale on both partitions: reported once, then forgotten.
  h.commit(OpKind::kCommitInvoke, "billing-1", "billing", 1, 102, 0, 102);
  h.commit(OpKind::kCommitInvoke, "billing-1", "billing", 1, 102, 1, 102);
  h.commit(OpKind::kCommitOk, "billing-1", "billing", 1, 102, 0, 102);
  h.commit(OpKind::kCommitOk, "billing-1", "billing", 1, 102, 1, 102);
  EXPECT_EQ(c.commits_awaiting_outcome(), 0u);
  const auto v = finish(c);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].offset, Offset(102));
}

TEST(StaleCommitChecker, DefaultCheckersReportIt) {
  CheckerSet set = default_checkers();
  History history;
  set.attach(history);
  HistoryEvent assign;
  assign.kind = OpKind::kAssign;
  assign.process = "billing-2";
  assign.group = "billing";
  assign.generation = GenerationId(2);
  history.append(assign);
  for (OpKind kind : {OpKind::kCommitInvoke, OpKind::kCommitOk}) {
    HistoryEvent e;
    e.kind = kind;
    e.process = "billing-1";
    e.group = "billing";
    e.generation = GenerationId(1);
    e.topic = "orders";
    e.partition = PartitionId(0);
    e.offset = Offset(0);
    e.commit_id = 1;
    history.append(e);
  }
  const Verdict v = set.finish();
  EXPECT_EQ(v.outcome, Outcome::kViolated);
  ASSERT_EQ(v.violations.size(), 1u);
  EXPECT_EQ(v.violations[0].anomaly, "stale-commit-accepted");
  EXPECT_EQ(v.violations[0].first_event, 2u);
}

// --- lost-commit ------------------------------------------------------------------------

TEST(LostCommitChecker, ACommitBeyondUnprocessedRecordsIsFlaggedAtTheCommitThatPassedThem) {
  LostCommitChecker c;
  Events h(c);
  h.acks(0, 0, 10);
  h.assign("billing-1", "billing", 1, {{"orders", PartitionId(0)}});
  h.processes("billing-1", "billing", 1, 0, 0, 4);
  h.committed("billing-1", "billing", 1, 0, 2);
  h.committed("billing-1", "billing", 1, 0, 4);
  // Committed before processing, then crashed: offsets 4..9 are never processed.
  const std::uint64_t passed = h.committed("billing-1", "billing", 1, 0, 7);
  h.committed("billing-1", "billing", 1, 0, 10);
  const auto v = finish(c);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "lost-commit");
  EXPECT_EQ(v[0].first_event, passed);
  EXPECT_EQ(v[0].process, "billing-1");
  EXPECT_EQ(v[0].topic, "orders");
  EXPECT_EQ(v[0].partition, PartitionId(0));
  EXPECT_EQ(v[0].offset, Offset(4));
  EXPECT_EQ(v[0].key, "k4");
  EXPECT_EQ(v[0].members, (std::vector<std::string>{"billing-1"}));
  EXPECT_TRUE(mentions(v[0], "group billing's committed offset of orders/0 passed offset 4 at event #" +
                                 std::to_string(passed) + " (a commit by billing-1 in generation 1, to offset 7) and ended at 10"))
      << v[0].explanation;
  EXPECT_TRUE(mentions(v[0], "never processed 6 acknowledged record(s) between its starting offset 0")) << v[0].explanation;
}

TEST(LostCommitChecker, RecordsBelowTheFirstProcessedOffsetAreNotOwed) {
  LostCommitChecker c;
  Events h(c);
  h.acks(0, 0, 10);
  h.assign("billing-1", "billing", 1, {{"orders", PartitionId(0)}});
  h.processes("billing-1", "billing", 1, 0, 5, 10);  // auto.offset.reset=latest: started at 5
  h.committed("billing-1", "billing", 1, 0, 10);
  // Processed by another member in another generation counts too.
  h.acks(0, 10, 12);
  h.processes("billing-2", "billing", 2, 0, 10, 12);
  h.committed("billing-2", "billing", 2, 0, 12);
  // Committed but never processed (no starting point known): not judged.
  h.acks(1, 0, 5);
  h.committed("billing-1", "billing", 1, 1, 5);
  EXPECT_TRUE(finish(c).empty());
}

TEST(LostCommitChecker, AResetForwardOverUnprocessedRecordsIsFine) {
  LostCommitChecker c;
  Events h(c);
  h.acks(0, 0, 10);
  h.processes("billing-1", "billing", 1, 0, 0, 3);
  h.committed("billing-1", "billing", 1, 0, 3);
  h.reset("billing", 0, 8);  // the operator skips 3..7
  h.processes("billing-1", "billing", 2, 0, 8, 10);
  h.committed("billing-1", "billing", 2, 0, 10);
  EXPECT_TRUE(finish(c).empty());
}

TEST(LostCommitChecker, AResetBackwardOwesFromTheResetOffset) {
  LostCommitChecker c;
  Events h(c);
  h.acks(0, 0, 10);
  h.processes("billing-1", "billing", 1, 0, 5, 10);
  h.committed("billing-1", "billing", 1, 0, 10);
  h.reset("billing", 0, 2);  // replay from 2: offsets 2..4 are now owed
  h.process("billing-1", "billing", 2, 0, 2);
  const std::uint64_t passed = h.committed("billing-1", "billing", 2, 0, 10);
  const auto v = finish(c);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "lost-commit");
  EXPECT_EQ(v[0].first_event, passed);
  EXPECT_EQ(v[0].offset, Offset(3));
  EXPECT_TRUE(mentions(v[0], "never processed 2 acknowledged record(s) between its starting offset 2")) << v[0].explanation;
}

TEST(LostCommitChecker, SparseOffsetsFarAboveZeroAreJudgedLikeDenseOnes) {
  // A history from elsewhere: offsets start near 2^40 and jump over whole pages.
  constexpr std::int64_t kBase = std::int64_t{1} << 40;
  LostCommitChecker c;
  Events h(c);
  for (std::int64_t o : {kBase, kBase + 1, kBase + 5000, kBase + 5001, kBase + 9000}) h.ack(0, o);
  h.assign("billing-1", "billing", 1, {{"orders", PartitionId(0)}});
  for (std::int64_t o : {kBase, kBase + 1, kBase + 5001}) h.process("billing-1", "billing", 1, 0, o);
  h.committed("billing-1", "billing", 1, 0, kBase + 2);
  h.committed("billing-1", "billing", 1, 0, kBase + 1);  // backwards: passes nothing new
  const std::uint64_t passed = h.committed("billing-1", "billing", 1, 0, kBase + 5002);
  h.committed("billing-1", "billing", 1, 0, kBase + 9001);
  const auto v = finish(c);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].first_event, passed);
  EXPECT_EQ(v[0].offset, Offset(kBase + 5000));
  EXPECT_EQ(v[0].key, "k" + std::to_string(kBase + 5000));
  EXPECT_TRUE(mentions(v[0], "never processed 2 acknowledged record(s) between its starting offset " + std::to_string(kBase)))
      << v[0].explanation;
}

TEST(LostCommitChecker, ViolationsComeInGroupThenTopicThenPartitionNameOrder) {
  LostCommitChecker c;
  Events h(c);
  h.acks(0, 0, 3);
  h.acks(1, 0, 3);
  // First seen: zeta on partition 1, then alpha on partition 1, then alpha on partition 0.
  for (const char* group : {"zeta", "alpha"}) {
    h.process("m", group, 1, 1, 0);
    h.committed("m", group, 1, 1, 3);
  }
  h.process("m", "alpha", 1, 0, 0);
  h.committed("m", "alpha", 1, 0, 3);
  const auto v = finish(c);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_TRUE(mentions(v[0], "group alpha's committed offset of orders/0")) << v[0].explanation;
  EXPECT_TRUE(mentions(v[1], "group alpha's committed offset of orders/1")) << v[1].explanation;
  EXPECT_TRUE(mentions(v[2], "group zeta's committed offset of orders/1")) << v[2].explanation;
}

TEST(LostCommitChecker, DefaultCheckersReportIt) {
  CheckerSet set = default_checkers();
  History history;
  set.attach(history);
  for (std::int64_t offset : {0, 1, 2}) {
    HistoryEvent e;
    e.kind = OpKind::kSendOk;
    e.process = "shop";
    e.topic = "orders";
    e.partition = PartitionId(0);
    e.offset = properties::known(Offset(offset));
    history.append(e);
  }
  HistoryEvent p;
  p.kind = OpKind::kProcess;
  p.process = "billing-1";
  p.group = "billing";
  p.generation = GenerationId(1);
  p.topic = "orders";
  p.partition = PartitionId(0);
  p.offset = Offset(0);
  history.append(p);
  HistoryEvent ok = p;
  ok.kind = OpKind::kCommitOk;
  ok.offset = Offset(3);
  ok.commit_id = 1;
  history.append(ok);
  const Verdict v = set.finish();
  EXPECT_EQ(v.outcome, Outcome::kViolated);
  ASSERT_EQ(v.violations.size(), 1u);
  EXPECT_EQ(v.violations[0].anomaly, "lost-commit");
  EXPECT_EQ(v.violations[0].first_event, 4u);
  EXPECT_EQ(v.violations[0].offset, Offset(1));
}

// --- unseen -----------------------------------------------------------------------------

TEST(UnseenChecker, ARecordTheGroupNeverProcessedIsFlaggedAtItsAcknowledgement) {
  UnseenChecker c(seconds(60));
  Events h(c);
  h.assign("billing-1", "billing", 1, {{"orders", PartitionId(0)}});
  h.acks(0, 0, 2);
  const std::uint64_t missed = h.ack(0, 2);
  h.acks(0, 3, 6);
  h.processes("billing-1", "billing", 1, 0, 0, 2);
  h.processes("billing-1", "billing", 1, 0, 4, 6);  // 2 and 3 skipped
  const auto v = finish(c);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "unseen") << "offsets 4.. were processed: 2 and 3 were skipped";
  EXPECT_TRUE(mentions(v[0], "the group skipped them")) << v[0].explanation;
  EXPECT_EQ(v[0].first_event, missed);
  EXPECT_EQ(v[0].process, "shop");
  EXPECT_EQ(v[0].topic, "orders");
  EXPECT_EQ(v[0].partition, PartitionId(0));
  EXPECT_EQ(v[0].offset, Offset(2));
  EXPECT_EQ(v[0].key, "k2");
  EXPECT_EQ(v[0].members, (std::vector<std::string>{"shop", "billing-1"}));
  EXPECT_TRUE(mentions(v[0], "group billing never processed 2 record(s) of orders/0 acknowledged before 60000 ms")) << v[0].explanation;
  EXPECT_TRUE(mentions(v[0], "the first at offset 2 (value 1002, acknowledged to shop at event #" + std::to_string(missed) + ")"))
      << v[0].explanation;
}

TEST(UnseenChecker, RecordsAcknowledgedAfterTheCutoffOrBelowTheStartAreNotOwed) {
  UnseenChecker c(millis(8));  // events are 1 ms apart: acknowledgements from event #8 on are not owed
  Events h(c);
  h.acks(0, 0, 3);                                       // #0..#2: before the group started
  h.assign("billing-1", "billing", 1, {{"orders", PartitionId(0)}});  // #3
  h.acks(0, 3, 6);                                       // #4..#6
  h.processes("billing-1", "billing", 1, 0, 3, 6);       // started at 3 (latest)
  h.acks(0, 6, 9);                                       // at or after the cutoff
  EXPECT_GE(h.now(), millis(8));
  EXPECT_TRUE(finish(c).empty());
}

TEST(UnseenChecker, RecordsProcessedOnlyByAnotherGroupDoNotCount) {
  UnseenChecker c(seconds(60));
  Events h(c);
  h.assign("billing-1", "billing", 1, {{"orders", PartitionId(0)}});
  h.assign("email-1", "email", 1, {{"orders", PartitionId(0)}});
  h.acks(0, 0, 5);
  h.processes("billing-1", "billing", 1, 0, 0, 5);
  h.processes("email-1", "email", 1, 0, 0, 3);
  const auto v = finish(c);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].offset, Offset(3));
  EXPECT_EQ(v[0].anomaly, "liveness") << "email never got past offset 3: it did not catch up";
  EXPECT_EQ(v[0].members, (std::vector<std::string>{"shop", "email-1"}));
  EXPECT_TRUE(mentions(v[0], "group email never processed 2 record(s) of orders/0")) << v[0].explanation;
}

TEST(UnseenChecker, APartitionNeverProcessedOwesWhatWasAcknowledgedAfterItsFirstAssignment) {
  UnseenChecker c(seconds(60));
  Events h(c);
  h.acks(1, 0, 3);  // written before the group had the partition: not owed (latest)
  h.assign("billing-1", "billing", 1, {{"orders", PartitionId(0)}, {"orders", PartitionId(1)}});
  const std::uint64_t first = h.ack(1, 3);
  h.ack(1, 4);
  h.acks(0, 0, 2);
  h.processes("billing-1", "billing", 1, 0, 0, 2);
  h.acks(2, 0, 4);  // a partition the group was never assigned: no starting point, not judged
  const auto v = finish(c);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].first_event, first);
  EXPECT_EQ(v[0].partition, PartitionId(1));
  EXPECT_EQ(v[0].offset, Offset(3));
  EXPECT_EQ(v[0].anomaly, "liveness");
  EXPECT_TRUE(mentions(v[0], "never processed 2 record(s) of orders/1")) << v[0].explanation;
  EXPECT_TRUE(mentions(v[0], "starting offset 3")) << v[0].explanation;
}

// Every assignor hands out every partition of a subscribed topic: one that already held records
// when the group was first assigned the topic, and that no member ever got, is flagged (from
// what was acknowledged after that assignment). One that appeared later (add-partitions, which
// a group sees only at its next metadata refresh) is not judged.
TEST(UnseenChecker, APartitionOfTheTopicNoMemberEverGotOwesWhatCameAfterTheGroupsFirstAssignment) {
  UnseenChecker c(seconds(60));
  Events h(c);
  h.acks(0, 0, 2);
  h.acks(2, 0, 2);  // orders/2 exists before the group starts
  h.assign("billing-1", "billing", 1, {{"orders", PartitionId(0)}, {"orders", PartitionId(1)}});  // ... but no member gets it
  h.processes("billing-1", "billing", 1, 0, 0, 2);
  const std::uint64_t owed = h.ack(2, 2);
  h.ack(2, 3);
  h.acks(3, 0, 3);  // orders/3 appeared after the first assignment: not judged
  const auto v = finish(c);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "liveness");
  EXPECT_EQ(v[0].first_event, owed);
  EXPECT_EQ(v[0].partition, PartitionId(2));
  EXPECT_EQ(v[0].offset, Offset(2));
  EXPECT_TRUE(mentions(v[0], "never orders/2")) << v[0].explanation;
  EXPECT_TRUE(mentions(v[0], "never processed 2 record(s)")) << v[0].explanation;
  EXPECT_TRUE(mentions(v[0], "no member was ever given the partition")) << v[0].explanation;
}

TEST(UnseenChecker, AResetForwardMovesTheStart) {
  UnseenChecker c(seconds(60));
  Events h(c);
  h.assign("billing-1", "billing", 1, {{"orders", PartitionId(0)}});
  h.acks(0, 0, 10);
  h.processes("billing-1", "billing", 1, 0, 0, 2);
  h.reset("billing", 0, 7);
  h.processes("billing-1", "billing", 2, 0, 7, 10);
  EXPECT_TRUE(finish(c).empty());
}

TEST(UnseenChecker, SparseOffsetsFarAboveZeroAreJudgedLikeDenseOnes) {
  // A history from elsewhere: offsets start near 2^40 and jump over whole pages.
  constexpr std::int64_t kBase = std::int64_t{1} << 40;
  UnseenChecker c(seconds(60));
  Events h(c);
  h.assign("billing-1", "billing", 1, {{"orders", PartitionId(0)}, {"orders", PartitionId(1)}});
  h.ack(0, kBase);
  const std::uint64_t missed = h.ack(0, kBase + 1);
  h.ack(0, kBase + 2048);
  h.ack(0, kBase + 4096);
  const std::uint64_t late = h.ack(1, kBase + 7);  // partition 1 is never processed
  h.process("billing-1", "billing", 1, 0, kBase);
  h.process("billing-1", "billing", 1, 0, kBase + 4096);
  const auto v = finish(c);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].anomaly, "unseen");
  EXPECT_EQ(v[0].first_event, missed);
  EXPECT_EQ(v[0].offset, Offset(kBase + 1));
  EXPECT_TRUE(mentions(v[0], "never processed 2 record(s) of orders/0")) << v[0].explanation;
  EXPECT_EQ(v[1].anomaly, "liveness");
  EXPECT_EQ(v[1].first_event, late);
  EXPECT_EQ(v[1].offset, Offset(kBase + 7));
  EXPECT_TRUE(mentions(v[1], "starting offset " + std::to_string(kBase + 7))) << v[1].explanation;
}

TEST(UnseenChecker, IsNotADefaultChecker) {
  CheckerSet set = default_checkers();
  History history;
  set.attach(history);
  HistoryEvent assign;
  assign.kind = OpKind::kAssign;
  assign.process = "billing-1";
  assign.group = "billing";
  assign.generation = GenerationId(1);
  assign.assignment = {{"orders", PartitionId(0)}};
  history.append(assign);
  HistoryEvent ack;
  ack.kind = OpKind::kSendOk;
  ack.process = "shop";
  ack.topic = "orders";
  ack.partition = PartitionId(0);
  ack.offset = Offset(0);
  history.append(ack);
  EXPECT_EQ(set.finish().outcome, Outcome::kPass);
}

// In the default list, lost-commit and unseen share one GroupProgress that one of them feeds:
// each still judges, whichever of them is left out.
class Forward final : public Checker {
 public:
  explicit Forward(CheckerSet& set) : set_(set) {}
  std::string_view name() const override { return "forward"; }
  void on_event(const HistoryEvent& e, const EventIds&) override { set_.observe(e); }

 private:
  CheckerSet& set_;
};

std::multiset<std::string> default_anomalies(std::optional<Nanos> required_before, std::set<std::string> ignored) {
  CheckerOptions options;
  options.unseen_required_before = required_before;
  options.ignored = std::move(ignored);
  options.ignored.insert("poll-skip");  // email's skip is one too; not this test's subject
  CheckerSet set = default_checkers(options);
  Forward forward(set);
  Events h(forward);
  h.assign("billing-1", "billing", 1, {{"orders", PartitionId(0)}});
  h.assign("email-1", "email", 1, {{"orders", PartitionId(1)}});
  h.acks(0, 0, 6);
  h.acks(1, 0, 6);
  h.processes("billing-1", "billing", 1, 0, 0, 3);
  h.committed("billing-1", "billing", 1, 0, 5);  // past 3 and 4, never processed: lost-commit
  h.processes("email-1", "email", 1, 1, 0, 2);
  h.processes("email-1", "email", 1, 1, 4, 6);   // 2 and 3 skipped: unseen
  std::multiset<std::string> found;
  for (const Violation& v : set.finish().violations) found.insert(v.anomaly);
  return found;
}

TEST(SharedGroupProgress, LostCommitAndUnseenEachJudgeWhicheverIsLeftOut) {
  using Found = std::multiset<std::string>;
  // billing never got past 3 (liveness), and committed past what it never processed.
  EXPECT_EQ(default_anomalies(seconds(60), {}), (Found{"liveness", "lost-commit", "unseen"}));
  EXPECT_EQ(default_anomalies(seconds(60), {"lost-commit"}), (Found{"liveness", "unseen"}));
  EXPECT_EQ(default_anomalies(seconds(60), {"unseen", "liveness"}), (Found{"lost-commit"}));
  EXPECT_EQ(default_anomalies(std::nullopt, {}), (Found{"lost-commit"})) << "without a cutoff, unseen is not judged";
}

// --- incarnations ------------------------------------------------------------------------

// A group deleted and used again starts at generation 1 again: a new group, not the old one.
TEST(GroupIncarnations, ARecreatedGroupsGenerationOneIsNotTheOldOne) {
  DoubleOwnershipChecker owners;
  Events h(owners);
  h.assign("billing-1", "billing", 1, {{"orders", PartitionId(0)}});
  h.process("billing-1", "billing", 1, 0, 0);
  h.deleted("billing");
  h.assign("billing-9", "billing", 1, {{"orders", PartitionId(0)}});
  h.process("billing-9", "billing", 1, 0, 1);  // not billing-1's generation 1
  EXPECT_TRUE(finish(owners).empty());
}

TEST(GroupIncarnations, TheSameHistoryWithoutTheDeleteIsTwoViolations) {
  // Proof that the test above can fail: without the delete-group, the same events are a double
  // ownership and a stale commit.
  DoubleOwnershipChecker owners;
  Events h(owners);
  h.assign("billing-1", "billing", 1, {{"orders", PartitionId(0)}});
  h.process("billing-1", "billing", 1, 0, 0);
  h.process("billing-9", "billing", 1, 0, 1);
  ASSERT_EQ(finish(owners).size(), 1u);
  StaleCommitChecker stale;
  Events g(stale);
  g.assign("billing-1", "billing", 5, {{"orders", PartitionId(0)}});
  g.committed("billing-9", "billing", 1, 0, 2);
  ASSERT_EQ(finish(stale).size(), 1u);
  StaleCommitChecker recreated;
  Events r(recreated);
  r.assign("billing-1", "billing", 5, {{"orders", PartitionId(0)}});
  r.deleted("billing");
  r.assign("billing-9", "billing", 1, {{"orders", PartitionId(0)}});
  r.committed("billing-9", "billing", 1, 0, 2);
  EXPECT_TRUE(finish(recreated).empty());
}

// A restarted process numbers its commits from 1 again: its commit 1 is not its old commit 1.
TEST(ProcessIncarnations, ARestartedProcesssCommitIdsDoNotPairWithTheOldOnes) {
  StaleCommitChecker c;
  Events h(c);
  h.assign("billing-1", "billing", 1, {{"orders", PartitionId(0)}});
  h.committed_as(1, "billing-1", "billing", 1, 0, 10);  // the first incarnation's commit 1
  // billing-1 restarts and joins generation 3; the group moves on to generation 4 before its
  // first commit, sent from generation 3, is accepted.
  h.assign("billing-1", "billing", 3, {{"orders", PartitionId(0)}});
  h.assign("billing-2", "billing", 4, {{"orders", PartitionId(0)}});
  const std::uint64_t ok = h.committed_as(1, "billing-1", "billing", 3, 0, 20);
  const auto v = finish(c);
  ASSERT_EQ(v.size(), 1u) << "paired with the old incarnation's commit 1, sent when generation 1 was the newest";
  EXPECT_EQ(v[0].anomaly, "stale-commit-accepted");
  EXPECT_EQ(v[0].first_event, ok);
}

// A partition added to a subscribed topic after the group joined is owed once the members'
// metadata must have shown it (metadata.max.age.ms and a rebalance), not before.
TEST(UnseenChecker, APartitionAddedLaterIsOwedOnceMetadataMustHaveShownIt) {
  const auto run = [](Nanos end) {
    UnseenChecker c(end);
    History h;
    h.observe([&c](const HistoryEvent& e) { c.observe(e); });
    const auto add = [&](OpKind kind, std::int32_t partition, std::int64_t offset, Nanos at) {
      HistoryEvent e;
      e.kind = kind;
      e.process = kind == OpKind::kSendOk ? "shop" : "billing-1";
      e.group = kind == OpKind::kSendOk ? "" : "billing";
      e.generation = kind == OpKind::kSendOk ? std::nullopt : std::optional<GenerationId>(GenerationId(1));
      e.topic = "orders";
      e.partition = PartitionId(partition);
      e.offset = Offset(offset);
      e.value_id = static_cast<std::uint64_t>(partition * 100000 + offset + 1);
      e.at = at;
      if (kind == OpKind::kAssign) e.assignment = {{"orders", PartitionId(0)}};
      h.append(e);
    };
    add(OpKind::kSendOk, 0, 0, seconds(1));
    add(OpKind::kAssign, 0, 0, seconds(2));
    add(OpKind::kProcess, 0, 0, seconds(3));
    // orders/1 appears at 10 s and gets a record every 100 s; the group never gets it.
    for (std::int64_t i = 0; i < 10; ++i) add(OpKind::kSendOk, 1, i, seconds(10 + 100 * i));
    c.finish();
    return c.violations();
  };
  EXPECT_TRUE(run(seconds(300)).empty()) << "within metadata.max.age.ms nothing is owed yet";
  const auto v = run(seconds(1000));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "liveness");
  EXPECT_EQ(v[0].offset, Offset(4)) << "the first record acknowledged from 370 s on (410 s)";
  EXPECT_NE(v[0].explanation.find("appeared later"), std::string::npos) << v[0].explanation;
}

}  // namespace
}  // namespace logsim::properties

// The group-interference checker on hand-written histories: a member that starts a newly
// assigned partition at an offset only another group committed (or was reset to) is flagged at
// that record; starts its own group explains (its commits, whatever their outcome, and resets
// aimed at it), starts auto.offset.reset chose, and partitions kept across a rebalance are not.
#include "properties/group_interference_checker.h"

#include <gtest/gtest.h>

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
  std::uint64_t assign(const std::string& member, const std::string& group, std::vector<TopicPartition> tps) {
    HistoryEvent e = base(OpKind::kAssign, member, group);
    e.assignment = std::move(tps);
    return append(e);
  }
  std::uint64_t process(const std::string& member, const std::string& group, std::int64_t offset, std::int32_t partition = 0) {
    HistoryEvent e = at(OpKind::kProcess, member, group, partition, offset);
    return append(e);
  }
  std::uint64_t commit(OpKind kind, const std::string& member, const std::string& group, std::uint64_t id, std::int64_t offset,
                       std::int32_t partition = 0) {
    HistoryEvent e = at(kind, member, group, partition, offset);
    e.commit_id = id;
    if (kind == OpKind::kCommitFail) e.error = "REQUEST_TIMED_OUT";
    return append(e);
  }
  std::uint64_t committed(const std::string& member, const std::string& group, std::int64_t offset, std::int32_t partition = 0) {
    ++id_;
    commit(OpKind::kCommitInvoke, member, group, id_, offset, partition);
    return commit(OpKind::kCommitOk, member, group, id_, offset, partition);
  }
  std::uint64_t seek(const std::string& process, const std::string& group, std::int64_t offset) {
    HistoryEvent e = at(OpKind::kSeek, process, group, 0, offset);
    return append(e);
  }
  // An admin's successful delete-group: the name's next events are a new group (symbols.h).
  std::uint64_t deleted(const std::string& group) {
    HistoryEvent e = base(OpKind::kAdmin, "admin", group);
    e.error = "NONE";
    e.note = "delete-group " + group + ": done";
    return append(e);
  }
  std::vector<Violation> finish() {
    checker_.finish();
    return checker_.violations();
  }

 private:
  HistoryEvent base(OpKind kind, const std::string& process, const std::string& group) {
    HistoryEvent e;
    e.kind = kind;
    e.process = process;
    e.group = group;
    e.generation = GenerationId(1);
    e.at = static_cast<Nanos>(history_.size()) * 1000000;
    return e;
  }
  HistoryEvent at(OpKind kind, const std::string& process, const std::string& group, std::int32_t partition, std::int64_t offset) {
    HistoryEvent e = base(kind, process, group);
    e.topic = "t";
    e.partition = properties::known(PartitionId(partition));
    e.offset = properties::known(Offset(offset));
    return e;
  }
  std::uint64_t append(HistoryEvent e) { return history_.append(std::move(e)); }

  Checker& checker_;
  History history_;
  std::uint64_t id_ = 0;
};

// billing and audit both read t/0; billing's member b1 processes 0..9 and commits 10, audit's
// a1 processes 0..24 and commits 25; then b1's partition moves to b2.
void two_groups(Events& h) {
  h.assign("b1", "billing", {{"t", PartitionId(0)}});
  h.assign("a1", "audit", {{"t", PartitionId(0)}});
  for (std::int64_t o = 0; o < 10; ++o) h.process("b1", "billing", o);
  h.committed("b1", "billing", 10);
  for (std::int64_t o = 0; o < 25; ++o) h.process("a1", "audit", o);
  h.committed("a1", "audit", 25);
  h.assign("b1", "billing", {});
}

TEST(GroupInterferenceChecker, AMemberStartsAtItsOwnGroupsCommittedOffset) {
  GroupInterferenceChecker c;
  Events h(c);
  two_groups(h);
  h.assign("b2", "billing", {{"t", PartitionId(0)}});
  h.process("b2", "billing", 10);
  h.process("b2", "billing", 11);
  EXPECT_TRUE(h.finish().empty());
}

TEST(GroupInterferenceChecker, AStartAtAnotherGroupsCommittedOffsetIsInterference) {
  GroupInterferenceChecker c;
  Events h(c);
  two_groups(h);
  h.assign("b2", "billing", {{"t", PartitionId(0)}});
  const std::uint64_t start = h.process("b2", "billing", 25);
  h.process("b2", "billing", 26);
  const auto v = h.finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "group-interference");
  EXPECT_EQ(v[0].first_event, start);
  EXPECT_EQ(v[0].offset, Offset(25));
  EXPECT_EQ(v[0].members, (std::vector<std::string>{"b2", "a1"}));
  EXPECT_NE(v[0].explanation.find("a1 of group audit committed"), std::string::npos) << v[0].explanation;
}

TEST(GroupInterferenceChecker, ACommitWhoseAnswerCameLateOrFailedStillExplainsTheStart) {
  GroupInterferenceChecker c;
  Events h(c);
  two_groups(h);
  h.commit(OpKind::kCommitInvoke, "b1", "billing", 77, 25);  // sent, answered only later
  h.commit(OpKind::kCommitInvoke, "b1", "billing", 78, 30);
  h.commit(OpKind::kCommitFail, "b1", "billing", 78, 30);    // timed out: perhaps applied
  h.assign("b2", "billing", {{"t", PartitionId(0)}});
  h.process("b2", "billing", 25);
  h.commit(OpKind::kCommitOk, "b1", "billing", 77, 25);
  h.assign("b2", "billing", {});
  h.assign("b2", "billing", {{"t", PartitionId(0)}});
  h.process("b2", "billing", 30);
  EXPECT_TRUE(h.finish().empty());
}

// Offsets committed out of order, some between two judged starts: each start is judged against
// every offset set before it, and another group's offset set twice is named at its first setting.
TEST(GroupInterferenceChecker, OffsetsCommittedOutOfOrderAreAllRemembered) {
  GroupInterferenceChecker c;
  Events h(c);
  two_groups(h);
  h.committed("b1", "billing", 40);
  h.committed("b1", "billing", 12);  // back below 40 (after a seek)
  h.committed("a1", "audit", 12);  // audit too: billing's own commits must explain its starts
  h.committed("a1", "audit", 8);
  const std::uint64_t first_30 = h.committed("a1", "audit", 30);
  const std::uint64_t audit_18 = h.committed("a1", "audit", 18);
  h.committed("a1", "audit", 30);
  h.assign("b2", "billing", {{"t", PartitionId(0)}});
  h.process("b2", "billing", 12);  // its own: no violation
  h.assign("b2", "billing", {});
  h.committed("b2", "billing", 8);  // below everything judged so far
  h.committed("a1", "audit", 5);
  h.assign("b3", "billing", {{"t", PartitionId(0)}});
  const std::uint64_t at_18 = h.process("b3", "billing", 18);
  h.assign("b3", "billing", {});
  h.assign("b4", "billing", {{"t", PartitionId(0)}});
  h.process("b4", "billing", 8);  // its own
  h.assign("b4", "billing", {});
  h.assign("b5", "billing", {{"t", PartitionId(0)}});
  const std::uint64_t at_30 = h.process("b5", "billing", 30);
  const auto v = h.finish();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].first_event, at_18);
  EXPECT_NE(v[0].explanation.find("committed at event #" + std::to_string(audit_18)), std::string::npos) << v[0].explanation;
  EXPECT_EQ(v[1].first_event, at_30);
  EXPECT_NE(v[1].explanation.find("committed at event #" + std::to_string(first_30)), std::string::npos) << v[1].explanation;
}

// Two incarnations of one group name both set the offset: the later setting is named.
TEST(GroupInterferenceChecker, OfTwoIncarnationsOfAGroupThatSetTheOffsetTheLaterIsNamed) {
  GroupInterferenceChecker c;
  Events h(c);
  h.assign("a1", "audit", {{"t", PartitionId(0)}});
  h.committed("a1", "audit", 10);
  h.deleted("audit");
  h.assign("a2", "audit", {{"t", PartitionId(0)}});
  const std::uint64_t later = h.committed("a2", "audit", 10);
  h.assign("b1", "billing", {{"t", PartitionId(0)}});
  h.committed("b1", "billing", 3);
  h.assign("b1", "billing", {});
  h.assign("b2", "billing", {{"t", PartitionId(0)}});
  h.process("b2", "billing", 10);
  const auto v = h.finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].members, (std::vector<std::string>{"b2", "a2"}));
  EXPECT_NE(v[0].explanation.find("committed at event #" + std::to_string(later)), std::string::npos) << v[0].explanation;
}

TEST(GroupInterferenceChecker, AResetAimedAtTheGroupExplainsTheStart) {
  GroupInterferenceChecker c;
  Events h(c);
  two_groups(h);
  h.seek("admin", "billing", 25);  // reset-offsets --to-offset 25 for billing
  h.assign("b2", "billing", {{"t", PartitionId(0)}});
  h.process("b2", "billing", 25);
  EXPECT_TRUE(h.finish().empty());
}

TEST(GroupInterferenceChecker, AResetAimedAtAnotherGroupThatMovesThisOneIsInterference) {
  GroupInterferenceChecker c;
  Events h(c);
  two_groups(h);
  h.seek("admin", "audit", 3);  // reset-offsets for audit, but billing's offset moved
  h.assign("b2", "billing", {{"t", PartitionId(0)}});
  h.process("b2", "billing", 3);
  const auto v = h.finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].explanation.find("a reset aimed at group audit"), std::string::npos) << v[0].explanation;
}

TEST(GroupInterferenceChecker, AStartChosenByAutoOffsetResetIsNotJudged) {
  // billing never committed before b2's assignment: auto.offset.reset chose where it starts,
  // even if that equals audit's committed offset.
  GroupInterferenceChecker c;
  Events h(c);
  h.assign("a1", "audit", {{"t", PartitionId(0)}});
  for (std::int64_t o = 0; o < 25; ++o) h.process("a1", "audit", o);
  h.committed("a1", "audit", 25);
  h.assign("b2", "billing", {{"t", PartitionId(0)}});
  h.process("b2", "billing", 25);
  EXPECT_TRUE(h.finish().empty());
}

TEST(GroupInterferenceChecker, AStartAfterAResetOfThePositionIsNotJudged) {
  GroupInterferenceChecker c;
  Events h(c);
  two_groups(h);
  h.assign("b2", "billing", {{"t", PartitionId(0)}});
  h.seek("b2", "billing", 25);  // its committed offset was out of range: auto.offset.reset
  h.process("b2", "billing", 25);
  EXPECT_TRUE(h.finish().empty());
}

TEST(GroupInterferenceChecker, APartitionKeptAcrossARebalanceKeepsItsPosition) {
  // Cooperative rebalance: b1 keeps t/0 (its position 10 goes on, whatever was committed).
  GroupInterferenceChecker c;
  Events h(c);
  h.assign("b1", "billing", {{"t", PartitionId(0)}, {"t", PartitionId(1)}});
  h.assign("a1", "audit", {{"t", PartitionId(0)}});
  h.process("b1", "billing", 0);
  h.committed("b1", "billing", 1);
  for (std::int64_t o = 0; o < 5; ++o) h.process("a1", "audit", o);
  h.committed("a1", "audit", 5);
  h.assign("b1", "billing", {{"t", PartitionId(0)}});            // revoked t/1
  h.assign("b1", "billing", {{"t", PartitionId(0)}, {"t", PartitionId(2)}});  // assigned t/2
  h.process("b1", "billing", 5);
  EXPECT_TRUE(h.finish().empty());
}

TEST(GroupInterferenceChecker, ManuallyAssignedConsumersAreNotGroups) {
  GroupInterferenceChecker c;
  Events h(c);
  two_groups(h);
  h.assign("reader", "", {{"t", PartitionId(0)}});
  h.process("reader", "", 25);
  EXPECT_TRUE(h.finish().empty());
}

TEST(GroupInterferenceChecker, OfSeveralOtherGroupsThatSetTheOffsetTheFirstByNameIsNamed) {
  // zeta commits 25 before alpha does: the report names alpha all the same (groups in name
  // order, not in order of appearance), so that the text does not depend on interning.
  GroupInterferenceChecker c;
  Events h(c);
  h.assign("b1", "billing", {{"t", PartitionId(0)}});
  h.committed("b1", "billing", 10);
  h.assign("z1", "zeta", {{"t", PartitionId(0)}});
  h.committed("z1", "zeta", 25);
  h.assign("a1", "alpha", {{"t", PartitionId(0)}});
  h.committed("a1", "alpha", 25);
  h.assign("b1", "billing", {});
  h.assign("b2", "billing", {{"t", PartitionId(0)}});
  h.process("b2", "billing", 25);
  const auto v = h.finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].members, (std::vector<std::string>{"b2", "a1"}));
  EXPECT_NE(v[0].explanation.find("a1 of group alpha committed"), std::string::npos) << v[0].explanation;
}

TEST(GroupInterferenceChecker, HighOffsetsAndManyMembersAreJudgedPerMember) {
  // 100 members of billing take turns on t/0 at offsets above 2^40; only the one that starts at
  // audit's offset is reported, once.
  GroupInterferenceChecker c;
  Events h(c);
  const std::int64_t base = std::int64_t{1} << 40;
  h.assign("a1", "audit", {{"t", PartitionId(0)}});
  h.committed("a1", "audit", base + 5000);
  h.assign("b0", "billing", {{"t", PartitionId(0)}});
  h.committed("b0", "billing", base);
  std::string previous = "b0";
  std::uint64_t start = 0;
  for (int m = 1; m <= 100; ++m) {
    const std::string member = "b" + std::to_string(m);
    h.assign(previous, "billing", {});
    h.assign(member, "billing", {{"t", PartitionId(0)}, {"t", PartitionId(1)}});
    const std::int64_t offset = m == 50 ? base + 5000 : base + m - 1;
    const std::uint64_t at = h.process(member, "billing", offset);
    if (m == 50) start = at;
    h.process(member, "billing", offset + 1);
    h.committed(member, "billing", base + m);
    previous = member;
  }
  const auto v = h.finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].first_event, start);
  EXPECT_EQ(v[0].process, "b50");
  EXPECT_EQ(v[0].offset, Offset(base + 5000));
}

}  // namespace
}  // namespace logsim::properties

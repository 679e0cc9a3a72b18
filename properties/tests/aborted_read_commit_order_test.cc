// The aborted-read checker (`aborted-read`, Jepsen's G1a) and the commit-order checker
// (`nonmonotonic-commit`) on small hand-written histories: a read of a value whose send
// definitely failed is flagged in either order of failure and read, unless the send was tried
// again; a group's accepted commit going backwards within one generation is flagged, unless a
// seek came between or the generations differ.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "properties/aborted_read_checker.h"
#include "properties/checker.h"
#include "properties/commit_order_checker.h"
#include "properties/history.h"

namespace logsim::properties {
namespace {

class Events {
 public:
  explicit Events(Checker& checker) : checker_(checker) {
    history_.observe([this](const HistoryEvent& e) { checker_.observe(e); });
  }
  std::uint64_t send(OpKind kind, std::uint64_t value, const std::string& error = "") {
    HistoryEvent e = base(kind, "shop");
    e.topic = "orders";
    e.value_id = value;
    e.error = error;
    if (kind == OpKind::kSendOk) {
      e.partition = PartitionId(0);
      e.offset = Offset(static_cast<std::int64_t>(value));
    }
    return history_.append(e);
  }
  std::uint64_t process(std::uint64_t value, const std::string& member = "billing-1") {
    HistoryEvent e = base(OpKind::kProcess, member);
    e.group = "billing";
    e.generation = GenerationId(1);
    e.topic = "orders";
    e.partition = PartitionId(0);
    e.offset = Offset(static_cast<std::int64_t>(value));
    e.value_id = value;
    return history_.append(e);
  }
  std::uint64_t committed(const std::string& member, std::int32_t generation, std::int64_t offset,
                          std::int32_t partition = 0) {
    HistoryEvent e = base(OpKind::kCommitOk, member);
    e.group = "billing";
    e.generation = GenerationId(generation);
    e.topic = "orders";
    e.partition = PartitionId(partition);
    e.offset = Offset(offset);
    e.commit_id = ++commit_id_;
    return history_.append(e);
  }
  std::uint64_t seek(const std::string& member, std::int64_t offset) {
    HistoryEvent e = base(OpKind::kSeek, member);
    e.group = "billing";
    e.topic = "orders";
    e.partition = PartitionId(0);
    e.offset = Offset(offset);
    e.note = "seek to offset " + std::to_string(offset);
    return history_.append(e);
  }
  std::vector<Violation> finish() {
    checker_.finish();
    return checker_.violations();
  }

 private:
  HistoryEvent base(OpKind kind, const std::string& process) const {
    HistoryEvent e;
    e.kind = kind;
    e.process = process;
    e.at = millis(static_cast<std::int64_t>(history_.size()));
    return e;
  }
  Checker& checker_;
  History history_;
  std::uint64_t commit_id_ = 0;
};

// --- aborted-read ---------------------------------------------------------------------------

TEST(AbortedReadChecker, AReadOfAValueWhoseSendFailedIsFlaggedAtTheRead) {
  AbortedReadChecker c;
  Events h(c);
  h.send(OpKind::kSendInvoke, 7);
  const std::uint64_t failed = h.send(OpKind::kSendFail, 7, "NOT_LEADER_OR_FOLLOWER");
  const std::uint64_t read = h.process(7);
  h.process(7, "audit-1");  // one report per value
  const auto v = h.finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "aborted-read");
  EXPECT_EQ(v[0].first_event, read);
  EXPECT_EQ(v[0].process, "billing-1");
  EXPECT_EQ(v[0].offset, Offset(7));
  EXPECT_EQ(v[0].members, (std::vector<std::string>{"shop", "billing-1"}));
  EXPECT_NE(v[0].explanation.find("definitely failed (event #" + std::to_string(failed) + ")"), std::string::npos)
      << v[0].explanation;
}

TEST(AbortedReadChecker, AReadBeforeTheFailureIsFlaggedAtTheFailure) {
  // KAFKA-13574: the consumer may read the record before the producer hears the error.
  AbortedReadChecker c;
  Events h(c);
  h.send(OpKind::kSendInvoke, 7);
  const std::uint64_t read = h.process(7);
  const std::uint64_t failed = h.send(OpKind::kSendFail, 7, "NOT_LEADER_OR_FOLLOWER");
  const auto v = h.finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].first_event, failed);
  EXPECT_NE(v[0].explanation.find("NOT_LEADER_OR_FOLLOWER"), std::string::npos) << v[0].explanation;
  EXPECT_NE(v[0].explanation.find("(event #" + std::to_string(read) + ")"), std::string::npos) << v[0].explanation;
}

TEST(AbortedReadChecker, UnknownOutcomesAndRetriedSendsAreNotAborted) {
  AbortedReadChecker c;
  Events h(c);
  h.send(OpKind::kSendInvoke, 1);
  h.send(OpKind::kSendInfo, 1, "REQUEST_TIMED_OUT");  // may be in the log
  h.process(1);
  h.send(OpKind::kSendInvoke, 2);
  h.send(OpKind::kSendFail, 2, "NOT_LEADER_OR_FOLLOWER");
  h.send(OpKind::kSendInvoke, 2);  // the same record tried again (an idempotent retry keeps its id)
  h.send(OpKind::kSendOk, 2);
  h.process(2);
  h.send(OpKind::kSendInvoke, 3);
  h.send(OpKind::kSendFail, 3, "RECORD_TOO_LARGE");  // failed and never read: fine
  EXPECT_TRUE(h.finish().empty());
}

// --- nonmonotonic-commit ----------------------------------------------------------------------

TEST(CommitOrderChecker, AnAcceptedCommitGoingBackwardsInOneGenerationIsFlagged) {
  CommitOrderChecker c;
  Events h(c);
  h.committed("billing-1", 3, 100);
  const std::uint64_t ahead = h.committed("billing-1", 3, 120);
  const std::uint64_t back = h.committed("billing-1", 3, 110);  // an older async commit accepted late
  h.committed("billing-1", 3, 105);  // one report per generation
  const auto v = h.finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "nonmonotonic-commit");
  EXPECT_EQ(v[0].first_event, back);
  EXPECT_EQ(v[0].offset, Offset(110));
  EXPECT_NE(v[0].explanation.find("at offset 110 after it had accepted offset 120 (event #" + std::to_string(ahead)),
            std::string::npos)
      << v[0].explanation;
}

TEST(CommitOrderChecker, NewGenerationsSeeksAndOtherPartitionsStartAfresh) {
  CommitOrderChecker c;
  Events h(c);
  h.committed("billing-1", 3, 120);
  h.committed("billing-2", 4, 100);   // a new owner in a new generation commits where it stands
  h.seek("billing-2", 50);            // a seek back, then commits from there
  h.committed("billing-2", 4, 60);
  h.committed("billing-2", 4, 5, 1);  // another partition
  h.committed("billing-2", 4, 60);    // the same offset again is no step back
  EXPECT_TRUE(h.finish().empty());
}

TEST(CommitOrderChecker, DefaultCheckersIncludeBoth) {
  const auto list = default_checker_list();
  bool aborted = false, order = false;
  for (const auto& ch : list) {
    aborted = aborted || ch->name() == "aborted-reads";
    order = order || ch->name() == "commit-order";
  }
  EXPECT_TRUE(aborted);
  EXPECT_TRUE(order);
}

}  // namespace
}  // namespace logsim::properties

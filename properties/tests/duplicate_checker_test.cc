// The duplicate checker (`duplicate`) on small hand-written histories: a value of an idempotent
// producer read at two offsets is flagged at the second; re-reading one offset is fine, and
// values of producers without idempotence are not judged.
#include "properties/duplicate_checker.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "properties/checker.h"
#include "properties/history.h"

namespace logsim::properties {
namespace {

class DuplicateCheckerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    history.observe([this](const HistoryEvent& e) { checker.observe(e); });
  }
  void invoke(std::uint64_t value, bool idempotent, const std::string& proc = "producer") {
    HistoryEvent e;
    e.kind = OpKind::kSendInvoke;
    e.process = proc;
    e.topic = "t";
    e.value_id = value;
    e.idempotent = idempotent;
    history.append(e);
  }
  std::uint64_t process(const std::string& who, std::uint64_t value, std::int32_t partition, std::int64_t offset) {
    HistoryEvent e;
    e.kind = OpKind::kProcess;
    e.process = who;
    e.topic = "t";
    e.partition = properties::known(PartitionId(partition));
    e.offset = properties::known(Offset(offset));
    e.value_id = value;
    e.at = millis(static_cast<std::int64_t>(history.size()));
    return history.append(e);
  }
  std::vector<Violation> finish() {
    checker.finish();
    return checker.violations();
  }

  History history;
  DuplicateChecker checker;
};

TEST_F(DuplicateCheckerTest, EachValueAtOneOffsetPasses) {
  invoke(1, true);
  invoke(2, true);
  process("c", 1, 0, 0);
  process("c", 2, 0, 1);
  process("d", 1, 0, 0);  // another consumer, the same offset
  process("c", 1, 0, 0);  // re-read after a seek
  EXPECT_TRUE(finish().empty());
}

TEST_F(DuplicateCheckerTest, IdempotentValueAtTwoOffsetsIsDuplicate) {
  invoke(1, true);
  invoke(2, true);
  process("c", 1, 0, 5);
  process("c", 2, 0, 6);
  const std::uint64_t second = process("d", 1, 0, 7);  // written again behind value 2
  process("c", 1, 0, 7);                               // one report per value
  const auto v = finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "duplicate");
  EXPECT_EQ(v[0].first_event, second);
  EXPECT_EQ(v[0].at, millis(static_cast<std::int64_t>(second)));
  EXPECT_EQ(v[0].process, "d");
  EXPECT_EQ(v[0].topic, "t");
  EXPECT_EQ(v[0].partition, PartitionId(0));
  EXPECT_EQ(v[0].offset, Offset(7));
  EXPECT_EQ(v[0].members, (std::vector<std::string>{"producer", "c", "d"}));
  EXPECT_NE(v[0].explanation.find("offset 5 (event #2) and again at t/0 offset 7"), std::string::npos)
      << v[0].explanation;
}

TEST_F(DuplicateCheckerTest, ValuesOfProducersWithoutIdempotenceAreNotJudged) {
  invoke(1, false);
  process("c", 1, 0, 5);
  process("c", 1, 0, 6);  // a retry after a lost response: allowed without idempotence
  EXPECT_TRUE(finish().empty());
}

TEST_F(DuplicateCheckerTest, DefaultCheckersIncludeIt) {
  CheckerSet set = default_checkers();
  History h;
  set.attach(h);
  HistoryEvent send;
  send.kind = OpKind::kSendInvoke;
  send.process = "producer";
  send.value_id = 1;
  send.idempotent = true;
  h.append(send);
  for (std::int64_t offset : {0, 1}) {
    HistoryEvent e;
    e.kind = OpKind::kProcess;
    e.process = "c";
    e.topic = "t";
    e.partition = PartitionId(0);
    e.offset = properties::known(Offset(offset));
    e.value_id = 1;
    h.append(e);
  }
  const Verdict v = set.finish();
  EXPECT_EQ(v.outcome, Outcome::kViolated);
  ASSERT_EQ(v.violations.size(), 1u);
  EXPECT_EQ(v.violations[0].anomaly, "duplicate");
}

}  // namespace
}  // namespace logsim::properties

// The send-order checker (`nonmonotonic-send`) on small hand-written histories: sends of one key
// acknowledged in invoke order pass; a later-invoked send acknowledged below an earlier one is
// flagged at the acknowledgement that completes the pair, in either order of acknowledgement.
#include "properties/send_order_checker.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "properties/checker.h"
#include "properties/history.h"

namespace logsim::properties {
namespace {

class SendOrderCheckerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    history.observe([this](const HistoryEvent& e) { checker.observe(e); });
  }
  // Each returns the event's index. A null key is a record without one.
  std::uint64_t invoke(std::uint64_t value, const char* key = "k", const std::string& proc = "p") {
    return add(OpKind::kSendInvoke, proc, value, key, -1, -1);
  }
  // A send of a producer with enable.idempotence.
  std::uint64_t invoke_idempotent(std::uint64_t value, const char* key, const std::string& proc = "p") {
    idempotent_ = true;
    const std::uint64_t i = invoke(value, key, proc);
    idempotent_ = false;
    return i;
  }
  std::uint64_t ack(std::uint64_t value, std::int64_t offset, const char* key = "k", std::int32_t partition = 0,
                    const std::string& proc = "p") {
    return add(OpKind::kSendOk, proc, value, key, partition, offset);
  }
  std::uint64_t add(OpKind kind, const std::string& proc, std::uint64_t value, const char* key,
                    std::int32_t partition, std::int64_t offset) {
    HistoryEvent e;
    e.kind = kind;
    e.process = proc;
    e.topic = "t";
    e.partition = properties::known(PartitionId(partition));
    e.offset = properties::known(Offset(offset));
    if (key != nullptr) e.key = std::string(key);
    e.value_id = value;
    e.idempotent = idempotent_;
    e.at = millis(static_cast<std::int64_t>(history.size()));
    return history.append(e);
  }
  std::vector<Violation> finish() {
    checker.finish();
    return checker.violations();
  }

  History history;
  SendOrderChecker checker;
  bool idempotent_ = false;
};

TEST_F(SendOrderCheckerTest, SendsAcknowledgedInInvokeOrderPass) {
  invoke(1);
  invoke(2);
  invoke(3);
  ack(1, 10);
  ack(3, 14);  // acknowledged out of turn, but at offsets in invoke order: fine
  ack(2, 12);
  EXPECT_TRUE(finish().empty());
}

TEST_F(SendOrderCheckerTest, LaterSendAtLowerOffsetIsNonmonotonicSend) {
  invoke(1);  // #0
  invoke(2);  // #1
  ack(2, 20);
  const std::uint64_t completing = ack(1, 21);  // the earlier send landed after the later one
  const auto v = finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "nonmonotonic-send");
  EXPECT_EQ(v[0].first_event, completing);
  EXPECT_EQ(v[0].at, millis(3));
  EXPECT_EQ(v[0].process, "p");
  EXPECT_EQ(v[0].topic, "t");
  EXPECT_EQ(v[0].partition, PartitionId(0));
  EXPECT_EQ(v[0].offset, Offset(21));
  ASSERT_TRUE(v[0].key.has_value());
  EXPECT_EQ(*v[0].key, "k");
  EXPECT_NE(v[0].explanation.find("value 1 (event #0) before value 2 (event #1)"), std::string::npos)
      << v[0].explanation;
  EXPECT_NE(v[0].explanation.find("offsets 21 and 20"), std::string::npos) << v[0].explanation;
}

TEST_F(SendOrderCheckerTest, FoundWhicheverOfThePairIsAcknowledgedSecond) {
  invoke(1);
  invoke(2);
  ack(1, 21);
  const std::uint64_t completing = ack(2, 20);  // the later send, below the earlier one
  const auto v = finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].first_event, completing);
  EXPECT_EQ(v[0].offset, Offset(20));
}

TEST_F(SendOrderCheckerTest, OnlyTheSameProducerKeyAndPartitionAreCompared) {
  invoke(1, "a");
  invoke(2, "b");
  invoke(3, "a", "q");
  invoke(4, "a");
  invoke(5, nullptr);
  invoke(6, nullptr);
  ack(2, 5, "b");          // another key
  ack(3, 4, "a", 0, "q");  // another producer
  ack(4, 7, "a", 1);       // another partition
  ack(1, 9, "a");
  ack(6, 1, nullptr);
  ack(5, 0, nullptr);  // no key: in order within its own group
  EXPECT_TRUE(finish().empty());
}

// Kafka keeps an idempotent producer's records of a partition in send order, whatever their keys.
TEST_F(SendOrderCheckerTest, AnIdempotentProducersSendsAreOrderedPerPartitionNotPerKey) {
  invoke_idempotent(1, "a");
  invoke_idempotent(2, "b");
  invoke_idempotent(3, "c");
  ack(3, 1, "c", 1);  // another partition: its own order
  ack(2, 10, "b");
  const std::uint64_t completing = ack(1, 11, "a");  // sent first, landed after a send of another key
  const auto v = finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].first_event, completing);
  EXPECT_NE(v[0].explanation.find("enable.idempotence"), std::string::npos) << v[0].explanation;
}

TEST_F(SendOrderCheckerTest, WithoutIdempotenceOnlyOneKeysSendsAreOrdered) {
  invoke(1, "a");
  invoke(2, "b");
  ack(2, 10, "b");
  ack(1, 11, "a");  // another key: Kafka promises nothing here without idempotence
  EXPECT_TRUE(finish().empty());
}

TEST_F(SendOrderCheckerTest, SendsWithoutKeyAreAGroupToo) {
  invoke(1, nullptr);
  invoke(2, nullptr);
  ack(2, 3, nullptr);
  ack(1, 4, nullptr);
  const auto v = finish();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_FALSE(v[0].key.has_value());
}

TEST_F(SendOrderCheckerTest, FailedUnknownAndOffsetlessSendsAreNotOrdered) {
  invoke(1);
  invoke(2);
  invoke(3);
  invoke(4);
  add(OpKind::kSendFail, "p", 1, "k", 0, -1);
  add(OpKind::kSendInfo, "p", 2, "k", 0, -1);
  ack(3, -1);  // acks=0: no offset
  ack(4, 0);
  EXPECT_TRUE(finish().empty());
}

TEST_F(SendOrderCheckerTest, DefaultCheckersIncludeIt) {
  CheckerSet set = default_checkers();
  History h;
  set.attach(h);
  for (const std::uint64_t value : {std::uint64_t{1}, std::uint64_t{2}}) {
    HistoryEvent e;
    e.kind = OpKind::kSendInvoke;
    e.process = "p";
    e.key = "k";
    e.value_id = value;
    h.append(e);
  }
  for (const auto& [value, offset] : {std::pair<std::uint64_t, std::int64_t>{2, 0}, {1, 1}}) {
    HistoryEvent e;
    e.kind = OpKind::kSendOk;
    e.process = "p";
    e.topic = "t";
    e.partition = PartitionId(0);
    e.key = "k";
    e.value_id = value;
    e.offset = properties::known(Offset(offset));
    h.append(e);
  }
  const Verdict v = set.finish();
  EXPECT_EQ(v.outcome, Outcome::kViolated);
  ASSERT_EQ(v.violations.size(), 1u);
  EXPECT_EQ(v.violations[0].anomaly, "nonmonotonic-send");
}

}  // namespace
}  // namespace logsim::properties

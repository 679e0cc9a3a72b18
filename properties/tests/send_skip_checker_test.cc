// int-send-skip on hand-made histories: two successive sends of one transaction to a partition
// with another producer's record stored between them. Measured always (int-send-skip.count),
// a violation only with write isolation; adjacent sends, sends of different transactions, the
// transaction's own records between, and records acknowledged before any transaction are not.
#include "properties/send_skip_checker.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace logsim::properties {
namespace {

struct Log {
  explicit Log(bool isolation) : checker(isolation) {}
  void event(OpKind kind, const std::string& process) {
    HistoryEvent e;
    e.index = index++;
    e.at = static_cast<Nanos>(e.index) * 1000;
    e.kind = kind;
    e.process = process;
    checker.observe(e);
  }
  // `process` sends `value`, acknowledged at `offset` of orders/0 (offset < 0: invoked only).
  void invoke(const std::string& process, std::uint64_t value) {
    HistoryEvent e;
    e.index = index++;
    e.kind = OpKind::kSendInvoke;
    e.process = process;
    e.topic = "orders";
    e.value_id = value;
    checker.observe(e);
  }
  void ack(const std::string& process, std::uint64_t value, std::int64_t offset) {
    HistoryEvent e;
    e.index = index++;
    e.kind = OpKind::kSendOk;
    e.process = process;
    e.topic = "orders";
    e.partition = PartitionId(0);
    e.offset = Offset(offset);
    e.value_id = value;
    checker.observe(e);
  }
  std::int64_t count() {
    checker.finish();
    std::map<std::string, std::int64_t> figures;
    checker.figures(figures);
    return figures.count("int-send-skip.count") ? figures["int-send-skip.count"] : -1;
  }
  SendSkipChecker checker;
  std::uint64_t index = 0;
};

TEST(SendSkipChecker, AnotherRecordBetweenTwoSendsOfATransactionIsASkip) {
  for (const bool isolation : {false, true}) {
    Log log(isolation);
    log.event(OpKind::kTxnBegin, "shop");
    log.invoke("shop", 1);
    log.invoke("shop", 2);
    log.invoke("other", 9);  // not in a transaction
    log.ack("shop", 1, 10);
    log.ack("other", 9, 11);
    log.ack("shop", 2, 12);
    log.event(OpKind::kTxnCommit, "shop");
    EXPECT_EQ(log.count(), 1);
    ASSERT_EQ(log.checker.violations().size(), isolation ? 1U : 0U) << "a violation only with write isolation";
    if (!isolation) continue;
    const Violation& v = log.checker.violations().front();
    EXPECT_EQ(v.anomaly, "int-send-skip");
    EXPECT_EQ(v.process, "shop");
    EXPECT_EQ(v.offset, Offset(12));
    EXPECT_NE(v.explanation.find("offset 11"), std::string::npos) << v.explanation;
  }
}

TEST(SendSkipChecker, AdjacentOwnOrSeparateTransactionsAreNoSkip) {
  Log log(true);
  log.ack("early", 7, 3);  // before any transaction: not kept
  log.event(OpKind::kTxnBegin, "shop");
  log.invoke("shop", 1);
  log.invoke("shop", 2);
  log.invoke("shop", 3);
  log.ack("shop", 1, 20);
  log.ack("shop", 3, 22);  // its own record 2 between them: no skip
  log.ack("shop", 2, 21);
  log.event(OpKind::kTxnCommit, "shop");
  log.event(OpKind::kTxnBegin, "shop");  // the next transaction: a record between transactions is fine
  log.ack("other", 8, 23);
  log.invoke("shop", 4);
  log.ack("shop", 4, 24);
  log.event(OpKind::kTxnAbort, "shop");
  // A marker (no value) between two sends is no record.
  log.event(OpKind::kTxnBegin, "shop");
  log.invoke("shop", 5);
  log.invoke("shop", 6);
  log.ack("shop", 5, 30);
  log.ack("shop", 6, 32);
  log.event(OpKind::kTxnCommit, "shop");
  EXPECT_EQ(log.count(), 0);
  EXPECT_TRUE(log.checker.violations().empty());
}

TEST(SendSkipChecker, AHistoryWithoutTransactionsHasNoFigure) {
  Log log(true);
  log.invoke("shop", 1);
  log.ack("shop", 1, 0);
  EXPECT_EQ(log.count(), -1);
}

}  // namespace
}  // namespace logsim::properties

// A user's App with Kafka's transactional producer (api/app.h, Producer's transactions): a
// transactional shop on a producer's node that commits and aborts on purpose, and a
// consume-transform-produce ledger on a group's members that copies each poll to an output
// topic in a transaction with the poll's offsets (sendOffsetsToTransaction). The wrappers record
// the transactions and the offsets as logsim's own apps do, so the checkers judge them: a clean
// run passes through a broker crash, and the engine planted with a last stable offset that
// passes open transactions is caught.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api/app.h"
#include "api/gtest.h"
#include "api/logsim.h"

namespace {

using logsim::AppContext;
using logsim::ConsumedRecord;
using logsim::OpKind;

// Transactions of five orders each, ended 30 ms after the last is acknowledged (the records sit
// in the log, undecided, meanwhile); every fourth is aborted on purpose.
class TxnShop : public logsim::App {
 public:
  void on_start(AppContext& ctx) override {
    ctx_ = &ctx;
    next();
  }

 private:
  void next() {
    logsim::Producer& p = ctx_->producer();
    if (sent_ >= kCount || p.transaction_state() == "FATAL_ERROR") return;
    if (!p.ready()) {
      ctx_->set_timer(logsim::millis(10), [this] { next(); });
      return;
    }
    EXPECT_EQ(p.begin_transaction(), "");
    pending_ = 5;
    for (int i = 0; i < 5; ++i, ++sent_) {
      p.send(ctx_->topics().front(), "k" + std::to_string(sent_ % 7), "order-" + std::to_string(sent_), {},
             [this](const logsim::SendResult&) {
               if (--pending_ == 0) ctx_->set_timer(logsim::millis(30), [this] { end(); });
             });
    }
  }
  void end() {
    logsim::Producer& p = ctx_->producer();
    const auto again = [this](const std::string&) { ctx_->set_timer(logsim::millis(20), [this] { next(); }); };
    if (++transactions_ % 4 == 0) return p.abort_transaction(again);
    p.commit_transaction([this, again](const std::string& error) {
      if (error.empty() || ctx_->producer().transaction_state() != "ABORTABLE_ERROR") return again(error);
      ctx_->producer().abort_transaction(again);
    });
  }
  static constexpr int kCount = 600;
  AppContext* ctx_ = nullptr;
  int sent_ = 0;
  int transactions_ = 0;
  int pending_ = 0;
};

// Consume-transform-produce: each poll's records copied to "ledger-out" in one transaction with
// the poll's offsets; after an abort, back to where the poll started.
class Ledger : public logsim::App {
 public:
  void on_start(AppContext& ctx) override {
    ctx_ = &ctx;
    ctx.transactional_producer("ledger-" + ctx.name());
    ctx.consumer().subscribe(ctx.topics());
    ctx.set_timer(0, [this] { poll(); });
  }

 private:
  void poll() {
    logsim::Producer& p = ctx_->producer();
    if (p.transaction_state() == "FATAL_ERROR") return;
    const std::vector<ConsumedRecord> batch = p.ready() ? ctx_->consumer().poll() : std::vector<ConsumedRecord>{};
    if (batch.empty()) {
      ctx_->set_timer(logsim::millis(10), [this] { poll(); });
      return;
    }
    EXPECT_EQ(p.begin_transaction(), "");
    std::map<logsim::TopicPartition, logsim::Offset> first, next;
    for (const ConsumedRecord& r : batch) {
      p.send("ledger-out", r.key, r.value);
      ctx_->consumer().processed(r);
      first.emplace(r.topic_partition(), r.offset);
      next[r.topic_partition()] = r.offset + 1;
    }
    p.send_offsets_to_transaction(next, ctx_->consumer());
    p.commit_transaction([this, first](const std::string& error) {
      if (error.empty()) return poll();
      const auto back = [this, first](const std::string&) {
        for (const auto& [tp, at] : first) ctx_->consumer().seek(tp, at);
        poll();
      };
      if (ctx_->producer().transaction_state() == "ABORTABLE_ERROR") return ctx_->producer().abort_transaction(back);
      back(error);
    });
  }
  AppContext* ctx_ = nullptr;
};

// The values `process` sent in transactions that committed, and in ones that aborted.
std::pair<std::set<std::uint64_t>, std::set<std::uint64_t>> outcomes(const logsim::RunOutput& out, const std::string& process) {
  std::set<std::uint64_t> committed, aborted, open;
  for (const auto& e : out.history.events()) {
    if (e.process != process) continue;
    if (e.kind == OpKind::kSendInvoke) open.insert(e.value_id);
    if (e.kind == OpKind::kTxnCommit) committed.merge(open);
    if (e.kind == OpKind::kTxnAbort) aborted.merge(open);
    if (e.kind == OpKind::kTxnCommit || e.kind == OpKind::kTxnAbort || e.kind == OpKind::kTxnInfo) open.clear();
  }
  return {committed, aborted};
}

class AppTxnTest : public ::testing::Test {
 protected:
  void SetUp() override {
    logsim::register_app("txn-shop", [] { return std::make_unique<TxnShop>(); });
    logsim::register_app("ledger", [] { return std::make_unique<Ledger>(); });
  }
  void TearDown() override {
    logsim::unregister_app("txn-shop");
    logsim::unregister_app("ledger");
  }
  static nlohmann::json scenario(const std::string& plant) {
    nlohmann::json s = nlohmann::json::parse(R"({
      "name": "users-transactions", "duration": "20s", "quiesce": "20s", "seed": 3,
      "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "min.insync.replicas": 2,
                                           "offsets.topic.num.partitions": 1, "transaction.state.log.num.partitions": 1}},
      "topics": [{"name": "orders", "partitions": 2}, {"name": "ledger-out", "partitions": 2}],
      "producers": [{"name": "shop", "topic": "orders", "app": "txn-shop",
                     "config": {"transactional.id": "shop-tx", "request.timeout.ms": 2000}}],
      "groups": [
        {"name": "ledger", "topics": ["orders"], "members": 2, "app": "ledger",
         "config": {"auto.offset.reset": "earliest", "isolation.level": "read_committed",
                    "session.timeout.ms": 6000, "heartbeat.interval.ms": 1000}},
        {"name": "audit", "topics": ["orders"], "members": 1, "commit": "after-each-batch",
         "config": {"auto.offset.reset": "earliest", "isolation.level": "read_committed"}},
        {"name": "ledger-audit", "topics": ["ledger-out"], "members": 1, "commit": "after-each-batch",
         "config": {"auto.offset.reset": "earliest", "isolation.level": "read_committed"}}
      ],
      "timeline": [{"at": "6s", "action": "crash", "target": "broker-2"}, {"at": "9s", "action": "restart", "target": "broker-2"}]
    })");
    if (!plant.empty()) s["plant"] = {plant};
    return s;
  }
};

TEST_F(AppTxnTest, AnAppsTransactionsAreRecordedAndPassTheCheckers) {
  const logsim::RunOutput out = logsim::run(logsim::scenario_from_json(scenario("")));
  EXPECT_TRUE(logsim::testing::Passed(out)) << logsim::describe(out);
  const auto count = [&out](OpKind kind, const std::string& process) {
    return logsim::events(out.history, {.kind = kind, .process = process}).size();
  };
  // The shop: 120 transactions, one in four aborted on purpose; the first begin names the id.
  EXPECT_GE(count(OpKind::kTxnCommit, "shop"), 80u);
  EXPECT_GE(count(OpKind::kTxnAbort, "shop"), 25u);
  EXPECT_EQ(count(OpKind::kTxnCommitInvoke, "shop"), count(OpKind::kTxnCommit, "shop") + count(OpKind::kTxnInfo, "shop"));
  const auto begins = logsim::events(out.history, {.kind = OpKind::kTxnBegin, .process = "shop"});
  ASSERT_FALSE(begins.empty());
  EXPECT_EQ(begins.front().key, std::optional<std::string>("shop-tx"));
  // The audit group read every value of a committed transaction and none of an aborted one.
  const auto [committed, aborted] = outcomes(out, "shop");
  std::set<std::uint64_t> audited;
  for (const auto& e : logsim::events(out.history, {.kind = OpKind::kProcess, .group = "audit"})) audited.insert(e.value_id);
  for (const std::uint64_t v : committed) EXPECT_TRUE(audited.count(v)) << "committed value " << v << " never read";
  for (const std::uint64_t v : aborted) EXPECT_FALSE(audited.count(v)) << "aborted value " << v << " read";
  // The ledger: its offsets are the group's commits, made only with their transactions.
  std::size_t in_txn_ok = 0;
  for (const auto& e : logsim::events(out.history, {.kind = OpKind::kCommitOk, .group = "ledger"})) in_txn_ok += e.note == "in a transaction";
  EXPECT_GT(in_txn_ok, 0u);
  EXPECT_GT(count(OpKind::kTxnCommit, "ledger-1") + count(OpKind::kTxnCommit, "ledger-2"), 0u);
  // What ledger-audit read of ledger-out is exactly the ledger's committed copies, one per
  // committed order.
  std::set<std::uint64_t> copies;
  for (const char* member : {"ledger-1", "ledger-2"}) copies.merge(outcomes(out, member).first);
  std::set<std::uint64_t> read;
  for (const auto& e : logsim::events(out.history, {.kind = OpKind::kProcess, .group = "ledger-audit"})) read.insert(e.value_id);
  EXPECT_EQ(read, copies);
  EXPECT_EQ(copies.size(), committed.size()) << "each committed order copied once into ledger-out";
}

// The same apps against a broker whose last stable offset passes open transactions
// (lso-past-open-transaction): the read_committed audit reads records before their commit.
TEST_F(AppTxnTest, ALastStableOffsetPastOpenTransactionsIsCaught) {
  const logsim::RunOutput out = logsim::run(logsim::scenario_from_json(scenario("lso-past-open-transaction")));
  EXPECT_TRUE(logsim::found(out, "precommitted-read") || logsim::found(out, "aborted-read")) << logsim::describe(out);
}

}  // namespace

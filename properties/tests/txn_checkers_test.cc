// The checkers on histories with transactions (txn-begin ... txn-commit / txn-abort / txn-info):
// a read_committed consumer that passes an aborted transaction's records skips nothing and loses
// nothing (lost-write, poll-skip, lost-commit, unseen excuse them), but reading one is an
// `aborted-read`, whichever of the read and the abort comes first; a committed transaction's
// records are owed like any acknowledged send; a transaction whose outcome is unknown (never
// ended, or its producer began another) is excused until a read_committed reader sees a record
// of it; a fenced producer's acknowledged write is a `zombie-write`.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "properties/aborted_read_checker.h"
#include "properties/eos_checker.h"
#include "properties/checker.h"
#include "properties/group_checkers.h"
#include "properties/history.h"
#include "properties/log_checker.h"
#include "properties/poll_skip_checker.h"
#include "properties/txn_witness.h"
#include "properties/zombie_write_checker.h"

namespace logsim::properties {
namespace {

const std::set<std::string> kNotCompacted;

class Txns {
 public:
  explicit Txns(Checker& checker) : checker_(checker) {
    history_.observe([this](const HistoryEvent& e) { checker_.observe(e); });
  }
  void txn(OpKind kind) { history_.append(base(kind, "shop")); }
  // A send by "shop", acknowledged at `offset`.
  void sent(std::uint64_t value, std::int64_t offset) {
    HistoryEvent e = base(OpKind::kSendInvoke, "shop");
    e.topic = "orders";
    e.value_id = value;
    history_.append(e);
    e = base(OpKind::kSendOk, "shop");
    e.topic = "orders";
    e.value_id = value;
    e.partition = PartitionId(0);
    e.offset = Offset(offset);
    history_.append(e);
  }
  void assign(const std::string& group = "") {
    HistoryEvent e = base(OpKind::kAssign, "reader");
    e.group = group;
    if (!group.empty()) e.generation = GenerationId(1);
    e.assignment = {TopicPartition{"orders", PartitionId(0)}};
    history_.append(e);
  }
  void process(std::uint64_t value, std::int64_t offset, bool read_committed = true, const std::string& group = "") {
    HistoryEvent e = base(OpKind::kProcess, "reader");
    e.group = group;
    if (!group.empty()) e.generation = GenerationId(1);
    e.topic = "orders";
    e.partition = PartitionId(0);
    e.offset = Offset(offset);
    e.value_id = value;
    e.read_committed = read_committed;
    history_.append(e);
  }
  void committed(std::int64_t offset) {
    HistoryEvent e = base(OpKind::kCommitInvoke, "reader");
    e.group = "g";
    e.generation = GenerationId(1);
    e.topic = "orders";
    e.partition = PartitionId(0);
    e.offset = Offset(offset);
    e.commit_id = 1;
    history_.append(e);
    e.kind = OpKind::kCommitOk;
    history_.append(e);
  }
  std::vector<std::string> finish() {
    checker_.finish();
    std::vector<std::string> out;
    for (const Violation& v : checker_.violations()) out.push_back(v.anomaly + "@" + std::to_string(v.first_event));
    return out;
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
};

// A plain record at 0, a transaction of values 2 and 3 at offsets 1 and 2 (its marker at 3)
// that ends with `first_end`, and a committed transaction of value 4 at offset 4. The reader
// processes offsets 0 and 4 only, as a read_committed consumer does when the first aborted.
void two_transactions(Txns& t, OpKind first_end, const std::string& group = "") {
  t.sent(1, 0);
  t.txn(OpKind::kTxnBegin);
  t.sent(2, 1);
  t.sent(3, 2);
  t.txn(first_end);
  t.txn(OpKind::kTxnBegin);
  t.sent(4, 4);
  t.txn(OpKind::kTxnCommit);
  t.assign(group);
  t.process(1, 0, true, group);
  t.process(4, 4, true, group);
}

TEST(TxnCheckers, AReadCommittedConsumerPassingAnAbortedTransactionLosesAndSkipsNothing) {
  for (const OpKind end : {OpKind::kTxnAbort, OpKind::kTxnInfo}) {
    LogChecker log(kNotCompacted);
    Txns a(log);
    two_transactions(a, end);
    EXPECT_TRUE(a.finish().empty());
    PollSkipChecker skips(PollSkipChecker::Options{kNotCompacted});
    Txns b(skips);
    two_transactions(b, end);
    EXPECT_TRUE(b.finish().empty());
  }
}

TEST(TxnCheckers, ACommittedTransactionsRecordsAreOwed) {
  LogChecker log(kNotCompacted);
  Txns a(log);
  two_transactions(a, OpKind::kTxnCommit);
  EXPECT_EQ(a.finish(), (std::vector<std::string>{"lost-write@14", "lost-write@14"}));
  PollSkipChecker skips(PollSkipChecker::Options{kNotCompacted});
  Txns b(skips);
  two_transactions(b, OpKind::kTxnCommit);
  EXPECT_EQ(b.finish(), std::vector<std::string>{"poll-skip@14"});
}

TEST(TxnCheckers, ATransactionLeftOpenByARestartIsExcused) {
  LogChecker log(kNotCompacted);
  Txns t(log);
  t.sent(1, 0);
  t.txn(OpKind::kTxnBegin);
  t.sent(2, 1);                // the producer crashed here; its next incarnation begins anew
  t.txn(OpKind::kTxnBegin);
  t.sent(4, 3);
  t.txn(OpKind::kTxnCommit);
  t.assign();
  t.process(1, 0);
  t.process(4, 3);
  EXPECT_TRUE(t.finish().empty());
}

TEST(TxnCheckers, GroupsOweNoAbortedRecord) {
  for (const OpKind end : {OpKind::kTxnAbort, OpKind::kTxnCommit}) {
    LostCommitChecker lost(kNotCompacted);
    Txns a(lost);
    two_transactions(a, end, "g");
    a.committed(5);
    UnseenChecker unseen(millis(1000), kNotCompacted);
    Txns b(unseen);
    two_transactions(b, end, "g");
    if (end == OpKind::kTxnAbort) {
      EXPECT_TRUE(a.finish().empty());
      EXPECT_TRUE(b.finish().empty());
    } else {
      EXPECT_EQ(a.finish(), std::vector<std::string>{"lost-commit@16"});
      EXPECT_EQ(b.finish(), std::vector<std::string>{"unseen@4"});
    }
  }
}

TEST(TxnCheckers, AReadCommittedReadOfAnAbortedTransactionIsAnAbortedReadEitherWayRound) {
  {  // read after the abort
    AbortedReadChecker c;
    Txns t(c);
    t.txn(OpKind::kTxnBegin);
    t.sent(2, 0);
    t.txn(OpKind::kTxnAbort);
    t.assign();
    t.process(2, 0);
    EXPECT_EQ(t.finish(), std::vector<std::string>{"aborted-read@5"});
  }
  {  // read before the abort's answer reached the producer
    AbortedReadChecker c;
    Txns t(c);
    t.txn(OpKind::kTxnBegin);
    t.sent(2, 0);
    t.assign();
    t.process(2, 0);
    t.process(2, 0);  // reported once
    t.txn(OpKind::kTxnAbort);
    EXPECT_EQ(t.finish(), std::vector<std::string>{"aborted-read@6"});
  }
}

TEST(TxnCheckers, ReadUncommittedOrCommittedOrUnknownReadsAreNoAbortedReads) {
  for (const OpKind end : {OpKind::kTxnAbort, OpKind::kTxnCommit, OpKind::kTxnInfo}) {
    AbortedReadChecker c;
    Txns t(c);
    t.txn(OpKind::kTxnBegin);
    t.sent(2, 0);
    t.txn(end);
    t.assign();
    t.process(2, 0, /*read_committed=*/end != OpKind::kTxnAbort);
    EXPECT_TRUE(t.finish().empty()) << op_kind_name(end);
  }
}

// precommitted-read: a read_committed read of a transaction's record before its producer asked
// to commit it (txn-commit-invoke), even though the transaction then commits. Reads after the
// invoke (the commit decided, its markers written, before the producer hears back), reads under
// read_uncommitted, and histories whose producers record no invoke are not judged.
TEST(TxnCheckers, AReadCommittedReadBeforeTheCommitWasAskedForIsAPrecommittedRead) {
  {
    AbortedReadChecker c;
    Txns t(c);
    t.txn(OpKind::kTxnBegin);
    t.sent(2, 0);
    t.sent(3, 1);
    t.assign();
    t.process(3, 1);
    t.txn(OpKind::kTxnCommitInvoke);  // event 7: shows that the read came first
    t.txn(OpKind::kTxnCommit);
    EXPECT_EQ(t.finish(), std::vector<std::string>{"precommitted-read@7"});
  }
  {
    AbortedReadChecker c;
    Txns t(c);
    t.txn(OpKind::kTxnBegin);
    t.sent(2, 0);
    t.assign();
    t.process(2, 0, /*read_committed=*/false);  // read_uncommitted may read it
    t.txn(OpKind::kTxnCommitInvoke);
    t.process(2, 0);  // after the invoke: the commit may be decided
    t.txn(OpKind::kTxnCommit);
    t.txn(OpKind::kTxnBegin);
    t.sent(3, 2);
    t.process(3, 2);  // no txn-commit-invoke recorded for this one: not judged
    t.txn(OpKind::kTxnCommit);
    EXPECT_TRUE(t.finish().empty());
  }
}

// An unknown transaction a read_committed reader saw a record of committed: its other records
// are owed. Here the reader processes value 2 (offset 1) of it and then passes value 3.
TEST(TxnCheckers, AnUnknownTransactionPartlyVisibleUnderReadCommittedIsALoss) {
  for (const bool read_committed : {true, false}) {
    const auto history = [&](Txns& t) {
      t.txn(OpKind::kTxnBegin);
      t.sent(2, 1);
      t.sent(3, 2);
      t.txn(OpKind::kTxnInfo);
      t.txn(OpKind::kTxnBegin);
      t.sent(4, 4);
      t.txn(OpKind::kTxnCommit);
      t.assign();
      t.process(2, 1, read_committed);
      t.process(4, 4, read_committed);
    };
    LogChecker log(kNotCompacted);
    Txns a(log);
    history(a);
    PollSkipChecker skips(PollSkipChecker::Options{kNotCompacted});
    Txns b(skips);
    history(b);
    if (read_committed) {
      EXPECT_EQ(a.finish(), std::vector<std::string>{"lost-write@12"});
      EXPECT_EQ(b.finish(), std::vector<std::string>{"poll-skip@12"});
    } else {  // a read_uncommitted read proves nothing of the outcome
      EXPECT_TRUE(a.finish().empty());
      EXPECT_TRUE(b.finish().empty());
    }
  }
}

class Zombies {
 public:
  Zombies() {
    history_.observe([this](const HistoryEvent& e) { checker_.observe(e); });
  }
  // A txn-begin; `init`: the first after initTransactions(), naming the transactional.id.
  void begin(const std::string& process, bool init) {
    HistoryEvent e = base(OpKind::kTxnBegin, process);
    if (init) e.key = "payments-tx";
    history_.append(e);
  }
  void invoke(const std::string& process, std::uint64_t value) {
    HistoryEvent e = base(OpKind::kSendInvoke, process);
    e.topic = "payments";
    e.value_id = value;
    history_.append(e);
  }
  void outcome(const std::string& process, std::uint64_t value, bool ok) {
    HistoryEvent e = base(ok ? OpKind::kSendOk : OpKind::kSendFail, process);
    e.topic = "payments";
    e.value_id = value;
    if (ok) {
      e.partition = PartitionId(0);
      e.offset = Offset(static_cast<std::int64_t>(value));
    }
    history_.append(e);
  }
  std::vector<std::string> finish() {
    checker_.finish();
    std::vector<std::string> out;
    for (const Violation& v : checker_.violations()) out.push_back(v.anomaly + "@" + std::to_string(v.first_event));
    return out;
  }

 private:
  HistoryEvent base(OpKind kind, const std::string& process) const {
    HistoryEvent e;
    e.kind = kind;
    e.process = process;
    e.at = millis(static_cast<std::int64_t>(history_.size()));
    return e;
  }
  ZombieWriteChecker checker_;
  History history_;
};

TEST(ZombieWrites, AFencedProducersAcknowledgedWriteIsAZombieWrite) {
  Zombies z;
  z.begin("a", true);
  z.invoke("a", 1);
  z.begin("b", true);    // b's initTransactions fenced a (event 2)
  z.outcome("a", 1, true);  // in flight before: may land
  z.invoke("a", 2);
  z.invoke("a", 3);
  z.outcome("a", 2, false);  // refused, as it must be
  z.outcome("a", 3, true);   // accepted: event 7
  z.invoke("b", 4);
  z.outcome("b", 4, true);
  EXPECT_EQ(z.finish(), std::vector<std::string>{"zombie-write@7"});
}

TEST(ZombieWrites, OnlyAnInitFencesAndANewInitLiftsIt) {
  Zombies z;
  z.begin("a", true);
  z.begin("b", true);   // fences a
  z.begin("a", false);  // a's next transaction, as a zombie begins it locally: fences nobody
  z.invoke("b", 1);
  z.outcome("b", 1, true);
  z.begin("a", true);   // a restarted and initialized again: it fences b
  z.invoke("a", 2);
  z.outcome("a", 2, true);
  EXPECT_TRUE(z.finish().empty());
}

// An exactly-once pipeline "copier" reads input values 1 and 2 and copies each into the output in
// a transaction: outputs 11 and 12. It copies input 1 again (output 21) in a transaction that
// aborts: no duplicate. A copy in a committed transaction, or one a read_committed reader saw,
// is committed: two committed copies of input 2 (12, and 22 read under read_committed) are one
// eos-duplicate.
TEST(EosChecker, TwoCommittedCopiesOfOneInputAreAnEosDuplicate) {
  Symbols symbols;
  History h;
  EosChecker c;
  h.observe([&](const HistoryEvent& e) { c.observe(e); });
  const auto txn = [&](OpKind end, std::vector<std::pair<std::uint64_t, std::uint64_t>> copies) {
    HistoryEvent b;
    b.kind = OpKind::kTxnBegin;
    b.process = "copier";
    h.append(b);
    for (const auto& [output, input] : copies) {
      HistoryEvent s;
      s.kind = OpKind::kSendInvoke;
      s.process = "copier";
      s.topic = "out";
      s.value_id = output;
      s.source_value_id = input;
      h.append(s);
    }
    HistoryEvent x;
    x.kind = end;
    x.process = "copier";
    h.append(x);
  };
  const auto read = [&](std::uint64_t value, bool read_committed) {
    HistoryEvent p;
    p.kind = OpKind::kProcess;
    p.process = "sink";
    p.topic = "out";
    p.partition = PartitionId(0);
    p.offset = Offset(static_cast<std::int64_t>(value));
    p.value_id = value;
    p.read_committed = read_committed;
    h.append(p);
  };
  txn(OpKind::kTxnCommit, {{11, 1}, {12, 2}});
  txn(OpKind::kTxnAbort, {{21, 1}});
  read(11, true);
  read(11, true);   // a value read again is no second copy
  read(21, false);  // read_uncommitted: proves nothing
  txn(OpKind::kTxnInfo, {{22, 2}});
  EXPECT_TRUE(c.violations().empty());
  read(22, true);   // event 13: the unknown copy committed
  c.finish();
  ASSERT_EQ(c.violations().size(), 1u);
  EXPECT_EQ(c.violations()[0].anomaly, "eos-duplicate");
  EXPECT_EQ(c.violations()[0].first_event, 13u);
}

// A pipeline member "m" of group "copier" processes input records and copies each in the
// transaction open at the time. eos-lost is an input record whose every copy aborted while the
// group committed a copy of a later record of its partition; a copy of unknown outcome, a later
// committed copy of the same record, or a seek of the group past it excuses it. An input value
// that is in the log twice (a producer's duplicate) is two records: copying each is no
// eos-duplicate.
class Pipeline {
 public:
  Pipeline() { h_.observe([&](const HistoryEvent& e) { c_.observe(e); }); }
  // Processes the input record at `offset` of orders/`partition` and copies it as `copy`.
  void copy(int partition, std::int64_t offset, std::uint64_t input, std::uint64_t copy) {
    HistoryEvent p = at(OpKind::kProcess, partition, offset);
    p.value_id = input;
    p.read_committed = true;
    h_.append(p);
    HistoryEvent s;
    s.kind = OpKind::kSendInvoke;
    s.process = "m";
    s.topic = "enriched";
    s.value_id = copy;
    s.source_value_id = input;
    h_.append(s);
  }
  void txn(OpKind kind) {
    HistoryEvent e;
    e.kind = kind;
    e.process = "m";
    h_.append(e);
  }
  void seek(int partition, std::int64_t offset) { h_.append(at(OpKind::kSeek, partition, offset)); }
  std::vector<std::string> finish() {
    c_.finish();
    std::vector<std::string> out;
    for (const auto& v : c_.violations()) {
      out.push_back(v.anomaly + "@" + std::to_string(v.first_event) + ":" + v.topic + "/" +
                    std::to_string(v.partition ? v.partition->value() : -1) + "+" +
                    std::to_string(v.offset ? v.offset->value() : -1));
    }
    return out;
  }
  std::uint64_t next() const { return h_.size(); }

 private:
  static HistoryEvent at(OpKind kind, int partition, std::int64_t offset) {
    HistoryEvent e;
    e.kind = kind;
    e.process = "m";
    e.group = "copier";
    e.topic = "orders";
    e.partition = PartitionId(partition);
    e.offset = Offset(offset);
    return e;
  }
  History h_;
  EosChecker c_;
};

TEST(EosChecker, AnInputRecordWhoseCopiesAllAbortedIsLostOnceTheGroupCommitsPastIt) {
  Pipeline p;
  // orders/0: input 1 copied only in an aborted transaction, then input 2 committed: lost.
  p.txn(OpKind::kTxnBegin);
  p.copy(0, 0, 1, 101);
  p.txn(OpKind::kTxnAbort);
  p.txn(OpKind::kTxnBegin);
  p.copy(0, 1, 2, 102);
  const std::uint64_t lost_at = p.next();
  p.txn(OpKind::kTxnCommit);
  // orders/1: input 3 aborted, then copied again and committed with input 4: not lost.
  p.txn(OpKind::kTxnBegin);
  p.copy(1, 0, 3, 103);
  p.txn(OpKind::kTxnAbort);
  p.txn(OpKind::kTxnBegin);
  p.copy(1, 0, 3, 113);
  p.copy(1, 1, 4, 104);
  p.txn(OpKind::kTxnCommit);
  // orders/2: input 5's copy has an unknown outcome (it may have committed), then input 6 commits.
  p.txn(OpKind::kTxnBegin);
  p.copy(2, 0, 5, 105);
  p.txn(OpKind::kTxnInfo);
  p.txn(OpKind::kTxnBegin);
  p.copy(2, 1, 6, 106);
  p.txn(OpKind::kTxnCommit);
  // orders/3: input 7 aborted, then the group seeks past it (a reset), and input 8 commits.
  p.txn(OpKind::kTxnBegin);
  p.copy(3, 0, 7, 107);
  p.txn(OpKind::kTxnAbort);
  p.seek(3, 1);
  p.txn(OpKind::kTxnBegin);
  p.copy(3, 1, 8, 108);
  p.txn(OpKind::kTxnCommit);
  // orders/4: value 9 is in the log twice (offsets 0 and 1); each record is copied once.
  p.txn(OpKind::kTxnBegin);
  p.copy(4, 0, 9, 109);
  p.copy(4, 1, 9, 119);
  p.txn(OpKind::kTxnCommit);
  // orders/5: input 10 aborted, and nothing later of its partition committed: not (yet) lost.
  p.txn(OpKind::kTxnBegin);
  p.copy(5, 0, 10, 110);
  p.txn(OpKind::kTxnAbort);
  EXPECT_EQ(p.finish(), std::vector<std::string>{"eos-lost@" + std::to_string(lost_at) + ":orders/0+0"});
}

TEST(EosChecker, TheSameRecordCopiedTwiceIntoCommittedTransactionsIsADuplicate) {
  Pipeline p;
  p.txn(OpKind::kTxnBegin);
  p.copy(0, 0, 1, 101);
  p.txn(OpKind::kTxnCommit);
  p.txn(OpKind::kTxnBegin);
  p.copy(0, 0, 1, 111);  // processed again from offset 0: its offsets were not committed with it
  const std::uint64_t second = p.next();
  p.txn(OpKind::kTxnCommit);
  EXPECT_EQ(p.finish(), std::vector<std::string>{"eos-duplicate@" + std::to_string(second) + ":/-1+-1"});
}

TEST(TxnWitness, KnowsEachValuesTransactionOutcome) {
  Symbols symbols;
  History h;
  TxnWitness w;
  h.observe([&](const HistoryEvent& e) { w.observe(e, symbols.ids_of(e)); });
  auto event = [&](OpKind kind, const std::string& process, std::uint64_t value = 0) {
    HistoryEvent e;
    e.kind = kind;
    e.process = process;
    e.value_id = value;
    h.append(e);
  };
  event(OpKind::kSendInvoke, "a", 1);  // before any transaction
  EXPECT_FALSE(w.any());
  event(OpKind::kTxnBegin, "a");
  event(OpKind::kSendInvoke, "a", 2);
  event(OpKind::kTxnBegin, "b");
  event(OpKind::kSendInvoke, "b", 3);
  EXPECT_TRUE(w.excused(2));  // open
  event(OpKind::kTxnCommit, "a");
  event(OpKind::kSendInvoke, "a", 4);  // outside a transaction
  event(OpKind::kTxnAbort, "b");
  EXPECT_FALSE(w.excused(1));
  EXPECT_FALSE(w.excused(2));
  EXPECT_TRUE(w.aborted(3));
  EXPECT_EQ(w.abort_event(3), 7u);
  EXPECT_FALSE(w.excused(4));
  event(OpKind::kTxnBegin, "a");
  event(OpKind::kSendInvoke, "a", 5);
  event(OpKind::kTxnInfo, "a");
  EXPECT_TRUE(w.excused(5));
  EXPECT_FALSE(w.aborted(5));
}

}  // namespace
}  // namespace logsim::properties

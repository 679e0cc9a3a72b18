// Bundled scenarios with Kafka transactions (and an exactly-once pipeline, at the end). scenarios/transactions-survive-coordinator-
// failover.json: a transactional producer commits most transactions and aborts some while every
// broker crashes in turn. The history records each transaction; the read_committed group sees
// every committed transaction whole and nothing of an aborted one, while the read_uncommitted
// auditor does see aborted records — and the checkers would call that an aborted-read had the
// auditor read committed (shown by replaying its history so marked).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "properties/checker.h"
#include "scenarios/loader.h"
#include "scenarios/runner.h"

namespace logsim::scenarios {
namespace {

using properties::HistoryEvent;
using properties::OpKind;

struct Txn {
  std::vector<std::uint64_t> values;
  OpKind end = OpKind::kTxnInfo;  // never ended: unknown
};

std::vector<Txn> transactions(const properties::History& h) {
  std::vector<Txn> out;
  bool open = false;
  for (const HistoryEvent& e : h.events()) {
    if (e.process != "checkout") continue;
    if (e.kind == OpKind::kTxnBegin) {
      out.push_back({});
      open = true;
    } else if (e.kind == OpKind::kSendInvoke) {
      EXPECT_TRUE(open) << "a transactional producer's send outside a transaction, event #" << e.index;
      if (open) out.back().values.push_back(e.value_id);
    } else if (e.kind == OpKind::kTxnCommit || e.kind == OpKind::kTxnAbort || e.kind == OpKind::kTxnInfo) {
      EXPECT_TRUE(open);
      if (open) out.back().end = e.kind;
      open = false;
    }
  }
  return out;
}

TEST(TxnScenario, CommittedTransactionsAreReadWholeAndAbortedOnesOnlyUncommitted) {
  const Scenario s = load_scenario_file(LOGSIM_SOURCE_DIR "/scenarios/transactions-survive-coordinator-failover.json");
  const RunOutput out = run_scenario(s, {s.seed, false});
  EXPECT_EQ(out.result.verdict.outcome, properties::Outcome::kPass);
  EXPECT_TRUE(out.result.expectation_met) << out.result.expectation_detail;

  std::set<std::uint64_t> ledger, auditor;
  bool ledger_read_committed = true;
  for (const HistoryEvent& e : out.history.events()) {
    if (e.kind != OpKind::kProcess) continue;
    if (e.group == "ledger") {
      ledger.insert(e.value_id);
      ledger_read_committed = ledger_read_committed && e.read_committed;
    } else if (e.process == "auditor") {
      auditor.insert(e.value_id);
      EXPECT_FALSE(e.read_committed);
    }
  }
  EXPECT_TRUE(ledger_read_committed);
  std::map<OpKind, int> ends;
  int aborted_seen_by_auditor = 0;
  for (const Txn& t : transactions(out.history)) {
    ++ends[t.end];
    for (const std::uint64_t v : t.values) {
      if (t.end == OpKind::kTxnCommit) {
        EXPECT_TRUE(ledger.count(v)) << "committed value " << v << " not read by ledger";
      }
      if (t.end == OpKind::kTxnAbort) {
        EXPECT_FALSE(ledger.count(v)) << "aborted value " << v << " read under read_committed";
        aborted_seen_by_auditor += static_cast<int>(auditor.count(v));
      }
    }
  }
  EXPECT_GE(ends[OpKind::kTxnCommit], 100);
  EXPECT_GE(ends[OpKind::kTxnAbort], 20);
  EXPECT_GT(aborted_seen_by_auditor, 0) << "the read_uncommitted auditor should see aborted records";

  // The same history with the auditor marked read_committed: its reads of aborted records are
  // aborted-reads.
  properties::CheckerSet checkers = properties::default_checkers(checker_options(s));
  for (HistoryEvent e : out.history.events()) {
    if (e.kind == OpKind::kProcess && e.process == "auditor") e.read_committed = true;
    checkers.observe(e);
  }
  const properties::Verdict marked = checkers.finish();
  int aborted_reads = 0;
  for (const auto& v : marked.violations) aborted_reads += v.anomaly == "aborted-read";
  EXPECT_EQ(aborted_reads, aborted_seen_by_auditor);
}

// scenarios/zombie-producer-is-fenced.json: a paused producer's transactional.id is taken over
// by a second instance; on waking it is fenced, its open transaction was aborted, and nothing it
// sent after the takeover is acknowledged or read under read_committed.
TEST(TxnScenario, AZombieProducerIsFencedAndItsLastTransactionHidden) {
  const Scenario s = load_scenario_file(LOGSIM_SOURCE_DIR "/scenarios/zombie-producer-is-fenced.json");
  const RunOutput out = run_scenario(s, {s.seed, false});
  EXPECT_EQ(out.result.verdict.outcome, properties::Outcome::kPass);
  std::vector<std::uint64_t> last_txn;  // checkout-a's last transaction's values
  HistoryEvent last_end;
  int b_commits = 0, b_other_ends = 0, a_acks_after_takeover = 0;
  std::set<std::uint64_t> ledger;
  for (const HistoryEvent& e : out.history.events()) {
    if (e.process == "checkout-a") {
      if (e.kind == OpKind::kTxnBegin) last_txn.clear();
      if (e.kind == OpKind::kSendInvoke) last_txn.push_back(e.value_id);
      if (e.kind == OpKind::kTxnCommit || e.kind == OpKind::kTxnAbort || e.kind == OpKind::kTxnInfo) last_end = e;
      if (e.kind == OpKind::kSendOk && e.at > seconds(12)) ++a_acks_after_takeover;
    } else if (e.process == "checkout-b") {
      b_commits += e.kind == OpKind::kTxnCommit;
      b_other_ends += e.kind == OpKind::kTxnAbort || e.kind == OpKind::kTxnInfo;
    } else if (e.kind == OpKind::kProcess && e.group == "ledger") {
      ledger.insert(e.value_id);
    }
  }
  EXPECT_EQ(last_end.kind, OpKind::kTxnInfo);
  EXPECT_EQ(last_end.error, "PRODUCER_FENCED");
  EXPECT_GE(last_end.at, seconds(16)) << "fenced when it woke";
  EXPECT_EQ(a_acks_after_takeover, 0);
  EXPECT_EQ(b_commits, 100);
  EXPECT_EQ(b_other_ends, 0);
  ASSERT_FALSE(last_txn.empty());
  for (const std::uint64_t v : last_txn) EXPECT_FALSE(ledger.count(v)) << "value " << v << " of the zombie's transaction";
}

// scenarios/exactly-once-pipeline-through-broker-crashes.json: the enricher group copies every
// order to enriched-orders in transactions while brokers crash, a member crashes and a member
// is paused past its session (a zombie whose offsets KIP-447's generation check refuses). Read
// straight from the history, not through the checkers: every acknowledged order has exactly one
// copy that the read_committed billing group read, although transactions aborted and orders
// were processed more than once.
TEST(TxnScenario, AnExactlyOncePipelineCopiesEveryOrderOnceThroughCrashes) {
  const Scenario s = load_scenario_file(LOGSIM_SOURCE_DIR "/scenarios/exactly-once-pipeline-through-broker-crashes.json");
  int aborts = 0, fenced_offsets = 0, reprocessed = 0;
  for (const std::uint64_t seed : {s.seed, std::uint64_t{2}, std::uint64_t{6}}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const RunOutput out = run_scenario(s, {seed, false});
    EXPECT_EQ(out.result.verdict.outcome, properties::Outcome::kPass);
    std::set<std::uint64_t> orders;                  // acknowledged inputs
    std::map<std::uint64_t, std::uint64_t> source;   // copy -> its input
    std::map<std::uint64_t, int> processed;          // input -> times the enricher processed it
    std::map<std::uint64_t, std::set<std::uint64_t>> billed;  // input -> its copies billing read
    for (const HistoryEvent& e : out.history.events()) {
      if (e.process == "shop" && e.kind == OpKind::kSendOk) orders.insert(e.value_id);
      if (e.kind == OpKind::kSendInvoke && e.source_value_id != 0) source[e.value_id] = e.source_value_id;
      if (e.kind == OpKind::kProcess && e.group == "enricher") ++processed[e.value_id];
      if (e.kind == OpKind::kProcess && e.group == "billing") {
        EXPECT_TRUE(e.read_committed);
        ASSERT_TRUE(source.count(e.value_id)) << "billing read value " << e.value_id << ", not a copy";
        billed[source[e.value_id]].insert(e.value_id);
      }
      if (e.kind == OpKind::kTxnAbort) {
        ++aborts;
        fenced_offsets += e.error == "UNKNOWN_MEMBER_ID" || e.error == "ILLEGAL_GENERATION";
      }
    }
    EXPECT_EQ(orders.size(), 4000u);
    for (const std::uint64_t order : orders) {
      EXPECT_EQ(billed[order].size(), 1u) << "order " << order << " reached billing in " << billed[order].size() << " copies";
    }
    EXPECT_EQ(billed.size(), orders.size());
    for (const auto& [order, times] : processed) reprocessed += times > 1;
  }
  EXPECT_GT(aborts, 0);
  EXPECT_GT(fenced_offsets, 0) << "the zombie's offsets should be refused by the group's generation check";
  EXPECT_GT(reprocessed, 0) << "aborted work is processed again";
}

// The stalled member's transaction of the pre-KIP-447 pipeline interleaves its writes with the
// new owner's: int-send-skip, counted always, a violation only where write isolation is promised.
TEST(TxnScenario, InterleavedTransactionalWritesAreCountedAndJudgedOnlyUnderWriteIsolation) {
  Scenario s = load_scenario_file(LOGSIM_SOURCE_DIR "/scenarios/exactly-once-without-group-metadata-duplicates.json");
  const RunOutput plain = run_scenario(s, {s.seed, false});
  ASSERT_TRUE(plain.result.stats.contains("int-send-skip.count"));
  const std::int64_t skips = plain.result.stats.at("int-send-skip.count");
  EXPECT_GT(skips, 0);
  for (const auto& v : plain.result.verdict.violations) EXPECT_NE(v.anomaly, "int-send-skip");
  s.write_isolation = true;
  const RunOutput isolated = run_scenario(s, {s.seed, false});
  EXPECT_EQ(isolated.result.stats.at("int-send-skip.count"), skips) << "the same run";
  std::set<std::string> members;
  for (const auto& v : isolated.result.verdict.violations) {
    if (v.anomaly == "int-send-skip") members.insert(v.process);
  }
  EXPECT_FALSE(members.empty());
}

TEST(TxnScenario, SameSeedSameTrace) {
  const Scenario s = load_scenario_file(LOGSIM_SOURCE_DIR "/scenarios/transactions-survive-coordinator-failover.json");
  EXPECT_EQ(run_scenario(s, {s.seed, false}).trace.hash(), run_scenario(s, {s.seed, true}).trace.hash());
}

}  // namespace
}  // namespace logsim::scenarios

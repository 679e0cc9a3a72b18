// The broker-side history of transactions (serve_recorder.h): each transactional.id at each
// epoch is a process with its own transactions, EndTxn's answer ends one (or, retried, leaves
// it open), and a read_committed fetch records only what its client keeps. Each member's
// assignment from SyncGroup is an assign event, so a stale commit accepted is judged. And the
// client findings: a client sending to a broker that it was told no longer leads.
#include "cli/serve_recorder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/protocol/record_batch.h"
#include "properties/checker.h"
#include "properties/group_checkers.h"
#include "wire/consumer_protocol.h"

namespace logsim::cli {
namespace {

using properties::OpKind;
using Step = live::GatewayObserver::TxnStep;

// A batch of `values` at `base`, of producer `pid` (epoch 0) when pid >= 0, transactional or not.
SharedBytes batch(std::int64_t base, std::vector<std::string> values, std::int64_t pid = -1, bool transactional = false) {
  std::vector<Record> records;
  for (auto& v : values) records.push_back({v, v});
  BatchMeta meta{Offset(base), LeaderEpoch(0), ProducerId(pid), ProducerEpoch(pid >= 0 ? 0 : -1), Sequence(pid >= 0 ? 0 : -1),
                 transactional};
  return SharedBytes(encode_batch(records, meta));
}

// Producer pid's abort marker at `offset`.
std::string abort_marker(std::int64_t pid, std::int64_t offset) {
  std::string b = encode_control_batch({ProducerId(pid), ProducerEpoch(0), ControlType::kAbort, 0}, 0);
  BatchHeader h = *parse_batch_header(b);
  h.base_offset = Offset(offset);  // outside the CRC
  write_batch_header(h, b.data());
  return b;
}

struct Recorded {
  properties::History history;
  Nanos now = 0;
  ServeRecorder recorder{history, [this] { return now; }};

  std::vector<std::string> ops(const std::string& process = "") {
    recorder.drain(~0ULL);
    std::vector<std::string> out;
    for (const auto& e : history.events()) {
      if (process.empty() || e.process == process) out.emplace_back(properties::op_kind_name(e.kind));
    }
    return out;
  }
  void step(Step::Kind kind, std::uint64_t token, std::int16_t epoch, bool committed = true, ErrorCode error = ErrorCode::NONE) {
    recorder.txn({kind, token, "tx", ProducerId(7), ProducerEpoch(epoch), committed, error});
  }
};

TEST(ServeRecorder, ATransactionalIdAtAnEpochIsAProcessWithItsTransactions) {
  Recorded r;
  r.step(Step::kInit, 0, 0);
  r.step(Step::kAdd, 0, 0);
  r.recorder.produce_sent(1, "client-a", NodeId(0), "t", PartitionId(0), batch(0, {"v1", "v2"}, 7, true));
  r.recorder.produce_answered(1, ErrorCode::NONE, Offset(10));
  r.step(Step::kEndSent, 2, 0);
  r.step(Step::kEndAnswered, 2, 0);
  EXPECT_EQ(r.ops("tx@0"), (std::vector<std::string>{"txn-begin", "send-invoke", "send-invoke", "send-ok", "send-ok",
                                                    "txn-commit-invoke", "txn-commit"}));
  EXPECT_EQ(r.history.events()[0].key, std::optional<std::string>("tx")) << "the first txn-begin names the id (it fences)";
  // The next transaction's begin does not name it again; an abort ends it.
  r.step(Step::kAdd, 0, 0);
  r.step(Step::kEndSent, 3, 0, false);
  r.step(Step::kEndAnswered, 3, 0, false);
  EXPECT_EQ(r.ops().back(), "txn-abort");
  EXPECT_EQ(r.history.events()[r.history.size() - 2].key, std::nullopt);
  EXPECT_EQ(r.ops("client-a"), std::vector<std::string>{}) << "a transactional send is the incarnation's, not the client's";
}

TEST(ServeRecorder, EndTxnRetriedLeavesTheTransactionOpenAndAFatalErrorMakesItUnknown) {
  Recorded r;
  r.step(Step::kInit, 0, 3);
  r.step(Step::kAdd, 0, 3);
  r.step(Step::kEndSent, 1, 3);
  r.step(Step::kEndAnswered, 1, 3, true, ErrorCode::CONCURRENT_TRANSACTIONS);
  r.step(Step::kEndSent, 2, 3);  // the client's retry: no second invoke
  EXPECT_EQ(r.ops("tx@3"), (std::vector<std::string>{"txn-begin", "txn-commit-invoke"}));
  r.step(Step::kEndAnswered, 2, 3, true, ErrorCode::PRODUCER_FENCED);
  EXPECT_EQ(r.ops("tx@3").back(), "txn-info");
  EXPECT_EQ(r.history.events()[r.history.size() - 1].error, "PRODUCER_FENCED");
}

// A newer InitProducerId of the id is answered only once the coordinator aborted the older
// producer's open transaction: that one is a txn-abort, unless it had asked to commit. A new
// producer id starting at epoch 0 again is another process.
TEST(ServeRecorder, ANewerIncarnationEndsTheOlderOnesOpenTransaction) {
  Recorded r;
  r.step(Step::kInit, 0, 0);
  r.step(Step::kAdd, 0, 0);
  r.step(Step::kInit, 0, 1);
  EXPECT_EQ(r.ops("tx@0"), (std::vector<std::string>{"txn-begin", "txn-abort"}));
  r.step(Step::kAdd, 0, 1);
  r.step(Step::kEndSent, 5, 1);  // asked to commit: the coordinator finishes the commit first
  r.step(Step::kInit, 0, 2);
  EXPECT_EQ(r.ops("tx@1"), (std::vector<std::string>{"txn-begin", "txn-commit-invoke"}));
  r.recorder.txn({Step::kInit, 0, "tx", ProducerId(8), ProducerEpoch(0)});
  r.recorder.txn({Step::kAdd, 0, "tx", ProducerId(8), ProducerEpoch(0)});
  EXPECT_EQ(r.ops("tx@0/8"), (std::vector<std::string>{"txn-begin"}));
  EXPECT_EQ(r.ops("tx@0"), (std::vector<std::string>{"txn-begin", "txn-abort"})) << "the first producer's process is its own";
}

TEST(ServeRecorder, AReadCommittedFetchRecordsWhatItsClientKeeps) {
  // Offsets 0-1: producer 7's aborted transaction; 2: its abort marker; 3-4: a plain batch.
  std::string bytes;
  for (const auto& b : {batch(0, {"a1", "a2"}, 7, true), SharedBytes(abort_marker(7, 2)), batch(3, {"p1", "p2"})}) {
    std::string scratch;
    bytes += b.contiguous(scratch);
  }
  const SharedBytes served(bytes);
  Recorded r;
  r.recorder.served("c#1", "t", PartitionId(0), {served, Offset(0), true, {{ProducerId(7), Offset(0)}}});
  r.recorder.served("u#2", "t", PartitionId(0), {served, Offset(1), false, {}});
  r.recorder.drain(~0ULL);
  std::vector<std::pair<std::string, std::int64_t>> reads;
  for (const auto& e : r.history.events()) {
    reads.emplace_back(e.process, e.offset->value());
    EXPECT_EQ(e.read_committed, e.process == "c#1");
  }
  EXPECT_EQ(reads, (std::vector<std::pair<std::string, std::int64_t>>{{"c#1", 3}, {"c#1", 4}, {"u#2", 1}, {"u#2", 3}, {"u#2", 4}}));
  // Without the aborted list the same read_committed fetch keeps the aborted records: what a
  // broker that forgot to list them would have shown (aborted-read judges it).
  Recorded forgot;
  forgot.recorder.served("c#1", "t", PartitionId(0), {served, Offset(0), true, {}});
  EXPECT_EQ(forgot.ops().size(), 4U);
}

// A client told that broker 2 leads p-1 that keeps sending p-1 to broker 1, answered
// NOT_LEADER_OR_FOLLOWER each time, is a finding once it has done so kMisdirectedSends times over
// kMisdirectedSpan; sends made before it was told, other errors, other clients and a leader it was
// told that is the broker it sent to are not.
TEST(ServeRecorder, AClientThatKeepsSendingToABrokerItWasToldNoLongerLeadsIsAFinding) {
  Recorded r;
  std::uint64_t token = 0;
  const auto send = [&](const std::string& client, std::int32_t broker, ErrorCode answer) {
    ++token;
    r.recorder.produce_sent(token, client, NodeId(broker), "p", PartitionId(1), batch(0, {"v" + std::to_string(token)}));
    r.recorder.produce_answered(token, answer, Offset(answer == ErrorCode::NONE ? 0 : -1));
    r.now += millis(250);
  };
  const auto tell = [&](const std::string& client, std::int32_t leader) {
    r.recorder.leaders_told(client, {{"p", PartitionId(1), NodeId(leader)}, {"p", PartitionId(0), NodeId(1)}});
    r.now += millis(1);
  };
  tell("stuck", 1);
  for (int i = 0; i < 30; ++i) send("stuck", 1, ErrorCode::NOT_LEADER_OR_FOLLOWER);  // told broker 1 leads: not misdirected
  tell("stuck", 2);
  tell("fine", 2);
  send("fine", 1, ErrorCode::NOT_LEADER_OR_FOLLOWER);  // once, then it follows
  send("fine", 2, ErrorCode::NONE);
  for (int i = 0; i < 30; ++i) send("stuck", 1, ErrorCode::NOT_LEADER_OR_FOLLOWER);
  for (int i = 0; i < 30; ++i) send("stuck", 1, ErrorCode::REQUEST_TIMED_OUT);  // another error: not counted
  r.recorder.finish();
  const std::vector<ServeRecorder::Misdirected> found = r.recorder.misdirected();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].client, "stuck");
  EXPECT_EQ(found[0].topic, "p");
  EXPECT_EQ(found[0].partition, PartitionId(1));
  EXPECT_EQ(found[0].broker, NodeId(1));
  EXPECT_EQ(found[0].told, NodeId(2));
  EXPECT_EQ(found[0].sends, 30);
  EXPECT_EQ(found[0].last - found[0].first, 29 * millis(250));
  const auto text = r.recorder.findings([](NodeId n) { return "broker-" + std::to_string(n.value() + 1); });
  ASSERT_EQ(text.size(), 1u);
  EXPECT_NE(text[0].find("client stuck sent p-1 to broker-2 30 times over 7.2 s"), std::string::npos) << text[0];
  EXPECT_NE(text[0].find("told it broker-3 leads"), std::string::npos) << text[0];
}

// Fewer sends, or a shorter stretch, is the ordinary race of a failover: not a finding.
TEST(ServeRecorder, AFewMisdirectedSendsAreNotAFinding) {
  for (const auto& [sends, gap] : {std::pair{ServeRecorder::kMisdirectedSends - 1, millis(1000)}, std::pair{std::int64_t{50}, millis(50)}}) {
    Recorded r;
    r.recorder.leaders_told("c", {{"p", PartitionId(0), NodeId(2)}});
    r.now += millis(1);
    for (std::int64_t i = 1; i <= sends; ++i) {
      r.recorder.produce_sent(static_cast<std::uint64_t>(i), "c", NodeId(1), "p", PartitionId(0), batch(0, {"v"}));
      r.recorder.produce_answered(static_cast<std::uint64_t>(i), ErrorCode::NOT_LEADER_OR_FOLLOWER, Offset(-1));
      r.now += gap;
    }
    r.recorder.finish();
    EXPECT_TRUE(r.recorder.misdirected().empty()) << sends << " sends " << gap << " ns apart";
  }
}

std::string consumer_assignment(std::vector<wire::ConsumerProtocolAssignment::Topic> topics) {
  return wire::encode_consumer_assignment({1, std::move(topics), std::nullopt});
}

TEST(ServeRecorder, EachMembersAssignmentIsAnAssignEventOfTheMember) {
  Recorded r;
  r.recorder.assigned("g", 3, "c1-4d2a", "c1", consumer_assignment({{"t", {2, 0}}, {"a", {1}}}));
  r.recorder.assigned("g", 3, "c2-77f0", "c2", "");  // an idle member: nothing assigned
  r.recorder.assigned("g", 3, "c3-0000", "c3", "\x01");  // not the consumer protocol: left out
  EXPECT_EQ(r.ops(), (std::vector<std::string>{"assign", "assign"}));
  const properties::HistoryEvent first = r.history.at(0);
  EXPECT_EQ(first.process, "c1-4d2a");
  EXPECT_EQ(first.group, "g");
  EXPECT_EQ(first.generation, std::optional(GenerationId(3)));
  EXPECT_EQ(first.assignment, (std::vector<TopicPartition>{{"a", PartitionId(1)}, {"t", PartitionId(0)}, {"t", PartitionId(2)}}));
  EXPECT_TRUE(r.history.at(1).assignment.empty());
}

// A record served to "c1#4" from t-0 is attributed to the one member whose SyncGroup, sent as
// client.id c1, handed it t-0 in its group's newest generation; a partition no member of that
// client.id holds, a client.id two members share for the partition, and a member of a
// superseded generation are not attributed.
TEST(ServeRecorder, ARecordServedIsAttributedToTheOneMemberItCanBe) {
  Recorded r;
  auto served = [&r](const std::string& reader, std::int32_t partition) {
    r.recorder.served(reader, "t", PartitionId(partition), {batch(0, {"v"}), Offset(0), false, {}});
    r.recorder.drain(~0ULL);
    return r.history.at(r.history.size() - 1).note;
  };
  r.recorder.assigned("g", 1, "c1-aa", "c1", consumer_assignment({{"t", {0, 1}}}));
  EXPECT_EQ(served("c1#4", 0), "served to member c1-aa of group g, generation 1");
  EXPECT_EQ(served("c1#4", 2), "served");   // c1-aa does not hold t-2
  EXPECT_EQ(served("c9#5", 0), "served");   // no member has client.id c9
  // Generation 2 moves t-1 to c2-bb; c1-aa keeps t-0.
  r.recorder.assigned("g", 2, "c1-aa", "c1", consumer_assignment({{"t", {0}}}));
  r.recorder.assigned("g", 2, "c2-bb", "c2", consumer_assignment({{"t", {1}}}));
  EXPECT_EQ(served("c1#4", 1), "served");   // generation 1's assignment no longer counts
  EXPECT_EQ(served("c2#6", 1), "served to member c2-bb of group g, generation 2");
  // Another group's member of client.id c1 that also holds t-0: either could be the reader.
  r.recorder.assigned("h", 1, "c1-cc", "c1", consumer_assignment({{"t", {0}}}));
  EXPECT_EQ(served("c1#4", 0), "served");
}

// A member of generation 1 commits after the group reached generation 2: accepted, that is
// stale-commit-accepted (the coordinator should have said ILLEGAL_GENERATION); refused, nothing.
TEST(ServeRecorder, AStaleCommitAcceptedIsJudgedFromTheAssignmentsAndCommits) {
  for (const ErrorCode answer : {ErrorCode::NONE, ErrorCode::ILLEGAL_GENERATION}) {
    Recorded r;
    properties::CheckerSet checkers;
    checkers.add(std::make_unique<properties::StaleCommitChecker>());
    checkers.attach(r.history);
    r.recorder.assigned("g", 1, "m1", "c1", consumer_assignment({{"t", {0, 1}}}));
    r.recorder.assigned("g", 2, "m2", "c2", consumer_assignment({{"t", {0}}}));
    OffsetCommitRequest commit{0, "g", 1, "m1", std::nullopt, {{"t", PartitionId(0), Offset(5), ""}}};
    r.recorder.commit_sent(1, commit);
    r.recorder.commit_answered(1, OffsetCommitResponse{0, {{"t", PartitionId(0), answer}}});
    r.ops();
    const properties::Verdict v = checkers.finish();
    if (answer == ErrorCode::NONE) {
      ASSERT_EQ(v.violations.size(), 1u);
      EXPECT_EQ(v.violations[0].anomaly, "stale-commit-accepted");
      EXPECT_EQ(v.violations[0].process, "m1");
    } else {
      EXPECT_TRUE(v.violations.empty()) << v.violations[0].explanation;
    }
    r.history.clear_observers();
  }
}

TEST(ServeRecorder, ABrokerSideVerdictJudgesStaleCommitsButNotWhatMembersRead) {
  const std::set<std::string> ignored = broker_side_ignored();
  EXPECT_FALSE(ignored.contains("stale-commit-accepted"));
  EXPECT_TRUE(ignored.contains("double-ownership"));
  EXPECT_TRUE(ignored.contains("unseen"));
}

}  // namespace
}  // namespace logsim::cli

// The transaction coordinator on a fake broker: answers wait for __transaction_state appends,
// the two phases of EndTxn (decision, markers, completion), markers retried and re-routed,
// fencing by a new incarnation and by the timeout, and a new coordinator finishing a decided
// transaction from the log it loads.
#include "engine/coordinator/txn_coordinator.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/coordinator/group_coordinator.h"
#include "engine/tests/client/client_fake_env.h"

namespace logsim::engine {
namespace {

using clienttest::FakeEnv;

const NodeId kProducer(7);
const NodeId kB1(1);
const NodeId kB2(2);
const NodeId kB3(3);
constexpr std::int32_t kTxnPartitions = 1;
const std::string kId = "txn-1";
const TopicPartition kOrders0{"orders", PartitionId(0)};
const TopicPartition kOrders1{"orders", PartitionId(1)};

// The broker's side: appends wait until the test completes them; the cluster's leaders and
// topics are what the test says.
class FakeTxnHost final : public TxnCoordinatorHost {
 public:
  struct Append {
    PartitionId partition;
    std::vector<Record> records;
    AppendDone done;
  };
  void append(PartitionId partition, std::vector<Record> records, std::int32_t, AppendDone done) override {
    pending.push_back({partition, std::move(records), std::move(done)});
  }
  void append_transactional(PartitionId, std::vector<Record>, TxnWriter, std::int32_t, AppendDone) override {
    ADD_FAILURE() << "the transaction coordinator writes no transactional batch";
  }
  std::vector<StoredRecord> read_all(PartitionId partition) override { return logs[partition.value()]; }
  std::vector<LoggedMarker> read_markers(PartitionId) override { return {}; }
  NodeId leader_of(const TopicPartition& tp) override {
    auto it = leaders.find(tp);
    return it == leaders.end() ? NodeId(-1) : it->second;
  }
  std::int32_t partition_count(std::string_view topic) override {
    auto it = counts.find(std::string(topic));
    return it == counts.end() ? 0 : it->second;
  }

  // Completes the oldest pending append; returns the metadata it wrote.
  TxnMetadata complete_next(ErrorCode error = ErrorCode::NONE) {
    EXPECT_FALSE(pending.empty());
    if (pending.empty()) return {};
    Append a = std::move(pending.front());
    pending.pop_front();
    const Record r = a.records.at(0);
    Offset base{-1};
    if (error == ErrorCode::NONE) {
      auto& log = logs[a.partition.value()];
      StoredRecord s;
      s.offset = base = Offset(static_cast<std::int64_t>(log.size()));
      s.record = r;
      log.push_back(s);
    }
    a.done(error, base);
    return decode_txn_value(decode_txn_key(*r.key).value_or(""), *r.value).value_or(TxnMetadata{});
  }

  std::map<std::int32_t, std::vector<StoredRecord>> logs;
  std::deque<Append> pending;
  std::map<TopicPartition, NodeId> leaders{{kOrders0, kB1}, {kOrders1, kB2}};
  std::map<std::string, std::int32_t> counts{{"orders", 2}, {"__consumer_offsets", 4}};
};

class TxnCoordinatorTest : public ::testing::Test {
 protected:
  TxnCoordinatorTest() : TxnCoordinatorTest(Plants{}) {}
  explicit TxnCoordinatorTest(Plants plants) : config(with(plants)) { coord.on_leadership({{0, 3}}, kTxnPartitions); }
  static TxnCoordinatorConfig with(Plants plants) {
    TxnCoordinatorConfig c;
    c.plants = plants;
    return c;
  }

  template <typename T>
  std::optional<T> take(NodeId to) {
    for (auto it = env.sent.begin(); it != env.sent.end(); ++it) {
      if (it->to != to || !std::holds_alternative<T>(it->msg)) continue;
      T out = std::get<T>(std::move(it->msg));
      env.sent.erase(it);
      return out;
    }
    return std::nullopt;
  }
  template <typename T>
  T expect(NodeId to) {
    std::optional<T> r = take<T>(to);
    EXPECT_TRUE(r.has_value()) << "nothing of the expected type sent to " << to;
    return r.value_or(T{});
  }
  void advance_ms(std::int64_t ms) {
    const Nanos until = env.now() + millis(ms);
    while (auto t = env.pop_due(until)) {
      env.set_now(t->deadline);
      EXPECT_TRUE(mux.on_timer(t->id, t->tag));
    }
    env.set_now(until);
  }

  InitProducerIdResponse init(std::int32_t timeout_ms = 60000) {
    InitProducerIdRequest req{++corr, ProducerId(-1), ProducerEpoch(-1), kId, timeout_ms};
    coord.handle(kProducer, req);
    if (!host.pending.empty()) host.complete_next();
    return expect<InitProducerIdResponse>(kProducer);
  }
  ErrorCode add(const InitProducerIdResponse& p, std::vector<TopicPartition> partitions) {
    coord.handle(kProducer, AddPartitionsToTxnRequest{++corr, kId, p.producer_id, p.producer_epoch, std::move(partitions)});
    if (!host.pending.empty()) host.complete_next();
    const auto resp = expect<AddPartitionsToTxnResponse>(kProducer);
    return resp.results.empty() ? ErrorCode::UNKNOWN_SERVER_ERROR : resp.results.front().error;
  }
  // EndTxn, its decision written; returns the answer.
  ErrorCode end(const InitProducerIdResponse& p, bool commit) {
    coord.handle(kProducer, EndTxnRequest{++corr, kId, p.producer_id, p.producer_epoch, commit});
    if (!host.pending.empty()) host.complete_next();
    return expect<EndTxnResponse>(kProducer).error;
  }
  void answer(NodeId leader, const WriteTxnMarkersRequest& req, ErrorCode error = ErrorCode::NONE) {
    WriteTxnMarkersResponse resp{req.correlation_id, req.producer_id, {}};
    for (const TopicPartition& tp : req.partitions) resp.partitions.push_back({tp, error});
    coord.handle(leader, resp);
  }
  TxnState state() { return coord.transaction(kId).value_or(TxnMetadata{}).state; }

  FakeEnv env;
  TimerMux mux{env};
  FakeTxnHost host;
  TxnCoordinatorConfig config;
  TransactionCoordinator coord{env, mux, config, host};
  CorrelationId corr = 0;
};

TEST_F(TxnCoordinatorTest, InitProducerIdIsAnsweredOnceItsRecordIsCommittedAndBumpsTheEpochAfter) {
  coord.handle(kProducer, InitProducerIdRequest{1, ProducerId(-1), ProducerEpoch(-1), kId, 60000});
  EXPECT_FALSE(take<InitProducerIdResponse>(kProducer)) << "answered before __transaction_state has the id";
  ASSERT_EQ(host.pending.size(), 1u);
  const TxnMetadata written = host.complete_next();
  const auto first = expect<InitProducerIdResponse>(kProducer);
  EXPECT_EQ(first.error, ErrorCode::NONE);
  EXPECT_GE(first.producer_id.value(), 0);
  EXPECT_EQ(first.producer_epoch, ProducerEpoch(0));
  EXPECT_EQ(written.producer_id, first.producer_id);
  EXPECT_EQ(written.state, TxnState::kEmpty);

  const auto second = init();
  EXPECT_EQ(second.error, ErrorCode::NONE);
  EXPECT_EQ(second.producer_id, first.producer_id);
  EXPECT_EQ(second.producer_epoch, ProducerEpoch(1)) << "a new incarnation fences the old at the next epoch";
}

TEST_F(TxnCoordinatorTest, RefusesWhatItDoesNotCoordinateAndTimeoutsAboveTheMaximum) {
  EXPECT_EQ(init(config.transaction_max_timeout_ms + 1).error, ErrorCode::INVALID_TRANSACTION_TIMEOUT);
  EXPECT_EQ(init(0).error, ErrorCode::INVALID_TRANSACTION_TIMEOUT);
  coord.on_leadership({}, kTxnPartitions);
  EXPECT_EQ(init().error, ErrorCode::NOT_COORDINATOR);
  EXPECT_TRUE(host.pending.empty()) << "nothing is written for a refused request";
}

TEST_F(TxnCoordinatorTest, ACommitIsAnsweredAtTheDecisionThenMarkedOnEveryLeaderThenCompleted) {
  const auto p = init();
  ASSERT_EQ(add(p, {kOrders0, kOrders1}), ErrorCode::NONE);
  EXPECT_EQ(state(), TxnState::kOngoing);

  coord.handle(kProducer, EndTxnRequest{++corr, kId, p.producer_id, p.producer_epoch, true});
  EXPECT_FALSE(take<EndTxnResponse>(kProducer));
  EXPECT_TRUE(env.sent.empty()) << "no marker before the decision is durable";
  EXPECT_EQ(host.complete_next().state, TxnState::kPrepareCommit);
  EXPECT_EQ(expect<EndTxnResponse>(kProducer).error, ErrorCode::NONE);

  const auto m1 = expect<WriteTxnMarkersRequest>(kB1);
  const auto m2 = expect<WriteTxnMarkersRequest>(kB2);
  for (const auto& m : {m1, m2}) {
    EXPECT_TRUE(m.committed);
    EXPECT_EQ(m.producer_id, p.producer_id);
    EXPECT_EQ(m.producer_epoch, p.producer_epoch);
    EXPECT_EQ(m.coordinator_epoch, 3) << "the leader epoch of the id's __transaction_state partition";
  }
  EXPECT_EQ(m1.partitions, std::vector<TopicPartition>{kOrders0});
  EXPECT_EQ(m2.partitions, std::vector<TopicPartition>{kOrders1});

  answer(kB1, m1);
  EXPECT_TRUE(host.pending.empty()) << "completed with a marker still missing";
  answer(kB2, m2);
  const TxnMetadata done = host.complete_next();
  EXPECT_EQ(done.state, TxnState::kCompleteCommit);
  EXPECT_TRUE(done.partitions.empty());
  EXPECT_EQ(state(), TxnState::kCompleteCommit);
  EXPECT_EQ(end(p, true), ErrorCode::NONE) << "a retried commit of a committed transaction succeeds";
  EXPECT_EQ(end(p, false), ErrorCode::INVALID_TXN_STATE);
}

TEST_F(TxnCoordinatorTest, EndTxnIsRefusedWhileMarkersAreBeingWritten) {
  const auto p = init();
  ASSERT_EQ(add(p, {kOrders0}), ErrorCode::NONE);
  ASSERT_EQ(end(p, true), ErrorCode::NONE);
  EXPECT_EQ(end(p, true), ErrorCode::CONCURRENT_TRANSACTIONS);
  coord.handle(kProducer, InitProducerIdRequest{++corr, ProducerId(-1), ProducerEpoch(-1), kId, 60000});
  EXPECT_EQ(expect<InitProducerIdResponse>(kProducer).error, ErrorCode::CONCURRENT_TRANSACTIONS);
}

TEST_F(TxnCoordinatorTest, MarkersAreRetriedAtTheNewLeaderAndAfterALostRequest) {
  const auto p = init();
  ASSERT_EQ(add(p, {kOrders0}), ErrorCode::NONE);
  ASSERT_EQ(end(p, false), ErrorCode::NONE);
  const auto first = expect<WriteTxnMarkersRequest>(kB1);
  EXPECT_FALSE(first.committed);
  host.leaders[kOrders0] = kB3;
  answer(kB1, first, ErrorCode::NOT_LEADER_OR_FOLLOWER);
  EXPECT_FALSE(take<WriteTxnMarkersRequest>(kB3)) << "retried without a backoff";
  advance_ms(config.retry_backoff_ms);
  const auto second = expect<WriteTxnMarkersRequest>(kB3);
  // No answer at all: sent again after the request timeout, and the late answer is ignored.
  advance_ms(config.request_timeout_ms + config.retry_backoff_ms);
  const auto third = expect<WriteTxnMarkersRequest>(kB3);
  EXPECT_NE(third.correlation_id, second.correlation_id);
  answer(kB3, second);
  EXPECT_TRUE(host.pending.empty()) << "an answer to a request given up on completed the transaction";
  answer(kB3, third);
  EXPECT_EQ(host.complete_next().state, TxnState::kCompleteAbort);
}

TEST_F(TxnCoordinatorTest, ADisconnectedLeaderIsSentTheMarkersAgain) {
  const auto p = init();
  ASSERT_EQ(add(p, {kOrders0}), ErrorCode::NONE);
  ASSERT_EQ(end(p, true), ErrorCode::NONE);
  (void)expect<WriteTxnMarkersRequest>(kB1);
  coord.on_disconnect(kB1);
  advance_ms(config.retry_backoff_ms);
  answer(kB1, expect<WriteTxnMarkersRequest>(kB1));
  EXPECT_EQ(host.complete_next().state, TxnState::kCompleteCommit);
}

TEST_F(TxnCoordinatorTest, ANewIncarnationAbortsTheOngoingTransactionAtABumpedEpochFirst) {
  const auto old = init();
  ASSERT_EQ(add(old, {kOrders0}), ErrorCode::NONE);
  const auto retry = init();
  EXPECT_EQ(retry.error, ErrorCode::CONCURRENT_TRANSACTIONS);
  const auto abort = expect<WriteTxnMarkersRequest>(kB1);
  EXPECT_FALSE(abort.committed);
  EXPECT_EQ(abort.producer_epoch, old.producer_epoch + 1) << "the abort's epoch fences the old producer's writes";
  EXPECT_EQ(end(old, true), ErrorCode::PRODUCER_FENCED);
  answer(kB1, abort);
  EXPECT_EQ(host.complete_next().state, TxnState::kCompleteAbort);
  const auto fresh = init();
  EXPECT_EQ(fresh.error, ErrorCode::NONE);
  EXPECT_EQ(fresh.producer_epoch, old.producer_epoch + 2);
}

TEST_F(TxnCoordinatorTest, ATransactionPastItsTimeoutIsAbortedByTheCoordinatorAndItsProducerFenced) {
  const auto p = init(1000);
  ASSERT_EQ(add(p, {kOrders0, kOrders1}), ErrorCode::NONE);
  advance_ms(config.transaction_abort_timed_out_transaction_cleanup_interval_ms);
  const TxnMetadata abort = host.complete_next();
  EXPECT_EQ(abort.state, TxnState::kPrepareAbort);
  EXPECT_EQ(abort.producer_epoch, p.producer_epoch + 1);
  answer(kB1, expect<WriteTxnMarkersRequest>(kB1));
  answer(kB2, expect<WriteTxnMarkersRequest>(kB2));
  EXPECT_EQ(host.complete_next().state, TxnState::kCompleteAbort);
  EXPECT_EQ(end(p, true), ErrorCode::PRODUCER_FENCED);
  EXPECT_EQ(add(p, {kOrders0}), ErrorCode::PRODUCER_FENCED);
}

TEST_F(TxnCoordinatorTest, ANewCoordinatorFinishesADecidedTransactionFromTheLogAtItsOwnEpoch) {
  const auto p = init();
  ASSERT_EQ(add(p, {kOrders0}), ErrorCode::NONE);
  ASSERT_EQ(end(p, true), ErrorCode::NONE);
  env.sent.clear();  // this coordinator's markers are lost with it

  FakeEnv env2;
  TimerMux mux2{env2};
  FakeTxnHost host2;
  host2.logs = host.logs;
  TransactionCoordinator next{env2, mux2, config, host2};
  next.on_leadership({{0, 4}}, kTxnPartitions);
  ASSERT_EQ(env2.sent.size(), 1u);
  const auto& marker = std::get<WriteTxnMarkersRequest>(env2.sent.at(0).msg);
  EXPECT_EQ(env2.sent.at(0).to, kB1);
  EXPECT_TRUE(marker.committed);
  EXPECT_EQ(marker.coordinator_epoch, 4);
  WriteTxnMarkersResponse resp{marker.correlation_id, marker.producer_id, {{kOrders0, ErrorCode::NONE}}};
  next.handle(kB1, resp);
  EXPECT_EQ(host2.complete_next().state, TxnState::kCompleteCommit);
  EXPECT_EQ(next.transaction(kId)->state, TxnState::kCompleteCommit);
}

TEST_F(TxnCoordinatorTest, LosingThePartitionAnswersItsWritesNotCoordinatorAndStopsItsMarkers) {
  const auto p = init();
  ASSERT_EQ(add(p, {kOrders0}), ErrorCode::NONE);
  ASSERT_EQ(end(p, true), ErrorCode::NONE);
  const auto marker = expect<WriteTxnMarkersRequest>(kB1);
  coord.handle(kProducer, InitProducerIdRequest{++corr, ProducerId(-1), ProducerEpoch(-1), "other", 60000});
  coord.on_leadership({}, kTxnPartitions);
  host.complete_next();
  EXPECT_EQ(expect<InitProducerIdResponse>(kProducer).error, ErrorCode::NOT_COORDINATOR);
  answer(kB1, marker);
  EXPECT_TRUE(host.pending.empty()) << "a coordinator no longer leading wrote the completion";
  EXPECT_FALSE(coord.transaction(kId).has_value());
}

TEST_F(TxnCoordinatorTest, AFailedAppendChangesNothingAndIsAnsweredWithKafkasMapping) {
  const auto p = init();
  coord.handle(kProducer, AddPartitionsToTxnRequest{++corr, kId, p.producer_id, p.producer_epoch, {kOrders0}});
  host.complete_next(ErrorCode::NOT_ENOUGH_REPLICAS);
  EXPECT_EQ(expect<AddPartitionsToTxnResponse>(kProducer).results.at(0).error, ErrorCode::COORDINATOR_NOT_AVAILABLE);
  EXPECT_EQ(state(), TxnState::kEmpty);
  EXPECT_EQ(add(p, {kOrders0}), ErrorCode::NONE) << "the retry goes through";
}

TEST_F(TxnCoordinatorTest, AnUnknownPartitionFailsTheWholeAddPartitionsRequest) {
  const auto p = init();
  coord.handle(kProducer, AddPartitionsToTxnRequest{++corr, kId, p.producer_id, p.producer_epoch,
                                                    {kOrders0, TopicPartition{"orders", PartitionId(9)}}});
  const auto resp = expect<AddPartitionsToTxnResponse>(kProducer);
  ASSERT_EQ(resp.results.size(), 2u);
  EXPECT_EQ(resp.results[0].error, ErrorCode::OPERATION_NOT_ATTEMPTED);
  EXPECT_EQ(resp.results[1].error, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  EXPECT_TRUE(host.pending.empty());
  EXPECT_EQ(state(), TxnState::kEmpty);
}

TEST_F(TxnCoordinatorTest, AddOffsetsToTxnAddsTheGroupsConsumerOffsetsPartition) {
  const auto p = init();
  coord.handle(kProducer, AddOffsetsToTxnRequest{++corr, kId, p.producer_id, p.producer_epoch, "g"});
  const TxnMetadata written = host.complete_next();
  EXPECT_EQ(expect<AddOffsetsToTxnResponse>(kProducer).error, ErrorCode::NONE);
  const TopicPartition offsets{"__consumer_offsets", GroupCoordinator::partition_for("g", 4)};
  EXPECT_EQ(written.partitions, std::set<TopicPartition>{offsets});
  EXPECT_EQ(state(), TxnState::kOngoing);
}

// Before __consumer_offsets exists (the producer looks the group's coordinator up after this),
// the group's partition is computed from offsets.topic.num.partitions, as Kafka's coordinator does.
TEST_F(TxnCoordinatorTest, AddOffsetsToTxnBeforeTheOffsetsTopicExistsUsesTheConfiguredPartitionCount) {
  host.counts.erase("__consumer_offsets");
  const auto p = init();
  coord.handle(kProducer, AddOffsetsToTxnRequest{++corr, kId, p.producer_id, p.producer_epoch, "g"});
  const TxnMetadata written = host.complete_next();
  EXPECT_EQ(expect<AddOffsetsToTxnResponse>(kProducer).error, ErrorCode::NONE);
  const TopicPartition offsets{"__consumer_offsets", GroupCoordinator::partition_for("g", 50)};
  EXPECT_EQ(written.partitions, std::set<TopicPartition>{offsets});
}

TEST_F(TxnCoordinatorTest, AnotherProducerIdIsNotThisTransactionsProducer) {
  const auto p = init();
  EXPECT_EQ(add(InitProducerIdResponse{0, ErrorCode::NONE, ProducerId(p.producer_id.value() + 1), p.producer_epoch},
                {kOrders0}),
            ErrorCode::INVALID_PRODUCER_ID_MAPPING);
  EXPECT_EQ(add(InitProducerIdResponse{0, ErrorCode::NONE, p.producer_id, p.producer_epoch - 1}, {kOrders0}),
            ErrorCode::PRODUCER_FENCED);
}

TEST_F(TxnCoordinatorTest, AMarkerRefusedAsUnknownIsRetriedNotTakenAsWritten) {
  // A restarted leader that has not yet heard from the controller answers UNKNOWN_TOPIC_OR_PARTITION.
  const auto p = init();
  ASSERT_EQ(add(p, {kOrders0}), ErrorCode::NONE);
  ASSERT_EQ(end(p, true), ErrorCode::NONE);
  answer(kB1, expect<WriteTxnMarkersRequest>(kB1), ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  EXPECT_TRUE(host.pending.empty()) << "completed without the marker";
  advance_ms(config.retry_backoff_ms);
  const auto again = expect<WriteTxnMarkersRequest>(kB1);
  answer(kB2, again);  // from the wrong broker: ignored
  EXPECT_TRUE(host.pending.empty());
  answer(kB1, again);
  EXPECT_EQ(host.complete_next().state, TxnState::kCompleteCommit);
}

TEST_F(TxnCoordinatorTest, ABumpNamingAnOldEpochIsFencedAndARetriedBumpIsAnsweredAlike) {
  const auto first = init();
  coord.handle(kProducer, InitProducerIdRequest{++corr, first.producer_id, first.producer_epoch, kId, 60000});
  host.complete_next();
  const auto bumped = expect<InitProducerIdResponse>(kProducer);
  ASSERT_EQ(bumped.error, ErrorCode::NONE);
  EXPECT_EQ(bumped.producer_epoch, first.producer_epoch + 1);
  // Its answer was lost: the retry gets the same id and epoch, and nothing is written.
  coord.handle(kProducer, InitProducerIdRequest{++corr, first.producer_id, first.producer_epoch, kId, 60000});
  EXPECT_TRUE(host.pending.empty());
  const auto retried = expect<InitProducerIdResponse>(kProducer);
  EXPECT_EQ(retried.error, ErrorCode::NONE);
  EXPECT_EQ(retried.producer_epoch, bumped.producer_epoch);
  // A new incarnation takes the next epoch; the old one's bump is now a zombie's.
  const auto fresh = init();
  EXPECT_EQ(fresh.producer_epoch, bumped.producer_epoch + 1);
  coord.handle(kProducer, InitProducerIdRequest{++corr, bumped.producer_id, bumped.producer_epoch, kId, 60000});
  EXPECT_EQ(expect<InitProducerIdResponse>(kProducer).error, ErrorCode::PRODUCER_FENCED);
  coord.handle(kProducer, InitProducerIdRequest{++corr, first.producer_id, first.producer_epoch, kId, 60000});
  EXPECT_EQ(expect<InitProducerIdResponse>(kProducer).error, ErrorCode::PRODUCER_FENCED);
  EXPECT_TRUE(host.pending.empty());
}

// PLANTED BUG markers-before-durable: the markers go out with the decision still unwritten, and
// when its write fails the coordinator holds the transaction as ongoing while a leader has
// already been told to commit it; the completion waits for the write it depends on.
class MarkersBeforeDurableTest : public TxnCoordinatorTest {
 protected:
  MarkersBeforeDurableTest() : TxnCoordinatorTest(planted()) {}
  static Plants planted() {
    Plants p;
    p.add(Plant::kMarkersBeforeDurable);
    return p;
  }
};

TEST_F(MarkersBeforeDurableTest, MarkersGoOutBeforeTheDecisionIsWrittenAndOutliveItsFailure) {
  const auto p = init();
  ASSERT_EQ(add(p, {kOrders0}), ErrorCode::NONE);
  coord.handle(kProducer, EndTxnRequest{++corr, kId, p.producer_id, p.producer_epoch, true});
  const auto m = expect<WriteTxnMarkersRequest>(kB1);
  EXPECT_TRUE(m.committed) << "sent before the PrepareCommit is durable";
  answer(kB1, m);
  ASSERT_EQ(host.pending.size(), 1u) << "no completion before the decision is written";
  host.complete_next(ErrorCode::NOT_ENOUGH_REPLICAS);
  EXPECT_EQ(expect<EndTxnResponse>(kProducer).error, ErrorCode::COORDINATOR_NOT_AVAILABLE);
  EXPECT_EQ(state(), TxnState::kOngoing) << "the decision a leader already marked is not the coordinator's";
}

}  // namespace
}  // namespace logsim::engine

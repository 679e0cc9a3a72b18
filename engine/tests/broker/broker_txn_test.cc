// Transactions on a partition leader: transactional batches, the markers the coordinator has
// it write (WriteTxnMarkers), the last stable offset, read_committed fetches with their
// aborted-transaction lists, ListOffsets under read_committed, fencing of old epochs, and all
// of it again after a restart (rebuilt from the log).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/client/fetched_records.h"
#include "engine/tests/broker/broker_test_env.h"

namespace logsim::engine {
namespace {

using namespace brokertest;  // NOLINT(google-build-using-namespace): the tests' shared vocabulary

BrokerConfig one_topic() {
  BrokerConfig c;
  c.topics = {TopicSpec{"orders", 1}};
  return c;
}

class BrokerTxnTest : public ::testing::Test {
 protected:
  void SetUp() override { start(broker, env); }

  static void start(Broker& b, FakeEnv& e) {
    b.on_start();
    e.timers.clear();
  }

  template <typename Response>
  Response call(Message request) {
    return call_broker<Response>(broker, env, std::move(request));
  }

  // Producer `pid` (epoch `epoch`) writes one record `value` at sequence `seq`, transactionally.
  ProduceResponse send(std::int64_t pid, std::int32_t seq, const std::string& value, bool transactional = true,
                       std::int16_t epoch = 0) {
    const std::string b = encode_batch(std::vector<Record>{rec("k", value)},
                                       BatchMeta{Offset(0), LeaderEpoch(-1), ProducerId(pid), ProducerEpoch(epoch),
                                                 Sequence(seq), transactional});
    return call<ProduceResponse>(ProduceRequest{1, "orders", PartitionId(0), -1, 30000, SharedBytes(std::string(b))});
  }
  ErrorCode end(std::int64_t pid, bool commit, std::int16_t epoch = 0, std::int32_t coordinator_epoch = 0) {
    const auto resp = call<WriteTxnMarkersResponse>(WriteTxnMarkersRequest{
        4, ProducerId(pid), ProducerEpoch(epoch), commit, coordinator_epoch, {TopicPartition{"orders", PartitionId(0)}}});
    EXPECT_EQ(resp.partitions.size(), 1u);
    return resp.partitions.empty() ? ErrorCode::UNKNOWN_SERVER_ERROR : resp.partitions[0].error;
  }
  FetchResponse fetch(std::int64_t from, IsolationLevel isolation) {
    FetchRequest req{2, "orders", PartitionId(0), Offset(from), 500, 0};
    req.isolation_level = isolation;
    return call<FetchResponse>(req);
  }
  // The values a consumer of `isolation` takes from a fetch at `from`.
  std::vector<std::string> read(std::int64_t from, IsolationLevel isolation) {
    const FetchResponse r = fetch(from, isolation);
    EXPECT_EQ(r.error, ErrorCode::NONE);
    std::vector<StoredRecord> out;
    decode_fetched(r.records, Offset(from), isolation, r.aborted_transactions, out);
    std::vector<std::string> v;
    for (const StoredRecord& s : out) v.push_back(*s.record.value);
    return v;
  }

  TestDisk t;
  FakeEnv env{t.disk};
  Broker broker{env, one_topic()};
};

using V = std::vector<std::string>;
constexpr auto kCommitted = IsolationLevel::kReadCommitted;
constexpr auto kUncommitted = IsolationLevel::kReadUncommitted;

TEST_F(BrokerTxnTest, ReadCommittedStopsAtTheLastStableOffsetAndSkipsAborts) {
  ASSERT_EQ(send(1, 0, "a1").base_offset, Offset(0));
  ASSERT_EQ(send(1, 1, "a2").base_offset, Offset(1));
  ASSERT_EQ(send(-1, -1, "plain", false).base_offset, Offset(2));
  ASSERT_EQ(send(2, 0, "b1").base_offset, Offset(3));
  FetchResponse open = fetch(0, kCommitted);
  EXPECT_EQ(open.high_watermark, Offset(4));
  EXPECT_EQ(open.last_stable_offset, Offset(0)) << "producer 1's transaction is open at 0";
  EXPECT_TRUE(open.records.empty());
  EXPECT_EQ(read(0, kUncommitted), (V{"a1", "a2", "plain", "b1"}));

  ASSERT_EQ(end(1, false), ErrorCode::NONE);  // abort marker at 4
  const FetchResponse after_abort = fetch(0, kCommitted);
  EXPECT_EQ(after_abort.last_stable_offset, Offset(3)) << "producer 2's transaction is still open";
  EXPECT_EQ(after_abort.aborted_transactions, (std::vector<AbortedTransaction>{{ProducerId(1), Offset(0)}}));
  EXPECT_EQ(read(0, kCommitted), (V{"plain"}));

  ASSERT_EQ(end(2, true), ErrorCode::NONE);  // commit marker at 5
  EXPECT_EQ(fetch(0, kCommitted).last_stable_offset, Offset(6));
  EXPECT_EQ(read(0, kCommitted), (V{"plain", "b1"}));
  EXPECT_EQ(read(3, kCommitted), (V{"b1"}));
  EXPECT_EQ(read(0, kUncommitted), (V{"a1", "a2", "plain", "b1"})) << "markers are never records";
  EXPECT_TRUE(fetch(5, kCommitted).aborted_transactions.empty()) << "the abort ended below 5";

  const auto latest = [&](IsolationLevel isolation) {
    return call<ListOffsetsResponse>(ListOffsetsRequest{3, "orders", PartitionId(0), kListOffsetsLatest, isolation}).offset;
  };
  send(3, 0, "c1");  // 6, open
  EXPECT_EQ(latest(kUncommitted), Offset(7));
  EXPECT_EQ(latest(kCommitted), Offset(6));
}

TEST_F(BrokerTxnTest, AHeldReadCommittedFetchIsAnsweredWhenTheTransactionCommits) {
  send(1, 0, "a1");
  FetchRequest held{9, "orders", PartitionId(0), Offset(0), 500, 500};
  held.isolation_level = kCommitted;
  const std::size_t before = env.sent.size();
  broker.on_message(kClient, held);
  EXPECT_EQ(env.sent.size(), before) << "nothing is stable yet: the fetch waits";
  broker.on_message(kClient, WriteTxnMarkersRequest{4, ProducerId(1), ProducerEpoch(0), true, 0,
                                                    {TopicPartition{"orders", PartitionId(0)}}});
  std::vector<FetchResponse> answers;
  std::vector<WriteTxnMarkersResponse> markers;
  for (const Sent& s : env.sent) {
    if (const auto* f = std::get_if<FetchResponse>(&s.msg); f != nullptr && f->correlation_id == 9) answers.push_back(*f);
    if (const auto* m = std::get_if<WriteTxnMarkersResponse>(&s.msg)) markers.push_back(*m);
  }
  ASSERT_EQ(markers.size(), 1u);
  EXPECT_EQ(markers[0].partitions.at(0).error, ErrorCode::NONE);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].last_stable_offset, Offset(2));
  EXPECT_FALSE(answers[0].records.empty());
}

// ListOffsets by timestamp finds only what the consumer may read: under read_committed, not
// the records of an open transaction.
TEST_F(BrokerTxnTest, ListOffsetsByTimestampStopsAtTheLastStableOffsetUnderReadCommitted) {
  send(1, 0, "open");  // offset 0, timestamp 0, its transaction open
  const auto by_time = [&](IsolationLevel isolation) {
    return call<ListOffsetsResponse>(ListOffsetsRequest{3, "orders", PartitionId(0), 0, isolation}).offset;
  };
  EXPECT_EQ(by_time(kUncommitted), Offset(0));
  EXPECT_EQ(by_time(kCommitted), Offset(-1));
  ASSERT_EQ(end(1, true), ErrorCode::NONE);
  EXPECT_EQ(by_time(kCommitted), Offset(0));
}

TEST_F(BrokerTxnTest, OldEpochsAndOldCoordinatorsAreFencedAndClientsCannotWriteMarkers) {
  send(1, 0, "a1");
  ASSERT_EQ(end(1, false, 1, 3), ErrorCode::NONE) << "the coordinator aborts with a bumped epoch";
  EXPECT_EQ(send(1, 1, "zombie").error, ErrorCode::INVALID_PRODUCER_EPOCH) << "the old epoch's late write";
  EXPECT_EQ(end(1, true, 0, 3), ErrorCode::INVALID_PRODUCER_EPOCH);
  EXPECT_EQ(end(1, true, 1, 2), ErrorCode::TRANSACTION_COORDINATOR_FENCED);
  EXPECT_EQ(send(1, 0, "new", true, 1).error, ErrorCode::NONE);
  EXPECT_EQ(send(1, 1, "plain", false, 1).error, ErrorCode::INVALID_TXN_STATE) << "its transaction is open";

  const std::string marker = encode_control_batch(TxnMarker{ProducerId(1), ProducerEpoch(1), ControlType::kCommit, 3}, 0);
  EXPECT_EQ(call<ProduceResponse>(ProduceRequest{1, "orders", PartitionId(0), -1, 30000, SharedBytes(std::string(marker))}).error,
            ErrorCode::INVALID_RECORD);
  const auto unknown = call<WriteTxnMarkersResponse>(WriteTxnMarkersRequest{
      5, ProducerId(1), ProducerEpoch(1), true, 3, {TopicPartition{"nope", PartitionId(0)}}});
  ASSERT_EQ(unknown.partitions.size(), 1u);
  EXPECT_EQ(unknown.partitions[0].error, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
}

TEST_F(BrokerTxnTest, ARestartedBrokerRebuildsItsTransactionsFromTheLog) {
  send(1, 0, "a1");
  send(2, 0, "b1");
  end(1, false);
  send(3, 0, "c1");  // 3, open
  t.sync_all();
  t.disk.crash();
  FakeEnv env2(t.disk);
  Broker restarted(env2, one_topic());
  start(restarted, env2);
  FetchRequest req{2, "orders", PartitionId(0), Offset(0), 500, 0};
  req.isolation_level = kCommitted;
  restarted.on_message(kClient, req);
  ASSERT_EQ(env2.sent.size(), 1u);
  const auto& r = std::get<FetchResponse>(env2.sent[0].msg);
  EXPECT_EQ(r.last_stable_offset, Offset(1)) << "producer 2's transaction is still open at 1";
  EXPECT_EQ(r.aborted_transactions, (std::vector<AbortedTransaction>{{ProducerId(1), Offset(0)}}));
}

// A standalone broker hosting both coordinators, driven as a client would: each request is
// answered after everything it set off (timers due now, what the broker sends itself: the
// coordinator's markers and their answers) has run.
class BrokerTxnCoordinator : public ::testing::Test {
 protected:
  static BrokerConfig config() {
    BrokerConfig c = one_topic();
    c.transaction_state_log_num_partitions = 1;
    c.offsets_topic_num_partitions = 1;
    return c;
  }
  void SetUp() override { broker.on_start(); }

  void pump() {
    for (int round = 0; round < 100; ++round) {
      bool acted = false;
      for (const FakeEnv::Timer& timer : env.live_timers()) {
        if (timer.deadline > env.now()) continue;
        for (FakeEnv::Timer& armed : env.timers) {
          if (armed.id == timer.id) armed.cancelled = true;
        }
        broker.on_timer(timer.id, timer.tag);
        acted = true;
      }
      for (std::size_t i = 0; i < env.sent.size(); ++i) {
        if (env.sent[i].to != kBroker) continue;
        const Message msg = std::move(env.sent[i].msg);
        env.sent.erase(env.sent.begin() + static_cast<std::ptrdiff_t>(i));
        broker.on_message(kBroker, msg);
        acted = true;
        break;
      }
      if (!acted) return;
    }
    ADD_FAILURE() << "the broker kept itself busy";
  }
  // Sends `request` and returns the one answer of type T to the client.
  template <typename T>
  T call(Message request) {
    broker.on_message(kClient, std::move(request));
    pump();
    std::optional<T> out;
    for (auto it = env.sent.begin(); it != env.sent.end();) {
      if (it->to == kClient && std::holds_alternative<T>(it->msg)) {
        EXPECT_FALSE(out.has_value()) << "two answers";
        out = std::get<T>(it->msg);
        it = env.sent.erase(it);
      } else {
        ++it;
      }
    }
    EXPECT_TRUE(out.has_value()) << "no answer";
    return out.value_or(T{});
  }
  // Finds the coordinator of `key` (the first lookup creates its internal topic).
  void find(const std::string& key, CoordinatorKeyType type) {
    EXPECT_EQ(call<FindCoordinatorResponse>(FindCoordinatorRequest{1, key, type}).error,
              ErrorCode::COORDINATOR_NOT_AVAILABLE);
    const auto found = call<FindCoordinatorResponse>(FindCoordinatorRequest{2, key, type});
    EXPECT_EQ(found.error, ErrorCode::NONE);
    EXPECT_EQ(found.node_id, kBroker);
  }
  std::int64_t committed_offset(const std::string& group) {
    const auto r = call<OffsetFetchResponse>(OffsetFetchRequest{9, group, std::nullopt});
    EXPECT_EQ(r.error, ErrorCode::NONE);
    return r.partitions.empty() ? -1 : r.partitions.at(0).committed_offset.value();
  }

  TestDisk t;
  FakeEnv env{t.disk};
  Broker broker{env, config()};
  const TopicPartition orders{"orders", PartitionId(0)};
};

// The broker's own transaction coordinator, standalone: FindCoordinator creates
// __transaction_state, and a transaction begun, written and committed through it ends with the
// marker on the partition (sent by the coordinator to this very broker) and the id complete.
TEST_F(BrokerTxnCoordinator, ATransactionThroughTheHostedCoordinatorCommitsAndIsReadCommitted) {
  const std::string id = "tx";
  find(id, CoordinatorKeyType::kTransaction);
  const auto p = call<InitProducerIdResponse>(InitProducerIdRequest{3, ProducerId(-1), ProducerEpoch(-1), id, 60000});
  ASSERT_EQ(p.error, ErrorCode::NONE);
  const auto added = call<AddPartitionsToTxnResponse>(AddPartitionsToTxnRequest{4, id, p.producer_id, p.producer_epoch, {orders}});
  ASSERT_EQ(added.results.at(0).error, ErrorCode::NONE);
  const std::string b = encode_batch(std::vector<Record>{rec("k", "v")},
                                     BatchMeta{Offset(0), LeaderEpoch(-1), p.producer_id, p.producer_epoch, Sequence(0), true});
  const auto produced =
      call<ProduceResponse>(ProduceRequest{5, "orders", PartitionId(0), -1, 30000, SharedBytes(std::string(b))});
  ASSERT_EQ(produced.error, ErrorCode::NONE);
  EXPECT_EQ(broker.state().partitions.at(orders).last_stable_offset(), Offset(0)) << "the transaction is open";

  EXPECT_EQ(call<EndTxnResponse>(EndTxnRequest{6, id, p.producer_id, p.producer_epoch, true}).error, ErrorCode::NONE);
  const Partition& part = broker.state().partitions.at(orders);
  EXPECT_EQ(part.log->log_end_offset(), Offset(2)) << "the commit marker follows the record";
  EXPECT_EQ(part.high_watermark, Offset(2));
  EXPECT_EQ(part.last_stable_offset(), Offset(2));
  const std::optional<TxnMetadata> done = broker.txn_coordinator().transaction(id);
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(done->state, TxnState::kCompleteCommit);
}

// sendOffsetsToTransaction through the broker: AddOffsetsToTxn adds the group's
// __consumer_offsets partition to the transaction, TxnOffsetCommit writes the offsets there as
// the producer's transactional batch, and the markers EndTxn sets off make them the group's
// committed offsets (or drop them); the answer to WriteTxnMarkers waits for that.
TEST_F(BrokerTxnCoordinator, OffsetsSentToATransactionTakeEffectOnlyWhenItCommits) {
  const std::string id = "tx";
  const std::string group = "g";
  find(id, CoordinatorKeyType::kTransaction);
  find(group, CoordinatorKeyType::kGroup);
  const auto p = call<InitProducerIdResponse>(InitProducerIdRequest{3, ProducerId(-1), ProducerEpoch(-1), id, 60000});
  ASSERT_EQ(p.error, ErrorCode::NONE);
  const auto send_offsets = [&](std::int64_t offset) {
    EXPECT_EQ(call<AddOffsetsToTxnResponse>(AddOffsetsToTxnRequest{4, id, p.producer_id, p.producer_epoch, group}).error,
              ErrorCode::NONE);
    TxnOffsetCommitRequest commit;
    commit.correlation_id = 5;
    commit.transactional_id = id;
    commit.group_id = group;
    commit.producer_id = p.producer_id;
    commit.producer_epoch = p.producer_epoch;
    commit.partitions.push_back({orders, Offset(offset), ""});
    const auto r = call<TxnOffsetCommitResponse>(commit);
    ASSERT_EQ(r.results.size(), 1u);
    EXPECT_EQ(r.results[0].error, ErrorCode::NONE);
  };
  const TopicPartition offsets_partition{"__consumer_offsets", PartitionId(0)};

  send_offsets(5);
  EXPECT_EQ(committed_offset(group), -1) << "invisible while the transaction is open";
  const Partition& offsets_log = broker.state().partitions.at(offsets_partition);
  EXPECT_LT(offsets_log.last_stable_offset(), offsets_log.high_watermark);
  EXPECT_EQ(call<EndTxnResponse>(EndTxnRequest{6, id, p.producer_id, p.producer_epoch, true}).error, ErrorCode::NONE);
  EXPECT_EQ(committed_offset(group), 5);
  EXPECT_EQ(offsets_log.last_stable_offset(), offsets_log.high_watermark);

  send_offsets(9);
  EXPECT_EQ(call<EndTxnResponse>(EndTxnRequest{7, id, p.producer_id, p.producer_epoch, false}).error, ErrorCode::NONE);
  EXPECT_EQ(committed_offset(group), 5) << "an aborted transaction's offsets are dropped";

  // What a coordinator taking over would replay: the offsets as the producer's records, and
  // the two markers after them. (The host is the broker's own; the test reads through it.)
  const auto host = make_internal_topic_host(const_cast<BrokerState&>(broker.state()), "__consumer_offsets");
  const std::vector<LoggedMarker> markers = host->read_markers(PartitionId(0));
  ASSERT_EQ(markers.size(), 2u);
  EXPECT_TRUE(markers[0].commit);
  EXPECT_FALSE(markers[1].commit);
  EXPECT_EQ(markers[0].producer_id, p.producer_id);
  std::vector<Offset> transactional;
  for (const StoredRecord& r : host->read_all(PartitionId(0))) {
    if (r.producer_id == p.producer_id) transactional.push_back(r.offset);
  }
  ASSERT_EQ(transactional.size(), 2u);
  EXPECT_LT(transactional[0], markers[0].offset);
  EXPECT_LT(markers[0].offset, transactional[1]);
  EXPECT_LT(transactional[1], markers[1].offset);
}

// A client's Produce to an internal topic is refused (Kafka's INVALID_TOPIC_EXCEPTION): only
// the coordinators write there, so a replay can take every record of a producer id for the
// coordinator's own.
TEST_F(BrokerTxnCoordinator, AClientsProduceToAnInternalTopicIsRefused) {
  find("g", CoordinatorKeyType::kGroup);
  find("tx", CoordinatorKeyType::kTransaction);
  for (const std::string topic : {"__consumer_offsets", "__transaction_state"}) {
    const Partition& log = broker.state().partitions.at({topic, PartitionId(0)});
    const Offset end = log.log->log_end_offset();
    ProduceRequest req{5, topic, PartitionId(0), -1, 1000, SharedBytes(encode_batch(std::vector<Record>{{"k", "v"}}))};
    const auto r = call<ProduceResponse>(req);
    EXPECT_EQ(r.error, ErrorCode::INVALID_TOPIC_EXCEPTION) << topic;
    EXPECT_EQ(log.log->log_end_offset(), end) << topic << ": nothing written";
  }
}

// A zombie's TxnOffsetCommit (an epoch the partition has seen superseded) is refused by the
// __consumer_offsets partition's producer state, as Kafka's coordinator-origin append is.
TEST_F(BrokerTxnCoordinator, AnOlderEpochsTransactionalOffsetsAreRefused) {
  const std::string id = "tx";
  const std::string group = "g";
  find(id, CoordinatorKeyType::kTransaction);
  find(group, CoordinatorKeyType::kGroup);
  const auto txn_commit = [&](const InitProducerIdResponse& p, std::int64_t offset) {
    TxnOffsetCommitRequest commit;
    commit.correlation_id = 5;
    commit.transactional_id = id;
    commit.group_id = group;
    commit.producer_id = p.producer_id;
    commit.producer_epoch = p.producer_epoch;
    commit.partitions.push_back({orders, Offset(offset), ""});
    const auto r = call<TxnOffsetCommitResponse>(commit);
    return r.results.empty() ? ErrorCode::UNKNOWN_SERVER_ERROR : r.results[0].error;
  };
  const auto old = call<InitProducerIdResponse>(InitProducerIdRequest{3, ProducerId(-1), ProducerEpoch(-1), id, 60000});
  const auto now = call<InitProducerIdResponse>(InitProducerIdRequest{3, ProducerId(-1), ProducerEpoch(-1), id, 60000});
  ASSERT_EQ(now.producer_id, old.producer_id);
  ASSERT_GT(now.producer_epoch, old.producer_epoch);
  EXPECT_EQ(call<AddOffsetsToTxnResponse>(AddOffsetsToTxnRequest{4, id, now.producer_id, now.producer_epoch, group}).error,
            ErrorCode::NONE);
  EXPECT_EQ(txn_commit(now, 6), ErrorCode::NONE);
  EXPECT_EQ(txn_commit(old, 9), ErrorCode::INVALID_PRODUCER_EPOCH);
  EXPECT_EQ(call<EndTxnResponse>(EndTxnRequest{6, id, now.producer_id, now.producer_epoch, true}).error, ErrorCode::NONE);
  EXPECT_EQ(committed_offset(group), 6);
}

// Retention may delete the segment an open transaction began in (it is bounded by the high
// watermark, not the last stable offset, as in Kafka): the last stable offset then stands at
// the log start, never below it, so a read_committed consumer is not sent below the log.
TEST(BrokerTxnRetention, TheLastStableOffsetNeverFallsBelowTheLogStart) {
  TestDisk t;
  FakeEnv env{t.disk};
  Broker broker{env, one_topic()};
  broker.on_start();
  LogConfig small;
  small.segment_bytes = 1;  // every batch its own segment
  small.retention_bytes = 1;
  LeaderAndIsrRequest state;
  state.version = 1;
  state.live_brokers = {kBroker};
  state.partitions = {PartitionState{"orders", PartitionId(0), 0, kBroker, LeaderEpoch(0), 0, {kBroker}, {kBroker}, 1}};
  state.topic_configs = {TopicConfig{"orders", small}};
  broker.on_message(kControllerNode, state);
  const auto produce = [&](std::int64_t pid, bool transactional) {
    const std::string b = encode_batch(std::vector<Record>{rec("k", "v")},
                                       BatchMeta{Offset(0), LeaderEpoch(-1), ProducerId(pid), ProducerEpoch(pid < 0 ? -1 : 0),
                                                 Sequence(pid < 0 ? -1 : 0), transactional});
    return call_broker<ProduceResponse>(broker, env, ProduceRequest{1, "orders", PartitionId(0), -1, 30000, SharedBytes(std::string(b))});
  };
  ASSERT_EQ(produce(1, true).base_offset, Offset(0));  // producer 1's transaction stays open
  for (int i = 0; i < 5; ++i) ASSERT_EQ(produce(-1, false).error, ErrorCode::NONE);
  const Partition& part = broker.state().partitions.at(TopicPartition{"orders", PartitionId(0)});
  EXPECT_EQ(part.last_stable_offset(), Offset(0));
  std::optional<FakeEnv::Timer> retention;
  for (const FakeEnv::Timer& timer : env.live_timers()) {
    if (timer.tag == static_cast<std::uint64_t>(BrokerTimer::kRetention)) retention = timer;
  }
  ASSERT_TRUE(retention.has_value());
  broker.on_timer(retention->id, retention->tag);
  const Offset start = part.log->log_start_offset();
  ASSERT_GT(start, Offset(0)) << "retention deleted the transaction's first segment";
  EXPECT_EQ(part.last_stable_offset(), start);
  FetchRequest fetch{2, "orders", PartitionId(0), start, 500, 0};
  fetch.isolation_level = IsolationLevel::kReadCommitted;
  const auto fetched = call_broker<FetchResponse>(broker, env, fetch);
  EXPECT_EQ(fetched.error, ErrorCode::NONE);
  EXPECT_EQ(fetched.last_stable_offset, start);
  const auto latest = call_broker<ListOffsetsResponse>(
      broker, env, ListOffsetsRequest{3, "orders", PartitionId(0), kListOffsetsLatest, IsolationLevel::kReadCommitted});
  EXPECT_EQ(latest.offset, start);
}

}  // namespace
}  // namespace logsim::engine

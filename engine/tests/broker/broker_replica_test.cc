// Tests of a broker that is one replica of two, its controller played by the test: planted
// bugs of replication and fetch, long polls woken by replication, a follower's truncation,
// and the high watermark across a restart.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/broker/broker.h"
#include "engine/protocol/record_batch.h"
#include "engine/tests/broker/broker_test_env.h"

namespace logsim::engine {
namespace {

using namespace brokertest;  // NOLINT(google-build-using-namespace): the tests' shared vocabulary

// ---- Planted bugs of replication and fetch (engine/plants.h). Each test runs the broker
// with its plant off, then on: the wrong behaviour shows only with the plant.

const NodeId kOtherReplica(2);

// One broker of a two-replica cluster, its controller played by the test.
struct Replica {
  explicit Replica(std::optional<Plant> plant) {
    BrokerConfig c;
    c.controller = kControllerNode;
    if (plant) c.plants.add(*plant);
    broker = std::make_unique<Broker>(env, c);
    broker->on_start();
  }

  // The controller's state: orders-0 on this broker and kOtherReplica, both in the ISR,
  // min.insync.replicas 2, led by `leader` in `epoch`.
  void state(std::int64_t version, NodeId leader, std::int32_t epoch, std::int64_t topic_id = 7) {
    LeaderAndIsrRequest req;
    req.controller_epoch = 1;
    req.version = version;
    req.live_brokers = {kBroker, kOtherReplica};
    PartitionState s;
    s.topic = "orders";
    s.partition = PartitionId(0);
    s.topic_id = topic_id;
    s.leader = leader;
    s.leader_epoch = LeaderEpoch(epoch);
    s.partition_epoch = epoch;
    s.replicas = {kBroker, kOtherReplica};
    s.isr = {kBroker, kOtherReplica};
    s.min_insync_replicas = 2;
    req.partitions.push_back(s);
    if (log_config) req.topic_configs.push_back(TopicConfig{"orders", *log_config});
    broker->on_message(kControllerNode, req);
  }

  // Fires every live timer with this tag (the broker re-arms periodic ones).
  void fire(BrokerTimer which) {
    const auto tag = static_cast<std::uint64_t>(which);
    for (const auto& timer : env.live_timers()) {
      if (timer.tag == tag) broker->on_timer(timer.id, timer.tag);
    }
  }

  const Partition& partition() const { return broker->state().partitions.at(TopicPartition{"orders", PartitionId(0)}); }

  template <typename T>
  std::vector<T> sent_to(NodeId to) const {
    std::vector<T> out;
    for (const Sent& s : env.sent) {
      if (const auto* m = std::get_if<T>(&s.msg); m != nullptr && s.to == to) out.push_back(*m);
    }
    return out;
  }

  void produce(std::vector<Record> records, std::int16_t acks, std::int32_t base_sequence = -1) {
    ProducerBatchInfo producer;
    if (base_sequence >= 0) producer = ProducerBatchInfo{ProducerId(11), ProducerEpoch(0), Sequence(base_sequence)};
    broker->on_message(kClient, ProduceRequest{++cid, "orders", PartitionId(0), acks, 30000, batch(records, producer)});
  }

  TestDisk t;
  FakeEnv env{t.disk};
  std::unique_ptr<Broker> broker;
  CorrelationId cid = 0;
  std::optional<LogConfig> log_config;  // the topic's, sent with the state when set
};

std::optional<Plant> plant_if(bool planted, Plant p) { return planted ? std::optional(p) : std::nullopt; }

// advance-hw-without-isr: acks=all is answered before the follower fetched anything.
TEST(ReplicaPlant, AdvanceHwWithoutIsrPlantAcknowledgesBeforeReplication) {
  for (const bool planted : {false, true}) {
    SCOPED_TRACE(planted ? "planted" : "correct");
    Replica r(plant_if(planted, Plant::kAdvanceHwWithoutIsr));
    r.state(1, kBroker, 1);
    r.produce({rec("a", "1"), rec("b", "2")}, -1);
    const auto acks = r.sent_to<ProduceResponse>(kClient);
    if (planted) {
      ASSERT_EQ(acks.size(), 1u);
      EXPECT_EQ(acks[0].error, ErrorCode::NONE);
      EXPECT_EQ(r.partition().high_watermark, Offset(2));
    } else {
      EXPECT_TRUE(acks.empty()) << "acks=all waits for the ISR";
      EXPECT_EQ(r.partition().high_watermark, Offset(0));
    }
  }
}

// fetch-above-hw: a consumer reads records the follower does not have yet.
TEST(ReplicaPlant, FetchAboveHighWatermarkPlantServesUncommittedRecords) {
  for (const bool planted : {false, true}) {
    SCOPED_TRACE(planted ? "planted" : "correct");
    Replica r(plant_if(planted, Plant::kFetchAboveHighWatermark));
    r.state(1, kBroker, 1);
    r.produce({rec("a", "1"), rec("b", "2"), rec("c", "3")}, 1);
    ASSERT_EQ(r.partition().high_watermark, Offset(0));
    r.broker->on_message(kClient, FetchRequest{++r.cid, "orders", PartitionId(0), Offset(0), 500, 0});
    const auto fetched = r.sent_to<FetchResponse>(kClient);
    ASSERT_EQ(fetched.size(), 1u);
    EXPECT_EQ(fetched[0].high_watermark, Offset(0));
    EXPECT_EQ(decode_batches(fetched[0].records).size(), planted ? 3u : 0u);
    // A follower reads to the log end either way.
    r.broker->on_message(kOtherReplica, FetchRequest{++r.cid, "orders", PartitionId(0), Offset(0), 500, 0,
                                                   kOtherReplica, LeaderEpoch(1)});
    const auto replicated = r.sent_to<FetchResponse>(kOtherReplica);
    ASSERT_EQ(replicated.size(), 1u);
    const std::vector<StoredRecord> records = decode_batches(replicated[0].records);
    ASSERT_EQ(records.size(), 3u);
    EXPECT_EQ(records[2].offset, Offset(2));
    EXPECT_EQ(records[2].record.value, "3");
  }
}

// A produce wakes every fetch held on the partition: the follower's is answered with the new
// records, the consumers' go back to waiting (the high watermark has not moved) in the order
// they came, and the follower's next fetch, which moves the high watermark, answers them so.
TEST(ReplicaLongPoll, WokenFetchesWithNothingToReadWaitOnInTheirOrder) {
  Replica r(std::nullopt);
  r.state(1, kBroker, 1);
  const NodeId second_consumer(103);
  r.broker->on_message(kOtherReplica, FetchRequest{++r.cid, "orders", PartitionId(0), Offset(0), 500, 500,
                                                 kOtherReplica, LeaderEpoch(1)});
  const CorrelationId first = ++r.cid;
  r.broker->on_message(kClient, FetchRequest{first, "orders", PartitionId(0), Offset(0), 500, 500});
  const CorrelationId second = ++r.cid;
  r.broker->on_message(second_consumer, FetchRequest{second, "orders", PartitionId(0), Offset(0), 500, 500,
                                                     NodeId(-1), LeaderEpoch(1)});
  ASSERT_TRUE(r.sent_to<FetchResponse>(kOtherReplica).empty() && r.sent_to<FetchResponse>(kClient).empty() &&
              r.sent_to<FetchResponse>(second_consumer).empty())
      << "all three wait: the log is empty";

  r.produce({rec("a", "1"), rec("b", "2")}, -1);
  const auto replicated = r.sent_to<FetchResponse>(kOtherReplica);
  ASSERT_EQ(replicated.size(), 1u);
  EXPECT_EQ(decode_batches(replicated[0].records).size(), 2u);
  EXPECT_TRUE(r.sent_to<FetchResponse>(kClient).empty()) << "the high watermark is still 0";
  EXPECT_TRUE(r.sent_to<FetchResponse>(second_consumer).empty());

  r.env.sent.clear();
  r.broker->on_message(kOtherReplica, FetchRequest{++r.cid, "orders", PartitionId(0), Offset(2), 500, 500,
                                                 kOtherReplica, LeaderEpoch(1)});
  EXPECT_EQ(r.partition().high_watermark, Offset(2));
  std::vector<Sent> answers;
  for (const Sent& sent : r.env.sent) {
    if (std::holds_alternative<FetchResponse>(sent.msg)) answers.push_back(sent);
  }
  ASSERT_EQ(answers.size(), 2u) << "both consumers, and not the follower at the log end";
  EXPECT_EQ(answers[0].to, kClient);
  EXPECT_EQ(std::get<FetchResponse>(answers[0].msg).correlation_id, first);
  EXPECT_EQ(answers[1].to, second_consumer);
  EXPECT_EQ(std::get<FetchResponse>(answers[1].msg).correlation_id, second);
  for (const Sent& a : answers) {
    EXPECT_EQ(decode_batches(std::get<FetchResponse>(a.msg).records).size(), 2u);
    EXPECT_EQ(std::get<FetchResponse>(a.msg).high_watermark, Offset(2));
  }
  EXPECT_EQ(r.sent_to<ProduceResponse>(kClient).size(), 1u) << "acks=all answered once the HW passed it";
}

// A follower whose log ends inside one of its leader's batches (its log diverged at a point
// that is not a batch boundary of the leader's, as after an unclean election and a truncation
// to a high watermark) cuts its own records from that batch's base and takes the leader's
// batch whole. Fetching from its log end again would get the same batch back for ever.
TEST(ReplicaFollower, ALogEndingInsideTheLeadersBatchIsCutToTheBatchsBase) {
  Replica r(std::nullopt);
  r.state(1, kOtherReplica, 1);
  const auto answer = [&](std::vector<StoredRecord> records, bool one_batch) {
    const auto fetches = r.sent_to<FetchRequest>(kOtherReplica);
    std::string batches;
    if (one_batch) {
      encode_stored_batch(records, batches);
    } else {
      for (const StoredRecord& one : records) encode_stored_batch(std::span<const StoredRecord>(&one, 1), batches);
    }
    FetchResponse resp{fetches.back().correlation_id, "orders", PartitionId(0), ErrorCode::NONE, Offset(0), Offset(0)};
    resp.records = SharedBytes(std::move(batches));
    r.broker->on_message(kOtherReplica, resp);
  };
  std::vector<StoredRecord> ours;
  for (std::int64_t i = 0; i < 5; ++i) ours.push_back({Offset(i), rec("k", "ours" + std::to_string(i)), LeaderEpoch(1)});
  answer(ours, /*one_batch=*/false);
  ASSERT_EQ(r.partition().log->log_end_offset(), Offset(5));
  std::vector<StoredRecord> theirs;
  for (std::int64_t i = 3; i < 8; ++i) theirs.push_back({Offset(i), rec("k", "theirs" + std::to_string(i)), LeaderEpoch(1)});
  answer(theirs, /*one_batch=*/true);  // offsets 3..7: our log end (5) is inside it
  EXPECT_EQ(r.partition().log->log_end_offset(), Offset(3)) << "cut at the leader batch's base";
  EXPECT_EQ(r.sent_to<FetchRequest>(kOtherReplica).back().fetch_offset, Offset(3));
  answer(theirs, /*one_batch=*/true);
  EXPECT_EQ(r.partition().log->log_end_offset(), Offset(8));
  const auto all = r.partition().log->read(Offset(0), 100, Offset(8));
  ASSERT_EQ(all.size(), 8u);
  EXPECT_EQ(all[2].record.value, "ours2");
  EXPECT_EQ(all[3].record.value, "theirs3");
}

// A follower's fetch still in flight when the replica becomes the leader is answered to no
// one: the late answer is dropped, whether the replica still leads or its topic was deleted
// and made again in between (the replica it was sent for no longer exists).
TEST(ReplicaFollower, AnAnswerToAFetchSentBeforeTheReplicaLedIsDropped) {
  for (const bool recreated : {false, true}) {
    SCOPED_TRACE(recreated ? "the topic deleted and made again" : "still leading");
    Replica r(std::nullopt);
    r.state(1, kOtherReplica, 1);
    const auto fetches = r.sent_to<FetchRequest>(kOtherReplica);
    ASSERT_EQ(fetches.size(), 1u);
    r.state(2, kBroker, 2);
    if (recreated) r.state(3, kBroker, 3, /*topic_id=*/8);
    std::string batches;
    const std::vector<StoredRecord> records{{Offset(0), rec("k", "late"), LeaderEpoch(1)}};
    encode_stored_batch(records, batches);
    FetchResponse late{fetches.front().correlation_id, "orders", PartitionId(0), ErrorCode::NONE, Offset(1), Offset(0)};
    late.records = SharedBytes(std::move(batches));
    r.broker->on_message(kOtherReplica, late);
    EXPECT_EQ(r.partition().log->log_end_offset(), Offset(0)) << "the late answer was appended";
    EXPECT_EQ(r.partition().high_watermark, Offset(0));
    EXPECT_EQ(r.sent_to<FetchRequest>(kOtherReplica).size(), 1u) << "a leader does not fetch";
  }
}

// truncate-to-hw (KAFKA-1211): a replica that becomes a follower again cuts its log to its own
// stale high watermark instead of asking the leader where its epoch ends.
TEST(ReplicaPlant, TruncateToHighWatermarkPlantCutsCommittedRecords) {
  for (const bool planted : {false, true}) {
    SCOPED_TRACE(planted ? "planted" : "correct");
    Replica r(plant_if(planted, Plant::kTruncateToHighWatermark));
    r.state(1, kOtherReplica, 1);
    const auto first = r.sent_to<FetchRequest>(kOtherReplica);
    ASSERT_EQ(first.size(), 1u) << "an empty log fetches at once";
    FetchResponse resp{first[0].correlation_id, "orders", PartitionId(0), ErrorCode::NONE, Offset(2), Offset(0)};
    std::string batches;
    for (std::int64_t i = 0; i < 5; ++i) {  // a batch each, so that the high watermark (2) is a batch boundary
      const StoredRecord one{Offset(i), rec("k", "v" + std::to_string(i)), LeaderEpoch(1)};
      encode_stored_batch(std::span<const StoredRecord>(&one, 1), batches);
    }
    resp.records = SharedBytes(std::move(batches));
    r.broker->on_message(kOtherReplica, resp);
    ASSERT_EQ(r.partition().log->log_end_offset(), Offset(5));
    ASSERT_EQ(r.partition().high_watermark, Offset(2));
    const std::size_t fetches = r.sent_to<FetchRequest>(kOtherReplica).size();
    r.state(2, kOtherReplica, 2);  // a new leader epoch: follow again
    if (planted) {
      EXPECT_EQ(r.partition().log->log_end_offset(), Offset(2)) << "truncated to its own high watermark";
      EXPECT_TRUE(r.sent_to<OffsetsForLeaderEpochRequest>(kOtherReplica).empty());
      const auto fetch = r.sent_to<FetchRequest>(kOtherReplica);
      ASSERT_EQ(fetch.size(), fetches + 1);
      EXPECT_EQ(fetch.back().fetch_offset, Offset(2));
    } else {
      EXPECT_EQ(r.partition().log->log_end_offset(), Offset(5)) << "nothing cut before the leader answers";
      EXPECT_EQ(r.sent_to<OffsetsForLeaderEpochRequest>(kOtherReplica).size(), 1u);
    }
  }
}

// delete-segment-above-hw: retention deletes expired segments the follower has not fetched
// (above the high watermark), and a consumer's fetch then shows the log start above the high
// watermark. Kafka stops retention at the high watermark.
TEST(ReplicaPlant, DeleteSegmentAboveHighWatermarkPlantDeletesUncommittedSegments) {
  for (const bool planted : {false, true}) {
    SCOPED_TRACE(planted ? "planted" : "correct");
    Replica r(plant_if(planted, Plant::kDeleteSegmentAboveHighWatermark));
    LogConfig config;
    config.retention_ms = 1000;
    config.segment_bytes = 14;  // a segment per batch
    r.log_config = config;
    r.state(1, kBroker, 1);
    for (int i = 0; i < 3; ++i) r.produce({rec("k", "v" + std::to_string(i), 0)}, 1);  // acks=1: answered at once
    ASSERT_EQ(r.sent_to<ProduceResponse>(kClient).size(), 3u);
    ASSERT_EQ(r.partition().high_watermark, Offset(0)) << "the follower has fetched nothing";
    r.env.set_now(seconds(10));  // every segment's records are 10 s old: past retention.ms
    r.fire(BrokerTimer::kRetention);
    const Offset start = r.partition().log->log_start_offset();
    EXPECT_EQ(start, planted ? Offset(2) : Offset(0)) << "the active segment stays either way";
    r.broker->on_message(kClient, FetchRequest{++r.cid, "orders", PartitionId(0), Offset(0), 500, 0});
    const auto fetched = r.sent_to<FetchResponse>(kClient);
    ASSERT_EQ(fetched.size(), 1u);
    EXPECT_EQ(fetched[0].error, planted ? ErrorCode::OFFSET_OUT_OF_RANGE : ErrorCode::NONE);
    EXPECT_EQ(fetched[0].high_watermark, Offset(0));
    EXPECT_EQ(fetched[0].log_start_offset, start);
  }
}

// As in Kafka, a restarted broker's high watermark lies within [log start, log end], even when
// its checkpoint is older than the retention that moved the log start.
TEST(ReplicaRecovery, TheHighWatermarkIsNeverBelowTheLogStartAfterARestart) {
  Replica r(std::nullopt);
  LogConfig config;
  config.retention_ms = 1000;
  config.segment_bytes = 14;
  r.log_config = config;
  r.state(1, kBroker, 1);
  for (int i = 0; i < 3; ++i) r.produce({rec("k", "v" + std::to_string(i), 0)}, 1);
  r.broker->on_message(kOtherReplica, FetchRequest{++r.cid, "orders", PartitionId(0), Offset(3), 500, 0,
                                                   kOtherReplica, LeaderEpoch(1)});
  ASSERT_EQ(r.partition().high_watermark, Offset(3));
  r.env.set_now(seconds(10));
  r.fire(BrokerTimer::kRetention);
  ASSERT_EQ(r.partition().log->log_start_offset(), Offset(2));
  r.t.disk.crash();  // before any high-watermark checkpoint was written

  FakeEnv env2(r.t.disk);
  BrokerConfig c;
  c.controller = kControllerNode;
  Broker restarted(env2, c);
  restarted.on_start();
  const Partition& p = restarted.state().partitions.at(TopicPartition{"orders", PartitionId(0)});
  EXPECT_EQ(p.log->log_start_offset(), Offset(2));
  EXPECT_EQ(p.high_watermark, Offset(2));
}

// skip-idempotent-dedup: a retried idempotent batch is written twice, and the producer's next
// batch is still accepted.
TEST(ReplicaPlant, SkipIdempotentDedupPlantWritesARetryAgain) {
  for (const bool planted : {false, true}) {
    SCOPED_TRACE(planted ? "planted" : "correct");
    Replica r(plant_if(planted, Plant::kSkipIdempotentDedup));
    r.state(1, kBroker, 1);
    r.produce({rec("a", "1"), rec("b", "2")}, 1, 0);
    r.produce({rec("a", "1"), rec("b", "2")}, 1, 0);  // the retry
    r.produce({rec("c", "3")}, 1, 2);
    const auto acks = r.sent_to<ProduceResponse>(kClient);
    ASSERT_EQ(acks.size(), 3u);
    for (const auto& a : acks) EXPECT_EQ(a.error, ErrorCode::NONE);
    EXPECT_EQ(acks[0].base_offset, Offset(0));
    EXPECT_EQ(acks[1].base_offset, planted ? Offset(2) : Offset(0));
    EXPECT_EQ(acks[2].base_offset, planted ? Offset(4) : Offset(2));
    EXPECT_EQ(r.partition().log->log_end_offset(), planted ? Offset(5) : Offset(3));
  }
}

}  // namespace
}  // namespace logsim::engine

// ---- ISR changes after a lost AlterPartition answer. The leader proposes one ISR change at a
// time and waits for its answer up to request.timeout.ms; when the answer is lost (a one-way
// cut from the controller), Kafka's leader does not wait that long: it retries on a broken
// connection, and drops the pending change when newer metadata (a newer partition epoch)
// arrives. Here the leader shrinks the ISR after the follower lagged, the answer is lost, and
// the follower then catches up: how soon does the leader propose taking it back?
namespace logsim::engine {
namespace {

struct LostAnswer : Replica {
  LostAnswer() : Replica(std::nullopt) {
    state(1, kBroker, 1);
    env.set_now(seconds(31));  // the follower has not fetched for more than replica.lag.time.max.ms
    fire(BrokerTimer::kIsrCheck);
  }
  // The controller's state after it committed the shrink: ISR of this broker alone, partition
  // epoch 2, the same leader epoch.
  void shrunk_state() {
    LeaderAndIsrRequest req;
    req.controller_epoch = 1;
    req.version = 2;
    req.live_brokers = {kBroker, kOtherReplica};
    PartitionState s;
    s.topic = "orders";
    s.partition = PartitionId(0);
    s.topic_id = 7;
    s.leader = kBroker;
    s.leader_epoch = LeaderEpoch(1);
    s.partition_epoch = 2;
    s.replicas = {kBroker, kOtherReplica};
    s.isr = {kBroker};
    s.min_insync_replicas = 2;
    req.partitions.push_back(s);
    broker->on_message(kControllerNode, req);
  }
  void follower_fetches() {
    broker->on_message(kOtherReplica, FetchRequest{++cid, "orders", PartitionId(0), Offset(0), 500, 0, kOtherReplica,
                                                   LeaderEpoch(1)});
  }
  std::vector<AlterPartitionRequest> proposals() const { return sent_to<AlterPartitionRequest>(kControllerNode); }
};

TEST(IsrAfterALostAnswer, OneChangeInFlightUntilRequestTimeout) {
  LostAnswer r;
  ASSERT_EQ(r.proposals().size(), 1u);
  EXPECT_EQ(r.proposals()[0].new_isr, (std::vector<NodeId>{kBroker}));
  r.env.set_now(seconds(40));  // the follower still lags
  r.fire(BrokerTimer::kIsrCheck);
  EXPECT_EQ(r.proposals().size(), 1u) << "a second change while the first is in flight";
  r.env.set_now(seconds(62));  // request.timeout.ms (30 s) after the first
  r.fire(BrokerTimer::kIsrCheck);
  EXPECT_EQ(r.proposals().size(), 2u);
}

TEST(IsrAfterALostAnswer, ANewerPartitionEpochEndsTheWaitAndTheFollowerIsTakenBackAtOnce) {
  LostAnswer r;
  r.env.set_now(seconds(32));
  r.shrunk_state();  // the controller's LeaderAndIsr (or a heartbeat's catch-up) after the heal
  EXPECT_EQ(r.partition().state.isr, (std::vector<NodeId>{kBroker}));
  r.follower_fetches();
  ASSERT_EQ(r.proposals().size(), 2u) << "the leader still waits for the lost answer";
  EXPECT_EQ(r.proposals()[1].new_isr, (std::vector<NodeId>{kBroker, kOtherReplica}));
  EXPECT_EQ(r.proposals()[1].partition_epoch, 2);
}

TEST(IsrAfterALostAnswer, ABrokenConnectionToTheControllerRetriesTheChange) {
  LostAnswer r;
  r.env.set_now(seconds(40));
  r.broker->on_disconnect(kOtherReplica);  // not the controller: nothing to retry
  r.fire(BrokerTimer::kIsrCheck);
  EXPECT_EQ(r.proposals().size(), 1u);
  r.broker->on_disconnect(kControllerNode);
  r.fire(BrokerTimer::kIsrCheck);
  ASSERT_EQ(r.proposals().size(), 2u) << "the leader still waits for an answer on a broken connection";
  EXPECT_EQ(r.proposals()[1].new_isr, (std::vector<NodeId>{kBroker}));
}
}  // namespace
}  // namespace logsim::engine

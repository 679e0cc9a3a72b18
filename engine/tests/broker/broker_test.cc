// Tests of the single-replica broker through its Node interface: Metadata, Produce, Fetch and
// ListOffsets answers and their error codes, the long-poll Fetch (held until records arrive or
// its wait ends), and log recovery when a new Broker object starts on the disk of a crashed
// one. The Env is a small fake: it records what the broker sends and the timers it arms, and
// hands it a SimDisk; tests fire timers by hand.
#include "engine/broker/broker.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "engine/protocol/record_batch.h"
#include "engine/tests/broker/broker_test_env.h"
#include "sim/disk.h"

namespace logsim::engine {
namespace {

using namespace brokertest;  // NOLINT(google-build-using-namespace): the tests' shared vocabulary

BrokerConfig two_topics() {
  BrokerConfig c;
  c.topics = {TopicSpec{"orders", 3}, TopicSpec{"audit", 1}};
  return c;
}

class BrokerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    broker.on_start();
    // The broker's periodic tasks (ISR check, high-watermark checkpoint) are armed at start;
    // these tests fire timers by hand and look only at the ones requests arm.
    env.timers.clear();
  }

  // Delivers a request and returns the one response it caused, sent back to the client.
  template <typename Response>
  Response call(Message request) {
    return call_broker<Response>(broker, env, std::move(request));
  }

  ProduceResponse produce(const std::string& topic, std::int32_t partition, std::vector<Record> records,
                          std::int16_t acks = -1, CorrelationId cid = 1) {
    return call<ProduceResponse>(ProduceRequest{cid, topic, PartitionId(partition), acks, 30000, batch(records)});
  }
  Fetched fetch(const std::string& topic, std::int32_t partition, std::int64_t offset, std::int32_t max_records = 500,
                CorrelationId cid = 2) {
    // max_wait_ms 0: answer at once, even when there is nothing to return.
    return decoded(call<FetchResponse>(FetchRequest{cid, topic, PartitionId(partition), Offset(offset), max_records, 0}),
                   Offset(offset));
  }
  ListOffsetsResponse list_offsets(const std::string& topic, std::int32_t partition, std::int64_t ts,
                                   CorrelationId cid = 3) {
    return call<ListOffsetsResponse>(ListOffsetsRequest{cid, topic, PartitionId(partition), ts});
  }

  TestDisk t;
  FakeEnv env{t.disk};
  Broker broker{env, two_topics()};
};

// ---- Metadata.

TEST_F(BrokerTest, MetadataListsConfiguredTopicsLedByThisBroker) {
  const auto resp = call<MetadataResponse>(MetadataRequest{77, {}});
  EXPECT_EQ(resp.correlation_id, 77);
  EXPECT_EQ(resp.brokers, std::vector<NodeId>{kBroker});
  ASSERT_EQ(resp.topics.size(), 2u);
  // All topics come sorted by name (Kafka promises no order; ours is deterministic).
  EXPECT_EQ(resp.topics[0].name, "audit");
  EXPECT_EQ(resp.topics[1].name, "orders");
  const std::size_t partitions[] = {1, 3};
  for (std::size_t i = 0; i < 2; ++i) {
    const TopicMetadata& tm = resp.topics[i];
    EXPECT_EQ(tm.error, ErrorCode::NONE);
    ASSERT_EQ(tm.partitions.size(), partitions[i]) << tm.name;
    for (std::size_t p = 0; p < tm.partitions.size(); ++p) {
      const PartitionMetadata& pm = tm.partitions[p];
      EXPECT_EQ(pm.partition, PartitionId(static_cast<std::int32_t>(p)));
      EXPECT_EQ(pm.error, ErrorCode::NONE);
      EXPECT_EQ(pm.leader, kBroker);
      EXPECT_EQ(pm.replicas, std::vector<NodeId>{kBroker});
      EXPECT_EQ(pm.isr, std::vector<NodeId>{kBroker});
    }
  }
}

TEST_F(BrokerTest, MetadataForRequestedTopicsFlagsUnknownOnes) {
  const auto resp = call<MetadataResponse>(MetadataRequest{5, {"audit", "nope"}});
  EXPECT_EQ(resp.correlation_id, 5);
  ASSERT_EQ(resp.topics.size(), 2u);
  EXPECT_EQ(resp.topics[0].name, "audit");
  EXPECT_EQ(resp.topics[0].error, ErrorCode::NONE);
  EXPECT_EQ(resp.topics[0].partitions.size(), 1u);
  EXPECT_EQ(resp.topics[1].name, "nope");
  EXPECT_EQ(resp.topics[1].error, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  EXPECT_TRUE(resp.topics[1].partitions.empty());
}

// ---- Produce.

TEST_F(BrokerTest, ProduceAssignsConsecutiveOffsetsPerPartition) {
  const auto r1 = produce("orders", 1, {rec("a", "1"), rec("b", "2")}, -1, 11);
  EXPECT_EQ(r1.correlation_id, 11);
  EXPECT_EQ(r1.topic, "orders");
  EXPECT_EQ(r1.partition, PartitionId(1));
  EXPECT_EQ(r1.error, ErrorCode::NONE);
  EXPECT_EQ(r1.base_offset, Offset(0));
  const auto r2 = produce("orders", 1, {rec("c", "3")}, 1, 12);
  EXPECT_EQ(r2.error, ErrorCode::NONE);
  EXPECT_EQ(r2.base_offset, Offset(2));
  const auto r3 = produce("orders", 1, {rec("d", "4"), rec("e", "5"), rec("f", "6")});
  EXPECT_EQ(r3.base_offset, Offset(3));
  // Other partitions have their own offsets.
  EXPECT_EQ(produce("orders", 0, {rec("x", "y")}).base_offset, Offset(0));
  EXPECT_EQ(produce("audit", 0, {rec("x", "y")}).base_offset, Offset(0));
  EXPECT_EQ(produce("orders", 1, {rec("g", "7")}).base_offset, Offset(6));
}

TEST_F(BrokerTest, ProduceWithAcksZeroSendsNoResponseButAppends) {
  broker.on_message(kClient, ProduceRequest{1, "orders", PartitionId(0), 0, 30000, batch({rec("a", "1"), rec("b", "2")})});
  EXPECT_TRUE(env.sent.empty());
  EXPECT_EQ(produce("orders", 0, {rec("c", "3")}).base_offset, Offset(2));
}

TEST_F(BrokerTest, ProduceWithInvalidAcksIsRejectedAndWritesNothing) {
  for (std::int16_t acks : {std::int16_t{2}, std::int16_t{-2}, std::int16_t{5}}) {
    const auto resp = produce("orders", 0, {rec("a", "1")}, acks);
    EXPECT_EQ(resp.error, ErrorCode::INVALID_REQUIRED_ACKS) << acks;
    EXPECT_EQ(resp.base_offset, Offset(-1));
  }
  EXPECT_EQ(list_offsets("orders", 0, kListOffsetsLatest).offset, Offset(0));
}

// The leader validates a produced batch as Kafka's LogValidator does: a CRC that does not hold
// is CORRUPT_MESSAGE; records at offset deltas other than 0..n-1 are INVALID_RECORD. Nothing is
// written either way. (A max timestamp that is not the records' is set right: next test.)
TEST_F(BrokerTest, ProduceOfABatchThatFailsValidationIsRejectedAndWritesNothing) {
  const auto send = [&](std::string bytes) {
    return call<ProduceResponse>(ProduceRequest{1, "orders", PartitionId(0), -1, 30000, SharedBytes(std::move(bytes))});
  };
  const std::vector<Record> two{rec("a", "1", 5), rec("b", "2", 7)};
  std::string flipped = batch(two).str();
  flipped.back() = static_cast<char>(flipped.back() ^ 1);
  EXPECT_EQ(send(flipped).error, ErrorCode::CORRUPT_MESSAGE);
  EXPECT_EQ(send(batch(two).str().substr(0, 70)).error, ErrorCode::CORRUPT_MESSAGE) << "cut short";
  // Offset deltas 0 and 2: well formed, as a compacted batch is, but not what a producer sends.
  std::string gapped;
  encode_stored_batch(std::vector<StoredRecord>{{Offset(0), two[0]}, {Offset(2), two[1]}}, gapped);
  EXPECT_EQ(send(gapped).error, ErrorCode::INVALID_RECORD);
  EXPECT_EQ(list_offsets("orders", 0, kListOffsetsLatest).offset, Offset(0)) << "nothing written";
  EXPECT_EQ(send(batch(two).str()).error, ErrorCode::NONE) << "the same records, well made";
}

// A CreateTime batch whose header's max timestamp is not its records' largest (Sarama 1.22 sends
// -1) is taken, and the log holds it with the records' max timestamp under a CRC that holds, as
// Kafka's LogValidator sets it.
TEST_F(BrokerTest, ProduceSetsABatchsMaxTimestampToItsRecords) {
  const std::vector<Record> two{rec("a", "1", 5), rec("b", "2", 7)};
  std::string wrong_max = batch(two).str();
  BatchHeader h = *parse_batch_header(wrong_max);
  h.max_timestamp_ms = -1;
  h.crc = batch_crc(h, std::string_view(wrong_max).substr(kBatchHeaderBytes));
  write_batch_header(h, wrong_max.data());
  // What a produce's bytes are checked for (the live gateway's records, recovery): CRC and
  // records, not the max timestamp.
  const BatchScan scan = scan_batches(wrong_max, true);
  EXPECT_TRUE(scan.complete && scan.batches.size() == 1);
  std::string flipped = wrong_max;
  flipped.back() = static_cast<char>(flipped.back() ^ 1);
  EXPECT_FALSE(scan_batches(flipped, true).complete);
  const auto resp = call<ProduceResponse>(ProduceRequest{1, "orders", PartitionId(0), -1, 30000, SharedBytes(wrong_max)});
  ASSERT_EQ(resp.error, ErrorCode::NONE);
  const FetchResponse fetched = call<FetchResponse>(FetchRequest{2, "orders", PartitionId(0), Offset(0), 500, 0});
  std::string scratch;
  const std::string_view stored = fetched.records.contiguous(scratch);
  const std::optional<BatchHeader> got = parse_batch_header(stored);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->max_timestamp_ms, 7);
  EXPECT_EQ(got->record_count, 2);
  EXPECT_TRUE(batch_is_valid(stored, true)) << "the CRC covers the new max timestamp";
  EXPECT_EQ(list_offsets("orders", 0, kListOffsetsLatest).offset, Offset(2));
}

TEST_F(BrokerTest, ProduceToUnknownTopicOrPartitionIsRejected) {
  for (const auto& [topic, partition] : std::vector<std::pair<std::string, std::int32_t>>{
           {"orders", 3}, {"orders", -1}, {"audit", 1}, {"nope", 0}}) {
    const auto resp = produce(topic, partition, {rec("a", "1")});
    EXPECT_EQ(resp.error, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION) << topic << "-" << partition;
    EXPECT_EQ(resp.base_offset, Offset(-1));
    EXPECT_EQ(resp.topic, topic);
    EXPECT_EQ(resp.partition, PartitionId(partition));
  }
}

// ---- Fetch.

TEST_F(BrokerTest, FetchReturnsRecordsUpToTheHighWatermark) {
  produce("orders", 2, {rec("k0", "v0", 10), rec("k1", "v1", 11), rec("k2", "v2", 12)});
  produce("orders", 2, {rec("k3", "v3", 13), rec("k4", "v4", 14)});
  const auto all = fetch("orders", 2, 0, 500, 21);
  EXPECT_EQ(all.correlation_id, 21);
  EXPECT_EQ(all.topic, "orders");
  EXPECT_EQ(all.partition, PartitionId(2));
  EXPECT_EQ(all.error, ErrorCode::NONE);
  EXPECT_EQ(all.high_watermark, Offset(5));
  EXPECT_EQ(all.log_start_offset, Offset(0));
  ASSERT_EQ(all.records.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    const auto n = static_cast<std::int64_t>(i);
    EXPECT_EQ(all.records[i].offset, Offset(n));
    EXPECT_EQ(all.records[i].record.key, "k" + std::to_string(i));
    EXPECT_EQ(all.records[i].record.value, "v" + std::to_string(i));
    EXPECT_EQ(all.records[i].record.timestamp_ms, 10 + n);
  }
  const auto middle = fetch("orders", 2, 1, 2);
  EXPECT_EQ(middle.error, ErrorCode::NONE);
  EXPECT_EQ(middle.high_watermark, Offset(5));
  ASSERT_EQ(middle.records.size(), 2u);
  EXPECT_EQ(middle.records[0].offset, Offset(1));
  EXPECT_EQ(middle.records[1].offset, Offset(2));
  EXPECT_EQ(middle.records[1].record.key, "k2");
  const auto tail = fetch("orders", 2, 3, 500);
  ASSERT_EQ(tail.records.size(), 2u);
  EXPECT_EQ(tail.records[0].offset, Offset(3));
  EXPECT_EQ(tail.records[1].offset, Offset(4));
}

TEST_F(BrokerTest, FetchAtLogEndIsEmptyWithoutError) {
  const auto empty_log = fetch("audit", 0, 0);
  EXPECT_EQ(empty_log.error, ErrorCode::NONE);
  EXPECT_TRUE(empty_log.records.empty());
  EXPECT_EQ(empty_log.high_watermark, Offset(0));
  produce("audit", 0, {rec("a", "1"), rec("b", "2")});
  const auto at_end = fetch("audit", 0, 2);
  EXPECT_EQ(at_end.error, ErrorCode::NONE);
  EXPECT_TRUE(at_end.records.empty());
  EXPECT_EQ(at_end.high_watermark, Offset(2));
  EXPECT_EQ(at_end.log_start_offset, Offset(0));
}

TEST_F(BrokerTest, FetchOutsideTheLogIsOffsetOutOfRange) {
  produce("audit", 0, {rec("a", "1"), rec("b", "2")});
  for (std::int64_t offset : {3, 100, -1}) {
    const auto resp = fetch("audit", 0, offset);
    EXPECT_EQ(resp.error, ErrorCode::OFFSET_OUT_OF_RANGE) << offset;
    EXPECT_TRUE(resp.records.empty()) << offset;
  }
}

TEST_F(BrokerTest, FetchOfUnknownPartitionIsRejected) {
  EXPECT_EQ(fetch("orders", 7, 0).error, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  EXPECT_EQ(fetch("nope", 0, 0).error, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
}

// ---- Long-poll Fetch (fetch.max.wait.ms).

// A fetch with a wait that finds records is answered at once and arms no timer.
TEST_F(BrokerTest, LongPollFetchWithRecordsIsAnsweredAtOnce) {
  produce("audit", 0, {rec("a", "1")});
  const Fetched resp = decoded(call<FetchResponse>(FetchRequest{4, "audit", PartitionId(0), Offset(0), 500, 500}), Offset(0));
  EXPECT_EQ(resp.error, ErrorCode::NONE);
  ASSERT_EQ(resp.records.size(), 1u);
  EXPECT_TRUE(env.timers.empty());
}

// Errors are never held: the client must learn of them at once.
TEST_F(BrokerTest, LongPollFetchErrorsAreAnsweredAtOnce) {
  const auto out_of_range = call<FetchResponse>(FetchRequest{4, "audit", PartitionId(0), Offset(5), 500, 500});
  EXPECT_EQ(out_of_range.error, ErrorCode::OFFSET_OUT_OF_RANGE);
  const auto unknown = call<FetchResponse>(FetchRequest{5, "nope", PartitionId(0), Offset(0), 500, 500});
  EXPECT_EQ(unknown.error, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  EXPECT_TRUE(env.timers.empty());
}

// A fetch at the log end is held, with a timer of max_wait_ms; records produced to its
// partition answer it (and every other fetch held there) at once and disarm the timers.
TEST_F(BrokerTest, LongPollFetchIsAnsweredWhenRecordsArrive) {
  env.set_now(millis(1000));
  const NodeId other(101);
  broker.on_message(kClient, FetchRequest{41, "orders", PartitionId(1), Offset(0), 500, 250});
  broker.on_message(other, FetchRequest{42, "orders", PartitionId(1), Offset(0), 1, 700});
  broker.on_message(other, FetchRequest{43, "orders", PartitionId(2), Offset(0), 500, 700});
  EXPECT_TRUE(env.sent.empty());
  ASSERT_EQ(env.timers.size(), 3u);
  EXPECT_EQ(env.timers[0].deadline, millis(1250));
  EXPECT_EQ(env.timers[1].deadline, millis(1700));

  // A produce elsewhere, or one that fails, wakes nobody.
  produce("orders", 0, {rec("x", "x")});
  produce("orders", 1, {rec("x", "x")}, 7);  // invalid acks
  EXPECT_EQ(env.sent.size(), 2u);
  EXPECT_EQ(env.live_timers().size(), 3u);

  env.sent.clear();
  broker.on_message(kClient, ProduceRequest{50, "orders", PartitionId(1), -1, 30000, batch({rec("a", "1"), rec("b", "2")})});
  ASSERT_EQ(env.sent.size(), 3u);  // the produce response and the two held fetches
  const std::vector<Sent> fetches = fetch_responses(env.sent);
  ASSERT_EQ(fetches.size(), 2u);  // in the order they were held
  EXPECT_EQ(std::get<ProduceResponse>(only<ProduceResponse>(env.sent).msg).base_offset, Offset(0));
  EXPECT_EQ(fetches[0].to, kClient);
  const Fetched first = decoded(std::get<FetchResponse>(fetches[0].msg), Offset(0));
  EXPECT_EQ(first.correlation_id, 41);
  EXPECT_EQ(first.error, ErrorCode::NONE);
  EXPECT_EQ(first.high_watermark, Offset(2));
  ASSERT_EQ(first.records.size(), 2u);
  EXPECT_EQ(first.records[1].record.key, "b");
  EXPECT_EQ(fetches[1].to, other);
  const Fetched second = decoded(std::get<FetchResponse>(fetches[1].msg), Offset(0));
  EXPECT_EQ(second.correlation_id, 42);
  // Its max_records of 1 still gets a whole batch, as Kafka's fetch size gets at least one.
  ASSERT_EQ(second.records.size(), 2u);
  // The woken fetches' timers are disarmed; the one held on partition 2 still waits.
  const auto live = env.live_timers();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].id, env.timers[2].id);

  // A stale timer firing (cancel raced with expiry) must not answer anything twice.
  env.sent.clear();
  broker.on_timer(env.timers[0].id, env.timers[0].tag);
  EXPECT_TRUE(env.sent.empty());
}

// An acks=0 produce wakes held fetches too, though it sends no produce response.
TEST_F(BrokerTest, LongPollFetchIsWokenByAcksZeroProduce) {
  broker.on_message(kClient, FetchRequest{41, "audit", PartitionId(0), Offset(0), 500, 500});
  ASSERT_TRUE(env.sent.empty());
  broker.on_message(kClient, ProduceRequest{50, "audit", PartitionId(0), 0, 30000, batch({rec("a", "1")})});
  ASSERT_EQ(env.sent.size(), 1u);
  const Fetched resp = decoded(std::get<FetchResponse>(env.sent[0].msg), Offset(0));
  EXPECT_EQ(resp.correlation_id, 41);
  EXPECT_EQ(resp.records.size(), 1u);
}

// When the wait ends with nothing new, the held fetch is answered empty, once.
TEST_F(BrokerTest, LongPollFetchIsAnsweredEmptyWhenItsWaitEnds) {
  produce("audit", 0, {rec("a", "1")});
  env.sent.clear();
  broker.on_message(kClient, FetchRequest{41, "audit", PartitionId(0), Offset(1), 500, 500});
  broker.on_message(kClient, FetchRequest{42, "audit", PartitionId(0), Offset(1), 500, 900});
  ASSERT_TRUE(env.sent.empty());
  ASSERT_EQ(env.timers.size(), 2u);
  broker.on_timer(env.timers[0].id, env.timers[0].tag);
  ASSERT_EQ(env.sent.size(), 1u);
  const auto resp = std::get<FetchResponse>(env.sent[0].msg);
  EXPECT_EQ(resp.correlation_id, 41);
  EXPECT_EQ(resp.error, ErrorCode::NONE);
  EXPECT_TRUE(resp.records.empty());
  EXPECT_EQ(resp.high_watermark, Offset(1));
  // A timer that already fired, handed back again, reaches nobody (the TimerMux forgot it); a
  // live timer handed back with a tag that names no broker timer is dropped. Neither answers.
  broker.on_timer(env.timers[0].id, env.timers[0].tag);
  broker.on_timer(env.timers[1].id, env.timers[1].tag + 1000);
  EXPECT_EQ(env.sent.size(), 1u);
  // Only the fetch still held is woken by the next record.
  env.sent.clear();
  broker.on_message(kClient, ProduceRequest{50, "audit", PartitionId(0), -1, 30000, batch({rec("b", "2")})});
  ASSERT_EQ(env.sent.size(), 2u);
  const std::vector<Sent> fetches = fetch_responses(env.sent);
  ASSERT_EQ(fetches.size(), 1u);
  EXPECT_EQ(std::get<FetchResponse>(fetches[0].msg).correlation_id, 42);
}

// ---- ListOffsets.

TEST_F(BrokerTest, ListOffsetsEarliestAndLatest) {
  auto earliest = list_offsets("orders", 0, kListOffsetsEarliest, 31);
  EXPECT_EQ(earliest.correlation_id, 31);
  EXPECT_EQ(earliest.error, ErrorCode::NONE);
  EXPECT_EQ(earliest.offset, Offset(0));
  EXPECT_EQ(list_offsets("orders", 0, kListOffsetsLatest).offset, Offset(0));
  produce("orders", 0, {rec("a", "1"), rec("b", "2"), rec("c", "3")});
  EXPECT_EQ(list_offsets("orders", 0, kListOffsetsEarliest).offset, Offset(0));
  const auto latest = list_offsets("orders", 0, kListOffsetsLatest);
  EXPECT_EQ(latest.error, ErrorCode::NONE);
  EXPECT_EQ(latest.topic, "orders");
  EXPECT_EQ(latest.partition, PartitionId(0));
  EXPECT_EQ(latest.offset, Offset(3));
  EXPECT_EQ(list_offsets("orders", 1, kListOffsetsLatest).offset, Offset(0));
  const auto unknown = list_offsets("orders", 9, kListOffsetsLatest);
  EXPECT_EQ(unknown.error, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
}

// ---- Restart.

TEST_F(BrokerTest, RestartedBrokerRecoversItsLogsAndKeepsOffsets) {
  produce("orders", 0, {rec("a", "1"), rec("b", "2")});
  produce("orders", 2, {rec("c", "3")});
  produce("audit", 0, {rec("d", "4"), rec("e", "5"), rec("f", "6")});
  t.disk.crash();

  FakeEnv env2(t.disk);
  Broker restarted(env2, two_topics());
  restarted.on_start();
  const auto call2 = [&](Message m) {
    env2.sent.clear();
    restarted.on_message(kClient, std::move(m));
    EXPECT_EQ(env2.sent.size(), 1u);
    return env2.sent.empty() ? Message{} : env2.sent.back().msg;
  };
  const auto latest = [&](const std::string& topic, std::int32_t p) {
    const Message m = call2(ListOffsetsRequest{1, topic, PartitionId(p), kListOffsetsLatest});
    return std::get<ListOffsetsResponse>(m).offset;
  };
  EXPECT_EQ(latest("orders", 0), Offset(2));
  EXPECT_EQ(latest("orders", 1), Offset(0));
  EXPECT_EQ(latest("orders", 2), Offset(1));
  EXPECT_EQ(latest("audit", 0), Offset(3));

  const Fetched fetched = decoded(std::get<FetchResponse>(call2(FetchRequest{2, "audit", PartitionId(0), Offset(0), 500, 0})), Offset(0));
  EXPECT_EQ(fetched.error, ErrorCode::NONE);
  EXPECT_EQ(fetched.high_watermark, Offset(3));
  ASSERT_EQ(fetched.records.size(), 3u);
  EXPECT_EQ(fetched.records[0].record.key, "d");
  EXPECT_EQ(fetched.records[2].record.value, "6");
  EXPECT_EQ(fetched.records[2].offset, Offset(2));

  // New records continue after the recovered ones.
  const auto produced = std::get<ProduceResponse>(
      call2(ProduceRequest{3, "orders", PartitionId(0), -1, 30000, batch({rec("g", "7")})}));
  EXPECT_EQ(produced.error, ErrorCode::NONE);
  EXPECT_EQ(produced.base_offset, Offset(2));
}

// A power loss that tears the unsynced tail of every log: the restarted broker serves a prefix
// of what was produced that includes everything made durable, with no damaged record, and new
// records continue right after it.
TEST(BrokerRecovery, PowerLossWithTornTailsKeepsADurablePrefix) {
  std::size_t saw_partial_loss = 0;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    sim::SimDiskOptions options;
    options.torn_write_probability = 1.0;
    TestDisk t(options, seed);
    {
      FakeEnv env(t.disk);
      Broker broker(env, two_topics());
      broker.on_start();
      broker.on_message(kClient, ProduceRequest{1, "audit", PartitionId(0), -1, 30000, batch({rec("a", "0"), rec("b", "1")})});
      t.sync_all();
      for (int i = 2; i < 8; ++i) {
        broker.on_message(kClient, ProduceRequest{i, "audit", PartitionId(0), -1, 30000,
                                                  batch({rec("k", std::to_string(i), i)})});
      }
      ASSERT_EQ(env.sent.size(), 7u);
      for (std::size_t i = 0; i < env.sent.size(); ++i) {
        const auto& resp = std::get<ProduceResponse>(env.sent[i].msg);
        EXPECT_EQ(resp.base_offset, Offset(i == 0 ? 0 : static_cast<std::int64_t>(i) + 1));
      }
    }
    t.disk.power_loss();

    FakeEnv env(t.disk);
    Broker broker(env, two_topics());
    broker.on_start();
    broker.on_message(kClient, FetchRequest{9, "audit", PartitionId(0), Offset(0), 500, 0});
    ASSERT_EQ(env.sent.size(), 1u);
    const Fetched fetched = decoded(std::get<FetchResponse>(env.sent[0].msg), Offset(0));
    EXPECT_EQ(fetched.error, ErrorCode::NONE);
    ASSERT_GE(fetched.records.size(), 2u);  // the synced records always survive
    ASSERT_LE(fetched.records.size(), 8u);
    EXPECT_EQ(fetched.high_watermark, Offset(static_cast<std::int64_t>(fetched.records.size())));
    for (std::size_t i = 0; i < fetched.records.size(); ++i) {
      EXPECT_EQ(fetched.records[i].offset, Offset(static_cast<std::int64_t>(i)));
      EXPECT_EQ(fetched.records[i].record.value, std::to_string(i));
    }
    if (fetched.records.size() < 8) ++saw_partial_loss;
    broker.on_message(kClient, ProduceRequest{10, "audit", PartitionId(0), 1, 30000, batch({rec("z", "z")})});
    ASSERT_EQ(env.sent.size(), 2u);
    EXPECT_EQ(std::get<ProduceResponse>(env.sent[1].msg).base_offset,
              Offset(static_cast<std::int64_t>(fetched.records.size())));
  }
  EXPECT_EQ(saw_partial_loss, 50u);  // a torn tail is never kept whole
}

TEST_F(BrokerTest, ListOffsetsByTimestampFindsTheFirstCommittedRecordAtOrAfterIt) {
  produce("audit", 0, {rec("a", "1", 100), rec("b", "2", 300), rec("c", "3", 200), rec("d", "4", 500)});
  EXPECT_EQ(list_offsets("audit", 0, 0).offset, Offset(0));
  EXPECT_EQ(list_offsets("audit", 0, 150).offset, Offset(1));
  EXPECT_EQ(list_offsets("audit", 0, 300).offset, Offset(1));
  EXPECT_EQ(list_offsets("audit", 0, 301).offset, Offset(3));  // 200 at offset 2 came after 300
  EXPECT_EQ(list_offsets("audit", 0, 501).offset, Offset(-1));
  EXPECT_EQ(list_offsets("audit", 0, 501).error, ErrorCode::NONE);
}

// ---- Topic deletion and re-creation, as the controller's LeaderAndIsr tells a broker.


class BrokerTopicLifecycleTest : public ::testing::Test {
 protected:
  void SetUp() override { start(); }

  void start() {
    broker = std::make_unique<Broker>(env, [] {
      BrokerConfig c;
      c.controller = kControllerNode;
      return c;
    }());
    broker->on_start();
  }

  // The controller's whole state: `orders` partition 0 led here under `topic_id`, if any.
  void state(std::int64_t version, std::optional<std::int64_t> topic_id) {
    LeaderAndIsrRequest req;
    req.controller_epoch = 1;
    req.version = version;
    req.live_brokers = {kBroker};
    if (topic_id) {
      PartitionState s;
      s.topic = "orders";
      s.partition = PartitionId(0);
      s.topic_id = *topic_id;
      s.leader = kBroker;
      s.leader_epoch = LeaderEpoch(1);
      s.replicas = {kBroker};
      s.isr = {kBroker};
      req.partitions.push_back(s);
    }
    broker->on_message(kControllerNode, req);
  }

  template <typename Response>
  Response last_to_client() {
    for (auto it = env.sent.rbegin(); it != env.sent.rend(); ++it) {
      if (it->to != kClient) continue;
      if (const auto* r = std::get_if<Response>(&it->msg)) return *r;
      break;
    }
    ADD_FAILURE() << "no " << typeid(Response).name() << " sent to the client last";
    return Response{};
  }

  ProduceResponse produce(std::vector<Record> records) {
    broker->on_message(kClient, ProduceRequest{++cid, "orders", PartitionId(0), 1, 30000, batch(records)});
    return last_to_client<ProduceResponse>();
  }

  std::vector<std::string> files_of_orders() const {
    std::vector<std::string> out;
    for (const auto& f : t.disk.list()) {
      if (f.starts_with("orders-0/")) out.push_back(f);
    }
    return out;
  }

  TestDisk t;
  FakeEnv env{t.disk};
  std::unique_ptr<Broker> broker;
  CorrelationId cid = 0;
  std::optional<LogConfig> log_config;  // the topic's, sent with the state when set
};

TEST_F(BrokerTopicLifecycleTest, DeletingATopicDeletesItsLogAndAnswersUnknownTopic) {
  state(1, 7);
  ASSERT_EQ(produce({rec("a", "1"), rec("b", "2")}).error, ErrorCode::NONE);
  const auto files = files_of_orders();
  EXPECT_NE(std::find(files.begin(), files.end(), "orders-0/partition.metadata"), files.end());
  EXPECT_GE(files.size(), 2u) << "a segment and the partition.metadata file";
  // A consumer's fetch waits for records when there are none beyond its offset.
  broker->on_message(kClient, FetchRequest{++cid, "orders", PartitionId(0), Offset(2), 500, 1000});
  const std::size_t before = env.sent.size();

  state(2, std::nullopt);
  EXPECT_TRUE(files_of_orders().empty()) << "the log's files are deleted";
  ASSERT_EQ(env.sent.size(), before + 1) << "the held fetch is answered";
  EXPECT_EQ(last_to_client<FetchResponse>().error, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  EXPECT_EQ(produce({rec("c", "3")}).error, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  EXPECT_TRUE(broker->state().partitions.empty());
}

TEST_F(BrokerTopicLifecycleTest, ARecreatedTopicStartsFromAnEmptyLog) {
  state(1, 7);
  ASSERT_EQ(produce({rec("a", "1"), rec("b", "2"), rec("c", "3")}).base_offset, Offset(0));
  state(2, std::nullopt);
  state(3, 8);
  EXPECT_EQ(produce({rec("d", "4")}).base_offset, Offset(0)) << "offsets start again";
}

TEST_F(BrokerTopicLifecycleTest, ALogLeftFromAnOlderIncarnationIsDeletedAtRestart) {
  // The topic was deleted and re-created while this broker was down: on restart the broker
  // finds its old log on disk, and the controller's state names a new topic id.
  state(1, 7);
  ASSERT_EQ(produce({rec("a", "1"), rec("b", "2")}).error, ErrorCode::NONE);
  t.sync_all();
  start();  // a new process on the same disk
  EXPECT_EQ(broker->state().partitions.at(TopicPartition{"orders", PartitionId(0)}).log->log_end_offset(), Offset(2)) << "recovered";
  EXPECT_EQ(broker->state().partitions.at(TopicPartition{"orders", PartitionId(0)}).topic_id, 7);
  state(1, 9);
  EXPECT_EQ(broker->state().partitions.at(TopicPartition{"orders", PartitionId(0)}).topic_id, 9);
  EXPECT_EQ(produce({rec("z", "9")}).base_offset, Offset(0)) << "the stale records are gone";
}

TEST_F(BrokerTopicLifecycleTest, TheSameTopicIdKeepsTheLogAcrossARestart) {
  state(1, 7);
  ASSERT_EQ(produce({rec("a", "1"), rec("b", "2")}).error, ErrorCode::NONE);
  t.sync_all();
  start();
  state(1, 7);
  EXPECT_EQ(produce({rec("c", "3")}).base_offset, Offset(2));
}

}  // namespace
}  // namespace logsim::engine

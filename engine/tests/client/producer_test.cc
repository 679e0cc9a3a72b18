// Tests of the producer client against scripted broker answers: metadata first, partitioning
// (murmur2 for keys, sticky for null keys or with partitioner.ignore.keys, adaptive sticky
// choices and partitioner.availability.timeout.ms), batching by batch.size and linger.ms, the per-broker
// in-flight limit, retries with their backoff and timeouts, disconnects and acks=0 (the fixture
// is in producer_test_fixture.h; idempotence is in producer_idempotence_test.cc).
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/tests/client/producer_test_fixture.h"

namespace logsim::engine {
namespace {

using namespace producer_testing;

// Kafka's own partition for a key, from the murmur2 test vectors in Kafka's UtilsTest (not from
// our murmur2): toPositive(hash) % partitions.
std::int32_t kafka_partition(std::int32_t murmur2_of_key, std::int32_t partitions) {
  const std::uint32_t positive = static_cast<std::uint32_t>(murmur2_of_key) & 0x7fffffffU;
  return static_cast<std::int32_t>(positive % static_cast<std::uint32_t>(partitions));
}

// ---- Metadata and partitioning.

TEST_F(ProducerTest, SendsWaitForMetadataThenGoToTheLeader) {
  make(base_config());
  producer->start();
  ASSERT_EQ(sent_of<MetadataRequest>().size(), 1u);
  EXPECT_EQ(env.sent.front().to, kB1);
  EXPECT_TRUE(sent_of<InitProducerIdRequest>().empty()) << "not idempotent: no producer id";

  send("a", PartitionId(1));
  send("b", PartitionId(1));
  // A keyed record's partition needs the partition count, which only metadata gives.
  send("k", std::nullopt, std::string("abc"));
  EXPECT_TRUE(produces().empty()) << "nothing may be produced before metadata names the leader";
  EXPECT_EQ(sent_of<MetadataRequest>().size(), 1u) << "one Metadata request in flight, not one per send";

  answer_metadata({kB1, kB2, kB3});
  const auto with = sent_with<ProduceRequest>();
  ASSERT_EQ(with.size(), 2u);
  const std::int32_t keyed_partition = kafka_partition(479470107, 3);  // murmur2("abc")
  ASSERT_NE(keyed_partition, 1);
  for (const Sent& s : with) {
    const auto& req = Produced(std::get<ProduceRequest>(s.msg));
    EXPECT_EQ(req.topic, kTopic);
    EXPECT_EQ(req.acks, -1);
    EXPECT_EQ(req.producer_id, ProducerId(-1));
    EXPECT_EQ(req.base_sequence, Sequence(-1));
    if (req.partition == PartitionId(1)) {
      EXPECT_EQ(s.to, kB2) << "partition 1 is led by broker 2";
      EXPECT_EQ(values(req), (Strings{"a", "b"}));
    } else {
      EXPECT_EQ(req.partition, PartitionId(keyed_partition)) << "the key's murmur2 partition over 3";
      EXPECT_EQ(values(req), Strings{"k"});
    }
  }
}

TEST_F(ProducerTest, KeyedRecordsGoToKafkasMurmur2Partition) {
  ProducerConfig c = base_config();
  c.max_in_flight = 100;
  const std::vector<NodeId> leaders(7, kB1);
  start_ready(c, leaders);
  // (key, murmur2 from Kafka's UtilsTest)
  const std::vector<std::pair<std::string, std::int32_t>> vectors = {
      {"21", -973932308}, {"foobar", -790332482}, {"a-little-bit-long-string", -985981536},
      {"a-little-bit-longer-string", -1486304829}, {"abc", 479470107}};
  for (const auto& [key, hash] : vectors) send("v-" + key, std::nullopt, key);
  const auto reqs = produces();
  ASSERT_EQ(reqs.size(), vectors.size());
  for (std::size_t i = 0; i < vectors.size(); ++i) {
    EXPECT_EQ(reqs[i].partition, PartitionId(kafka_partition(vectors[i].second, 7))) << vectors[i].first;
    EXPECT_EQ(values(reqs[i]), Strings{"v-" + vectors[i].first});
  }
  // The same key always lands on the same partition.
  send("again", std::nullopt, std::string("foobar"));
  EXPECT_EQ(produces().back().partition, PartitionId(kafka_partition(-790332482, 7)));
}

TEST_F(ProducerTest, NullKeysStickToOnePartitionUntilBatchSizeBytes) {
  ProducerConfig c = base_config();
  c.batch_size = 10;
  c.max_in_flight = 1000;
  const std::vector<NodeId> leaders(4, kB1);
  start_ready(c, leaders);
  // 4-byte values: two fit in 10 bytes, the third would not, so the partition may change only
  // before records 0, 2, 4, ...
  constexpr int kRecords = 40;
  for (int i = 0; i < kRecords; ++i) send("r" + std::to_string(100 + i));
  std::vector<PartitionId> partition_of;
  for (const Produced& req : produces()) {
    for (std::size_t j = 0; j < req.records.size(); ++j) partition_of.push_back(req.partition);
  }
  ASSERT_EQ(partition_of.size(), static_cast<std::size_t>(kRecords));
  std::set<std::int32_t> used;
  for (int i = 0; i < kRecords; ++i) {
    used.insert(partition_of[static_cast<std::size_t>(i)].value());
    if (i % 2 == 1) {
      EXPECT_EQ(partition_of[static_cast<std::size_t>(i)], partition_of[static_cast<std::size_t>(i - 1)])
          << "record " << i << " left its sticky partition before batch.size bytes";
    }
  }
  EXPECT_GT(used.size(), 1u) << "the sticky partition never moved in " << kRecords / 2 << " batches";
}

// A record's partition, each in send order, from the Produce requests sent so far.
std::vector<PartitionId> partitions_of_records(const std::vector<Produced>& reqs) {
  std::vector<PartitionId> out;
  for (const Produced& req : reqs) {
    for (std::size_t j = 0; j < req.records.size(); ++j) out.push_back(req.partition);
  }
  return out;
}

// One key for every record: partitioner.ignore.keys=false keeps it on the key's murmur2
// partition; true partitions it like a null key (sticky, moving at batch.size switches).
TEST_F(ProducerTest, IgnoreKeysSpreadsOneKeyOverPartitionsAcrossBatchSizeSwitches) {
  constexpr int kRecords = 40;
  const PartitionId murmur2_partition(kafka_partition(479470107, 4));  // murmur2("abc")
  for (const bool ignore_keys : {false, true}) {
    SCOPED_TRACE(ignore_keys ? "partitioner.ignore.keys=true" : "partitioner.ignore.keys=false");
    ProducerConfig c = base_config();
    c.batch_size = 10;  // two 4-byte values fit, a third would not
    c.max_in_flight = 1000;
    c.partitioner_ignore_keys = ignore_keys;
    start_ready(c, std::vector<NodeId>(4, kB1));
    for (int i = 0; i < kRecords; ++i) send("r" + std::to_string(100 + i), std::nullopt, std::string("abc"));
    const auto partition_of = partitions_of_records(produces());
    ASSERT_EQ(partition_of.size(), static_cast<std::size_t>(kRecords));
    std::set<std::int32_t> used;
    for (std::size_t i = 0; i < partition_of.size(); ++i) {
      used.insert(partition_of[i].value());
      if (!ignore_keys) {
        EXPECT_EQ(partition_of[i], murmur2_partition) << "record " << i;
      } else if (i % 2 == 1) {
        EXPECT_EQ(partition_of[i], partition_of[i - 1]) << "record " << i << " left its sticky partition early";
      }
    }
    EXPECT_EQ(used.size() > 1, ignore_keys) << used.size() << " partitions used";
  }
}

// The partitioner tests' setup: partitions 0, 1 and 2 led by brokers 1, 2 and 3; batch.size of
// one 4-byte value, so every record is a batch of its own and the sticky partition switches at
// every record; one request in flight per broker.
class StickyChoiceTest : public ProducerTest {
 protected:
  static ProducerConfig config(bool adaptive, std::int32_t availability_timeout_ms = 0) {
    ProducerConfig c = base_config();
    c.batch_size = 4;
    c.max_in_flight = 1;
    c.partitioner_adaptive = adaptive;
    c.partitioner_availability_timeout_ms = availability_timeout_ms;
    return c;
  }

  // Every partition gets a queue (Kafka weighs queues only then); broker 3 takes partition 2's
  // first batch and never answers, and `waiting` more batches queue up behind it.
  void start_with_a_stuck_partition(ProducerConfig c, int waiting) {
    start_ready(std::move(c), {kB1, kB2, kB3});
    for (std::int32_t p = 0; p < 3; ++p) send("f00" + std::to_string(p), PartitionId(p));
    answer_brokers_1_and_2();
    for (int i = 0; i < waiting; ++i) send("w" + three_digits(i), PartitionId(2));
  }

  // Answers every Produce request to brokers 1 and 2 not answered yet (an answer may let the
  // next batch go, which is answered too).
  void answer_brokers_1_and_2() {
    for (bool answered_one = true; answered_one;) {
      answered_one = false;
      for (const Sent& s : sent_with<ProduceRequest>()) {
        const auto& req = std::get<ProduceRequest>(s.msg);
        if (s.to == kB3 || !answered_.insert(req.correlation_id).second) continue;
        EXPECT_TRUE(respond(Produced(req), ErrorCode::NONE, 0, s.to));
        answered_one = true;
      }
    }
  }

  // Sends `count` null-key records, answering brokers 1 and 2 after each, and returns how many
  // went to partition 2: the records that were not acknowledged (broker 3 answers nothing).
  int sends_to_the_stuck_partition(int count) {
    const std::size_t before = results.size();
    for (int i = 0; i < count; ++i) {
      send("n" + three_digits(next_value_++ % 1000));
      answer_brokers_1_and_2();
    }
    int acknowledged = 0;
    for (std::size_t i = before; i < results.size(); ++i) {
      EXPECT_EQ(results[i].result.outcome, SendOutcome::kAcknowledged);
      EXPECT_NE(results[i].result.partition, PartitionId(2));
      ++acknowledged;
    }
    return count - acknowledged;
  }

  static std::string three_digits(int i) {
    std::string s = std::to_string(i);
    return std::string(3 - s.size(), '0') + s;
  }

  std::set<CorrelationId> answered_;
  int next_value_ = 0;
};

// Partition 2 has five batches waiting, partitions 0 and 1 none: the weights are 6, 6 and 1, so
// about 1 in 13 records should go to it at first (and fewer as its queue grows), against 1 in 3
// for the uniform choice (partitioner.adaptive.partitioning.enable=false). The counts are fixed
// by the fake Env's seed; the bounds would hold for any seed with overwhelming probability.
TEST_F(StickyChoiceTest, AdaptiveSendsLessToAPartitionWithALongQueue) {
  start_with_a_stuck_partition(config(true), 5);
  const int stuck = sends_to_the_stuck_partition(300);
  EXPECT_GT(stuck, 0) << "a long queue keeps weight 1";
  EXPECT_LT(stuck, 40) << "about 300/13 at most; uniform would send about 100";
}

TEST_F(StickyChoiceTest, WithoutAdaptiveTheChoiceIsUniform) {
  start_with_a_stuck_partition(config(false), 5);
  const int stuck = sends_to_the_stuck_partition(300);
  EXPECT_GT(stuck, 70) << "about 100 of 300 expected";
  EXPECT_LT(stuck, 130) << "about 100 of 300 expected";
}

// Broker 3 took a batch at 0 ms and answers nothing: with partitioner.availability.timeout.ms
// 100 its partition still draws records at 50 ms (by weight), none after 100 ms.
TEST_F(StickyChoiceTest, AvailabilityTimeoutLeavesOutAPartitionWhoseLeaderTakesNothing) {
  start_with_a_stuck_partition(config(true, 100), 1);
  advance_to(millis(50));
  EXPECT_GT(sends_to_the_stuck_partition(60), 0) << "weights 2, 2, 1 at first: about 1 in 5";
  advance_to(millis(101));
  EXPECT_EQ(sends_to_the_stuck_partition(200), 0) << "broker 3 has taken nothing for longer than 100 ms";
  // Broker 3 answers: it takes the next batch at once, and its partition is a candidate again.
  for (const Sent& s : sent_with<ProduceRequest>()) {
    const auto& req = std::get<ProduceRequest>(s.msg);
    if (s.to == kB3) {
      EXPECT_TRUE(respond(Produced(req), ErrorCode::NONE, 0, kB3));
    }
  }
  EXPECT_GT(sends_to_the_stuck_partition(200), 0) << "available again";
}

// The same without the timeout (Kafka's default 0): the partition keeps its weight.
TEST_F(StickyChoiceTest, WithoutAvailabilityTimeoutASilentLeaderKeepsItsWeight) {
  start_with_a_stuck_partition(config(true, 0), 1);
  advance_to(millis(101));
  EXPECT_GT(sends_to_the_stuck_partition(200), 0);
}

// When every partition is left out, Kafka keeps no statistics and chooses among them all.
TEST_F(StickyChoiceTest, AvailabilityTimeoutWithEveryLeaderSilentUsesThemAll) {
  start_ready(config(true, 100), {kB1, kB2});
  for (std::int32_t p = 0; p < 2; ++p) {
    send("f00" + std::to_string(p), PartitionId(p));  // in flight, never answered
    send("g00" + std::to_string(p), PartitionId(p));  // waiting
  }
  advance_to(millis(200));
  for (int i = 0; i < 40; ++i) send("n" + three_digits(i));
  // Answer everything until every record is acknowledged, to read each one's partition.
  std::set<CorrelationId> answered;
  for (bool answered_one = true; answered_one;) {
    answered_one = false;
    for (const Sent& s : sent_with<ProduceRequest>()) {
      const auto& req = std::get<ProduceRequest>(s.msg);
      if (answered.insert(req.correlation_id).second) answered_one = respond(Produced(req), ErrorCode::NONE, 0, s.to) || answered_one;
    }
  }
  ASSERT_EQ(results.size(), 44u);
  std::set<std::int32_t> used;
  for (const Result& r : results) {
    if (r.value[0] == 'n') used.insert(r.result.partition.value());
  }
  EXPECT_EQ(used, (std::set<std::int32_t>{0, 1}));
}

// ---- Batching.

TEST_F(ProducerTest, RecordsSentWhileARequestIsInFlightShareTheNextRequest) {
  ProducerConfig c = base_config();
  c.max_in_flight = 1;
  start_ready(c);
  send("a", PartitionId(0));
  ASSERT_EQ(produces().size(), 1u);
  send("b", PartitionId(0));
  send("c", PartitionId(0));
  send("d", PartitionId(0));
  EXPECT_EQ(produces().size(), 1u) << "max.in.flight=1: the next request waits for the answer";

  ASSERT_TRUE(respond(produces()[0], ErrorCode::NONE, 5));
  const auto reqs = produces();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(values(reqs[1]), (Strings{"b", "c", "d"})) << "one request carries the whole batch";
  ASSERT_TRUE(respond(reqs[1], ErrorCode::NONE, 6));

  ASSERT_EQ(results.size(), 4u);
  const Strings order = {"a", "b", "c", "d"};
  for (std::size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(results[i].value, order[i]);
    EXPECT_EQ(results[i].result.outcome, SendOutcome::kAcknowledged);
    EXPECT_EQ(results[i].result.partition, PartitionId(0));
    EXPECT_EQ(results[i].result.offset, Offset(5 + static_cast<std::int64_t>(i))) << "base offset + index";
    EXPECT_EQ(results[i].result.error, ErrorCode::NONE);
  }
  EXPECT_EQ(producer->in_flight(), 0u);
}

TEST_F(ProducerTest, BatchSizeClosesABatchDespiteLinger) {
  ProducerConfig c = base_config();
  c.batch_size = 10;
  c.linger_ms = 1000;
  start_ready(c);
  send("aaaa", PartitionId(0));
  send("bbbb", PartitionId(0));
  EXPECT_TRUE(produces().empty()) << "8 of 10 bytes: the batch lingers";
  send("cccc", PartitionId(0));  // 12 bytes would not fit: the first batch closes and goes
  ASSERT_EQ(produces().size(), 1u);
  EXPECT_EQ(values(produces()[0]), (Strings{"aaaa", "bbbb"}));
  send("dddddd", PartitionId(0));  // 4 + 6 = batch.size exactly: full, goes at once
  ASSERT_EQ(produces().size(), 2u);
  EXPECT_EQ(values(produces()[1]), (Strings{"cccc", "dddddd"}));
  for (const Sent& s : env.sent) EXPECT_EQ(s.at, 0) << "full batches do not wait for linger.ms";
}

TEST_F(ProducerTest, LingerHoldsALoneBatchUntilItsDeadline) {
  ProducerConfig c = base_config();
  c.linger_ms = 50;
  start_ready(c);
  send("a", PartitionId(0));
  advance_to(millis(20));
  send("b", PartitionId(0));
  advance_to(millis(50) - 1);
  EXPECT_TRUE(produces().empty()) << "linger.ms has not passed since the first record";
  advance_to(millis(50));
  const auto with = sent_with<ProduceRequest>();
  ASSERT_EQ(with.size(), 1u);
  EXPECT_EQ(with[0].at, millis(50)) << "sent when linger.ms passed since the batch's first record";
  EXPECT_EQ(values(Produced(std::get<ProduceRequest>(with[0].msg))), (Strings{"a", "b"}));
}

TEST_F(ProducerTest, AtMostMaxInFlightRequestsPerBroker) {
  ProducerConfig c = base_config();
  c.max_in_flight = 2;
  start_ready(c, {kB1, kB1, kB1, kB2});
  send("p0", PartitionId(0));
  send("p1", PartitionId(1));
  send("p2", PartitionId(2));
  ASSERT_EQ(produces().size(), 2u) << "broker 1 has max.in.flight=2 requests already";
  send("p3", PartitionId(3));
  ASSERT_EQ(produces().size(), 3u) << "another broker has its own limit";
  EXPECT_EQ(produces()[2].partition, PartitionId(3));

  ASSERT_TRUE(respond(produces()[0], ErrorCode::NONE, 0));
  ASSERT_EQ(produces().size(), 4u) << "an answer frees a slot for the waiting batch";
  EXPECT_EQ(produces()[3].partition, PartitionId(2));
  const auto with = sent_with<ProduceRequest>();
  EXPECT_EQ(with[3].to, kB1);
}

// Each send() drains every partition; a partition with nothing to do (here one backing off)
// is skipped without a pass over its batches, and must still go at the end of its backoff, no
// sooner, while another partition keeps sending.
TEST_F(ProducerTest, APartitionBackingOffGoesOnTimeWhileAnotherKeepsSending) {
  ProducerConfig c = base_config();
  start_ready(c, {kB1, kB2});
  send("a", PartitionId(0));
  ASSERT_TRUE(respond(produces()[0], ErrorCode::NOT_ENOUGH_REPLICAS));  // backs off 100 ms
  for (int i = 1; i <= 9; ++i) {
    advance_to(millis(10 * i));
    send("b" + std::to_string(i), PartitionId(1));
  }
  const auto before = sent_with<ProduceRequest>();
  ASSERT_EQ(before.size(), 6u) << "a, then b1..b5 (broker 2's five slots); b6..b9 wait in a batch";
  for (std::size_t i = 1; i < before.size(); ++i) {
    EXPECT_EQ(Produced(std::get<ProduceRequest>(before[i].msg)).partition, PartitionId(1));
  }
  advance_to(millis(100));
  const auto with = sent_with<ProduceRequest>();
  ASSERT_EQ(with.size(), 7u);
  EXPECT_EQ(values(Produced(std::get<ProduceRequest>(with[6].msg))), Strings{"a"});
  EXPECT_EQ(with[6].at, millis(100)) << "the retry goes when retry.backoff.ms ends";
  ASSERT_TRUE(respond(Produced(std::get<ProduceRequest>(with[1].msg)), ErrorCode::NONE, 0, kB2));
  ASSERT_EQ(produces().size(), 8u) << "a freed slot on broker 2 sends the waiting batch";
  EXPECT_EQ(values(produces()[7]), (Strings{"b6", "b7", "b8", "b9"}));
}

// Sends whose topic metadata never names fail at their own delivery.timeout.ms, in order.
TEST_F(ProducerTest, SendsThatNeverFindTheirTopicFailEachAtItsDeliveryTimeout) {
  ProducerConfig c = base_config();
  c.delivery_timeout_ms = 1000;
  make(c);
  producer->start();  // its Metadata request is never answered
  send("a", PartitionId(0));
  advance_to(millis(100));
  send("b", PartitionId(0));
  advance_to(millis(250));
  send("c", PartitionId(0));
  advance_to(seconds(2));
  ASSERT_EQ(results.size(), 3u);
  const std::vector<std::pair<std::string, Nanos>> expected = {
      {"a", millis(1000)}, {"b", millis(1100)}, {"c", millis(1250)}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(results[i].value, expected[i].first);
    EXPECT_EQ(results[i].result.outcome, SendOutcome::kFailed);
    EXPECT_EQ(results[i].result.error, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
    EXPECT_EQ(results[i].at, expected[i].second);
  }
  EXPECT_TRUE(produces().empty());
}

// ---- Retries, errors and timeouts.

TEST_F(ProducerTest, NotLeaderRefreshesMetadataAndRetriesSameSequenceToNewLeader) {
  ProducerConfig c = base_config();
  c.enable_idempotence = true;
  make(c);
  producer->start();
  answer_metadata({kB1});
  send("a", PartitionId(0));
  send("b", PartitionId(0));
  answer_init(ProducerId(7), ProducerEpoch(3));
  auto first = produces();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(values(first[0]), (Strings{"a", "b"}));
  EXPECT_EQ(first[0].base_sequence, Sequence(0));

  advance_to(seconds(1));  // past the Metadata refresh limit of retry.backoff.ms
  env.sent.clear();
  ASSERT_TRUE(respond(first[0], ErrorCode::NOT_LEADER_OR_FOLLOWER));
  EXPECT_TRUE(results.empty()) << "retriable: no outcome yet";
  ASSERT_EQ(sent_of<MetadataRequest>().size(), 1u) << "NOT_LEADER_OR_FOLLOWER refreshes metadata";
  answer_metadata({kB2});  // the partition moved to broker 2
  EXPECT_TRUE(produces().empty()) << "the retry waits out retry.backoff.ms";

  advance_to(seconds(1) + millis(100) - 1);
  EXPECT_TRUE(produces().empty());
  advance_to(seconds(1) + millis(100));
  const auto with = sent_with<ProduceRequest>();
  ASSERT_EQ(with.size(), 1u);
  EXPECT_EQ(with[0].to, kB2) << "the retry goes to the new leader";
  const auto& retry = Produced(std::get<ProduceRequest>(with[0].msg));
  EXPECT_EQ(values(retry), (Strings{"a", "b"}));
  EXPECT_EQ(retry.base_sequence, Sequence(0)) << "a retry keeps its sequence, so the broker can dedupe it";
  EXPECT_EQ(retry.producer_id, ProducerId(7));
  EXPECT_EQ(retry.producer_epoch, ProducerEpoch(3));
  EXPECT_NE(retry.correlation_id, first[0].correlation_id);

  ASSERT_TRUE(respond(retry, ErrorCode::NONE, 40, kB2));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].result.outcome, SendOutcome::kAcknowledged);
  EXPECT_EQ(results[0].result.offset, Offset(40));
  EXPECT_EQ(results[1].result.offset, Offset(41));
}

TEST_F(ProducerTest, NonRetriableErrorFailsTheBatch) {
  start_ready(base_config());
  send("a", PartitionId(0));
  send("b", PartitionId(0));
  ASSERT_EQ(produces().size(), 2u);
  ASSERT_TRUE(respond(produces()[0], ErrorCode::MESSAGE_TOO_LARGE));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].value, "a");
  EXPECT_EQ(results[0].result.outcome, SendOutcome::kFailed);
  EXPECT_EQ(results[0].result.error, ErrorCode::MESSAGE_TOO_LARGE);
  EXPECT_EQ(results[0].result.offset, Offset(-1));
  advance_to(seconds(10));
  EXPECT_EQ(produces().size(), 2u) << "a failed batch is not retried";
  ASSERT_TRUE(respond(produces()[1], ErrorCode::NONE, 3));
  EXPECT_EQ(result_of("b")->result.outcome, SendOutcome::kAcknowledged);
}

TEST_F(ProducerTest, RequestTimeoutThenGivingUpIsUnknown) {
  ProducerConfig c = base_config();
  c.retries = 1;
  c.request_timeout_ms = 1000;
  start_ready(c);
  send("a", PartitionId(0));
  const auto first = produces();
  ASSERT_EQ(first.size(), 1u);
  advance_to(millis(1000));  // request.timeout.ms: the attempt may or may not have been written
  EXPECT_TRUE(results.empty());
  EXPECT_FALSE(respond(first[0], ErrorCode::NONE, 9)) << "a late answer to a timed-out attempt is dropped";
  EXPECT_TRUE(results.empty());
  advance_to(millis(1100));
  ASSERT_EQ(produces().size(), 2u) << "retried after retry.backoff.ms";
  EXPECT_EQ(values(produces()[1]), Strings{"a"});

  ASSERT_TRUE(respond(produces()[1], ErrorCode::NOT_ENOUGH_REPLICAS));  // retries exhausted
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].result.outcome, SendOutcome::kUnknown)
      << "the first attempt may be in the log: giving up is unknown, not failed";
  EXPECT_EQ(results[0].result.offset, Offset(-1));
}

TEST_F(ProducerTest, RetriesExhaustedWithoutAmbiguityFail) {
  ProducerConfig c = base_config();
  c.retries = 1;
  start_ready(c);
  send("a", PartitionId(0));
  ASSERT_TRUE(respond(produces()[0], ErrorCode::NOT_ENOUGH_REPLICAS));
  advance_to(millis(100));
  ASSERT_EQ(produces().size(), 2u);
  ASSERT_TRUE(respond(produces()[1], ErrorCode::NOT_ENOUGH_REPLICAS));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].result.outcome, SendOutcome::kFailed) << "NOT_ENOUGH_REPLICAS writes nothing";
  EXPECT_EQ(results[0].result.error, ErrorCode::NOT_ENOUGH_REPLICAS);
  advance_to(seconds(5));
  EXPECT_EQ(produces().size(), 2u);
}

TEST_F(ProducerTest, DeliveryTimeoutBoundsRetries) {
  ProducerConfig c = base_config();
  c.delivery_timeout_ms = 1000;
  start_ready(c);
  send("a", PartitionId(0));
  std::size_t answered = 0;
  // The broker refuses every attempt at once; the producer retries every retry.backoff.ms.
  for (int step = 0; step < 100 && results.empty(); ++step) {
    const auto reqs = produces();
    for (; answered < reqs.size(); ++answered) ASSERT_TRUE(respond(reqs[answered], ErrorCode::NOT_ENOUGH_REPLICAS));
    if (results.empty()) advance_to(env.now() + millis(50));
  }
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].result.outcome, SendOutcome::kFailed);
  EXPECT_EQ(results[0].result.error, ErrorCode::NOT_ENOUGH_REPLICAS);
  EXPECT_LE(results[0].at, millis(1000)) << "delivery.timeout.ms after send()";
  const auto with = sent_with<ProduceRequest>();
  EXPECT_GE(with.size(), 9u) << "it kept retrying for the whole delivery timeout";
  for (const Sent& s : with) EXPECT_LT(s.at, millis(1000)) << "no attempt after delivery.timeout.ms";
  advance_to(seconds(10));
  EXPECT_EQ(produces().size(), with.size());
}

// Regression: drain_partition() used to skip in-flight batches before its deadline check, so a
// retry sent just before delivery.timeout.ms was reported only when its request.timeout.ms
// ended (2100 ms here for a 1500 ms delivery timeout). Kafka's Sender expires in-flight batches
// at delivery.timeout.ms, the documented upper bound on reporting an outcome.
TEST_F(ProducerTest, DeliveryTimeoutAlsoEndsAnAttemptInFlight) {
  ProducerConfig c = base_config();
  c.request_timeout_ms = 1000;
  c.delivery_timeout_ms = 1500;
  start_ready(c);
  send("a", PartitionId(0));
  advance_to(millis(1100));  // the first attempt timed out at 1000 ms, the retry left at 1100 ms
  ASSERT_EQ(produces().size(), 2u);
  advance_to(millis(1500));
  ASSERT_EQ(results.size(), 1u) << "delivery.timeout.ms bounds the time to report an outcome";
  EXPECT_EQ(results[0].result.outcome, SendOutcome::kUnknown);
  EXPECT_LE(results[0].at, millis(1500));
}

TEST_F(ProducerTest, AcksZeroAcknowledgesAtOnceWithoutOffset) {
  ProducerConfig c = base_config();
  c.acks = 0;
  start_ready(c);
  send("a", PartitionId(0));
  ASSERT_EQ(produces().size(), 1u);
  EXPECT_EQ(produces()[0].acks, 0);
  ASSERT_EQ(results.size(), 1u) << "acks=0: acknowledged when sent";
  EXPECT_EQ(results[0].result.outcome, SendOutcome::kAcknowledged);
  EXPECT_EQ(results[0].result.offset, Offset(-1)) << "the client cannot know the offset";
  EXPECT_EQ(results[0].result.partition, PartitionId(0));
  EXPECT_EQ(producer->in_flight(), 0u);
  // No slot is held for an answer that never comes: max.in.flight does not stall acks=0.
  for (int i = 0; i < 10; ++i) send("x" + std::to_string(i), PartitionId(0));
  EXPECT_EQ(produces().size(), 11u);
  EXPECT_EQ(results.size(), 11u);
}

// Regression: with acks=0, send_batch() completes and erases batch i from the deque; the loop's
// ++i then skipped the batch that moved into slot i, so the next batch went first and the
// skipped one waited for the next drain (its delivery deadline, where it failed).
TEST_F(ProducerTest, AcksZeroSendsEveryReadyBatchInOrder) {
  ProducerConfig c = base_config();
  c.acks = 0;
  c.batch_size = 10;
  make(c);
  producer->start();
  // Three 6-byte records make three batches while metadata is pending.
  send("aaaaaa", PartitionId(0));
  send("bbbbbb", PartitionId(0));
  send("cccccc", PartitionId(0));
  answer_metadata({kB1});
  const auto reqs = produces();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(values(reqs[0]), Strings{"aaaaaa"});
  EXPECT_EQ(values(reqs[1]), Strings{"bbbbbb"});
  EXPECT_EQ(values(reqs[2]), Strings{"cccccc"});
  ASSERT_EQ(results.size(), 3u);
  for (const Result& r : results) EXPECT_EQ(r.result.outcome, SendOutcome::kAcknowledged);
}

TEST_F(ProducerTest, WithoutIdempotenceARetriedBatchLandsAfterALaterOne) {
  start_ready(base_config());  // max.in.flight 5, no idempotence
  send("a", PartitionId(0));
  send("b", PartitionId(0));
  auto reqs = produces();
  ASSERT_EQ(reqs.size(), 2u) << "two requests in flight to one partition";
  advance_to(millis(10));
  ASSERT_TRUE(respond(reqs[0], ErrorCode::NOT_ENOUGH_REPLICAS));  // a backs off
  ASSERT_TRUE(respond(reqs[1], ErrorCode::NONE, 0));               // b lands first
  advance_to(millis(20));
  send("c", PartitionId(0));
  reqs = produces();
  // Kafka puts a back at the head of the partition's queue and drains only the head: c waits.
  ASSERT_EQ(reqs.size(), 2u) << "a new batch does not overtake one that is backing off";
  advance_to(millis(110));
  reqs = produces();
  ASSERT_EQ(reqs.size(), 4u);
  EXPECT_EQ(values(reqs[2]), Strings{"a"});
  EXPECT_EQ(reqs[2].base_sequence, Sequence(-1));
  EXPECT_EQ(values(reqs[3]), Strings{"c"});
  ASSERT_TRUE(respond(reqs[2], ErrorCode::NONE, 1));
  ASSERT_TRUE(respond(reqs[3], ErrorCode::NONE, 2));

  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].value, "b");
  EXPECT_EQ(results[1].value, "a");
  EXPECT_EQ(results[2].value, "c");
  for (const Result& r : results) EXPECT_EQ(r.result.outcome, SendOutcome::kAcknowledged);
  // nonmonotonic-send: a was sent first but lands after b, which was already in flight.
  EXPECT_GT(result_of("a")->result.offset, result_of("b")->result.offset);
  EXPECT_LT(result_of("a")->result.offset, result_of("c")->result.offset);
}

TEST_F(ProducerTest, WithOneRequestInFlightABatchWaitsForTheOneInFlightEvenAfterALeaderChange) {
  ProducerConfig c = base_config();
  c.max_in_flight = 1;
  c.metadata_max_age_ms = 10;  // refresh metadata while a is in flight
  start_ready(c);
  send("a", PartitionId(0));
  ASSERT_EQ(produces().size(), 1u);
  advance_to(millis(120));  // past retry.backoff.ms, which bounds how often metadata is asked for
  // The leader moved to broker 2 while a is in flight to broker 1, whose connection is busy;
  // broker 2's is idle, but b must not go ahead of a.
  answer_metadata({kB2});
  send("b", PartitionId(0));
  advance_to(millis(150));
  const auto reqs = produces();
  EXPECT_EQ(reqs.size(), 1u) << "max.in.flight.requests.per.connection=1 mutes the partition while a is in flight";
  ASSERT_TRUE(respond(reqs[0], ErrorCode::NONE, 0));
  advance_to(millis(160));
  ASSERT_EQ(produces().size(), 2u) << "b goes once a is answered";
  EXPECT_EQ(values(produces()[1]), Strings{"b"});
}

// ---- Disconnects.

TEST_F(ProducerTest, LeaderDisconnectRetriesInFlightBatchesAfterBackoff) {
  ProducerConfig c = base_config();
  c.enable_idempotence = true;
  start_ready(c, {kB1, kB2});
  advance_to(seconds(1));
  send("a", PartitionId(0));
  send("b", PartitionId(1));
  ASSERT_EQ(produces().size(), 2u);
  const Produced first = produces()[0];

  producer->on_disconnect(kB3);  // no request in flight there
  EXPECT_EQ(produces().size(), 2u);
  EXPECT_TRUE(results.empty());

  producer->on_disconnect(kB1);
  EXPECT_TRUE(results.empty()) << "retriable: the batch is sent again";
  EXPECT_EQ(sent_of<MetadataRequest>().size(), 1u) << "a broken leader connection refreshes metadata";
  EXPECT_EQ(produces().size(), 2u) << "not at once: after retry.backoff.ms";
  EXPECT_FALSE(respond(first, ErrorCode::NONE, 0)) << "the broken connection's answer never counts";
  answer_metadata({kB1, kB2});
  advance_to(seconds(1) + millis(100));
  const auto with = sent_with<ProduceRequest>();
  ASSERT_EQ(with.size(), 3u);
  EXPECT_EQ(with[2].to, kB1);
  const auto& retry = Produced(std::get<ProduceRequest>(with[2].msg));
  EXPECT_EQ(values(retry), Strings{"a"});
  EXPECT_EQ(retry.base_sequence, first.base_sequence);
  ASSERT_TRUE(respond(retry, ErrorCode::NONE, 4));
  ASSERT_TRUE(respond(produces()[1], ErrorCode::NONE, 0, kB2));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(result_of("a")->result.outcome, SendOutcome::kAcknowledged);
  EXPECT_EQ(result_of("a")->result.offset, Offset(4));
  EXPECT_EQ(result_of("b")->result.outcome, SendOutcome::kAcknowledged);
}

TEST_F(ProducerTest, DisconnectThenGivingUpIsUnknown) {
  ProducerConfig c = base_config();
  c.retries = 1;
  start_ready(c);
  advance_to(seconds(1));
  send("a", PartitionId(0));
  producer->on_disconnect(kB1);
  advance_to(seconds(1) + millis(100));
  ASSERT_EQ(produces().size(), 2u);
  producer->on_disconnect(kB1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].result.outcome, SendOutcome::kUnknown)
      << "the request may have been processed before the connection broke";
  EXPECT_EQ(results[0].result.error, ErrorCode::NETWORK_EXCEPTION);
}

// ---- Incarnations.

// A restarted producer (same node id, new object) must not take the answer to its previous
// incarnation's request for its own: Kafka's new connection would never see it.
TEST_F(ProducerTest, ARestartedProducerIgnoresAnswersMeantForItsPreviousIncarnation) {
  start_ready(base_config());
  send("old", PartitionId(0));
  const auto before = produces();
  ASSERT_EQ(before.size(), 1u);

  results.clear();
  start_ready(base_config());  // the restart: a new producer on the same node
  send("new", PartitionId(0));
  const auto after = produces();
  ASSERT_EQ(after.size(), 1u);
  EXPECT_NE(after[0].correlation_id, before[0].correlation_id) << "the new incarnation reused a correlation id";
  EXPECT_FALSE(respond(before[0], ErrorCode::NONE, 0)) << "the answer to the old request completed a new batch";
  EXPECT_EQ(result_of("new"), nullptr);
  EXPECT_TRUE(respond(after[0], ErrorCode::NONE, 1));
  ASSERT_NE(result_of("new"), nullptr);
  EXPECT_EQ(result_of("new")->result.offset, Offset(1));
}

// A request that times out closes its connection, as Kafka's NetworkClient does: the other
// requests in flight to that broker fail as a disconnect and are retried, and their late
// answers are not read.
TEST_F(ProducerTest, ARequestTimeoutClosesTheConnectionForEveryRequestInFlightToThatBroker) {
  ProducerConfig c = base_config();
  c.request_timeout_ms = 1000;
  start_ready(c, {kB1, kB1});  // both partitions led by broker 1
  send("a", PartitionId(0));
  advance_to(millis(300));
  send("b", PartitionId(1));
  const auto first = produces();
  ASSERT_EQ(first.size(), 2u);
  advance_to(millis(1001));  // a's request times out; b's (sent at 300 ms) has 300 ms left
  EXPECT_FALSE(respond(first[1], ErrorCode::NONE, 0)) << "b's late answer was read on a closed connection";
  EXPECT_EQ(result_of("b"), nullptr) << "b is retried, not finished";
  advance_to(millis(1001 + c.retry_backoff_ms + 1));
  std::vector<Strings> resent;
  for (std::size_t i = 2; i < produces().size(); ++i) resent.push_back(values(produces()[i]));
  EXPECT_EQ(resent.size(), 2u) << "both a and b are sent again";
}

// A request that times out asks for metadata, as Kafka's NetworkClient does: the leader that
// went silent may have been replaced, and the retry should go to the new one.
TEST_F(ProducerTest, ATimedOutRequestRefreshesMetadataAndTheRetryGoesToTheNewLeader) {
  ProducerConfig c = base_config();
  c.request_timeout_ms = 1000;
  start_ready(c);
  send("a", PartitionId(0));
  ASSERT_EQ(produces().size(), 1u);
  EXPECT_EQ(env.sent.back().to, kB1);
  env.sent.clear();
  advance_to(millis(1001));
  ASSERT_EQ(sent_of<MetadataRequest>().size(), 1u) << "no metadata refresh after the timeout";
  answer_metadata({kB2});
  advance_to(millis(1001 + c.retry_backoff_ms + 1));
  const auto retried = sent_with<ProduceRequest>();
  ASSERT_EQ(retried.size(), 1u);
  EXPECT_EQ(retried[0].to, kB2) << "the retry went to the old leader";
}

}  // namespace
}  // namespace logsim::engine

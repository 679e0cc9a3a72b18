// Tests of the producer client against scripted broker answers: metadata first, partitioning
// (murmur2 for keys, sticky for null keys), batching by batch.size and linger.ms, the per-broker
// in-flight limit, retries with their backoff and timeouts, acks=0, and idempotence (producer
// id, base sequences, per-partition order while a batch backs off). The Env is a small fake: it
// records what the producer sends and the timers it arms; tests answer requests by hand and move
// the clock with advance_to(), which fires the due timers in (deadline, id) order.
#include "engine/client/producer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "engine/broker/producer_state.h"
#include "engine/env/env.h"
#include "engine/env/rng.h"
#include "engine/tests/client_fake_env.h"

namespace logsim::engine {
namespace {

const NodeId kB1(1);
const NodeId kB2(2);
const NodeId kB3(3);
const std::string kTopic = "t";

using clienttest::FakeEnv;
using clienttest::kApp;
using clienttest::Sent;

Record rec(std::string value, std::optional<std::string> key = std::nullopt) {
  Record r;
  r.key = std::move(key);
  r.value = std::move(value);
  return r;
}

// Kafka's own partition for a key, from the murmur2 test vectors in Kafka's UtilsTest (not from
// our murmur2): toPositive(hash) % partitions.
std::int32_t kafka_partition(std::int32_t murmur2_of_key, std::int32_t partitions) {
  const std::uint32_t positive = static_cast<std::uint32_t>(murmur2_of_key) & 0x7fffffffU;
  return static_cast<std::int32_t>(positive % static_cast<std::uint32_t>(partitions));
}

struct Result {
  std::string value;
  SendResult result;
  Nanos at;
};

class ProducerTest : public ::testing::Test {
 protected:
  static ProducerConfig base_config() {
    ProducerConfig c;
    c.bootstrap_servers = {kB1};  // one server: the producer's choice of it draws nothing
    c.enable_idempotence = false;
    c.retry_backoff_ms = 100;
    return c;
  }

  void make(ProducerConfig c) { producer.emplace(env, std::move(c)); }

  // Starts a producer and answers its Metadata (and InitProducerId when idempotent).
  void start_ready(ProducerConfig c, std::vector<NodeId> leaders = {kB1}) {
    const bool idempotent = c.enable_idempotence;
    make(std::move(c));
    producer->start();
    answer_metadata(leaders);
    if (idempotent) answer_init(ProducerId(7), ProducerEpoch(3));
    env.sent.clear();
  }

  // The requests of type T sent so far, in order.
  template <typename T>
  std::vector<T> sent_of() const {
    std::vector<T> out;
    for (const Sent& s : env.sent) {
      if (const auto* m = std::get_if<T>(&s.msg)) out.push_back(*m);
    }
    return out;
  }
  template <typename T>
  std::vector<Sent> sent_with() const {
    std::vector<Sent> out;
    for (const Sent& s : env.sent) {
      if (std::holds_alternative<T>(s.msg)) out.push_back(s);
    }
    return out;
  }
  std::vector<ProduceRequest> produces() const { return sent_of<ProduceRequest>(); }

  // Answers the latest MetadataRequest: topic kTopic with one partition per entry of `leaders`.
  void answer_metadata(const std::vector<NodeId>& leaders) {
    const auto reqs = sent_of<MetadataRequest>();
    ASSERT_FALSE(reqs.empty()) << "no MetadataRequest was sent";
    MetadataResponse resp;
    resp.correlation_id = reqs.back().correlation_id;
    resp.brokers = {kB1, kB2, kB3};
    TopicMetadata tm;
    tm.name = kTopic;
    for (std::size_t i = 0; i < leaders.size(); ++i) {
      PartitionMetadata pm;
      pm.partition = PartitionId(static_cast<std::int32_t>(i));
      pm.leader = leaders[i];
      pm.replicas = {leaders[i]};
      pm.isr = {leaders[i]};
      tm.partitions.push_back(pm);
    }
    resp.topics.push_back(tm);
    EXPECT_TRUE(producer->on_message(kB1, resp));
  }

  void answer_init(ProducerId pid, ProducerEpoch epoch) {
    const auto reqs = sent_of<InitProducerIdRequest>();
    ASSERT_FALSE(reqs.empty()) << "no InitProducerIdRequest was sent";
    InitProducerIdResponse resp;
    resp.correlation_id = reqs.back().correlation_id;
    resp.producer_id = pid;
    resp.producer_epoch = epoch;
    EXPECT_TRUE(producer->on_message(kB1, resp));
  }

  // Answers one ProduceRequest; returns whether the producer took the answer as its own.
  bool respond(const ProduceRequest& req, ErrorCode error, std::int64_t base_offset = -1, NodeId from = kB1) {
    ProduceResponse resp;
    resp.correlation_id = req.correlation_id;
    resp.topic = req.topic;
    resp.partition = req.partition;
    resp.error = error;
    resp.base_offset = Offset(error == ErrorCode::NONE ? base_offset : -1);
    if (error == ErrorCode::DUPLICATE_SEQUENCE_NUMBER) resp.base_offset = Offset(base_offset);
    return producer->on_message(from, resp);
  }

  // Moves the clock to `t`, firing every timer due by then in deadline order. Bounded, so a
  // client that re-arms a timer for "now" forever fails the test instead of hanging it.
  void advance_to(Nanos t) {
    ASSERT_GE(t, env.now());
    constexpr int kFiringsMax = 10000;
    int firings = 0;
    while (auto timer = env.pop_due(t)) {
      ASSERT_LT(++firings, kFiringsMax) << "timers keep firing at " << env.now() << " ns";
      env.set_now(timer->deadline);
      producer->on_timer(timer->id, timer->tag);
    }
    env.set_now(t);
  }

  void send(std::string value, std::optional<PartitionId> partition = std::nullopt,
            std::optional<std::string> key = std::nullopt) {
    producer->send(kTopic, rec(value, std::move(key)), partition, [this, value](const SendResult& r) {
      results.push_back({value, r, env.now()});
    });
  }

  const Result* result_of(const std::string& value) const {
    for (const Result& r : results) {
      if (r.value == value) return &r;
    }
    return nullptr;
  }

  static std::vector<std::string> values(const ProduceRequest& req) {
    std::vector<std::string> out;
    for (const Record& r : req.records) out.push_back(r.value.value_or("<null>"));
    return out;
  }

  FakeEnv env;
  std::optional<Producer> producer;
  std::vector<Result> results;
};

using Strings = std::vector<std::string>;

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
    const auto& req = std::get<ProduceRequest>(s.msg);
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
  for (const ProduceRequest& req : produces()) {
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
  EXPECT_EQ(values(std::get<ProduceRequest>(with[0].msg)), (Strings{"a", "b"}));
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
    EXPECT_EQ(std::get<ProduceRequest>(before[i].msg).partition, PartitionId(1));
  }
  advance_to(millis(100));
  const auto with = sent_with<ProduceRequest>();
  ASSERT_EQ(with.size(), 7u);
  EXPECT_EQ(values(std::get<ProduceRequest>(with[6].msg)), Strings{"a"});
  EXPECT_EQ(with[6].at, millis(100)) << "the retry goes when retry.backoff.ms ends";
  ASSERT_TRUE(respond(std::get<ProduceRequest>(with[1].msg), ErrorCode::NONE, 0, kB2));
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
  const auto& retry = std::get<ProduceRequest>(with[0].msg);
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

// ---- Idempotence.

TEST_F(ProducerTest, IdempotentProducerWaitsForItsIdAndNumbersEachPartition) {
  ProducerConfig c = base_config();
  c.enable_idempotence = true;
  make(c);
  producer->start();
  ASSERT_EQ(sent_of<InitProducerIdRequest>().size(), 1u);
  answer_metadata({kB1, kB1});
  send("a", PartitionId(0));
  send("b", PartitionId(0));
  send("c", PartitionId(1));
  EXPECT_TRUE(produces().empty()) << "nothing is produced before InitProducerId is answered";
  advance_to(millis(500));
  EXPECT_TRUE(produces().empty());

  answer_init(ProducerId(7), ProducerEpoch(3));
  EXPECT_EQ(producer->producer_id(), ProducerId(7));
  auto reqs = produces();
  ASSERT_EQ(reqs.size(), 2u);
  for (const auto& r : reqs) {
    EXPECT_EQ(r.producer_id, ProducerId(7));
    EXPECT_EQ(r.producer_epoch, ProducerEpoch(3));
    EXPECT_EQ(r.base_sequence, Sequence(0)) << "each partition counts from 0: partition " << r.partition;
  }
  EXPECT_EQ(reqs[0].partition, PartitionId(0));
  EXPECT_EQ(values(reqs[0]), (Strings{"a", "b"}));
  EXPECT_EQ(values(reqs[1]), Strings{"c"});

  send("d", PartitionId(0));
  send("e", PartitionId(0));
  send("f", PartitionId(1));
  reqs = produces();
  ASSERT_EQ(reqs.size(), 5u);
  EXPECT_EQ(reqs[2].base_sequence, Sequence(2)) << "after a batch of 2 records";
  EXPECT_EQ(reqs[3].base_sequence, Sequence(3));
  EXPECT_EQ(reqs[4].partition, PartitionId(1));
  EXPECT_EQ(reqs[4].base_sequence, Sequence(1));
}

TEST_F(ProducerTest, IdempotentLaterBatchWaitsBehindABackingOffOne) {
  ProducerConfig c = base_config();
  c.enable_idempotence = true;
  start_ready(c);
  send("a", PartitionId(0));
  send("b", PartitionId(0));
  const auto first = produces();
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].base_sequence, Sequence(0));
  EXPECT_EQ(first[1].base_sequence, Sequence(1));

  advance_to(millis(10));
  ASSERT_TRUE(respond(first[0], ErrorCode::NOT_ENOUGH_REPLICAS));  // a backs off until 110 ms
  advance_to(millis(20));
  // The broker saw b's sequence 1 without 0: a gap, expected while a is retried.
  ASSERT_TRUE(respond(first[1], ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER));  // b backs off until 120 ms
  EXPECT_TRUE(results.empty()) << "OUT_OF_ORDER_SEQUENCE_NUMBER behind a pending batch is retried";
  advance_to(millis(30));
  send("c", PartitionId(0));
  EXPECT_EQ(produces().size(), 2u) << "c must not overtake a, which is backing off";

  advance_to(millis(110) - 1);
  EXPECT_EQ(produces().size(), 2u);
  advance_to(millis(200));
  const auto with = sent_with<ProduceRequest>();
  ASSERT_EQ(with.size(), 5u);
  std::vector<std::pair<std::string, std::int32_t>> order;
  for (std::size_t i = 2; i < with.size(); ++i) {
    const auto& r = std::get<ProduceRequest>(with[i].msg);
    order.emplace_back(values(r).at(0), r.base_sequence.value());
  }
  EXPECT_EQ(order, (std::vector<std::pair<std::string, std::int32_t>>{{"a", 0}, {"b", 1}, {"c", 2}}))
      << "per-partition order and sequences are kept through the retry";
  EXPECT_EQ(with[2].at, millis(110));
  EXPECT_GE(with[3].at, millis(110));
  EXPECT_GE(with[4].at, with[3].at);

  const auto reqs = produces();
  ASSERT_TRUE(respond(reqs[2], ErrorCode::NONE, 0));
  ASSERT_TRUE(respond(reqs[3], ErrorCode::NONE, 1));
  ASSERT_TRUE(respond(reqs[4], ErrorCode::NONE, 2));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(result_of("a")->result.offset, Offset(0));
  EXPECT_EQ(result_of("b")->result.offset, Offset(1));
  EXPECT_EQ(result_of("c")->result.offset, Offset(2));
}

// Since KIP-360 a gap that no earlier pending batch explains is closed with a new epoch, not
// by failing the batch: the refused batch is numbered again from 0.
TEST_F(ProducerTest, OutOfOrderSequenceWithNothingEarlierPendingBumpsTheEpoch) {
  ProducerConfig c = base_config();
  c.enable_idempotence = true;
  start_ready(c);
  send("a", PartitionId(0));
  send("b", PartitionId(0));
  ASSERT_TRUE(respond(produces()[0], ErrorCode::NONE, 0));
  ASSERT_TRUE(respond(produces()[1], ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER));  // e.g. the broker lost a's record
  EXPECT_EQ(result_of("b"), nullptr) << "retried under a new epoch";
  const auto inits = sent_of<InitProducerIdRequest>();
  ASSERT_EQ(inits.size(), 1u);
  EXPECT_EQ(inits[0].producer_id, ProducerId(7)) << "the bump names the id it has";
  EXPECT_EQ(inits[0].producer_epoch, ProducerEpoch(3)) << "and its current epoch";
  answer_init(ProducerId(7), ProducerEpoch(4));
  advance_to(millis(100));
  ASSERT_EQ(produces().size(), 3u);
  const ProduceRequest retry = produces()[2];
  EXPECT_EQ(values(retry), Strings{"b"});
  EXPECT_EQ(retry.producer_id, ProducerId(7));
  EXPECT_EQ(retry.producer_epoch, ProducerEpoch(4));
  EXPECT_EQ(retry.base_sequence, Sequence(0));
  ASSERT_TRUE(respond(retry, ErrorCode::NONE, 1));
  EXPECT_EQ(result_of("b")->result.outcome, SendOutcome::kAcknowledged);
}

// ---- KIP-360: sequence gaps and epoch bumps.

// Regression: with idempotence a numbered batch that failed kept its numbers and the next
// sequence never went back, so every later batch of its partition got
// OUT_OF_ORDER_SEQUENCE_NUMBER forever. Here the broker's own rules (ProducerStateTable) answer.
TEST_F(ProducerTest, AfterAFailedBatchLaterBatchesAreAcceptedUnderANewEpoch) {
  ProducerConfig c = base_config();
  c.enable_idempotence = true;
  start_ready(c);
  ProducerStateTable table;  // one partition's idempotence state, as its leader keeps it
  std::int64_t log_end = 0;
  std::size_t answered = 0;
  // Answers every request sent so far as the broker would; returns how many it answered.
  const auto broker_answers = [&] {
    const auto reqs = produces();
    const std::size_t before = answered;
    for (; answered < reqs.size(); ++answered) {
      const ProduceRequest& req = reqs[answered];
      const ProducerBatchInfo info{req.producer_id, req.producer_epoch, req.base_sequence};
      const auto check = table.check(info, static_cast<std::int32_t>(req.records.size()));
      if (check.error != ErrorCode::NONE) {
        EXPECT_TRUE(respond(req, check.error));
        continue;
      }
      EXPECT_FALSE(check.duplicate);
      const std::int64_t base = log_end;
      for (std::size_t i = 0; i < req.records.size(); ++i) {
        table.record(StoredRecord{Offset(log_end++), req.records[i], LeaderEpoch(0), req.producer_id,
                                  req.producer_epoch, req.base_sequence + static_cast<std::int32_t>(i)});
      }
      EXPECT_TRUE(respond(req, ErrorCode::NONE, base));
    }
    return answered - before;
  };

  send("a", PartitionId(0));
  ASSERT_EQ(broker_answers(), 1u);
  send("b", PartitionId(0));
  send("c", PartitionId(0));
  ASSERT_EQ(produces().size(), 3u);
  // b is refused for good (nothing written); c, numbered behind it, meets the hole.
  ASSERT_TRUE(respond(produces()[1], ErrorCode::MESSAGE_TOO_LARGE));
  ++answered;
  EXPECT_EQ(result_of("b")->result.outcome, SendOutcome::kFailed);
  for (int round = 0; round < 20 && results.size() < 5; ++round) {
    if (!sent_of<InitProducerIdRequest>().empty() && producer->producer_epoch() == ProducerEpoch(3)) {
      answer_init(ProducerId(7), ProducerEpoch(4));
    }
    broker_answers();
    if (round == 5) {
      send("d", PartitionId(0));
      send("e", PartitionId(0));
    }
    advance_to(env.now() + millis(50));
  }
  EXPECT_EQ(producer->producer_epoch(), ProducerEpoch(4)) << "the gap moved the producer to the next epoch";
  ASSERT_EQ(results.size(), 5u);
  std::int64_t last = -1;
  for (const char* v : {"a", "c", "d", "e"}) {
    const Result* r = result_of(v);
    ASSERT_NE(r, nullptr) << v;
    EXPECT_EQ(r->result.outcome, SendOutcome::kAcknowledged) << v << " is not stuck behind b's hole";
    EXPECT_GT(r->result.offset.value(), last) << v << " keeps the order of sends";
    last = r->result.offset.value();
  }
  // The new epoch restarted the partition's numbers at 0.
  const auto reqs = produces();
  EXPECT_EQ(reqs.back().producer_epoch, ProducerEpoch(4));
  bool restarted = false;
  for (const ProduceRequest& r : reqs) {
    if (r.producer_epoch == ProducerEpoch(4) && r.base_sequence == Sequence(0)) restarted = true;
  }
  EXPECT_TRUE(restarted);
}

TEST_F(ProducerTest, AnExpiredBatchBumpsTheEpochAndEveryPartitionCountsFromZero) {
  ProducerConfig c = base_config();
  c.enable_idempotence = true;
  c.request_timeout_ms = 1000;
  c.delivery_timeout_ms = 1500;
  start_ready(c, {kB1, kB2});
  send("a", PartitionId(0));  // sequence 0; delivery deadline 1500 ms
  advance_to(millis(400));
  send("b", PartitionId(0));  // sequence 1; deadline 1900 ms
  send("p", PartitionId(1));
  auto reqs = produces();
  ASSERT_EQ(reqs.size(), 3u);
  ASSERT_TRUE(respond(reqs[2], ErrorCode::NONE, 0, kB2));                  // partition 1 used epoch 3
  ASSERT_TRUE(respond(reqs[1], ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER));  // behind a: retried as is
  advance_to(millis(1500));  // no attempt of a is ever answered: it expires, maybe written
  ASSERT_NE(result_of("a"), nullptr);
  EXPECT_EQ(result_of("a")->result.outcome, SendOutcome::kUnknown);
  const auto inits = sent_of<InitProducerIdRequest>();
  ASSERT_EQ(inits.size(), 1u) << "a's numbers may be a hole: ask for the next epoch";
  EXPECT_EQ(inits[0].producer_id, ProducerId(7));
  EXPECT_EQ(inits[0].producer_epoch, ProducerEpoch(3));
  answer_init(ProducerId(7), ProducerEpoch(4));
  EXPECT_EQ(producer->producer_epoch(), ProducerEpoch(4));

  send("q", PartitionId(1));  // partition 1 has nothing of epoch 3 pending: it starts over at once
  reqs = produces();
  EXPECT_EQ(values(reqs.back()), Strings{"q"});
  EXPECT_EQ(reqs.back().producer_epoch, ProducerEpoch(4));
  EXPECT_EQ(reqs.back().base_sequence, Sequence(0));

  // When a's first request timed out (1000 ms) the connection to broker 1 closed and cut b's
  // retry in flight; b was sent again at 1100 ms and keeps epoch 3's numbers: a may be in the
  // log after all.
  advance_to(millis(1600));
  reqs = produces();
  std::optional<ProduceRequest> b_retry;
  for (const auto& r : reqs) {
    if (values(r) == Strings{"b"}) b_retry = r;
  }
  ASSERT_TRUE(b_retry.has_value());
  EXPECT_EQ(b_retry->producer_epoch, ProducerEpoch(3));
  EXPECT_EQ(b_retry->base_sequence, Sequence(1));
  ASSERT_TRUE(respond(*b_retry, ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER));  // it was not
  EXPECT_EQ(sent_of<InitProducerIdRequest>().size(), 1u) << "b is behind the hole already closed";
  advance_to(millis(1700));
  reqs = produces();
  EXPECT_EQ(values(reqs.back()), Strings{"b"});
  EXPECT_EQ(reqs.back().producer_epoch, ProducerEpoch(4));
  EXPECT_EQ(reqs.back().base_sequence, Sequence(0)) << "numbered again from 0 under the new epoch";
  ASSERT_TRUE(respond(reqs.back(), ErrorCode::NONE, 5));
  EXPECT_EQ(result_of("b")->result.outcome, SendOutcome::kAcknowledged);
}

TEST_F(ProducerTest, OldEpochBatchesFinishBeforeTheirPartitionCountsFromZero) {
  ProducerConfig c = base_config();
  c.enable_idempotence = true;
  start_ready(c, {kB1, kB2});
  send("a", PartitionId(0));
  send("b", PartitionId(0));
  send("x", PartitionId(1));  // in flight under epoch 3 while the epoch changes
  auto reqs = produces();
  ASSERT_EQ(reqs.size(), 3u);
  ASSERT_TRUE(respond(reqs[0], ErrorCode::MESSAGE_TOO_LARGE));  // a hole under b
  answer_init(ProducerId(7), ProducerEpoch(4));
  send("y", PartitionId(1));
  EXPECT_EQ(produces().size(), 3u)
      << "y may not take sequence 0 of the new epoch before x, numbered under the old, is resolved";
  ASSERT_TRUE(respond(reqs[2], ErrorCode::NONE, 10, kB2));
  reqs = produces();
  ASSERT_EQ(reqs.size(), 4u);
  EXPECT_EQ(values(reqs[3]), Strings{"y"});
  EXPECT_EQ(reqs[3].producer_epoch, ProducerEpoch(4));
  EXPECT_EQ(reqs[3].base_sequence, Sequence(0));
  // b, numbered under epoch 3 behind the hole, is refused and numbered again.
  ASSERT_TRUE(respond(reqs[1], ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER));
  EXPECT_EQ(sent_of<InitProducerIdRequest>().size(), 1u) << "one bump for one hole";
  advance_to(millis(100));
  reqs = produces();
  ASSERT_EQ(reqs.size(), 5u);
  EXPECT_EQ(values(reqs[4]), Strings{"b"});
  EXPECT_EQ(reqs[4].producer_epoch, ProducerEpoch(4));
  EXPECT_EQ(reqs[4].base_sequence, Sequence(0));
}

TEST_F(ProducerTest, AFailedBatchHoldingTheNewestNumbersGivesThemBack) {
  ProducerConfig c = base_config();
  c.enable_idempotence = true;
  start_ready(c);
  send("a", PartitionId(0));
  ASSERT_TRUE(respond(produces()[0], ErrorCode::NONE, 0));
  send("b", PartitionId(0));
  ASSERT_EQ(produces()[1].base_sequence, Sequence(1));
  ASSERT_TRUE(respond(produces()[1], ErrorCode::MESSAGE_TOO_LARGE));  // surely not written, nothing behind it
  EXPECT_EQ(result_of("b")->result.outcome, SendOutcome::kFailed);
  send("c", PartitionId(0));
  ASSERT_EQ(produces().size(), 3u);
  EXPECT_EQ(produces()[2].base_sequence, Sequence(1)) << "b's number is reused: no hole";
  EXPECT_EQ(produces()[2].producer_epoch, ProducerEpoch(3));
  EXPECT_TRUE(sent_of<InitProducerIdRequest>().empty()) << "no gap, no new epoch";
}

TEST_F(ProducerTest, DuplicateSequenceCountsAsAcknowledged) {
  ProducerConfig c = base_config();
  c.enable_idempotence = true;
  start_ready(c);
  send("a", PartitionId(0));
  ASSERT_TRUE(respond(produces()[0], ErrorCode::DUPLICATE_SEQUENCE_NUMBER, 17));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].result.outcome, SendOutcome::kAcknowledged) << "the batch is in the log already";
  EXPECT_EQ(results[0].result.error, ErrorCode::NONE);
  advance_to(seconds(5));
  EXPECT_EQ(produces().size(), 1u) << "not retried";
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
  const ProduceRequest first = produces()[0];

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
  const auto& retry = std::get<ProduceRequest>(with[2].msg);
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

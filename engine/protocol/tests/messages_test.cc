// Tests for the engine's typed messages (engine/protocol/messages.h) and error names (errors.h).
//
// The message digest feeds the trace hash (DESIGN.md rule 5), so it must be a function of the
// whole content: equal messages digest equally, and changing any one field, or the message's
// type with the same fields, changes the digest. Names must be Kafka's, as reports show them.
#include "engine/protocol/messages.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "engine/protocol/errors.h"
#include "engine/protocol/record_batch.h"

namespace logsim {
namespace {

std::vector<Record> sample_records() { return {Record{"k1", "v1", 1000}, Record{"k2", "v2", 1001}}; }

SharedBytes batch_of(const std::vector<Record>& records, Offset base = Offset(0)) {
  return SharedBytes(encode_batch(records, BatchMeta{base}));
}

ProduceRequest sample_produce() {
  ProduceRequest r;
  r.correlation_id = 17;
  r.topic = "orders";
  r.partition = PartitionId(2);
  r.records = batch_of(sample_records());
  return r;
}

FetchResponse sample_fetch_response() {
  FetchResponse r;
  r.correlation_id = 17;
  r.topic = "orders";
  r.partition = PartitionId(2);
  r.high_watermark = Offset(10);
  r.log_start_offset = Offset(0);
  r.records = batch_of(sample_records(), Offset(8));
  return r;
}

// The sample's records changed by `change`, as a batch.
SharedBytes changed_records(const std::function<void(std::vector<Record>&)>& change, Offset base = Offset(0)) {
  std::vector<Record> records = sample_records();
  change(records);
  return batch_of(records, base);
}

// Applies `change` to a copy of `base` and expects the digest to move.
template <typename M>
void expect_changes_digest(const M& base, const std::function<void(M&)>& change,
                           const char* what) {
  M changed = base;
  change(changed);
  EXPECT_NE(message_digest(Message{base}), message_digest(Message{changed})) << what;
}

TEST(MessageDigest, EqualMessagesDigestEqually) {
  EXPECT_EQ(message_digest(Message{sample_produce()}), message_digest(Message{sample_produce()}));
  EXPECT_EQ(message_digest(Message{sample_fetch_response()}),
            message_digest(Message{sample_fetch_response()}));
  EXPECT_EQ(message_digest(Message{MetadataRequest{}}), message_digest(Message{MetadataRequest{}}));
}

TEST(MessageDigest, ProduceRequestEveryFieldCounts) {
  const ProduceRequest base = sample_produce();
  using P = ProduceRequest;
  expect_changes_digest<P>(base, [](P& m) { m.correlation_id = 18; }, "correlation id");
  expect_changes_digest<P>(base, [](P& m) { m.topic = "orderz"; }, "topic");
  expect_changes_digest<P>(base, [](P& m) { m.partition = PartitionId(3); }, "partition");
  expect_changes_digest<P>(base, [](P& m) { m.acks = 1; }, "acks");
  expect_changes_digest<P>(base, [](P& m) { m.timeout_ms = 1; }, "timeout");
  using R = std::vector<Record>;
  expect_changes_digest<P>(base, [](P& m) { m.records = changed_records([](R& r) { r[1].key = "k3"; }); }, "key");
  expect_changes_digest<P>(base, [](P& m) { m.records = changed_records([](R& r) { r[1].key.reset(); }); }, "null key");
  expect_changes_digest<P>(base, [](P& m) { m.records = changed_records([](R& r) { r[0].value = "v9"; }); }, "value");
  expect_changes_digest<P>(base, [](P& m) { m.records = changed_records([](R& r) { r[0].timestamp_ms = 7; }); },
                           "timestamp");
  expect_changes_digest<P>(base, [](P& m) { m.records = changed_records([](R& r) { r.pop_back(); }); }, "count");
  expect_changes_digest<P>(base, [](P& m) { m.records = changed_records([](R& r) { std::swap(r[0], r[1]); }); },
                           "order");
  expect_changes_digest<P>(
      base,
      [](P& m) {
        m.records = SharedBytes(encode_batch(sample_records(), BatchMeta{Offset(0), LeaderEpoch(-1), ProducerId(4),
                                                                         ProducerEpoch(0), Sequence(0)}));
      },
      "producer id");
}

TEST(MessageDigest, NullValueDiffersFromEmptyValue) {
  using R = std::vector<Record>;
  const auto digest = [](const SharedBytes& records) {
    ProduceRequest p = sample_produce();
    p.records = records;
    return message_digest(Message{p});
  };
  EXPECT_NE(digest(changed_records([](R& r) { r[0].value.reset(); })),
            digest(changed_records([](R& r) { r[0].value = ""; })));
  EXPECT_NE(digest(changed_records([](R& r) { r[0].key.reset(); })),
            digest(changed_records([](R& r) { r[0].key = ""; })));
}

TEST(MessageDigest, FetchResponseEveryFieldCounts) {
  const FetchResponse base = sample_fetch_response();
  using F = FetchResponse;
  expect_changes_digest<F>(base, [](F& m) { m.correlation_id = 18; }, "correlation id");
  expect_changes_digest<F>(base, [](F& m) { m.topic = "other"; }, "topic");
  expect_changes_digest<F>(base, [](F& m) { m.partition = PartitionId(0); }, "partition");
  expect_changes_digest<F>(
      base, [](F& m) { m.error = ErrorCode::NOT_LEADER_OR_FOLLOWER; }, "error code");
  expect_changes_digest<F>(base, [](F& m) { m.high_watermark = Offset(11); }, "high watermark");
  expect_changes_digest<F>(base, [](F& m) { m.log_start_offset = Offset(1); }, "log start");
  using R = std::vector<Record>;
  expect_changes_digest<F>(base, [](F& m) { m.records = changed_records([](R&) {}, Offset(7)); }, "base offset");
  expect_changes_digest<F>(base, [](F& m) { m.records = changed_records([](R& r) { r[0].key = "kx"; }, Offset(8)); },
                           "record key");
  expect_changes_digest<F>(base, [](F& m) { m.records = changed_records([](R& r) { r[1].value = "vx"; }, Offset(8)); },
                           "record value");
  expect_changes_digest<F>(
      base, [](F& m) { m.records = changed_records([](R& r) { r[1].value.reset(); }, Offset(8)); }, "tombstone");
  expect_changes_digest<F>(base, [](F& m) { m.records = SharedBytes(); }, "no records");
  // Two batches: the second one's bytes count too, and so does its leader epoch (outside the CRC).
  F two = base;
  two.records.append(batch_of({Record{"k3", "v3", 1002}}, Offset(10)));
  expect_changes_digest<F>(base, [&](F& m) { m.records = two.records; }, "a second batch");
  F other_epoch = base;
  other_epoch.records.append(
      SharedBytes(encode_batch(std::vector<Record>{Record{"k3", "v3", 1002}}, BatchMeta{Offset(10), LeaderEpoch(5)})));
  EXPECT_NE(message_digest(Message{two}), message_digest(Message{other_epoch})) << "leader epoch";
  // Bytes that are not a whole batch are folded as they are.
  F garbage = base;
  garbage.records = SharedBytes("abcdefghij");
  expect_changes_digest<F>(garbage, [](F& m) { m.records = SharedBytes("abcdefghiJ"); }, "a byte of a non-batch");
  // Sliced differently, the same bytes digest the same.
  const std::string whole = two.records.str();
  F sliced = base;
  sliced.records = SharedBytes(whole.substr(0, 70));
  sliced.records.append(SharedBytes(whole.substr(70)));
  EXPECT_EQ(sliced.records.slices().size(), 2u);
  EXPECT_EQ(message_digest(Message{sliced}), message_digest(Message{two}));
}

TEST(MessageDigest, ResponsesErrorCodeCounts) {
  ProduceResponse produce;
  produce.topic = "t";
  expect_changes_digest<ProduceResponse>(
      produce, [](ProduceResponse& m) { m.error = ErrorCode::NOT_ENOUGH_REPLICAS; }, "produce");
  expect_changes_digest<ProduceResponse>(
      produce, [](ProduceResponse& m) { m.base_offset = Offset(5); }, "base offset");
  ListOffsetsResponse list;
  list.topic = "t";
  expect_changes_digest<ListOffsetsResponse>(
      list, [](ListOffsetsResponse& m) { m.error = ErrorCode::OFFSET_OUT_OF_RANGE; }, "list");
  expect_changes_digest<ListOffsetsResponse>(
      list, [](ListOffsetsResponse& m) { m.offset = Offset(3); }, "list offset");
}

TEST(MessageDigest, MetadataFieldsCount) {
  MetadataResponse base;
  base.correlation_id = 3;
  base.brokers = {NodeId(1), NodeId(2)};
  base.topics = {TopicMetadata{"orders", ErrorCode::NONE,
                               {PartitionMetadata{PartitionId(0), ErrorCode::NONE, NodeId(1),
                                                  LeaderEpoch(4), {NodeId(1), NodeId(2)},
                                                  {NodeId(1)}}}}};
  using R = MetadataResponse;
  expect_changes_digest<R>(base, [](R& m) { m.brokers.push_back(NodeId(3)); }, "brokers");
  expect_changes_digest<R>(base, [](R& m) { m.topics[0].name = "x"; }, "topic name");
  expect_changes_digest<R>(
      base, [](R& m) { m.topics[0].partitions[0].leader = NodeId(2); }, "leader");
  expect_changes_digest<R>(
      base, [](R& m) { m.topics[0].partitions[0].leader_epoch = LeaderEpoch(5); }, "epoch");
  expect_changes_digest<R>(
      base, [](R& m) { m.topics[0].partitions[0].isr.push_back(NodeId(2)); }, "isr");
  MetadataRequest request;
  expect_changes_digest<MetadataRequest>(
      request, [](MetadataRequest& m) { m.topics = {"orders"}; }, "requested topics");
}

TEST(MessageDigest, TypeCountsWhenFieldsAreTheSame) {
  // Same correlation id, topic and partition; only the message type differs.
  FetchRequest fetch;
  fetch.correlation_id = 5;
  fetch.topic = "t";
  fetch.partition = PartitionId(1);
  ListOffsetsRequest list;
  list.correlation_id = 5;
  list.topic = "t";
  list.partition = PartitionId(1);
  ProduceResponse produce_response;
  produce_response.correlation_id = 5;
  produce_response.topic = "t";
  produce_response.partition = PartitionId(1);
  ListOffsetsResponse list_response;
  list_response.correlation_id = 5;
  list_response.topic = "t";
  list_response.partition = PartitionId(1);
  EXPECT_NE(message_digest(Message{produce_response}), message_digest(Message{list_response}));
  EXPECT_NE(message_digest(Message{fetch}), message_digest(Message{list}));
  EXPECT_NE(message_digest(Message{MetadataRequest{}}), message_digest(Message{MetadataResponse{}}));
}

TEST(MessageName, KafkaApiNames) {
  EXPECT_EQ(message_name(Message{ProduceRequest{}}), "Produce");
  EXPECT_EQ(message_name(Message{ProduceResponse{}}), "ProduceResponse");
  EXPECT_EQ(message_name(Message{FetchRequest{}}), "Fetch");
  EXPECT_EQ(message_name(Message{FetchResponse{}}), "FetchResponse");
  EXPECT_EQ(message_name(Message{ListOffsetsRequest{}}), "ListOffsets");
  EXPECT_EQ(message_name(Message{ListOffsetsResponse{}}), "ListOffsetsResponse");
  EXPECT_EQ(message_name(Message{MetadataRequest{}}), "Metadata");
  EXPECT_EQ(message_name(Message{MetadataResponse{}}), "MetadataResponse");
}

// Each alternative of Message, default-built, by index.
template <std::size_t... I>
std::vector<Message> every_message(std::index_sequence<I...>) {
  return {Message{std::in_place_index<I>}...};
}

// A world routes an answer back on the connection its request came in on (sim/world.h): it must
// tell answers from requests, find their correlation ids, and know which requests get none.
TEST(MessageRouting, EveryAnswerHasACorrelationIdAndEveryAnsweredRequestHasAnAnswerType) {
  int requests_answered = 0;
  int responses = 0;
  for (const Message& m : every_message(std::make_index_sequence<std::variant_size_v<Message>>{})) {
    if (message_is_response(m)) {
      ++responses;
      EXPECT_TRUE(message_correlation(m).has_value()) << message_name(m);
      EXPECT_FALSE(message_expects_response(m)) << message_name(m);
    } else if (message_expects_response(m)) {
      ++requests_answered;
    }
  }
  EXPECT_EQ(requests_answered, responses);
  EXPECT_TRUE(message_is_response(Message{JoinGroupResponse{}}));
  EXPECT_FALSE(message_is_response(Message{JoinGroupRequest{}}));
  EXPECT_TRUE(message_expects_response(Message{JoinGroupRequest{}}));
  EXPECT_FALSE(message_expects_response(Message{LeaderAndIsrRequest{}}));
  EXPECT_FALSE(message_correlation(Message{LeaderAndIsrRequest{}}).has_value());
  ProduceRequest fire_and_forget;
  fire_and_forget.acks = 0;
  EXPECT_FALSE(message_expects_response(Message{fire_and_forget}));
  ProduceRequest acked;
  acked.acks = 1;
  acked.correlation_id = 7;
  EXPECT_TRUE(message_expects_response(Message{acked}));
  EXPECT_EQ(message_correlation(Message{acked}), std::optional<CorrelationId>{7});
}

TEST(ErrorName, KafkaNumbersAndNames) {
  EXPECT_EQ(static_cast<int>(ErrorCode::NOT_LEADER_OR_FOLLOWER), 6);
  EXPECT_EQ(error_name(ErrorCode::NOT_LEADER_OR_FOLLOWER), "NOT_LEADER_OR_FOLLOWER");
  EXPECT_EQ(static_cast<int>(ErrorCode::NONE), 0);
  EXPECT_EQ(error_name(ErrorCode::NONE), "NONE");
  EXPECT_EQ(static_cast<int>(ErrorCode::UNKNOWN_SERVER_ERROR), -1);
  EXPECT_EQ(error_name(ErrorCode::UNKNOWN_SERVER_ERROR), "UNKNOWN_SERVER_ERROR");
  EXPECT_EQ(static_cast<int>(ErrorCode::OFFSET_OUT_OF_RANGE), 1);
  EXPECT_EQ(error_name(ErrorCode::OFFSET_OUT_OF_RANGE), "OFFSET_OUT_OF_RANGE");
  EXPECT_EQ(static_cast<int>(ErrorCode::REBALANCE_IN_PROGRESS), 27);
  EXPECT_EQ(error_name(ErrorCode::REBALANCE_IN_PROGRESS), "REBALANCE_IN_PROGRESS");
  EXPECT_EQ(static_cast<int>(ErrorCode::FENCED_INSTANCE_ID), 82);
  EXPECT_EQ(error_name(ErrorCode::FENCED_INSTANCE_ID), "FENCED_INSTANCE_ID");
  EXPECT_EQ(error_name(static_cast<ErrorCode>(4)), "UNKNOWN_ERROR_CODE");  // 4 is not listed
}

}  // namespace
}  // namespace logsim

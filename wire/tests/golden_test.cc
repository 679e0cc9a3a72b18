// Golden frames: the codec against bytes written by hand from Kafka's specs and from what
// librdkafka 2.0.2 and kafkajs 2.2.4 send (golden_frames.h). A wrong field order, width or
// version condition changes these bytes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "engine/protocol/messages.h"
#include "engine/protocol/record_batch.h"
#include "wire/request.h"
#include "wire/tests/golden_frames.h"

namespace logsim::wire {
namespace {

using golden::as_bytes;
using golden::cat;
using golden::hex;

std::string framed(const std::string& body) {
  std::string out;
  Writer w(out);
  w.int32(static_cast<std::int32_t>(body.size()));
  return out + body;
}

template <class M>
const M& body_as(const DecodedRequest& d) {
  EXPECT_EQ(d.support, Support::kSupported);
  return std::get<M>(d.body.value());
}

TEST(Golden, ApiVersionsV3FromLibrdkafka) {
  const std::string frame = golden::api_versions_v3_librdkafka();
  const DecodedRequest d = decode_request(as_bytes(frame));
  EXPECT_EQ(d.header, (RequestHeader{ApiKey::API_VERSIONS, 3, 1, "rdkafka"}));
  const auto& m = body_as<ApiVersionsRequest>(d);
  EXPECT_EQ(m.client_software_name, "librdkafka");
  EXPECT_EQ(m.client_software_version, "2.0.2");
  EXPECT_EQ(encode_request(d.header, m), framed(frame));
  EXPECT_EQ(request_header_version(ApiKey::API_VERSIONS, 3), 2);
}

TEST(Golden, ApiVersionsV0AndV2HaveAnEmptyBody) {
  for (const std::string& frame : {golden::api_versions_v0_librdkafka(), golden::api_versions_v2_kafkajs()}) {
    const DecodedRequest d = decode_request(as_bytes(frame));
    EXPECT_EQ(body_as<ApiVersionsRequest>(d), ApiVersionsRequest{});
    EXPECT_EQ(encode_request(d.header, ApiVersionsRequest{}), framed(frame));
  }
  EXPECT_EQ(decode_request(as_bytes(golden::api_versions_v2_kafkajs())).header,
            (RequestHeader{ApiKey::API_VERSIONS, 2, 0, "kafkajs"}));
}

TEST(Golden, ApiVersionsV3ResponseHasAHeaderV0AndACompactBody) {
  ApiVersionsResponse m;
  m.api_keys = {{0, 3, 7}, {18, 0, 3}};
  const std::string expected = cat({hex("00 00 00 01"),        // correlation_id; header v0: no tags
                                    hex("00 00"),              // error_code 0
                                    hex("03"),                 // api_keys: compact array, 2 + 1
                                    hex("00 00 00 03 00 07 00"),  // Produce 3..7, element tags
                                    hex("00 12 00 00 00 03 00"),  // ApiVersions 0..3, element tags
                                    hex("00 00 00 00"),        // throttle_time_ms
                                    hex("00")});               // body tagged fields
  EXPECT_EQ(encode_response({ApiKey::API_VERSIONS, 3, 1, "rdkafka"}, m), framed(expected));
  EXPECT_EQ(response_header_version(ApiKey::API_VERSIONS, 3), 0);
}

TEST(Golden, AnUnsupportedApiVersionsVersionIsAnsweredInV0WithError35AndEveryRange) {
  // librdkafka's next version would be v4 (flexible: header v2). The answer is v0 throughout.
  const std::string v4 = cat({hex("00 12 00 04 00 00 00 03 00 07"), "rdkafka", hex("00 00 00")});
  const DecodedRequest d = decode_request(as_bytes(v4));
  ASSERT_EQ(d.support, Support::kUnsupportedVersion);
  const std::optional<std::string> answer = unsupported_version_response(d.header);
  ASSERT_TRUE(answer.has_value());
  const std::size_t n = supported_apis().size();
  std::string expected = cat({hex("00 00 00 03"),  // correlation_id 3, header v0
                              hex("00 23")});      // error_code 35, UNSUPPORTED_VERSION
  Writer w(expected);
  w.int32(static_cast<std::int32_t>(n));  // api_keys: int32 count (v0 is not flexible)
  for (const ApiRange& r : supported_apis()) {
    w.int16(static_cast<std::int16_t>(r.key));
    w.int16(r.min_version);
    w.int16(r.max_version);
  }  // v0 has no throttle_time_ms and no tagged fields
  EXPECT_EQ(*answer, framed(expected));
  EXPECT_EQ(unsupported_version_response({ApiKey::PRODUCE, 8, 3, {}}), std::nullopt);
}

TEST(Golden, MetadataV1WithNullTopicsAsksForAllTopics) {
  const std::string frame = golden::metadata_v1_all_topics();
  const DecodedRequest d = decode_request(as_bytes(frame));
  const auto& m = body_as<MetadataRequest>(d);
  EXPECT_EQ(m.topics, std::nullopt);
  EXPECT_TRUE(m.allow_auto_topic_creation);  // v4+ only: the default below that
  EXPECT_EQ(encode_request(d.header, m), framed(frame));
  // v0 has no null: an empty array means all topics there.
  EXPECT_THROW(decode_request(as_bytes(cat({hex("00 03 00 00 00 00 00 05 ff ff ff ff ff ff")}))), DecodeError);
}

// Metadata v8 (Kafka's MetadataResponse.json): the partition's leader epoch after the leader
// (v7+), its offline replicas after the ISR (v5+), each topic's authorized operations after its
// partitions and the cluster's after the topics (v8). Sarama told Kafka 1.0 or later sends v5+.
TEST(Golden, MetadataV8ResponseFieldOrder) {
  MetadataResponse m;
  m.brokers = {{1, "h", 9092, std::nullopt}};
  m.cluster_id = "c";
  m.controller_id = 1;
  MetadataResponse::Topic t{0, "t", false, {{0, 2, 1, 5, {1}, {1}, {3}}}};
  m.topics = {t};
  const std::string expected = cat({hex("00 00 00 07"),              // correlation_id
                                    hex("00 00 00 00"),              // throttle_time_ms
                                    hex("00 00 00 01 00 00 00 01 00 01 68 00 00 23 84 ff ff"),  // broker 1 "h":9092, rack null
                                    hex("00 01 63"),                 // cluster_id "c"
                                    hex("00 00 00 01"),              // controller_id
                                    hex("00 00 00 01 00 00 00 01 74 00"),  // 1 topic: error 0, "t", not internal
                                    hex("00 00 00 01 00 00 00 00 00 02"),  // 1 partition: error 0, index 2
                                    hex("00 00 00 01 00 00 00 05"),  // leader 1, leader epoch 5
                                    hex("00 00 00 01 00 00 00 01"),  // replicas [1]
                                    hex("00 00 00 01 00 00 00 01"),  // isr [1]
                                    hex("00 00 00 01 00 00 00 03"),  // offline replicas [3]
                                    hex("80 00 00 00"),              // topic authorized operations: not given
                                    hex("80 00 00 00")});            // cluster authorized operations: not given
  EXPECT_EQ(encode_response({ApiKey::METADATA, 8, 7, "sarama"}, m), framed(expected));
}

// OffsetCommit v1 (Kafka's OffsetCommitRequest.json; what Sarama 1.22 sends by default): the
// generation and member after the group, no retention time, and a commit timestamp between
// each partition's offset and its metadata.
TEST(Golden, OffsetCommitV1HasACommitTimestampAndNoRetention) {
  const std::string frame = cat({hex("00 08 00 01 00 00 00 09 00 06 73 61 72 61 6d 61"),  // OffsetCommit v1, id 9, "sarama"
                                 hex("00 01 67"),                    // group_id "g"
                                 hex("00 00 00 03"),                 // generation_id 3
                                 hex("00 01 6d"),                    // member_id "m"
                                 hex("00 00 00 01 00 01 74"),        // 1 topic: "t"
                                 hex("00 00 00 01 00 00 00 02"),     // 1 partition: index 2
                                 hex("00 00 00 00 00 00 00 2a"),     // committed_offset 42
                                 hex("ff ff ff ff ff ff ff ff"),     // commit_timestamp -1
                                 hex("ff ff")});                     // committed_metadata null
  const DecodedRequest d = decode_request(as_bytes(frame));
  const auto& m = body_as<OffsetCommitRequest>(d);
  EXPECT_EQ(m.group_id, "g");
  EXPECT_EQ(m.generation_id, 3);
  EXPECT_EQ(m.member_id, "m");
  EXPECT_EQ(m.retention_time_ms, -1);
  ASSERT_EQ(m.topics.size(), 1u);
  ASSERT_EQ(m.topics[0].partitions.size(), 1u);
  EXPECT_EQ(m.topics[0].partitions[0].partition_index, 2);
  EXPECT_EQ(m.topics[0].partitions[0].committed_offset, 42);
  EXPECT_EQ(m.topics[0].partitions[0].commit_timestamp, -1);
  EXPECT_EQ(m.topics[0].partitions[0].committed_metadata, std::nullopt);
  EXPECT_EQ(encode_request(d.header, m), framed(frame));
}

// OffsetCommit v7 (Kafka's OffsetCommitRequest.json; what librdkafka 2.0.2 sends to a broker
// that offers it): the static member's instance id after the member id (v7+), and each
// partition's committed leader epoch between its offset and its metadata (v6+).
TEST(Golden, OffsetCommitV7HasTheInstanceIdAndEachPartitionsLeaderEpoch) {
  const std::string frame = golden::offset_commit_v7();
  const DecodedRequest d = decode_request(as_bytes(frame));
  const auto& m = body_as<OffsetCommitRequest>(d);
  EXPECT_EQ(m.member_id, "m");
  EXPECT_EQ(m.group_instance_id, "i1");
  EXPECT_EQ(m.retention_time_ms, -1);
  ASSERT_EQ(m.topics.size(), 1u);
  ASSERT_EQ(m.topics[0].partitions.size(), 1u);
  EXPECT_EQ(m.topics[0].partitions[0].committed_offset, 42);
  EXPECT_EQ(m.topics[0].partitions[0].committed_leader_epoch, 5);
  EXPECT_EQ(m.topics[0].partitions[0].committed_metadata, "x");
  EXPECT_EQ(encode_request(d.header, m), framed(frame));
  // The same body as v6 has no instance id, and as v5 no leader epoch either.
  RequestHeader v6 = d.header;
  v6.api_version = 6;
  OffsetCommitRequest without = m;
  without.group_instance_id.reset();
  const DecodedRequest d6 = decode_request(as_bytes(encode_request(v6, m).substr(4)));
  EXPECT_EQ(body_as<OffsetCommitRequest>(d6), without);
  RequestHeader v5 = d.header;
  v5.api_version = 5;
  without.topics[0].partitions[0].committed_leader_epoch = -1;
  const DecodedRequest d5 = decode_request(as_bytes(encode_request(v5, m).substr(4)));
  EXPECT_EQ(body_as<OffsetCommitRequest>(d5), without);
}

// OffsetFetch v7 (Kafka's OffsetFetchRequest.json and OffsetFetchResponse.json; what
// librdkafka 2.0.2 sends to a broker that offers it): flexible from v6, so compact strings and
// arrays and tagged fields after each struct; require_stable (v7+) after the topics.
TEST(Golden, OffsetFetchV7IsFlexibleAndAsksForStableOffsets) {
  const std::string frame = golden::offset_fetch_v7();
  const DecodedRequest d = decode_request(as_bytes(frame));
  const auto& m = body_as<OffsetFetchRequest>(d);
  EXPECT_EQ(m.group_id, "g");
  ASSERT_TRUE(m.topics.has_value());
  ASSERT_EQ(m.topics->size(), 1u);
  EXPECT_EQ((*m.topics)[0].name, "t");
  EXPECT_EQ((*m.topics)[0].partition_indexes, (std::vector<std::int32_t>{0, 2}));
  EXPECT_TRUE(m.require_stable);
  EXPECT_EQ(encode_request(d.header, m), framed(frame));

  OffsetFetchResponse r;
  r.throttle_time_ms = 0;
  r.topics = {{"t", {{0, 42, -1, std::nullopt, 0}, {2, -1, -1, std::nullopt, 88}}}};
  const std::string expected = cat({hex("00 00 00 0c 00"),              // correlation id 12; no tags
                                    hex("00 00 00 00"),                 // throttle_time_ms 0
                                    hex("02 02 74 03"),                 // 1 topic "t", 2 partitions:
                                    hex("00 00 00 00 00 00 00 00 00 00 00 2a"),  // index 0, offset 42
                                    hex("ff ff ff ff 00 00 00 00"),     //   epoch -1, metadata null, error 0; no tags
                                    hex("00 00 00 02 ff ff ff ff ff ff ff ff"),  // index 2, offset -1
                                    hex("ff ff ff ff 00 00 58 00"),     //   epoch -1, metadata null, error 88; no tags
                                    hex("00 00 00 00")});               // topic's tags; error_code 0; no tags
  EXPECT_EQ(encode_response(d.header, r), framed(expected));
}

TEST(Golden, ProduceV7CarriesTheRecordBatchAsOpaqueBytes) {
  const std::string frame = golden::produce_v7_request();
  const DecodedRequest d = decode_request(as_bytes(frame));
  EXPECT_EQ(d.header, (RequestHeader{ApiKey::PRODUCE, 7, 7, "kafkajs"}));
  const auto& m = body_as<ProduceRequest>(d);
  EXPECT_EQ(m.transactional_id, std::nullopt);
  EXPECT_EQ(m.acks, -1);
  EXPECT_EQ(m.timeout_ms, 30000);
  ASSERT_EQ(m.topic_data.size(), 1u);
  EXPECT_EQ(m.topic_data[0].name, "topic");
  ASSERT_EQ(m.topic_data[0].partition_data.size(), 1u);
  EXPECT_EQ(m.topic_data[0].partition_data[0].index, 2);
  EXPECT_EQ(m.topic_data[0].partition_data[0].records, golden::record_batch());
  EXPECT_EQ(encode_request(d.header, m), framed(frame));
  // The hand-written batch is a valid one (its CRC-32C too), so the golden is realistic.
  EXPECT_TRUE(batch_is_valid(golden::record_batch(), true));
  EXPECT_EQ(decode_batches(std::string_view(golden::record_batch())).at(0).record.value, "hello");
}

TEST(Golden, FetchV11ResponseFieldsThatKafkajsNeeds) {
  FetchResponse m;
  FetchResponse::Partition p;
  p.partition_index = 2;
  p.high_watermark = 1;
  p.last_stable_offset = 1;
  p.log_start_offset = 0;
  p.records = golden::record_batch();  // aborted_transactions null, preferred_read_replica -1
  m.responses = {{"topic", {p}}};
  const RequestHeader request{ApiKey::FETCH, 11, 9, "kafkajs"};
  EXPECT_EQ(encode_response(request, m), framed(golden::fetch_v11_response()));
  const std::string response = golden::fetch_v11_response();
  EXPECT_TRUE(decode_response(ApiKey::FETCH, 11, as_bytes(response)).body == ResponseBody{m});
  // An empty aborted_transactions list is a count of 0 where null was -1.
  m.responses[0].partitions[0].aborted_transactions.emplace();
  std::string empty_list = golden::fetch_v11_response();
  empty_list.replace(empty_list.find(hex("ff ff ff ff ff ff ff ff")), 4, hex("00 00 00 00"));
  EXPECT_EQ(encode_response(request, m), framed(empty_list));
}

// TxnOffsetCommit v3 (what librdkafka 2.0.2 sends): request header v2, compact strings and
// arrays, the consumer's generation and member (KIP-447), a tagged-field section per struct.
TEST(Golden, TxnOffsetCommitV3IsFlexibleAndNamesTheMember) {
  const std::string frame = golden::txn_offset_commit_v3();
  const DecodedRequest d = decode_request(as_bytes(frame));
  EXPECT_EQ(d.header, (RequestHeader{ApiKey::TXN_OFFSET_COMMIT, 3, 7, "c"}));
  TxnOffsetCommitRequest expected{"t", "g", 5, 1, 2, "m", std::nullopt, {{"o", {{0, 9, -1, std::nullopt}}}}};
  EXPECT_EQ(body_as<TxnOffsetCommitRequest>(d), expected);
  EXPECT_EQ(encode_request(d.header, expected), framed(frame));
}

// EndTxn v1 (what kafkajs 2.2.4 sends): plain strings, committed as one byte.
TEST(Golden, EndTxnV1) {
  const std::string frame = cat({hex("00 1a 00 01 00 00 00 03 00 07 6b 61 66 6b 61 6a 73"),  // key 26, v1, id 3, "kafkajs"
                                 hex("00 02 74 78 00 00 00 00 00 00 03 e9 00 04 01")});    // "tx", pid 1001, epoch 4, commit
  const DecodedRequest d = decode_request(as_bytes(frame));
  EXPECT_EQ(body_as<EndTxnRequest>(d), (EndTxnRequest{"tx", 1001, 4, true}));
  EXPECT_EQ(encode_request(d.header, body_as<EndTxnRequest>(d)), framed(frame));
}

// The fuzzer's seed corpus holds the golden request frames. Set LOGSIM_UPDATE_CORPUS=1 to
// write them again after changing golden_frames.h.
TEST(Golden, CorpusFilesAreTheGoldenFrames) {
  const std::string dir = std::string(LOGSIM_SOURCE_DIR) + "/wire/tests/corpus/";
  for (const golden::NamedFrame& f : golden::corpus_frames()) {
    if (std::getenv("LOGSIM_UPDATE_CORPUS") != nullptr) std::ofstream(dir + f.name, std::ios::binary) << f.bytes;
    std::ifstream in(dir + f.name, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    EXPECT_EQ(bytes.str(), f.bytes) << f.name;
    EXPECT_NO_THROW(decode_request(as_bytes(f.bytes))) << f.name;
  }
}

}  // namespace
}  // namespace logsim::wire

// Samples of ApiVersions, Metadata, Produce, Fetch and ListOffsets (samples.h).
#include "wire/tests/samples.h"

#include <string>

namespace logsim::wire::samples {

namespace {

RequestBody api_versions_request(std::int16_t v) {
  ApiVersionsRequest m;
  if (v >= 3) {
    m.client_software_name = "librdkafka";
    m.client_software_version = "2.0.2";
  }
  return m;
}

ResponseBody api_versions_response(std::int16_t v) {
  ApiVersionsResponse m;
  m.error_code = 35;
  m.api_keys = {{0, 3, 7}, {18, 0, 3}};
  if (v >= 1) m.throttle_time_ms = 12;
  return m;
}

RequestBody metadata_request(std::int16_t v) {
  MetadataRequest m;
  m.topics = std::vector<MetadataRequest::Topic>{{"orders"}, {"payments"}};
  if (v >= 4) m.allow_auto_topic_creation = false;
  if (v >= 8) m.include_topic_authorized_operations = true;
  return m;
}

ResponseBody metadata_response(std::int16_t v) {
  MetadataResponse m;
  if (v >= 3) m.throttle_time_ms = 7;
  m.brokers = {{1, "127.0.0.1", 9092, std::nullopt}, {2, "localhost", 9093, std::nullopt}};
  if (v >= 1) m.brokers[1].rack = "rack-b";
  if (v >= 2) m.cluster_id = "logsim-cluster";
  if (v >= 1) m.controller_id = 2;
  MetadataResponse::Topic t{3, "orders", false, {}};
  if (v >= 1) t.is_internal = true;
  t.partitions = {{0, 0, 1, -1, {1, 2}, {1}, {}}, {6, 1, -1, -1, {2, 1}, {}, {}}};
  if (v >= 5) t.partitions[1].offline_replicas = {2};
  if (v >= 7) t.partitions[0].leader_epoch = 4;
  if (v >= 8) t.topic_authorized_operations = 0x5f8;
  m.topics = {t, {0, "empty", false, {}}};
  if (v >= 8) m.cluster_authorized_operations = 0x1f80;
  return m;
}

RequestBody produce_request(std::int16_t) {
  ProduceRequest m;
  m.transactional_id = "tx-1";
  m.acks = -1;
  m.timeout_ms = 30000;
  m.topic_data = {{"orders", {{0, std::string("batch-0")}, {3, std::nullopt}}}, {"empty", {}}};
  return m;
}

ResponseBody produce_response(std::int16_t v) {
  ProduceResponse m;
  ProduceResponse::Partition p{1, 0, 42, 1700000000000, -1};
  if (v >= 5) p.log_start_offset = 10;
  m.responses = {{"orders", {p, {2, 6, -1, -1, -1}}}};
  m.throttle_time_ms = 5;
  return m;
}

RequestBody fetch_request(std::int16_t v) {
  FetchRequest m;
  m.max_wait_ms = 500;
  m.min_bytes = 1;
  m.max_bytes = 52428800;
  m.isolation_level = 1;
  if (v >= 7) {
    m.session_id = 17;
    m.session_epoch = 3;
    m.forgotten_topics_data = {{"old", {0, 4}}};
  }
  FetchRequest::Partition p{2, -1, 100, -1, 1048576};
  if (v >= 9) p.current_leader_epoch = 4;
  if (v >= 5) p.log_start_offset = 5;
  m.topics = {{"orders", {p}}, {"empty", {}}};
  if (v >= 11) m.rack_id = "rack-a";
  return m;
}

ResponseBody fetch_response(std::int16_t v) {
  FetchResponse m;
  m.throttle_time_ms = 3;
  if (v >= 7) {
    m.error_code = 70;
    m.session_id = 17;
  }
  FetchResponse::Partition p{2, 0, 120, 110, -1, std::nullopt, -1, std::string("batches")};
  if (v >= 5) p.log_start_offset = 4;
  p.aborted_transactions = std::vector<FetchResponse::AbortedTransaction>{{1000, 90}};
  if (v >= 11) p.preferred_read_replica = 3;
  FetchResponse::Partition empty{0, 1, -1, -1, -1, std::vector<FetchResponse::AbortedTransaction>{}, -1,
                                 std::nullopt};
  m.responses = {{"orders", {p, empty}}};
  return m;
}

RequestBody list_offsets_request(std::int16_t v) {
  ListOffsetsRequest m;
  if (v >= 2) m.isolation_level = 1;
  m.topics = {{"orders", {{0, -2}, {1, -1}, {2, 1700000000000}}}};
  return m;
}

ResponseBody list_offsets_response(std::int16_t v) {
  ListOffsetsResponse m;
  if (v >= 2) m.throttle_time_ms = 9;
  m.topics = {{"orders", {{0, 0, 1700000000000, 15}, {1, 3, -1, -1}}}};
  return m;
}

}  // namespace

std::vector<Sample> core_samples() {
  return {{ApiKey::API_VERSIONS, api_versions_request, api_versions_response},
          {ApiKey::METADATA, metadata_request, metadata_response},
          {ApiKey::PRODUCE, produce_request, produce_response},
          {ApiKey::FETCH, fetch_request, fetch_response},
          {ApiKey::LIST_OFFSETS, list_offsets_request, list_offsets_response}};
}

}  // namespace logsim::wire::samples

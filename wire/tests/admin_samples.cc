// Samples of the admin APIs (samples.h).
#include <string>

#include "wire/tests/samples.h"

namespace logsim::wire::samples {

namespace {

RequestBody create_topics_request(std::int16_t v) {
  CreateTopicsRequest m;
  CreateTopicsRequest::Topic manual{"manual", -1, -1, {{0, {1, 2}}, {1, {2, 3}}}, {}};
  CreateTopicsRequest::Topic counted{"orders", 4, 3, {}, {{"retention.ms", "86400000"}, {"cleanup.policy", {}}}};
  m.topics = {manual, counted};
  m.timeout_ms = 30000;
  if (v >= 1) m.validate_only = true;
  return m;
}

ResponseBody create_topics_response(std::int16_t v) {
  CreateTopicsResponse m;
  if (v >= 2) m.throttle_time_ms = 6;
  m.topics = {{"orders", 0, std::nullopt}, {"dup", 36, std::nullopt}};
  if (v >= 1) m.topics[1].error_message = "Topic 'dup' already exists.";
  return m;
}

RequestBody delete_topics_request(std::int16_t) { return DeleteTopicsRequest{{"orders", "old"}, 15000}; }

ResponseBody delete_topics_response(std::int16_t v) {
  DeleteTopicsResponse m{0, {{"orders", 0}, {"missing", 3}}};
  if (v >= 1) m.throttle_time_ms = 2;
  return m;
}

RequestBody create_partitions_request(std::int16_t) {
  CreatePartitionsRequest m;
  CreatePartitionsRequest::Topic placed{"orders", 6, std::vector<CreatePartitionsRequest::Assignment>{{{1, 2}}, {{2, 3}}}};
  m.topics = {placed, {"events", 8, std::nullopt}};
  m.timeout_ms = 10000;
  m.validate_only = true;
  return m;
}

ResponseBody create_partitions_response(std::int16_t) {
  return CreatePartitionsResponse{3, {{"orders", 0, std::nullopt}, {"events", 37, "fewer than before"}}};
}

RequestBody describe_configs_request(std::int16_t v) {
  DescribeConfigsRequest m;
  m.resources = {{2, "orders", std::vector<std::string>{"retention.ms", "cleanup.policy"}}, {4, "1", std::nullopt}};
  if (v >= 1) m.include_synonyms = true;
  return m;
}

ResponseBody describe_configs_response(std::int16_t v) {
  DescribeConfigsResponse m;
  m.throttle_time_ms = 1;
  DescribeConfigsResponse::Config retention{"retention.ms", "86400000", false, false, -1, false, {}};
  DescribeConfigsResponse::Config secret{"sasl.jaas.config", std::nullopt, true, false, -1, true, {}};
  if (v == 0) secret.is_default = true;
  if (v >= 1) {
    retention.config_source = 1;
    retention.synonyms = {{"retention.ms", "86400000", 1}, {"log.retention.hours", std::nullopt, 5}};
    secret.config_source = 4;
  }
  m.results = {{0, std::nullopt, 2, "orders", {retention, secret}}, {3, "no such topic", 2, "missing", {}}};
  return m;
}

RequestBody init_producer_id_request(std::int16_t) { return InitProducerIdRequest{"tx-1", 60000}; }

ResponseBody init_producer_id_response(std::int16_t) { return InitProducerIdResponse{2, 0, 1000, 3}; }

}  // namespace

std::vector<Sample> admin_samples() {
  return {{ApiKey::CREATE_TOPICS, create_topics_request, create_topics_response},
          {ApiKey::DELETE_TOPICS, delete_topics_request, delete_topics_response},
          {ApiKey::CREATE_PARTITIONS, create_partitions_request, create_partitions_response},
          {ApiKey::DESCRIBE_CONFIGS, describe_configs_request, describe_configs_response},
          {ApiKey::INIT_PRODUCER_ID, init_producer_id_request, init_producer_id_response}};
}

}  // namespace logsim::wire::samples

// The bodies of the admin APIs on the wire: CreateTopics (0-4), DeleteTopics (0-3),
// CreatePartitions (0-1), DescribeConfigs (0-2) and InitProducerId (0-1). Conventions as in
// core_messages.h.
//
// kafkajs sends CreateTopics and DeleteTopics to the controller named by Metadata's
// controller_id, so that must be a broker the client can reach.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wire/api.h"
#include "wire/codec.h"

namespace logsim::wire {

// num_partitions and replication_factor are -1 when assignments place the partitions by hand
// (v4+ also: -1 takes the broker's num.partitions / default.replication.factor).
struct CreateTopicsRequest {
  static constexpr ApiKey kApiKey = ApiKey::CREATE_TOPICS;
  struct Assignment {
    std::int32_t partition_index = 0;
    std::vector<std::int32_t> broker_ids;
    bool operator==(const Assignment&) const = default;
  };
  struct Config {
    std::string name;
    std::optional<std::string> value;
    bool operator==(const Config&) const = default;
  };
  struct Topic {
    std::string name;
    std::int32_t num_partitions = 0;
    std::int16_t replication_factor = 0;
    std::vector<Assignment> assignments;
    std::vector<Config> configs;
    bool operator==(const Topic&) const = default;
  };
  std::vector<Topic> topics;
  std::int32_t timeout_ms = 60000;
  bool validate_only = false;  // v1+
  bool operator==(const CreateTopicsRequest&) const = default;
};

struct CreateTopicsResponse {
  static constexpr ApiKey kApiKey = ApiKey::CREATE_TOPICS;
  struct Topic {
    std::string name;
    std::int16_t error_code = 0;
    std::optional<std::string> error_message;  // v1+
    bool operator==(const Topic&) const = default;
  };
  std::int32_t throttle_time_ms = 0;  // v2+
  std::vector<Topic> topics;
  bool operator==(const CreateTopicsResponse&) const = default;
};

struct DeleteTopicsRequest {
  static constexpr ApiKey kApiKey = ApiKey::DELETE_TOPICS;
  std::vector<std::string> topic_names;
  std::int32_t timeout_ms = 0;
  bool operator==(const DeleteTopicsRequest&) const = default;
};

struct DeleteTopicsResponse {
  static constexpr ApiKey kApiKey = ApiKey::DELETE_TOPICS;
  struct Result {
    std::string name;
    std::int16_t error_code = 0;
    bool operator==(const Result&) const = default;
  };
  std::int32_t throttle_time_ms = 0;  // v1+
  std::vector<Result> responses;
  bool operator==(const DeleteTopicsResponse&) const = default;
};

// count is the new total number of partitions; assignments (null: the broker places them) has
// one element per new partition.
struct CreatePartitionsRequest {
  static constexpr ApiKey kApiKey = ApiKey::CREATE_PARTITIONS;
  struct Assignment {
    std::vector<std::int32_t> broker_ids;
    bool operator==(const Assignment&) const = default;
  };
  struct Topic {
    std::string name;
    std::int32_t count = 0;
    std::optional<std::vector<Assignment>> assignments;
    bool operator==(const Topic&) const = default;
  };
  std::vector<Topic> topics;
  std::int32_t timeout_ms = 0;
  bool validate_only = false;
  bool operator==(const CreatePartitionsRequest&) const = default;
};

struct CreatePartitionsResponse {
  static constexpr ApiKey kApiKey = ApiKey::CREATE_PARTITIONS;
  struct Result {
    std::string name;
    std::int16_t error_code = 0;
    std::optional<std::string> error_message;
    bool operator==(const Result&) const = default;
  };
  std::int32_t throttle_time_ms = 0;
  std::vector<Result> results;
  bool operator==(const CreatePartitionsResponse&) const = default;
};

// resource_type: 2 TOPIC, 4 BROKER (Kafka's ConfigResource.Type). configuration_keys null
// lists every key.
struct DescribeConfigsRequest {
  static constexpr ApiKey kApiKey = ApiKey::DESCRIBE_CONFIGS;
  struct Resource {
    std::int8_t resource_type = 0;
    std::string resource_name;
    std::optional<std::vector<std::string>> configuration_keys;
    bool operator==(const Resource&) const = default;
  };
  std::vector<Resource> resources;
  bool include_synonyms = false;  // v1+
  bool operator==(const DescribeConfigsRequest&) const = default;
};

// config_source (v1+): 1 DYNAMIC_TOPIC_CONFIG, 2 DYNAMIC_BROKER_CONFIG, 3
// DYNAMIC_DEFAULT_BROKER_CONFIG, 4 STATIC_BROKER_CONFIG, 5 DEFAULT_CONFIG; v0 has is_default
// instead.
struct DescribeConfigsResponse {
  static constexpr ApiKey kApiKey = ApiKey::DESCRIBE_CONFIGS;
  struct Synonym {
    std::string name;
    std::optional<std::string> value;
    std::int8_t source = 0;
    bool operator==(const Synonym&) const = default;
  };
  struct Config {
    std::string name;
    std::optional<std::string> value;
    bool read_only = false;
    bool is_default = false;        // v0 only
    std::int8_t config_source = -1;  // v1+
    bool is_sensitive = false;
    std::vector<Synonym> synonyms;  // v1+
    bool operator==(const Config&) const = default;
  };
  struct Result {
    std::int16_t error_code = 0;
    std::optional<std::string> error_message;
    std::int8_t resource_type = 0;
    std::string resource_name;
    std::vector<Config> configs;
    bool operator==(const Result&) const = default;
  };
  std::int32_t throttle_time_ms = 0;
  std::vector<Result> results;
  bool operator==(const DescribeConfigsResponse&) const = default;
};

// An idempotent producer (enable.idempotence) sends this first, with a null transactional_id.
struct InitProducerIdRequest {
  static constexpr ApiKey kApiKey = ApiKey::INIT_PRODUCER_ID;
  std::optional<std::string> transactional_id;
  std::int32_t transaction_timeout_ms = 0;
  bool operator==(const InitProducerIdRequest&) const = default;
};

struct InitProducerIdResponse {
  static constexpr ApiKey kApiKey = ApiKey::INIT_PRODUCER_ID;
  std::int32_t throttle_time_ms = 0;
  std::int16_t error_code = 0;
  std::int64_t producer_id = -1;
  std::int16_t producer_epoch = 0;
  bool operator==(const InitProducerIdResponse&) const = default;
};

LOGSIM_WIRE_DECLARE_CODECS(create_topics, CreateTopicsRequest, CreateTopicsResponse);
LOGSIM_WIRE_DECLARE_CODECS(delete_topics, DeleteTopicsRequest, DeleteTopicsResponse);
LOGSIM_WIRE_DECLARE_CODECS(create_partitions, CreatePartitionsRequest, CreatePartitionsResponse);
LOGSIM_WIRE_DECLARE_CODECS(describe_configs, DescribeConfigsRequest, DescribeConfigsResponse);
LOGSIM_WIRE_DECLARE_CODECS(init_producer_id, InitProducerIdRequest, InitProducerIdResponse);

}  // namespace logsim::wire

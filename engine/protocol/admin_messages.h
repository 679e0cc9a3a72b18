// The admin APIs, shaped like Kafka's: CreateTopics, DeleteTopics, CreatePartitions,
// IncrementalAlterConfigs and DescribeConfigs, one topic per request. Topic configs travel as
// Kafka does, by key and string value ("retention.ms" = "60000"); the controller parses and
// validates them (engine/controller/topic_config.h).
//
// Simplification: an admin client sends these straight to the controller node. (In KRaft a
// client sends them to any broker, which forwards them to the active controller; what a user
// observes — the answer, and when the brokers learn of the change — is the same.)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/digest.h"
#include "engine/protocol/correlation_id.h"
#include "engine/protocol/errors.h"
#include "engine/base/types.h"

namespace logsim {

// One topic config: Kafka's key and value.
struct ConfigEntry {
  std::string name;
  std::string value;
  void fold(Digest& d) const { d.add(name).add(value); }
};

struct CreateTopicsRequest {
  CorrelationId correlation_id = 0;
  std::string name;
  std::int32_t num_partitions = -1;      // -1: the broker's num.partitions
  std::int32_t replication_factor = -1;  // -1: the broker's default.replication.factor
  std::vector<ConfigEntry> configs;      // set at creation; the rest take their defaults
  bool validate_only = false;            // check everything, create nothing
  void fold(Digest& d) const;
};

struct CreateTopicsResponse {
  CorrelationId correlation_id = 0;
  std::string name;
  ErrorCode error = ErrorCode::NONE;
  std::string error_message;  // Kafka's message, when error != NONE
  std::int64_t topic_id = 0;  // the new topic's id (Kafka's is a UUID; ours counts from 1)
  std::int32_t num_partitions = -1;
  std::int32_t replication_factor = -1;
  void fold(Digest& d) const;
};

struct DeleteTopicsRequest {
  CorrelationId correlation_id = 0;
  std::string name;
  void fold(Digest& d) const { d.add(correlation_id).add(name); }
};

struct DeleteTopicsResponse {
  CorrelationId correlation_id = 0;
  std::string name;
  ErrorCode error = ErrorCode::NONE;
  std::string error_message;
  void fold(Digest& d) const { d.add(correlation_id).add(name).add(error).add(error_message); }
};

// Grows a topic to `count` partitions (never shrinks it). Keys then map elsewhere.
struct CreatePartitionsRequest {
  CorrelationId correlation_id = 0;
  std::string name;
  std::int32_t count = 0;  // the new total
  bool validate_only = false;
  void fold(Digest& d) const { d.add(correlation_id).add(name).add(count).add(validate_only); }
};

struct CreatePartitionsResponse {
  CorrelationId correlation_id = 0;
  std::string name;
  ErrorCode error = ErrorCode::NONE;
  std::string error_message;
  void fold(Digest& d) const { d.add(correlation_id).add(name).add(error).add(error_message); }
};

// IncrementalAlterConfigs' operations, with Kafka's numbers.
enum class AlterConfigOp : std::int8_t {
  kSet = 0,       // set the key to the value
  kDelete = 1,    // back to the default
  kAppend = 2,    // add the value to a list config (cleanup.policy)
  kSubtract = 3,  // remove the value from a list config
};

struct AlterableConfig {
  std::string name;
  AlterConfigOp op = AlterConfigOp::kSet;
  std::string value;  // unused by kDelete
  void fold(Digest& d) const { d.add(name).add(static_cast<std::int64_t>(op)).add(value); }
};

// Changes a topic's configs; all or nothing.
struct IncrementalAlterConfigsRequest {
  CorrelationId correlation_id = 0;
  std::string topic;
  std::vector<AlterableConfig> configs;
  bool validate_only = false;
  void fold(Digest& d) const;
};

struct IncrementalAlterConfigsResponse {
  CorrelationId correlation_id = 0;
  std::string topic;
  ErrorCode error = ErrorCode::NONE;
  std::string error_message;
  void fold(Digest& d) const { d.add(correlation_id).add(topic).add(error).add(error_message); }
};

struct DescribeConfigsRequest {
  CorrelationId correlation_id = 0;
  std::string topic;
  void fold(Digest& d) const { d.add(correlation_id).add(topic); }
};

struct DescribedConfig {
  std::string name;
  std::string value;
  bool is_default = true;  // Kafka's DEFAULT_CONFIG source, else DYNAMIC_TOPIC_CONFIG
};

// Every topic config, sorted by key, with its value and whether it is the default.
struct DescribeConfigsResponse {
  CorrelationId correlation_id = 0;
  std::string topic;
  ErrorCode error = ErrorCode::NONE;
  std::string error_message;
  std::vector<DescribedConfig> configs;
  void fold(Digest& d) const;
};

}  // namespace logsim

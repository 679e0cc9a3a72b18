// The typed messages nodes exchange, shaped like Kafka's APIs so that a wire-protocol gateway
// can later map onto them one to one. Requests carry a correlation id that the response
// echoes, as in Kafka; clients match responses by it.
//
// Every message can fold itself into a Digest (for the trace hash) and names its API.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/env/digest.h"
#include "engine/env/errors.h"
#include "engine/env/types.h"

namespace logsim {

using CorrelationId = std::int32_t;

// One record as a producer sends it. A null value is a tombstone.
struct Record {
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::int64_t timestamp_ms = 0;  // CreateTime, from the producer
  void fold(Digest& d) const { d.add(key).add(value).add(timestamp_ms); }
};

// A record as stored and fetched: with its offset and the leader epoch that appended it.
struct StoredRecord {
  Offset offset;
  Record record;
  LeaderEpoch leader_epoch{0};
  void fold(Digest& d) const {
    d.add(offset).add(leader_epoch);
    record.fold(d);
  }
};

struct ProduceRequest {
  CorrelationId correlation_id = 0;
  std::string topic;
  PartitionId partition;
  std::int16_t acks = -1;  // -1 = all, 1 = leader, 0 = none (no response is sent)
  std::int32_t timeout_ms = 30000;
  std::vector<Record> records;
  void fold(Digest& d) const;
};

struct ProduceResponse {
  CorrelationId correlation_id = 0;
  std::string topic;
  PartitionId partition;
  ErrorCode error = ErrorCode::NONE;
  Offset base_offset{-1};  // offset of the first record of the request, when error == NONE
  void fold(Digest& d) const;
};

struct FetchRequest {
  CorrelationId correlation_id = 0;
  std::string topic;
  PartitionId partition;
  Offset fetch_offset;
  std::int32_t max_records = 500;
  // How long the broker may hold the request when it has nothing to return (fetch.max.wait.ms;
  // fetch.min.bytes is 1: any record answers it at once).
  std::int32_t max_wait_ms = 500;
  void fold(Digest& d) const;
};

struct FetchResponse {
  CorrelationId correlation_id = 0;
  std::string topic;
  PartitionId partition;
  ErrorCode error = ErrorCode::NONE;
  Offset high_watermark{-1};
  Offset log_start_offset{-1};
  std::vector<StoredRecord> records;
  void fold(Digest& d) const;
};

// ListOffsets timestamps with special meaning, as in Kafka.
constexpr std::int64_t kListOffsetsLatest = -1;
constexpr std::int64_t kListOffsetsEarliest = -2;

struct ListOffsetsRequest {
  CorrelationId correlation_id = 0;
  std::string topic;
  PartitionId partition;
  std::int64_t timestamp_ms = kListOffsetsLatest;
  void fold(Digest& d) const;
};

struct ListOffsetsResponse {
  CorrelationId correlation_id = 0;
  std::string topic;
  PartitionId partition;
  ErrorCode error = ErrorCode::NONE;
  Offset offset{-1};
  void fold(Digest& d) const;
};

struct MetadataRequest {
  CorrelationId correlation_id = 0;
  std::vector<std::string> topics;  // empty = all topics
  void fold(Digest& d) const;
};

struct PartitionMetadata {
  PartitionId partition;
  ErrorCode error = ErrorCode::NONE;
  NodeId leader{-1};
  LeaderEpoch leader_epoch{0};
  std::vector<NodeId> replicas;
  std::vector<NodeId> isr;
};

struct TopicMetadata {
  std::string name;
  ErrorCode error = ErrorCode::NONE;
  std::vector<PartitionMetadata> partitions;
};

struct MetadataResponse {
  CorrelationId correlation_id = 0;
  std::vector<NodeId> brokers;
  std::vector<TopicMetadata> topics;
  void fold(Digest& d) const;
};

using Message = std::variant<ProduceRequest, ProduceResponse, FetchRequest, FetchResponse,
                             ListOffsetsRequest, ListOffsetsResponse, MetadataRequest,
                             MetadataResponse>;

// Kafka's API name of the message, e.g. "Produce" or "FetchResponse".
std::string_view message_name(const Message& msg);
// A 64-bit digest of the message's whole content, for the trace.
std::uint64_t message_digest(const Message& msg);

}  // namespace logsim

// The transactional producer's APIs, shaped like Kafka's (KIP-98): AddPartitionsToTxn,
// AddOffsetsToTxn and EndTxn go to the producer's transaction coordinator; TxnOffsetCommit
// goes to the group's coordinator. (InitProducerId, FindCoordinator and WriteTxnMarkers, which
// transactions share with idempotence, groups and the partition leaders, are in messages.h
// and group_messages.h.) Each struct names its API (kApi) for the trace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/digest.h"
#include "engine/base/topic_partition.h"
#include "engine/base/types.h"
#include "engine/protocol/correlation_id.h"
#include "engine/protocol/errors.h"

namespace logsim {

// An error for one partition of a request.
struct TxnPartitionResult {
  TopicPartition tp;
  ErrorCode error = ErrorCode::NONE;
};

// Producer -> its transaction coordinator: these partitions join the ongoing transaction (the
// first call begins it). Sent before the producer's first write to each partition.
struct AddPartitionsToTxnRequest {
  static constexpr std::string_view kApi = "AddPartitionsToTxn";
  CorrelationId correlation_id = 0;
  std::string transactional_id;
  ProducerId producer_id{-1};
  ProducerEpoch producer_epoch{-1};
  std::vector<TopicPartition> partitions;
  void fold(Digest& d) const;
};

struct AddPartitionsToTxnResponse {
  static constexpr std::string_view kApi = "AddPartitionsToTxnResponse";
  CorrelationId correlation_id = 0;
  std::vector<TxnPartitionResult> results;  // one per partition of the request, in its order
  void fold(Digest& d) const;
};

// Producer -> its transaction coordinator: the group's offsets join the transaction (the
// coordinator adds the group's __consumer_offsets partition). sendOffsetsToTransaction's first half.
struct AddOffsetsToTxnRequest {
  static constexpr std::string_view kApi = "AddOffsetsToTxn";
  CorrelationId correlation_id = 0;
  std::string transactional_id;
  ProducerId producer_id{-1};
  ProducerEpoch producer_epoch{-1};
  std::string group_id;
  void fold(Digest& d) const;
};

struct AddOffsetsToTxnResponse {
  static constexpr std::string_view kApi = "AddOffsetsToTxnResponse";
  CorrelationId correlation_id = 0;
  ErrorCode error = ErrorCode::NONE;
  void fold(Digest& d) const;
};

// Producer -> its transaction coordinator: commit or abort the ongoing transaction. Answered
// once the decision is durable; the coordinator then writes the markers.
struct EndTxnRequest {
  static constexpr std::string_view kApi = "EndTxn";
  CorrelationId correlation_id = 0;
  std::string transactional_id;
  ProducerId producer_id{-1};
  ProducerEpoch producer_epoch{-1};
  bool committed = false;  // COMMIT (true) or ABORT
  void fold(Digest& d) const;
};

struct EndTxnResponse {
  static constexpr std::string_view kApi = "EndTxnResponse";
  CorrelationId correlation_id = 0;
  ErrorCode error = ErrorCode::NONE;
  void fold(Digest& d) const;
};

struct TxnOffsetCommitPartition {
  TopicPartition tp;
  Offset committed_offset{-1};  // the next offset to consume
  std::string metadata;
};

// Producer -> the group's coordinator: offsets that take effect only if the transaction
// commits (sendOffsetsToTransaction's second half). Since Kafka 2.5 (KIP-447) it names the
// consumer's generation and member id, fenced like a member's OffsetCommit; generation -1 and
// no member id skip that check.
struct TxnOffsetCommitRequest {
  static constexpr std::string_view kApi = "TxnOffsetCommit";
  CorrelationId correlation_id = 0;
  std::string transactional_id;
  std::string group_id;
  ProducerId producer_id{-1};
  ProducerEpoch producer_epoch{-1};
  std::int32_t generation_id = -1;
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::vector<TxnOffsetCommitPartition> partitions;
  void fold(Digest& d) const;
};

struct TxnOffsetCommitResponse {
  static constexpr std::string_view kApi = "TxnOffsetCommitResponse";
  CorrelationId correlation_id = 0;
  std::vector<TxnPartitionResult> results;  // one per partition of the request, in its order
  void fold(Digest& d) const;
};

}  // namespace logsim

// The bodies of the transactional producer's APIs on the wire (KIP-98): AddPartitionsToTxn
// (0-3), AddOffsetsToTxn (0-3), EndTxn (0-3) and TxnOffsetCommit (0-3). Version 3 of each is
// the first flexible one (KIP-482); TxnOffsetCommit v3 also names the consumer's generation and
// member (KIP-447). The versions after 3 (KIP-890's batched AddPartitionsToTxn, its epoch bump
// per transaction) are not implemented. Conventions as in core_messages.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wire/api.h"
#include "wire/codec.h"
#include "wire/topics.h"

namespace logsim::wire {

struct AddPartitionsToTxnRequest {
  static constexpr ApiKey kApiKey = ApiKey::ADD_PARTITIONS_TO_TXN;
  struct Topic {
    std::string name;
    std::vector<std::int32_t> partitions;
    bool operator==(const Topic&) const = default;
  };
  std::string transactional_id;
  std::int64_t producer_id = 0;
  std::int16_t producer_epoch = 0;
  std::vector<Topic> topics;
  bool operator==(const AddPartitionsToTxnRequest&) const = default;
};

struct AddPartitionsToTxnResponse {
  static constexpr ApiKey kApiKey = ApiKey::ADD_PARTITIONS_TO_TXN;
  using Topic = NamedTopic<PartitionError>;
  std::int32_t throttle_time_ms = 0;
  std::vector<Topic> results;
  bool operator==(const AddPartitionsToTxnResponse&) const = default;
};

struct AddOffsetsToTxnRequest {
  static constexpr ApiKey kApiKey = ApiKey::ADD_OFFSETS_TO_TXN;
  std::string transactional_id;
  std::int64_t producer_id = 0;
  std::int16_t producer_epoch = 0;
  std::string group_id;
  bool operator==(const AddOffsetsToTxnRequest&) const = default;
};

struct AddOffsetsToTxnResponse {
  static constexpr ApiKey kApiKey = ApiKey::ADD_OFFSETS_TO_TXN;
  std::int32_t throttle_time_ms = 0;
  std::int16_t error_code = 0;
  bool operator==(const AddOffsetsToTxnResponse&) const = default;
};

// committed: COMMIT (true) or ABORT.
struct EndTxnRequest {
  static constexpr ApiKey kApiKey = ApiKey::END_TXN;
  std::string transactional_id;
  std::int64_t producer_id = 0;
  std::int16_t producer_epoch = 0;
  bool committed = false;
  bool operator==(const EndTxnRequest&) const = default;
};

struct EndTxnResponse {
  static constexpr ApiKey kApiKey = ApiKey::END_TXN;
  std::int32_t throttle_time_ms = 0;
  std::int16_t error_code = 0;
  bool operator==(const EndTxnResponse&) const = default;
};

// Sent to the group's coordinator. generation_id -1 and an empty member_id (what v0-2 mean)
// skip the generation check.
struct TxnOffsetCommitRequest {
  static constexpr ApiKey kApiKey = ApiKey::TXN_OFFSET_COMMIT;
  struct Partition {
    std::int32_t partition_index = 0;
    std::int64_t committed_offset = 0;
    std::int32_t committed_leader_epoch = -1;  // v2+
    std::optional<std::string> committed_metadata;
    bool operator==(const Partition&) const = default;
  };
  using Topic = NamedTopic<Partition>;
  std::string transactional_id;
  std::string group_id;
  std::int64_t producer_id = 0;
  std::int16_t producer_epoch = 0;
  std::int32_t generation_id = -1;               // v3+
  std::string member_id;                         // v3+
  std::optional<std::string> group_instance_id;  // v3+
  std::vector<Topic> topics;
  bool operator==(const TxnOffsetCommitRequest&) const = default;
};

struct TxnOffsetCommitResponse {
  static constexpr ApiKey kApiKey = ApiKey::TXN_OFFSET_COMMIT;
  using Topic = NamedTopic<PartitionError>;
  std::int32_t throttle_time_ms = 0;
  std::vector<Topic> topics;
  bool operator==(const TxnOffsetCommitResponse&) const = default;
};

LOGSIM_WIRE_DECLARE_CODECS(add_partitions_to_txn, AddPartitionsToTxnRequest, AddPartitionsToTxnResponse);
LOGSIM_WIRE_DECLARE_CODECS(add_offsets_to_txn, AddOffsetsToTxnRequest, AddOffsetsToTxnResponse);
LOGSIM_WIRE_DECLARE_CODECS(end_txn, EndTxnRequest, EndTxnResponse);
LOGSIM_WIRE_DECLARE_CODECS(txn_offset_commit, TxnOffsetCommitRequest, TxnOffsetCommitResponse);

}  // namespace logsim::wire

// The bodies of the consumer-offset APIs on the wire: OffsetCommit (1-7), OffsetFetch (1-7)
// and OffsetDelete (0). Conventions as in core_messages.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wire/api.h"
#include "wire/codec.h"
#include "wire/topics.h"

namespace logsim::wire {

// generation_id -1 with an empty member_id is a "simple" commit from outside any generation.
// retention_time_ms (v2-4) -1 keeps the broker's offsets.retention.minutes; v5 dropped it.
// v1 (Sarama 1.22 by default) has each partition's commit_timestamp instead (-1: now), which
// the coordinator ignores, as it does retention_time_ms. v6 adds each partition's
// committed_leader_epoch (KIP-320), which is read and not kept: OffsetFetch answers -1 (unknown),
// and a client then skips its truncation check. v7 adds group_instance_id (KIP-345), with which
// the coordinator fences a static member's zombie (FENCED_INSTANCE_ID).
struct OffsetCommitRequest {
  static constexpr ApiKey kApiKey = ApiKey::OFFSET_COMMIT;
  struct Partition {
    std::int32_t partition_index = 0;
    std::int64_t committed_offset = 0;
    std::int32_t committed_leader_epoch = -1;  // v6+
    std::int64_t commit_timestamp = -1;  // v1 only
    std::optional<std::string> committed_metadata;
    bool operator==(const Partition&) const = default;
  };
  using Topic = NamedTopic<Partition>;
  std::string group_id;
  std::int32_t generation_id = -1;  // v1+
  std::string member_id;            // v1+
  std::optional<std::string> group_instance_id;  // v7+
  std::int64_t retention_time_ms = -1;  // v2-4
  std::vector<Topic> topics;
  bool operator==(const OffsetCommitRequest&) const = default;
};

struct OffsetCommitResponse {
  static constexpr ApiKey kApiKey = ApiKey::OFFSET_COMMIT;
  using Partition = PartitionError;
  using Topic = NamedTopic<Partition>;
  std::int32_t throttle_time_ms = 0;  // v3+
  std::vector<Topic> topics;
  bool operator==(const OffsetCommitResponse&) const = default;
};

// v2+: null topics asks for every committed offset of the group; v1 cannot send null. v6 is
// the first flexible version; v7 adds require_stable (KIP-447: a read_committed consumer asks
// that a partition whose offsets a transaction still holds be answered UNSTABLE_OFFSET_COMMIT).
struct OffsetFetchRequest {
  static constexpr ApiKey kApiKey = ApiKey::OFFSET_FETCH;
  struct Topic {
    std::string name;
    std::vector<std::int32_t> partition_indexes;
    bool operator==(const Topic&) const = default;
  };
  std::string group_id;
  std::optional<std::vector<Topic>> topics = std::vector<Topic>{};  // nullable v2+
  bool require_stable = false;  // v7+
  bool operator==(const OffsetFetchRequest&) const = default;
};

// A partition without a committed offset has committed_offset -1 and error 0 (kafkajs and the
// Java client then apply auto.offset.reset). Group-level errors (coordinator not available,
// not the coordinator, loading) go in the top-level error_code from v2, and in every partition's
// error_code in v1.
struct OffsetFetchResponse {
  static constexpr ApiKey kApiKey = ApiKey::OFFSET_FETCH;
  struct Partition {
    std::int32_t partition_index = 0;
    std::int64_t committed_offset = -1;
    std::int32_t committed_leader_epoch = -1;  // v5+
    std::optional<std::string> metadata;
    std::int16_t error_code = 0;
    bool operator==(const Partition&) const = default;
  };
  using Topic = NamedTopic<Partition>;
  std::int32_t throttle_time_ms = 0;  // v3+
  std::vector<Topic> topics;
  std::int16_t error_code = 0;  // v2+ (after the topics)
  bool operator==(const OffsetFetchResponse&) const = default;
};

struct OffsetDeleteRequest {
  static constexpr ApiKey kApiKey = ApiKey::OFFSET_DELETE;
  struct Partition {
    std::int32_t partition_index = 0;
    bool operator==(const Partition&) const = default;
  };
  using Topic = NamedTopic<Partition>;
  std::string group_id;
  std::vector<Topic> topics;
  bool operator==(const OffsetDeleteRequest&) const = default;
};

struct OffsetDeleteResponse {
  static constexpr ApiKey kApiKey = ApiKey::OFFSET_DELETE;
  using Partition = PartitionError;
  using Topic = NamedTopic<Partition>;
  std::int16_t error_code = 0;
  std::int32_t throttle_time_ms = 0;  // after the error code, unlike most responses
  std::vector<Topic> topics;
  bool operator==(const OffsetDeleteResponse&) const = default;
};

LOGSIM_WIRE_DECLARE_CODECS(offset_commit, OffsetCommitRequest, OffsetCommitResponse);
LOGSIM_WIRE_DECLARE_CODECS(offset_fetch, OffsetFetchRequest, OffsetFetchResponse);
LOGSIM_WIRE_DECLARE_CODECS(offset_delete, OffsetDeleteRequest, OffsetDeleteResponse);

}  // namespace logsim::wire

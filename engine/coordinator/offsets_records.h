// The records of __consumer_offsets: how the group coordinator writes committed offsets and
// group state into the log, and reads them back when it loads a partition.
//
// Two kinds of record, as in Kafka (GroupMetadataManager's key/value schemas):
//   - an offset commit:  key (group, topic, partition) -> value (offset, metadata, commit time)
//   - a group metadata:  key (group) -> value (protocol type, generation, protocol, leader,
//     members with their subscription for the chosen protocol and their assignment)
// A record with no value (a tombstone) deletes what its key names. The topic is compacted, so
// each key must be unique per group / per (group, topic, partition), and the two kinds of key
// must never collide: every key starts with its kind's version number (1: offset commit,
// 2: group metadata), as Kafka's keys do.
//
// Encoding (our own, not Kafka's wire format): big-endian fixed-width integers and strings as
// a uint32 length followed by the raw bytes, so any byte ('\0', '|', ...) round-trips. A value
// starts with its own version (0). Decoding checks every length against what is left and
// rejects trailing bytes: malformed data decodes to nullopt, never to a crash.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/protocol/messages.h"
#include "engine/base/types.h"

namespace logsim::engine {

struct OffsetCommitKey {
  std::string group_id;
  std::string topic;
  PartitionId partition;
  bool operator==(const OffsetCommitKey&) const = default;
};

struct OffsetCommitValue {
  Offset offset{-1};
  std::string metadata;
  std::int64_t commit_timestamp_ms = 0;
  bool operator==(const OffsetCommitValue&) const = default;
};

struct GroupMetadataKey {
  std::string group_id;
  bool operator==(const GroupMetadataKey&) const = default;
};

// One member as stored: what a coordinator needs to resume the group after a failover.
struct StoredGroupMember {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::int32_t session_timeout_ms = 0;
  std::int32_t rebalance_timeout_ms = 0;
  std::string subscription;  // the metadata of the chosen protocol
  std::string assignment;
  bool operator==(const StoredGroupMember&) const = default;
};

struct GroupMetadataValue {
  std::string protocol_type;
  std::int32_t generation = 0;
  std::string protocol_name;  // "" when the group has none (Empty)
  std::string leader;         // "" when the group has none
  std::vector<StoredGroupMember> members;  // in join order
  bool operator==(const GroupMetadataValue&) const = default;
};

using OffsetsRecordKey = std::variant<OffsetCommitKey, GroupMetadataKey>;

std::string encode_key(const OffsetCommitKey& key);
std::string encode_key(const GroupMetadataKey& key);
std::string encode_value(const OffsetCommitValue& value);
std::string encode_value(const GroupMetadataValue& value);

// Which key a record carries; nullopt for malformed or unknown keys.
std::optional<OffsetsRecordKey> decode_key(std::string_view bytes);
std::optional<OffsetCommitValue> decode_offset_commit_value(std::string_view bytes);
std::optional<GroupMetadataValue> decode_group_metadata_value(std::string_view bytes);

// Whole records; a nullopt value makes a tombstone.
Record offset_commit_record(const OffsetCommitKey& key, const std::optional<OffsetCommitValue>& value,
                            std::int64_t timestamp_ms);
Record group_metadata_record(const GroupMetadataKey& key, const std::optional<GroupMetadataValue>& value,
                             std::int64_t timestamp_ms);

}  // namespace logsim::engine

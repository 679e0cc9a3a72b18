// Encoding and decoding of the __consumer_offsets records (see offsets_records.h).
#include "engine/coordinator/offsets_records.h"

#include "engine/coordinator/record_codec.h"

namespace logsim::engine {
namespace {

using codec::Reader;
using codec::Writer;

constexpr std::int16_t kOffsetCommitKeyVersion = 1;
constexpr std::int16_t kGroupMetadataKeyVersion = 2;
constexpr std::int16_t kValueVersion = 0;

void write_member(Writer& w, const StoredGroupMember& m) {
  w.str(m.member_id).opt_str(m.group_instance_id).str(m.client_id);
  w.i32(m.session_timeout_ms).i32(m.rebalance_timeout_ms).str(m.subscription).str(m.assignment);
}

StoredGroupMember read_member(Reader& r) {
  StoredGroupMember m;
  m.member_id = r.str();
  m.group_instance_id = r.opt_str();
  m.client_id = r.str();
  m.session_timeout_ms = r.i32();
  m.rebalance_timeout_ms = r.i32();
  m.subscription = r.str();
  m.assignment = r.str();
  return m;
}

}  // namespace

std::string encode_key(const OffsetCommitKey& key) {
  return Writer().i16(kOffsetCommitKeyVersion).str(key.group_id).str(key.topic).i32(key.partition.value()).take();
}

std::string encode_key(const GroupMetadataKey& key) {
  return Writer().i16(kGroupMetadataKeyVersion).str(key.group_id).take();
}

std::string encode_value(const OffsetCommitValue& value) {
  return Writer()
      .i16(kValueVersion)
      .i64(value.offset.value())
      .str(value.metadata)
      .i64(value.commit_timestamp_ms)
      .take();
}

std::string encode_value(const GroupMetadataValue& value) {
  Writer w;
  w.i16(kValueVersion).str(value.protocol_type).i32(value.generation).str(value.protocol_name);
  w.str(value.leader).u64(value.members.size(), 4);
  for (const StoredGroupMember& m : value.members) write_member(w, m);
  return w.take();
}

std::optional<OffsetsRecordKey> decode_key(std::string_view bytes) {
  Reader r(bytes);
  const std::int16_t version = r.i16();
  if (version == kOffsetCommitKeyVersion) {
    OffsetCommitKey key;
    key.group_id = r.str();
    key.topic = r.str();
    key.partition = PartitionId(r.i32());
    if (r.done()) return key;
  } else if (version == kGroupMetadataKeyVersion) {
    GroupMetadataKey key{r.str()};
    if (r.done()) return key;
  }
  return std::nullopt;
}

std::optional<OffsetCommitValue> decode_offset_commit_value(std::string_view bytes) {
  Reader r(bytes);
  if (r.i16() != kValueVersion) return std::nullopt;
  OffsetCommitValue value;
  value.offset = Offset(r.i64());
  value.metadata = r.str();
  value.commit_timestamp_ms = r.i64();
  if (!r.done()) return std::nullopt;
  return value;
}

std::optional<GroupMetadataValue> decode_group_metadata_value(std::string_view bytes) {
  Reader r(bytes);
  if (r.i16() != kValueVersion) return std::nullopt;
  GroupMetadataValue value;
  value.protocol_type = r.str();
  value.generation = r.i32();
  value.protocol_name = r.str();
  value.leader = r.str();
  const std::uint64_t count = r.u64(4);
  // Each member takes at least 25 bytes, so a count larger than what is left is malformed;
  // checking it first bounds the loop and the allocation.
  if (!r.ok() || count > bytes.size() / 25) return std::nullopt;
  for (std::uint64_t i = 0; i < count && r.ok(); ++i) value.members.push_back(read_member(r));
  if (!r.done()) return std::nullopt;
  return value;
}

namespace {

// A record of __consumer_offsets: its key, and its value or none (a tombstone).
template <class Key, class Value>
Record offsets_topic_record(const Key& key, const std::optional<Value>& value, std::int64_t timestamp_ms) {
  Record record;
  record.key = encode_key(key);
  if (value) record.value = encode_value(*value);
  record.timestamp_ms = timestamp_ms;
  return record;
}

}  // namespace

Record offset_commit_record(const OffsetCommitKey& key, const std::optional<OffsetCommitValue>& value,
                            std::int64_t timestamp_ms) {
  return offsets_topic_record(key, value, timestamp_ms);
}

Record group_metadata_record(const GroupMetadataKey& key, const std::optional<GroupMetadataValue>& value,
                             std::int64_t timestamp_ms) {
  return offsets_topic_record(key, value, timestamp_ms);
}

}  // namespace logsim::engine

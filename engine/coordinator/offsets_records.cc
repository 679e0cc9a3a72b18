// Encoding and decoding of the __consumer_offsets records (see offsets_records.h).
#include "engine/coordinator/offsets_records.h"

namespace logsim::engine {
namespace {

constexpr std::int16_t kOffsetCommitKeyVersion = 1;
constexpr std::int16_t kGroupMetadataKeyVersion = 2;
constexpr std::int16_t kValueVersion = 0;

// Appends big-endian integers and length-prefixed strings.
class Writer {
 public:
  Writer& u8(std::uint8_t v) {
    out_.push_back(static_cast<char>(v));
    return *this;
  }
  Writer& u64(std::uint64_t v, int bytes = 8) {
    for (int i = bytes - 1; i >= 0; --i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
    return *this;
  }
  Writer& i16(std::int16_t v) { return u64(static_cast<std::uint16_t>(v), 2); }
  Writer& i32(std::int32_t v) { return u64(static_cast<std::uint32_t>(v), 4); }
  Writer& i64(std::int64_t v) { return u64(static_cast<std::uint64_t>(v), 8); }
  Writer& str(std::string_view s) {
    u64(s.size(), 4);
    out_.append(s);
    return *this;
  }
  Writer& opt_str(const std::optional<std::string>& s) {
    u8(s.has_value() ? 1 : 0);
    return s ? str(*s) : *this;
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// Reads what Writer wrote. Every read checks the bytes left; after the first failure every
// read fails, so a decoder can read everything and check ok() once at the end.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  std::uint64_t u64(std::size_t bytes = 8) {
    if (!ok_ || in_.size() < bytes) return fail();
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < bytes; ++i) v = (v << 8) | static_cast<std::uint8_t>(in_[i]);
    in_.remove_prefix(bytes);
    return v;
  }
  std::uint8_t u8() { return static_cast<std::uint8_t>(u64(1)); }
  std::int16_t i16() { return static_cast<std::int16_t>(static_cast<std::uint16_t>(u64(2))); }
  std::int32_t i32() { return static_cast<std::int32_t>(static_cast<std::uint32_t>(u64(4))); }
  std::int64_t i64() { return static_cast<std::int64_t>(u64(8)); }
  std::string str() {
    const std::uint64_t n = u64(4);
    if (!ok_ || in_.size() < n) {
      fail();
      return {};
    }
    std::string s(in_.substr(0, n));
    in_.remove_prefix(n);
    return s;
  }
  std::optional<std::string> opt_str() {
    const std::uint8_t present = u8();
    if (present > 1) fail();
    if (present != 1) return std::nullopt;
    return str();
  }
  // True if every read succeeded and nothing is left over.
  bool done() const { return ok_ && in_.empty(); }
  bool ok() const { return ok_; }

 private:
  std::uint64_t fail() {
    ok_ = false;
    return 0;
  }
  std::string_view in_;
  bool ok_ = true;
};

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

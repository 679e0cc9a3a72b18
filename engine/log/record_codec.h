// The on-disk frame of one stored record, and the scan that recovers a log from its bytes.
//
// Frame: [u32 body length][u64 checksum of body][body], little-endian; body =
// [i64 offset][i32 leader epoch][i64 producer id][i32 producer epoch][i32 sequence]
// [i64 timestamp ms][i32 key length or -1][key][i32 value length or -1][value]
// [i32 header count][per header: i32 key length, key, i32 value length or -1, value].
// The checksum covers the whole body, headers included. It is our own fast 64-bit hash (four
// independent multiply-xorshift lanes over 8-byte words), not Kafka's CRC-32C: it only has to
// catch torn and corrupted tails, and it runs for every frame written.
// Recovery reads frames until one is incomplete or fails its checksum (a torn tail after a
// power loss) and reports where the valid prefix ends, so the log can truncate there, as
// Kafka's log recovery truncates an invalid tail. Reads of frames the log wrote itself (the
// page cache is trusted, as Kafka's broker does not check CRCs on fetch) skip the checksum.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/env/messages.h"

namespace logsim::engine {

// [u32 body length][u64 checksum].
inline constexpr std::size_t kFrameHeaderBytes = sizeof(std::uint32_t) + sizeof(std::uint64_t);

// The checksum a frame carries for its body.
std::uint64_t frame_checksum(std::string_view body);

// A record to write, its fields by reference: an appended record is encoded from where it
// is (a produce request, a fetch response), never copied first.
struct RecordRef {
  Offset offset;
  const Record* record = nullptr;
  std::int64_t timestamp_ms = 0;  // the stored timestamp (LogAppendTime replaces the producer's)
  LeaderEpoch leader_epoch{0};
  ProducerId producer_id{-1};
  ProducerEpoch producer_epoch{-1};
  Sequence sequence{-1};
};
inline RecordRef ref_of(const StoredRecord& r) {
  return RecordRef{r.offset, &r.record, r.record.timestamp_ms, r.leader_epoch, r.producer_id, r.producer_epoch,
                   r.sequence};
}

// Appends the frame of `rec` to `out`.
void encode_record(const RecordRef& rec, std::string& out);
inline void encode_record(const StoredRecord& rec, std::string& out) { encode_record(ref_of(rec), out); }
// The length of the frame encode_record would append for `rec`.
std::uint64_t encoded_size(const RecordRef& rec);
inline std::uint64_t encoded_size(const StoredRecord& rec) { return encoded_size(ref_of(rec)); }

// Decodes the frame at the start of `bytes` (more frames may follow) into `rec`. Returns the
// frame's length, or 0 when it is incomplete, malformed, or (with verify) fails its checksum.
std::size_t decode_frame(std::string_view bytes, StoredRecord& rec, bool verify);
// The offset and the timestamp of the well-formed frame at the start of `bytes`.
Offset frame_offset(std::string_view bytes);
std::int64_t frame_timestamp_ms(std::string_view bytes);

// The fixed fields of a frame and its length: what a follower needs of the frames it appends
// as the leader sent them (its indexes, epoch cache and producer state), without decoding the
// key, value and headers.
struct FrameInfo {
  Offset offset;
  LeaderEpoch leader_epoch{0};
  ProducerId producer_id{-1};
  ProducerEpoch producer_epoch{-1};
  Sequence sequence{-1};
  std::int64_t timestamp_ms = 0;
  std::uint64_t bytes = 0;  // the whole frame's length
};

// The FrameInfo of each frame in `frames` (whole frames, back to back), checking that each is
// well formed (lengths, key, value and headers inside its body; not the checksum). Nothing if
// any is not.
std::optional<std::vector<FrameInfo>> scan_frames(std::string_view frames);

struct DecodedLog {
  std::vector<StoredRecord> records;
  std::vector<std::uint64_t> positions;  // byte position of each record's frame
  std::uint64_t valid_bytes = 0;  // the length of the prefix made of whole, valid frames
};

// Decodes frames from the start of `bytes`, stopping at the first invalid one.
DecodedLog decode_records(std::string_view bytes);

}  // namespace logsim::engine

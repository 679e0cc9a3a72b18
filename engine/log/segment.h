// One segment of a partition log: the records from its base offset up to the next segment's
// base offset, stored as the record codec's frames in the file "<dir>/<base>.log" (the base
// offset zero-padded to 20 digits, as Kafka names segments), with the sparse offset and time
// indexes that Kafka keeps beside each segment in .index and .timeindex files.
//
// The records live only in the file (the Disk's page cache): reads decode their frames from
// it. In memory the segment keeps, per record, its offset and its frame's byte position, each
// relative to the segment (two uint32_t, 8 bytes a record), and the sparse indexes, which live
// in memory only; load() rebuilds them from the records recovery decoded.
//
// Offset index: when more than index_interval_bytes of frames were appended since the last
// entry, the next record appended gets an entry (offset, byte position of its frame). Kafka
// indexes batches; each of our frames is a batch of one record.
// Time index: with each offset-index entry, (largest timestamp so far, offset of the first
// record that had it), appended only when that timestamp grew. So every record before an
// entry's offset has a smaller timestamp than the entry's, which makes timestamp lookups exact
// even when producers send timestamps out of order (as Kafka's are).
//
// Invariants:
// 1. Record offsets strictly increase and are >= the base offset, and below base + 2^32.
// 2. positions()[i] is the byte position of record i's frame in the file; size_bytes() is the
//    file's size as this segment wrote it, below 4 GiB (Kafka's segment.bytes is an int).
// 3. Index entries increase in both fields and name records the segment holds.
// 4. The file holds exactly the frames of the segment's records: nobody else writes it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/env/disk.h"
#include "engine/env/messages.h"
#include "engine/log/record_codec.h"

namespace logsim::engine {

struct OffsetIndexEntry {
  Offset offset;
  std::uint64_t position = 0;
};

struct TimeIndexEntry {
  std::int64_t timestamp_ms = 0;
  Offset offset;
};

class LogSegment {
 public:
  LogSegment(Disk& disk, std::string_view dir, Offset base, std::uint64_t index_interval_bytes);

  // "<dir>/<base as 20 digits>.log".
  static std::string file_name(std::string_view dir, Offset base);
  // The base offset named by `file` if it is a segment file directly inside `dir`.
  static std::optional<Offset> parse_file_name(std::string_view dir, std::string_view file);

  Offset base_offset() const { return base_; }
  const std::string& file() const { return file_; }
  std::uint64_t size_bytes() const { return bytes_; }
  bool empty() const { return deltas_.empty(); }
  std::size_t record_count() const { return deltas_.size(); }
  Offset offset_at(std::size_t i) const { return base_ + static_cast<std::int64_t>(deltas_[i]); }
  // The offsets of the first and the last record. Precondition: not empty.
  Offset first_offset() const;
  Offset last_offset() const;
  // Every record, decoded from the file (for the cleaner and tests: the whole segment at once).
  std::vector<StoredRecord> records() const;
  // Decodes records from index `from` on, while their offsets are below `end` and `out` holds
  // fewer than `max`, appending them to `out`.
  void read(std::size_t from, Offset end, std::size_t max, std::vector<StoredRecord>& out) const;
  // Appends to `out` the frames of the records `read` would decode, as they are in the file;
  // returns how many records that is.
  std::size_t read_frames(std::size_t from, Offset end, std::size_t max, SharedBytes& out) const;
  // The largest record timestamp; nothing when empty.
  std::optional<std::int64_t> max_timestamp_ms() const { return max_timestamp_ms_; }
  // When the segment's first record was appended (segment.ms counts from here); nothing when
  // empty. A loaded segment takes its first record's timestamp, as Kafka does.
  std::optional<std::int64_t> rolling_ms() const { return rolling_ms_; }
  // When a cleaning pass first saw this segment (tombstones expire from there).
  std::optional<std::int64_t> first_cleaned_ms() const { return first_cleaned_ms_; }
  void note_cleaned(std::int64_t now_ms);

  // Appends the records' frames to the file.
  void append(std::span<const RecordRef> records, std::int64_t now_ms);
  // Appends frames as they are (a follower's copy of its leader's); `infos` describes them
  // (scan_frames).
  void append_frames(const SharedBytes& frames, std::span<const FrameInfo> infos, std::int64_t now_ms);
  // Takes the records whose frames the file holds (recovery). Writes nothing.
  void load(std::vector<StoredRecord> records);
  // Takes the records whose frames now replace the file's (after cleaning). Writes nothing.
  void replace(std::vector<StoredRecord> records);
  // Removes the records at or above `end` and cuts the file after the last one kept.
  void truncate_to(Offset end);

  // The index of the first record whose offset is >= `offset` (record_count() if none),
  // found through the offset index and a scan, as Kafka's translateOffset does.
  std::size_t find(Offset offset) const;
  // The first offset whose timestamp is >= ts_ms; nothing if no record's is.
  std::optional<Offset> offset_for_timestamp(std::int64_t ts_ms) const;

  const std::vector<std::uint32_t>& positions() const { return positions_; }
  const std::vector<OffsetIndexEntry>& offset_index() const { return offset_index_; }
  const std::vector<TimeIndexEntry>& time_index() const { return time_index_; }

 private:
  void assign(const std::vector<StoredRecord>& records);
  void reset_indexes();
  // The index past the last record read(from, end, max) would take.
  std::size_t read_end(std::size_t from, Offset end, std::size_t max) const;
  void push(Offset offset, std::int64_t timestamp_ms, std::uint64_t frame_bytes);
  // Calls fn(i, frame) for the frames of records [from, to) until it returns false, reading the
  // file in runs of at most kReadRunBytes (so a copy, when the disk must make one, stays small).
  template <typename Fn>
  void for_each_frame(std::size_t from, std::size_t to, Fn&& fn) const;

  Disk* disk_;  // a pointer, so that segments can move within the log's vector
  Offset base_;
  std::string file_;
  std::uint64_t index_interval_bytes_;
  std::vector<std::uint32_t> deltas_;     // offset - base, per record
  std::vector<std::uint32_t> positions_;  // frame position, per record
  std::uint64_t bytes_ = 0;
  std::vector<OffsetIndexEntry> offset_index_;
  std::vector<TimeIndexEntry> time_index_;
  std::uint64_t bytes_since_index_entry_ = 0;
  std::optional<std::int64_t> max_timestamp_ms_;
  Offset offset_of_max_timestamp_;
  std::optional<std::int64_t> rolling_ms_;
  std::optional<std::int64_t> first_cleaned_ms_;
};

}  // namespace logsim::engine

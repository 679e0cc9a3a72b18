// One segment of a partition log: the record batches from its base offset up to the next
// segment's base offset, stored back to back as Kafka's record batches
// (engine/protocol/record_batch.h) in the file "<dir>/<base>.log" (the base offset zero-padded to
// 20 digits, as Kafka names segments), with the sparse offset and time indexes that Kafka
// keeps beside each segment in .index and .timeindex files.
//
// The records live only in the file (the Disk's page cache): reads return or decode the
// batches from it. In memory the segment keeps, per batch, its base and last offset (relative
// to the segment), its byte position, its record count and its max timestamp (24 bytes a
// batch), and the sparse indexes, which live in memory only; load() rebuilds them from the
// headers recovery read.
//
// Offset index: when more than index_interval_bytes of batches were appended since the last
// entry, the next batch appended gets an entry (its base offset, its byte position), as in
// Kafka. Time index: with each offset-index entry, (largest timestamp so far, base offset of
// the first batch that had it), appended only when that timestamp grew. So every batch before
// an entry's offset holds only smaller timestamps than the entry's, which makes timestamp
// lookups exact even when producers send timestamps out of order (as Kafka's are).
//
// Invariants:
// 1. Batches do not overlap and their offsets increase: each batch's base offset is above the
//    previous one's last offset, >= the segment's base, and below base + 2^32.
// 2. Batch positions are where each batch starts in the file; size_bytes() is the file's size
//    as this segment wrote it, below 4 GiB (Kafka's segment.bytes is an int).
// 3. Index entries increase in both fields and name batches the segment holds.
// 4. The file holds exactly the segment's batches: nobody else writes it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/env/disk.h"
#include "engine/protocol/messages.h"
#include "engine/protocol/record_batch.h"

namespace logsim::engine {

struct OffsetIndexEntry {
  Offset offset;
  std::uint64_t position = 0;
};

struct TimeIndexEntry {
  std::int64_t timestamp_ms = 0;
  Offset offset;
};

// What the segment remembers of one batch.
struct SegmentBatch {
  std::uint32_t base_delta = 0;  // base offset - the segment's base
  std::uint32_t last_delta = 0;  // last offset - the segment's base
  std::uint32_t position = 0;    // where it starts in the file
  std::uint32_t records = 0;     // how many records it holds
  std::int64_t max_timestamp_ms = 0;
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
  bool empty() const { return batches_.empty(); }
  std::size_t batch_count() const { return batches_.size(); }
  std::uint64_t record_count() const { return records_; }
  const std::vector<SegmentBatch>& batches() const { return batches_; }
  // The first batch's base offset and the last batch's last offset. Precondition: not empty.
  Offset first_offset() const;
  Offset last_offset() const;
  Offset base_of(std::size_t i) const { return base_ + static_cast<std::int64_t>(batches_[i].base_delta); }
  Offset last_of(std::size_t i) const { return base_ + static_cast<std::int64_t>(batches_[i].last_delta); }
  // The bytes of batch i: a view of the disk's memory or of `scratch` (see Disk::read_view).
  std::string_view batch_bytes(std::size_t i, std::string& scratch) const;
  // Every record, decoded from the file (for the cleaner and tests: the whole segment at once).
  std::vector<StoredRecord> records() const;
  // Decodes the records with offsets >= `from` of whole batches from batch i on, each wholly
  // below `end`, onto `out`, while it holds fewer than `max`.
  void read(std::size_t i, Offset from, Offset end, std::uint64_t max, std::vector<StoredRecord>& out) const;
  // Appends to `out` whole batches from batch i on, each wholly below `end`, while fewer than
  // `max` records were taken (so at least one, if batch i is below `end`), as they are in the
  // file; returns how many records they hold. `stopped` says whether a batch at or above `end`
  // ended the read (nothing later in the log can be below `end`).
  std::uint64_t read_batches(std::size_t i, Offset end, std::uint64_t max, SharedBytes& out, bool& stopped) const;
  // The largest record timestamp; nothing when empty.
  std::optional<std::int64_t> max_timestamp_ms() const { return max_timestamp_ms_; }
  // When the segment's first batch was appended (segment.ms counts from here); nothing when
  // empty. A loaded segment takes its first batch's max timestamp (Kafka's uses the first
  // batch's timestamp too).
  std::optional<std::int64_t> rolling_ms() const { return rolling_ms_; }
  // When a cleaning pass first saw this segment (tombstones expire from there).
  std::optional<std::int64_t> first_cleaned_ms() const { return first_cleaned_ms_; }
  void note_cleaned(std::int64_t now_ms);

  // Appends one batch, described by `h`, whose bytes are `head` then `tail` (a leader's append:
  // the header it rewrote, then the records as the producer sent them).
  void append(const BatchHeader& h, std::string_view head, std::string_view tail, std::int64_t now_ms);
  // The same, keeping `tail` as the slices it is (not copied).
  void append(const BatchHeader& h, std::string_view head, const SharedBytes& tail, std::int64_t now_ms);
  // Appends batches as they are (a follower's copy of its leader's); `headers` describes them.
  void append_shared(const SharedBytes& batches, std::span<const BatchHeader> headers, std::int64_t now_ms);
  // Takes the batches the file holds (recovery). Writes nothing.
  void load(std::span<const BatchHeader> headers);
  // Takes the batches that now replace the file's (after cleaning). Writes nothing.
  void replace(std::span<const BatchHeader> headers);
  // Removes the batches not wholly below `end` (a batch holding `end` goes whole, as Kafka's
  // LogSegment.truncateTo cuts at the batch holding the offset) and cuts the file after the
  // last one kept.
  void truncate_to(Offset end);

  // The index of the first batch whose last offset is >= `offset` (batch_count() if none),
  // found through the offset index and a search, as Kafka's translateOffset does.
  std::size_t find(Offset offset) const;
  // The first offset whose timestamp is >= ts_ms; nothing if no record's is.
  std::optional<Offset> offset_for_timestamp(std::int64_t ts_ms) const;

  const std::vector<OffsetIndexEntry>& offset_index() const { return offset_index_; }
  const std::vector<TimeIndexEntry>& time_index() const { return time_index_; }

 private:
  void reset_indexes();
  void assign(std::span<const BatchHeader> headers);
  // The index past the last batch read_batches(i, end, max) takes, and the records they hold.
  std::size_t read_end(std::size_t i, Offset end, std::uint64_t max, std::uint64_t& records, bool& stopped) const;
  void push(Offset base, Offset last, std::uint32_t records, std::int64_t max_timestamp_ms, std::uint64_t bytes);
  // Checks that `h` describes `bytes`, notes the first append's time, and pushes the batch.
  void push_one(const BatchHeader& h, std::uint64_t bytes, std::int64_t now_ms);

  Disk* disk_;  // a pointer, so that segments can move within the log's vector
  Offset base_;
  std::string file_;
  std::uint64_t index_interval_bytes_;
  std::vector<SegmentBatch> batches_;
  std::uint64_t records_ = 0;
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

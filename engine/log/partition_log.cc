// The partition log's appends and rolling, truncation, reads, lookups, flushing and invariants.
#include "engine/log/partition_log.h"

#include <algorithm>

#include "engine/base/assert.h"

namespace logsim::engine {

PartitionLog::PartitionLog(Disk& disk, std::string dir, LogConfig config)
    : disk_(disk), dir_(std::move(dir)), config_(config) {
  LOGSIM_ASSERT(config_.invalid_key().empty(), "invalid log config " + std::string(config_.invalid_key()));
  LOGSIM_ASSERT(!dir_.empty() && dir_.back() != '/', "a log directory names no file: '" + dir_ + "'");
  segments_.push_back(make_segment(Offset(0)));
}

LogSegment PartitionLog::make_segment(Offset base) const {
  return LogSegment(disk_, dir_, base, static_cast<std::uint64_t>(config_.index_interval_bytes));
}

// ---- Appends.

Offset PartitionLog::append(std::span<const Record> records, LeaderEpoch epoch, std::int64_t now_ms,
                            const ProducerBatchInfo& producer) {
  if (records.empty()) return end_;
  const std::string batch =
      encode_batch(records, BatchMeta{Offset(0), epoch, producer.producer_id, producer.producer_epoch, producer.base_sequence});
  return append_as_leader(batch, epoch, now_ms);
}

Offset PartitionLog::append_as_leader(std::string_view batch, LeaderEpoch epoch, std::int64_t now_ms) {
  return leader_append(batch, nullptr, epoch, now_ms);
}

Offset PartitionLog::append_as_leader(const SharedBytes& batch, LeaderEpoch epoch, std::int64_t now_ms) {
  std::string scratch;
  const std::string_view bytes = batch.contiguous(scratch);
  const bool keep = batch.size() >= kBatchHeaderBytes + kKeepRecordsFrom;
  return leader_append(bytes, keep ? &batch : nullptr, epoch, now_ms);
}

// `kept`, when given, holds `batch`'s bytes: its records are appended as its slices.
Offset PartitionLog::leader_append(std::string_view batch, const SharedBytes* kept, LeaderEpoch epoch, std::int64_t now_ms) {
  std::optional<BatchHeader> parsed = parse_batch_header(batch);
  LOGSIM_ASSERT(parsed && parsed->size_bytes() == batch.size(), "a leader's append of a malformed batch to " + dir_);
  BatchHeader& h = *parsed;
  LOGSIM_ASSERT(epoch >= epochs_.latest(), "leader epoch went back in " + dir_);
  h.base_offset = end_;
  h.leader_epoch = epoch;
  const std::string_view records = batch.substr(kBatchHeaderBytes);
  if (config_.timestamp_type == TimestampType::kLogAppendTime) {
    // The max timestamp and the attributes are under the CRC; the base offset and the leader
    // epoch are not, so a CreateTime batch keeps the producer's CRC.
    h.attributes = static_cast<std::int16_t>(h.attributes | kLogAppendTimeAttribute);
    h.max_timestamp_ms = now_ms;
    h.crc = batch_crc(h, records);
  }
  char head[kBatchHeaderBytes];
  write_batch_header(h, head);
  epochs_.assign(epoch, h.base_offset);
  append_batches(h.base_offset, h.last_offset(), static_cast<std::uint64_t>(h.record_count), h.size_bytes(), now_ms,
                 [&](LogSegment& active) {
                   const std::string_view head_bytes(head, sizeof head);
                   if (kept != nullptr) {
                     active.append(h, head_bytes, kept->sub(kBatchHeaderBytes, records.size()), now_ms);
                   } else {
                     active.append(h, head_bytes, records, now_ms);
                   }
                 });
  return h.base_offset;
}

void PartitionLog::check_follows(std::span<const BatchHeader> headers) const {
  Offset next = end_;
  LeaderEpoch epoch = epochs_.latest();
  for (const BatchHeader& h : headers) {
    LOGSIM_ASSERT(h.base_offset >= next, "append below the log end of " + dir_);
    LOGSIM_ASSERT(h.leader_epoch >= epoch, "leader epoch went back in " + dir_);
    next = h.last_offset() + 1;
    epoch = h.leader_epoch;
  }
}

template <typename Write>
void PartitionLog::append_batches(Offset first, Offset last, std::uint64_t count, std::uint64_t bytes,
                                  std::int64_t now_ms, Write&& write) {
  if (should_roll(bytes, now_ms)) segments_.push_back(make_segment(first));
  LogSegment& active = segments_.back();
  write(active);
  unflushed_files_.insert(active.file());
  unflushed_messages_ += count;
  last_append_ms_ = std::max(last_append_ms_, now_ms);
  end_ = last + 1;
  check_invariants();
}

void PartitionLog::append_as_follower(const SharedBytes& batches, std::span<const BatchHeader> headers,
                                      std::int64_t now_ms) {
  if (headers.empty()) return;
  check_follows(headers);  // all of it before any change, so a bad append changes nothing
  std::uint64_t count = 0;
  for (const BatchHeader& h : headers) {
    epochs_.assign(h.leader_epoch, h.base_offset);
    count += static_cast<std::uint64_t>(h.record_count);
  }
  append_batches(headers.front().base_offset, headers.back().last_offset(), count, batches.size(), now_ms,
                 [&](LogSegment& active) { active.append_shared(batches, headers, now_ms); });
}

bool PartitionLog::should_roll(std::uint64_t batch_bytes, std::int64_t now_ms) const {
  const LogSegment& active = segments_.back();
  if (active.empty()) return false;
  if (active.size_bytes() + batch_bytes > static_cast<std::uint64_t>(config_.segment_bytes)) return true;
  return age_exceeds(*active.rolling_ms(), now_ms, config_.segment_ms);
}

// ---- Truncation.

void PartitionLog::truncate_to(Offset end) {
  if (end >= end_) return;
  LOGSIM_ASSERT(end >= start_, "truncation below the log start of " + dir_);
  // Segments based above `end` go whole; one based at `end` stays, empty, as Kafka keeps it.
  while (segments_.size() > 1 && segments_.back().base_offset() > end) {
    delete_file(segments_.back().file(), std::nullopt);
    segments_.pop_back();
  }
  if (segments_.back().base_offset() > end) {
    // Compaction removed the segments below: start afresh at `end` (Kafka's
    // truncateFullyAndStartAt), with a file so that recovery finds the log end.
    delete_file(segments_.back().file(), std::nullopt);
    segments_.back() = make_segment(end);
    disk_.append(segments_.back().file(), {});
  } else {
    segments_.back().truncate_to(end);
  }
  unflushed_files_.insert(segments_.back().file());
  end_ = end;
  epochs_.truncate_from_end(end);
  check_invariants();
}

void PartitionLog::delete_file(const std::string& file, std::optional<std::uint64_t> fsync_token) {
  disk_.remove(file);
  if (fsync_token) {
    disk_.fsync(file, *fsync_token);
    unflushed_files_.erase(file);
  } else {
    unflushed_files_.insert(file);  // the next flush makes the removal durable
  }
}

// ---- Reads and lookups.

std::optional<std::pair<LeaderEpoch, Offset>> PartitionLog::end_offset_for_epoch(LeaderEpoch epoch) const {
  return epochs_.end_offset_for(epoch, end_);
}

// The index of the first segment that may hold records at or above `offset`.
std::size_t PartitionLog::first_segment_for(Offset offset) const {
  const auto above = std::upper_bound(segments_.begin(), segments_.end(), offset,
                                      [](Offset o, const LogSegment& s) { return o < s.base_offset(); });
  return above == segments_.begin() ? 0 : static_cast<std::size_t>(above - segments_.begin()) - 1;
}

std::vector<StoredRecord> PartitionLog::read(Offset from, std::int32_t max_records, Offset upto) const {
  std::vector<StoredRecord> out;
  if (from < start_ || max_records <= 0) return out;
  const Offset end = std::min(upto, end_);
  const auto max = static_cast<std::size_t>(max_records);
  for (std::size_t s = first_segment_for(from); s < segments_.size() && out.size() < max; ++s) {
    const LogSegment& segment = segments_[s];
    if (!segment.empty() && segment.first_offset() >= end) break;
    segment.read(segment.find(from), from, end, max, out);
  }
  if (out.size() > max) out.resize(max);
  return out;
}

SharedBytes PartitionLog::read_batches(Offset from, std::int32_t max_records, Offset upto, std::size_t& count) const {
  SharedBytes out;
  count = 0;
  if (from < start_ || max_records <= 0) return out;
  const Offset end = std::min(upto, end_);
  const auto max = static_cast<std::uint64_t>(max_records);
  for (std::size_t s = first_segment_for(from); s < segments_.size() && count < max; ++s) {
    const LogSegment& segment = segments_[s];
    bool stopped = false;
    count += segment.read_batches(segment.find(from), end, max - count, out, stopped);
    if (stopped) break;
  }
  return out;
}

std::vector<BatchHeader> PartitionLog::batch_headers() const {
  std::vector<BatchHeader> out;
  std::string scratch;
  for (const LogSegment& segment : segments_) {
    for (std::size_t i = 0; i < segment.batch_count(); ++i) {
      const std::optional<BatchHeader> h = parse_batch_header(segment.batch_bytes(i, scratch));
      LOGSIM_ASSERT(h.has_value(), "a malformed batch in " + segment.file());
      out.push_back(*h);
    }
  }
  return out;
}

std::optional<Offset> PartitionLog::offset_for_timestamp(std::int64_t ts_ms) const {
  // The first segment holding a timestamp >= ts_ms holds the answer: every earlier record's
  // timestamp is smaller.
  for (const LogSegment& segment : segments_) {
    const auto largest = segment.max_timestamp_ms();
    if (largest && *largest >= ts_ms) return segment.offset_for_timestamp(ts_ms);
  }
  return std::nullopt;
}

std::uint64_t PartitionLog::size_bytes() const {
  std::uint64_t bytes = 0;
  for (const LogSegment& segment : segments_) bytes += segment.size_bytes();
  return bytes;
}

// ---- Flushing.

bool PartitionLog::flush_due(std::int64_t now_ms) const {
  if (unflushed_messages_ >= static_cast<std::uint64_t>(config_.flush_messages)) return true;
  const bool unflushed = unflushed_messages_ > 0 || !unflushed_files_.empty();
  return unflushed && age_reaches(last_flush_ms_, now_ms, config_.flush_ms);
}

std::size_t PartitionLog::flush(std::uint64_t token, std::int64_t now_ms) {
  for (const std::string& file : unflushed_files_) disk_.fsync(file, token);
  const std::size_t started = unflushed_files_.size();
  unflushed_files_.clear();
  unflushed_messages_ = 0;
  last_flush_ms_ = std::max(now_ms, last_append_ms_);
  return started;
}

// ---- Invariants (see the header).

void PartitionLog::check_invariants() const {
  LOGSIM_ASSERT(!segments_.empty(), "a log without segments: " + dir_);
  std::optional<Offset> last;  // the last offset of the batches seen so far
  for (std::size_t i = 0; i < segments_.size(); ++i) {
    const LogSegment& s = segments_[i];
    const bool active = i + 1 == segments_.size();
    LOGSIM_ASSERT(active || !s.empty(), "an inactive segment is empty: " + s.file());
    LOGSIM_ASSERT(!last || s.base_offset() > *last, "segments overlap at " + s.file());
    if (s.empty()) continue;
    LOGSIM_ASSERT(s.first_offset() >= s.base_offset(), "a batch below its segment's base: " + s.file());
    if (!last) LOGSIM_ASSERT(s.first_offset() >= start_, "a batch below the log start of " + dir_);
    last = s.last_offset();
  }
  LOGSIM_ASSERT(!last || *last < end_, "a batch at or above the log end of " + dir_);
  LOGSIM_ASSERT(segments_.back().base_offset() <= end_, "the active segment starts past the log end: " + dir_);
  LOGSIM_ASSERT(start_ <= end_, "the log start is past the log end of " + dir_);
  const auto& entries = epochs_.entries();
  // An entry may start at the log end: retention clamps the entry covering the log start to
  // it, even when the log start is the log end (an emptied log), as Kafka does.
  LOGSIM_ASSERT(entries.empty() || (entries.front().start_offset >= start_ && entries.back().start_offset <= end_),
                "the epoch cache reaches outside the log " + dir_);
}

void PartitionLog::reconfigure(const LogConfig& config) {
  LOGSIM_ASSERT(config.invalid_key().empty(), "invalid log config: " + std::string(config.invalid_key()));
  config_ = config;
}

}  // namespace logsim::engine

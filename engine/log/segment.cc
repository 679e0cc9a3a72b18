// A segment's file naming, appends, truncation, indexes and lookups.
#include "engine/log/segment.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <utility>

#include "engine/env/assert.h"
#include "engine/log/record_codec.h"

namespace logsim::engine {
namespace {

constexpr std::size_t kBaseDigits = 20;
// Offsets and positions are kept relative to the segment, as uint32_t.
constexpr std::uint64_t kMaxDelta = UINT32_MAX;
constexpr std::uint64_t kMaxBytes = UINT32_MAX;
// The longest run of frames one read asks the disk for (one frame may be longer).
constexpr std::uint64_t kReadRunBytes = 256 * 1024;
constexpr std::string_view kSuffix = ".log";

}  // namespace

LogSegment::LogSegment(Disk& disk, std::string_view dir, Offset base, std::uint64_t index_interval_bytes)
    : disk_(&disk), base_(base), file_(file_name(dir, base)), index_interval_bytes_(index_interval_bytes) {}

std::string LogSegment::file_name(std::string_view dir, Offset base) {
  LOGSIM_ASSERT(base >= Offset(0), "negative segment base offset");
  const std::string digits = std::to_string(base.value());
  return std::string(dir) + "/" + std::string(kBaseDigits - digits.size(), '0') + digits + std::string(kSuffix);
}

std::optional<Offset> LogSegment::parse_file_name(std::string_view dir, std::string_view file) {
  if (file.size() != dir.size() + 1 + kBaseDigits + kSuffix.size()) return std::nullopt;
  if (!file.starts_with(dir) || file[dir.size()] != '/' || !file.ends_with(kSuffix)) return std::nullopt;
  const std::string_view digits = file.substr(dir.size() + 1, kBaseDigits);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  std::int64_t base = 0;
  const auto [end, err] = std::from_chars(digits.data(), digits.data() + digits.size(), base);
  if (err != std::errc() || end != digits.data() + digits.size()) return std::nullopt;  // > int64
  return Offset(base);
}

Offset LogSegment::first_offset() const {
  LOGSIM_ASSERT(!deltas_.empty(), "first offset of an empty segment " + file_);
  return offset_at(0);
}

Offset LogSegment::last_offset() const {
  LOGSIM_ASSERT(!deltas_.empty(), "last offset of an empty segment " + file_);
  return offset_at(deltas_.size() - 1);
}

void LogSegment::note_cleaned(std::int64_t now_ms) {
  if (!first_cleaned_ms_) first_cleaned_ms_ = now_ms;
}

void LogSegment::reset_indexes() {
  deltas_.clear();
  positions_.clear();
  offset_index_.clear();
  time_index_.clear();
  bytes_since_index_entry_ = 0;
  max_timestamp_ms_.reset();
  bytes_ = 0;
}

// Takes one more record whose frame starts at bytes_ and is frame_bytes long.
void LogSegment::push(Offset offset, std::int64_t timestamp_ms, std::uint64_t frame_bytes) {
  LOGSIM_ASSERT(deltas_.empty() ? offset >= base_ : offset > last_offset(), "record offsets out of order in " + file_);
  LOGSIM_ASSERT(static_cast<std::uint64_t>(offset.value() - base_.value()) <= kMaxDelta, "a record offset too far above the base of " + file_);
  LOGSIM_ASSERT(bytes_ + frame_bytes <= kMaxBytes, "a segment file beyond 4 GiB: " + file_);
  const std::uint64_t position = bytes_;
  deltas_.push_back(static_cast<std::uint32_t>(offset.value() - base_.value()));
  positions_.push_back(static_cast<std::uint32_t>(position));
  bytes_ += frame_bytes;
  if (!max_timestamp_ms_ || timestamp_ms > *max_timestamp_ms_) {
    max_timestamp_ms_ = timestamp_ms;
    offset_of_max_timestamp_ = offset;
  }
  if (bytes_since_index_entry_ > index_interval_bytes_) {
    offset_index_.push_back(OffsetIndexEntry{offset, position});
    if (time_index_.empty() || *max_timestamp_ms_ > time_index_.back().timestamp_ms) {
      time_index_.push_back(TimeIndexEntry{*max_timestamp_ms_, offset_of_max_timestamp_});
    }
    bytes_since_index_entry_ = 0;
  }
  bytes_since_index_entry_ += frame_bytes;
}

void LogSegment::append(std::span<const RecordRef> records, std::int64_t now_ms) {
  if (records.empty()) return;
  if (deltas_.empty()) rolling_ms_ = now_ms;
  std::string bytes;
  std::uint64_t total = 0;
  for (const RecordRef& rec : records) total += encoded_size(rec);
  bytes.reserve(static_cast<std::size_t>(total));
  for (const RecordRef& rec : records) {
    const std::size_t before = bytes.size();
    encode_record(rec, bytes);
    push(rec.offset, rec.timestamp_ms, bytes.size() - before);
  }
  disk_->append(file_, bytes);
}

void LogSegment::append_frames(const SharedBytes& frames, std::span<const FrameInfo> infos, std::int64_t now_ms) {
  if (infos.empty()) return;
  if (deltas_.empty()) rolling_ms_ = now_ms;
  std::uint64_t total = 0;
  for (const FrameInfo& info : infos) {
    push(info.offset, info.timestamp_ms, info.bytes);
    total += info.bytes;
  }
  LOGSIM_ASSERT(total == frames.size(), "frame infos that do not describe their frames in " + file_);
  disk_->append_shared(file_, frames);
}

void LogSegment::assign(const std::vector<StoredRecord>& records) {
  reset_indexes();
  for (const StoredRecord& rec : records) push(rec.offset, rec.record.timestamp_ms, encoded_size(rec));
}

void LogSegment::load(std::vector<StoredRecord> records) {
  assign(records);
  rolling_ms_.reset();
  if (!records.empty()) rolling_ms_ = records.front().record.timestamp_ms;
}

void LogSegment::replace(std::vector<StoredRecord> records) { assign(records); }

void LogSegment::truncate_to(Offset end) {
  const std::size_t keep = find(end);
  if (keep == deltas_.size()) return;
  // Replay the kept records' offsets, timestamps and sizes: the indexes and the largest
  // timestamp come out as if only they had ever been appended.
  struct Kept {
    Offset offset;
    std::int64_t timestamp_ms;
    std::uint64_t bytes;
  };
  std::vector<Kept> kept;
  kept.reserve(keep);
  for_each_frame(0, keep, [&](std::size_t, std::string_view frame) {
    kept.push_back(Kept{frame_offset(frame), frame_timestamp_ms(frame), frame.size()});
    return true;
  });
  reset_indexes();
  for (const Kept& k : kept) push(k.offset, k.timestamp_ms, k.bytes);
  if (deltas_.empty()) rolling_ms_.reset();
  disk_->truncate(file_, bytes_);
}

template <typename Fn>
void LogSegment::for_each_frame(std::size_t from, std::size_t to, Fn&& fn) const {
  std::string scratch;
  const auto end_of = [&](std::size_t i) -> std::uint64_t { return i < positions_.size() ? positions_[i] : bytes_; };
  for (std::size_t i = from; i < to;) {
    // A run of whole frames: at least one, at most kReadRunBytes when there are more.
    std::size_t j = i + 1;
    while (j < to && end_of(j + 1) - positions_[i] <= kReadRunBytes) ++j;
    const std::uint64_t first = positions_[i];
    const std::string_view run = disk_->read_view(file_, first, end_of(j) - first, scratch);
    LOGSIM_ASSERT(run.size() == end_of(j) - first, "the file of " + file_ + " is shorter than its records");
    for (; i < j; ++i) {
      if (!fn(i, run.substr(positions_[i] - first, end_of(i + 1) - positions_[i]))) return;
    }
  }
}

std::vector<StoredRecord> LogSegment::records() const {
  std::vector<StoredRecord> out;
  read(0, Offset(std::numeric_limits<std::int64_t>::max()), std::numeric_limits<std::size_t>::max(), out);
  return out;
}

std::size_t LogSegment::read_end(std::size_t from, Offset end, std::size_t max) const {
  std::size_t to = from;
  while (to < deltas_.size() && offset_at(to) < end && to - from < max) ++to;
  return to;
}

std::size_t LogSegment::read_frames(std::size_t from, Offset end, std::size_t max, SharedBytes& out) const {
  const std::size_t to = read_end(from, end, max);
  if (to == from) return 0;
  const std::uint64_t first = positions_[from];
  const std::uint64_t last = to < positions_.size() ? positions_[to] : bytes_;
  const SharedBytes run = disk_->read_shared(file_, first, last - first);
  LOGSIM_ASSERT(run.size() == last - first, "the file of " + file_ + " is shorter than its records");
  out.append(run);
  return to - from;
}

void LogSegment::read(std::size_t from, Offset end, std::size_t max, std::vector<StoredRecord>& out) const {
  const std::size_t to = read_end(from, end, max > out.size() ? max - out.size() : 0);
  if (to == from) return;
  out.reserve(out.size() + (to - from));
  for_each_frame(from, to, [&](std::size_t i, std::string_view frame) {
    StoredRecord& rec = out.emplace_back();
    const std::size_t len = decode_frame(frame, rec, /*verify=*/false);
    LOGSIM_ASSERT(len == frame.size() && rec.offset == offset_at(i), "a frame of " + file_ + " does not decode");
    return true;
  });
}

std::size_t LogSegment::find(Offset offset) const {
  // The last index entry at or below `offset` names a frame to start the search from.
  const auto above = std::upper_bound(offset_index_.begin(), offset_index_.end(), offset,
                                      [](Offset o, const OffsetIndexEntry& e) { return o < e.offset; });
  const std::uint64_t start = above == offset_index_.begin() ? 0 : std::prev(above)->position;
  const auto first = std::lower_bound(positions_.begin(), positions_.end(), start) - positions_.begin();
  if (offset <= base_) return static_cast<std::size_t>(first);
  const std::int64_t delta = offset.value() - base_.value();
  if (delta > static_cast<std::int64_t>(kMaxDelta)) return deltas_.size();
  return static_cast<std::size_t>(
      std::lower_bound(deltas_.begin() + first, deltas_.end(), static_cast<std::uint32_t>(delta)) - deltas_.begin());
}

std::optional<Offset> LogSegment::offset_for_timestamp(std::int64_t ts_ms) const {
  if (!max_timestamp_ms_ || *max_timestamp_ms_ < ts_ms) return std::nullopt;
  // Records before the last entry whose timestamp is <= ts_ms all have smaller timestamps
  // than ts_ms (see the time index in the header), so the scan may start at that entry.
  const auto above = std::upper_bound(time_index_.begin(), time_index_.end(), ts_ms,
                                      [](std::int64_t t, const TimeIndexEntry& e) { return t < e.timestamp_ms; });
  const Offset from = above == time_index_.begin() ? base_ : std::prev(above)->offset;
  std::optional<Offset> found;
  for_each_frame(find(from), deltas_.size(), [&](std::size_t i, std::string_view frame) {
    if (frame_timestamp_ms(frame) >= ts_ms) found = offset_at(i);
    return !found;
  });
  if (found) return found;
  LOGSIM_ASSERT(false, "the largest timestamp of " + file_ + " is missing from its records");
  return std::nullopt;
}

}  // namespace logsim::engine

// A segment's file naming, appends, truncation, indexes and lookups.
#include "engine/log/segment.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <utility>

#include "engine/base/assert.h"

namespace logsim::engine {
namespace {

constexpr std::size_t kBaseDigits = 20;
// Offsets and positions are kept relative to the segment, as uint32_t.
constexpr std::uint64_t kMaxDelta = UINT32_MAX;
constexpr std::uint64_t kMaxBytes = UINT32_MAX;
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
  LOGSIM_ASSERT(!batches_.empty(), "first offset of an empty segment " + file_);
  return base_of(0);
}

Offset LogSegment::last_offset() const {
  LOGSIM_ASSERT(!batches_.empty(), "last offset of an empty segment " + file_);
  return last_of(batches_.size() - 1);
}

void LogSegment::note_cleaned(std::int64_t now_ms) {
  if (!first_cleaned_ms_) first_cleaned_ms_ = now_ms;
}

void LogSegment::reset_indexes() {
  batches_.clear();
  records_ = 0;
  offset_index_.clear();
  time_index_.clear();
  bytes_since_index_entry_ = 0;
  max_timestamp_ms_.reset();
  bytes_ = 0;
}

// Takes one more batch, whose bytes start at bytes_.
void LogSegment::push(Offset base, Offset last, std::uint32_t records, std::int64_t max_timestamp_ms,
                      std::uint64_t bytes) {
  LOGSIM_ASSERT(batches_.empty() ? base >= base_ : base > last_offset(), "batch offsets out of order in " + file_);
  LOGSIM_ASSERT(last >= base, "a batch ending before it starts in " + file_);
  LOGSIM_ASSERT(static_cast<std::uint64_t>(last.value() - base_.value()) <= kMaxDelta,
                "a batch offset too far above the base of " + file_);
  LOGSIM_ASSERT(bytes_ + bytes <= kMaxBytes, "a segment file beyond 4 GiB: " + file_);
  const std::uint64_t position = bytes_;
  batches_.push_back(SegmentBatch{static_cast<std::uint32_t>(base.value() - base_.value()),
                                  static_cast<std::uint32_t>(last.value() - base_.value()),
                                  static_cast<std::uint32_t>(position), records, max_timestamp_ms});
  records_ += records;
  bytes_ += bytes;
  if (!max_timestamp_ms_ || max_timestamp_ms > *max_timestamp_ms_) {
    max_timestamp_ms_ = max_timestamp_ms;
    offset_of_max_timestamp_ = base;
  }
  if (bytes_since_index_entry_ > index_interval_bytes_) {
    offset_index_.push_back(OffsetIndexEntry{base, position});
    if (time_index_.empty() || *max_timestamp_ms_ > time_index_.back().timestamp_ms) {
      time_index_.push_back(TimeIndexEntry{*max_timestamp_ms_, offset_of_max_timestamp_});
    }
    bytes_since_index_entry_ = 0;
  }
  bytes_since_index_entry_ += bytes;
}

void LogSegment::push_one(const BatchHeader& h, std::uint64_t bytes, std::int64_t now_ms) {
  LOGSIM_ASSERT(bytes == h.size_bytes(), "a batch's header disagrees with its bytes in " + file_);
  if (batches_.empty()) rolling_ms_ = now_ms;
  push(h.base_offset, h.last_offset(), static_cast<std::uint32_t>(h.record_count), h.max_timestamp_ms, h.size_bytes());
}

void LogSegment::append(const BatchHeader& h, std::string_view head, std::string_view tail, std::int64_t now_ms) {
  push_one(h, head.size() + tail.size(), now_ms);
  disk_->append(file_, head);
  if (!tail.empty()) disk_->append(file_, tail);
}

void LogSegment::append(const BatchHeader& h, std::string_view head, const SharedBytes& tail, std::int64_t now_ms) {
  push_one(h, head.size() + tail.size(), now_ms);
  disk_->append(file_, head);
  if (!tail.empty()) disk_->append_shared(file_, tail);
}

void LogSegment::append_shared(const SharedBytes& batches, std::span<const BatchHeader> headers, std::int64_t now_ms) {
  if (headers.empty()) return;
  if (batches_.empty()) rolling_ms_ = now_ms;
  std::uint64_t total = 0;
  for (const BatchHeader& h : headers) {
    push(h.base_offset, h.last_offset(), static_cast<std::uint32_t>(h.record_count), h.max_timestamp_ms,
         h.size_bytes());
    total += h.size_bytes();
  }
  LOGSIM_ASSERT(total == batches.size(), "batch headers that do not describe their batches in " + file_);
  disk_->append_shared(file_, batches);
}

void LogSegment::assign(std::span<const BatchHeader> headers) {
  reset_indexes();
  for (const BatchHeader& h : headers) {
    push(h.base_offset, h.last_offset(), static_cast<std::uint32_t>(h.record_count), h.max_timestamp_ms,
         h.size_bytes());
  }
}

void LogSegment::replace(std::span<const BatchHeader> headers) { assign(headers); }

void LogSegment::load(std::span<const BatchHeader> headers) {
  assign(headers);
  rolling_ms_.reset();
  if (!headers.empty()) rolling_ms_ = headers.front().max_timestamp_ms;
}

void LogSegment::truncate_to(Offset end) {
  // The batches wholly below `end`; the first one that is not may hold `end` (it goes whole).
  const std::size_t keep = find(end);
  if (keep == batches_.size()) return;
  // Replay the kept batches: the indexes and the largest timestamp come out as if only they
  // had ever been appended.
  std::vector<SegmentBatch> kept(batches_.begin(), batches_.begin() + static_cast<std::ptrdiff_t>(keep));
  const std::uint64_t kept_bytes = keep < batches_.size() ? batches_[keep].position : bytes_;
  reset_indexes();
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const std::uint64_t next = i + 1 < kept.size() ? kept[i + 1].position : kept_bytes;
    push(base_ + static_cast<std::int64_t>(kept[i].base_delta), base_ + static_cast<std::int64_t>(kept[i].last_delta),
         kept[i].records, kept[i].max_timestamp_ms, next - kept[i].position);
  }
  if (batches_.empty()) rolling_ms_.reset();
  disk_->truncate(file_, bytes_);
}

std::string_view LogSegment::batch_bytes(std::size_t i, std::string& scratch) const {
  const std::uint64_t start = batches_[i].position;
  const std::uint64_t end = i + 1 < batches_.size() ? batches_[i + 1].position : bytes_;
  const std::string_view bytes = disk_->read_view(file_, start, end - start, scratch);
  LOGSIM_ASSERT(bytes.size() == end - start, "the file of " + file_ + " is shorter than its batches");
  return bytes;
}

std::vector<StoredRecord> LogSegment::records() const {
  std::vector<StoredRecord> out;
  read(0, base_, Offset(std::numeric_limits<std::int64_t>::max()), std::numeric_limits<std::uint64_t>::max(), out);
  return out;
}

std::size_t LogSegment::read_end(std::size_t i, Offset end, std::uint64_t max, std::uint64_t& records,
                                 bool& stopped) const {
  records = 0;
  stopped = false;
  std::size_t to = i;
  for (; to < batches_.size() && records < max; ++to) {
    if (last_of(to) >= end) {
      stopped = true;
      break;
    }
    records += batches_[to].records;
  }
  return to;
}

std::uint64_t LogSegment::read_batches(std::size_t i, Offset end, std::uint64_t max, SharedBytes& out,
                                       bool& stopped) const {
  std::uint64_t records = 0;
  const std::size_t to = read_end(i, end, max, records, stopped);
  if (to == i) return 0;
  const std::uint64_t first = batches_[i].position;
  const std::uint64_t last = to < batches_.size() ? batches_[to].position : bytes_;
  const SharedBytes run = disk_->read_shared(file_, first, last - first);
  LOGSIM_ASSERT(run.size() == last - first, "the file of " + file_ + " is shorter than its batches");
  out.append(run);
  return records;
}

void LogSegment::read(std::size_t i, Offset from, Offset end, std::uint64_t max, std::vector<StoredRecord>& out) const {
  std::string scratch;
  for (std::size_t b = i; b < batches_.size() && last_of(b) < end && out.size() < max; ++b) {
    decode_batch(batch_bytes(b, scratch), out, from);
  }
}

std::size_t LogSegment::find(Offset offset) const {
  // Fetches mostly ask at or near the end: past the last batch, or inside it.
  const std::size_t n = batches_.size();
  if (n == 0 || offset > last_of(n - 1)) return n;
  if (n == 1 || offset > last_of(n - 2)) return n - 1;
  // The last index entry at or below `offset` names a batch to start the search from.
  const auto above = std::upper_bound(offset_index_.begin(), offset_index_.end(), offset,
                                      [](Offset o, const OffsetIndexEntry& e) { return o < e.offset; });
  const std::uint64_t start = above == offset_index_.begin() ? 0 : std::prev(above)->position;
  const auto first = std::lower_bound(batches_.begin(), batches_.end(), start,
                                      [](const SegmentBatch& b, std::uint64_t p) { return b.position < p; });
  if (offset <= base_) return static_cast<std::size_t>(first - batches_.begin());
  const std::int64_t delta = offset.value() - base_.value();
  if (delta > static_cast<std::int64_t>(kMaxDelta)) return batches_.size();
  const auto at = std::lower_bound(first, batches_.end(), static_cast<std::uint32_t>(delta),
                                   [](const SegmentBatch& b, std::uint32_t d) { return b.last_delta < d; });
  return static_cast<std::size_t>(at - batches_.begin());
}

std::optional<Offset> LogSegment::offset_for_timestamp(std::int64_t ts_ms) const {
  if (!max_timestamp_ms_ || *max_timestamp_ms_ < ts_ms) return std::nullopt;
  // Batches before the last entry whose timestamp is <= ts_ms hold only smaller timestamps
  // than ts_ms (see the time index in the header), so the search may start at that entry.
  const auto above = std::upper_bound(time_index_.begin(), time_index_.end(), ts_ms,
                                      [](std::int64_t t, const TimeIndexEntry& e) { return t < e.timestamp_ms; });
  const Offset from = above == time_index_.begin() ? base_ : std::prev(above)->offset;
  std::string scratch;
  for (std::size_t b = find(from); b < batches_.size(); ++b) {
    if (batches_[b].max_timestamp_ms < ts_ms) continue;
    std::optional<Offset> found;
    for_each_record(batch_bytes(b, scratch), [&](const StoredRecord& r) {
      if (r.record.timestamp_ms >= ts_ms) found = r.offset;
      return !found;
    });
    LOGSIM_ASSERT(found.has_value(), "a batch of " + file_ + " is missing its max timestamp");
    return found;
  }
  LOGSIM_ASSERT(false, "the largest timestamp of " + file_ + " is missing from its batches");
  return std::nullopt;
}

}  // namespace logsim::engine

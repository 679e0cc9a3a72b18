// A segment's file naming, appends, truncation, indexes and lookups.
#include "engine/log/segment.h"

#include <algorithm>
#include <charconv>
#include <utility>

#include "engine/env/assert.h"
#include "engine/log/record_codec.h"

namespace logsim::engine {
namespace {

constexpr std::size_t kBaseDigits = 20;
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

Offset LogSegment::last_offset() const {
  LOGSIM_ASSERT(!records_.empty(), "last offset of an empty segment " + file_);
  return records_.back().offset;
}

void LogSegment::note_cleaned(std::int64_t now_ms) {
  if (!first_cleaned_ms_) first_cleaned_ms_ = now_ms;
}

void LogSegment::push(const StoredRecord& rec, std::uint64_t position) {
  LOGSIM_ASSERT(records_.empty() ? rec.offset >= base_ : rec.offset > records_.back().offset,
                "record offsets out of order in " + file_);
  records_.push_back(rec);
  positions_.push_back(position);
  const std::int64_t ts = rec.record.timestamp_ms;
  if (!max_timestamp_ms_ || ts > *max_timestamp_ms_) {
    max_timestamp_ms_ = ts;
    offset_of_max_timestamp_ = rec.offset;
  }
  if (bytes_since_index_entry_ > index_interval_bytes_) {
    offset_index_.push_back(OffsetIndexEntry{rec.offset, position});
    if (time_index_.empty() || *max_timestamp_ms_ > time_index_.back().timestamp_ms) {
      time_index_.push_back(TimeIndexEntry{*max_timestamp_ms_, offset_of_max_timestamp_});
    }
    bytes_since_index_entry_ = 0;
  }
  bytes_since_index_entry_ += encoded_size(rec);
}

void LogSegment::append(std::span<const StoredRecord> records, std::int64_t now_ms) {
  if (records.empty()) return;
  if (records_.empty()) rolling_ms_ = now_ms;
  std::string bytes;
  for (const StoredRecord& rec : records) {
    push(rec, bytes_ + bytes.size());
    encode_record(rec, bytes);
  }
  bytes_ += bytes.size();
  disk_->append(file_, bytes);
}

void LogSegment::assign(std::vector<StoredRecord> records) {
  records_.clear();
  positions_.clear();
  offset_index_.clear();
  time_index_.clear();
  bytes_since_index_entry_ = 0;
  max_timestamp_ms_.reset();
  bytes_ = 0;
  for (const StoredRecord& rec : records) {
    push(rec, bytes_);
    bytes_ += encoded_size(rec);
  }
}

void LogSegment::load(std::vector<StoredRecord> records) {
  assign(std::move(records));
  rolling_ms_.reset();
  if (!records_.empty()) rolling_ms_ = records_.front().record.timestamp_ms;
}

void LogSegment::replace(std::vector<StoredRecord> records) { assign(std::move(records)); }

void LogSegment::truncate_to(Offset end) {
  const std::size_t keep = find(end);
  if (keep == records_.size()) return;
  std::vector<StoredRecord> kept(records_.begin(), records_.begin() + static_cast<std::ptrdiff_t>(keep));
  assign(std::move(kept));
  if (records_.empty()) rolling_ms_.reset();
  disk_->truncate(file_, bytes_);
}

std::size_t LogSegment::find(Offset offset) const {
  // The last index entry at or below `offset` names a frame to start the scan from.
  const auto above = std::upper_bound(offset_index_.begin(), offset_index_.end(), offset,
                                      [](Offset o, const OffsetIndexEntry& e) { return o < e.offset; });
  const std::uint64_t start = above == offset_index_.begin() ? 0 : std::prev(above)->position;
  auto i = static_cast<std::size_t>(std::lower_bound(positions_.begin(), positions_.end(), start) - positions_.begin());
  while (i < records_.size() && records_[i].offset < offset) ++i;
  return i;
}

std::optional<Offset> LogSegment::offset_for_timestamp(std::int64_t ts_ms) const {
  if (!max_timestamp_ms_ || *max_timestamp_ms_ < ts_ms) return std::nullopt;
  // Records before the last entry whose timestamp is <= ts_ms all have smaller timestamps
  // than ts_ms (see the time index in the header), so the scan may start at that entry.
  const auto above = std::upper_bound(time_index_.begin(), time_index_.end(), ts_ms,
                                      [](std::int64_t t, const TimeIndexEntry& e) { return t < e.timestamp_ms; });
  const Offset from = above == time_index_.begin() ? base_ : std::prev(above)->offset;
  for (std::size_t i = find(from); i < records_.size(); ++i) {
    if (records_[i].record.timestamp_ms >= ts_ms) return records_[i].offset;
  }
  LOGSIM_ASSERT(false, "the largest timestamp of " + file_ + " is missing from its records");
  return std::nullopt;
}

}  // namespace logsim::engine

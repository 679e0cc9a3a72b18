// The partition log's append, truncation, epoch cache, read and recovery.
#include "engine/log/partition_log.h"

#include <algorithm>

#include "engine/env/assert.h"
#include "engine/log/record_codec.h"

namespace logsim::engine {

PartitionLog::PartitionLog(Disk& disk, std::string file) : disk_(disk), file_(std::move(file)) {}

std::uint64_t PartitionLog::recover() {
  records_.clear();
  positions_.clear();
  epochs_.clear();
  start_ = Offset(0);
  bytes_ = 0;
  if (!disk_.exists(file_)) {
    disk_.append(file_, {});  // a new, empty log (like Kafka creating its first segment)
    return 0;
  }
  const std::uint64_t size = disk_.size(file_);
  DecodedLog decoded = decode_records(disk_.read(file_, 0, size));
  if (!decoded.records.empty()) start_ = decoded.records.front().offset;
  for (std::size_t i = 0; i < decoded.records.size(); ++i) {
    LOGSIM_ASSERT(decoded.records[i].offset == start_ + static_cast<std::int64_t>(i),
                  "non-consecutive offsets in " + file_);
    note_epoch(decoded.records[i].leader_epoch, decoded.records[i].offset);
  }
  records_ = std::move(decoded.records);
  positions_ = std::move(decoded.positions);
  bytes_ = decoded.valid_bytes;
  const std::uint64_t cut = size - decoded.valid_bytes;
  if (cut > 0) disk_.truncate(file_, decoded.valid_bytes);
  return cut;
}

void PartitionLog::note_epoch(LeaderEpoch epoch, Offset offset) {
  if (!epochs_.empty()) {
    LOGSIM_ASSERT(epoch >= epochs_.back().first, "leader epoch went back in " + file_);
    if (epoch == epochs_.back().first) return;
  }
  epochs_.emplace_back(epoch, offset);
}

Offset PartitionLog::append(std::span<const Record> records, LeaderEpoch epoch) {
  const Offset base = log_end_offset();
  std::vector<StoredRecord> stored;
  stored.reserve(records.size());
  for (const Record& r : records) {
    stored.push_back(StoredRecord{base + static_cast<std::int64_t>(stored.size()), r, epoch});
  }
  append_replicated(stored);
  return base;
}

void PartitionLog::append_replicated(std::span<const StoredRecord> records) {
  if (records.empty()) return;
  LOGSIM_ASSERT(records.front().offset == log_end_offset(), "append not at the log end of " + file_);
  std::string bytes;
  for (const StoredRecord& r : records) {
    LOGSIM_ASSERT(r.offset == log_end_offset(), "non-consecutive append to " + file_);
    note_epoch(r.leader_epoch, r.offset);
    positions_.push_back(bytes_ + bytes.size());
    encode_record(r, bytes);
    records_.push_back(r);
  }
  bytes_ += bytes.size();
  disk_.append(file_, bytes);
}

void PartitionLog::truncate_to(Offset end) {
  if (end >= log_end_offset()) return;
  LOGSIM_ASSERT(end >= start_, "truncation below the log start of " + file_);
  const auto keep = static_cast<std::size_t>(end - start_);
  bytes_ = keep < positions_.size() ? positions_[keep] : bytes_;
  records_.resize(keep);
  positions_.resize(keep);
  while (!epochs_.empty() && epochs_.back().second >= end) epochs_.pop_back();
  disk_.truncate(file_, bytes_);
}

std::optional<std::pair<LeaderEpoch, Offset>> PartitionLog::end_offset_for_epoch(LeaderEpoch epoch) const {
  // The last cache entry whose epoch is <= the one asked for.
  auto it = std::upper_bound(epochs_.begin(), epochs_.end(), epoch,
                             [](LeaderEpoch e, const auto& entry) { return e < entry.first; });
  if (it == epochs_.begin()) return std::nullopt;
  const LeaderEpoch found = std::prev(it)->first;
  const Offset end = it == epochs_.end() ? log_end_offset() : it->second;
  return std::make_pair(found, end);
}

std::vector<StoredRecord> PartitionLog::read(Offset from, std::int32_t max_records, Offset upto) const {
  std::vector<StoredRecord> out;
  if (from < start_ || max_records <= 0) return out;
  const Offset end = std::min(upto, log_end_offset());
  for (Offset o = from; o < end && static_cast<std::int32_t>(out.size()) < max_records; ++o) {
    out.push_back(records_[static_cast<std::size_t>(o - start_)]);
  }
  return out;
}

}  // namespace logsim::engine

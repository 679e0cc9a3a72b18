// The partition log's append, read and recovery.
#include "engine/log/partition_log.h"

#include <algorithm>

#include "engine/env/assert.h"
#include "engine/log/record_codec.h"

namespace logsim::engine {

PartitionLog::PartitionLog(Disk& disk, std::string file) : disk_(disk), file_(std::move(file)) {}

std::uint64_t PartitionLog::recover() {
  records_.clear();
  start_ = Offset(0);
  if (!disk_.exists(file_)) return 0;
  const std::uint64_t size = disk_.size(file_);
  DecodedLog decoded = decode_records(disk_.read(file_, 0, size));
  if (!decoded.records.empty()) start_ = decoded.records.front().offset;
  for (std::size_t i = 0; i < decoded.records.size(); ++i) {
    LOGSIM_ASSERT(decoded.records[i].offset == start_ + static_cast<std::int64_t>(i),
                  "non-consecutive offsets in " + file_);
  }
  records_ = std::move(decoded.records);
  const std::uint64_t cut = size - decoded.valid_bytes;
  if (cut > 0) disk_.truncate(file_, decoded.valid_bytes);
  return cut;
}

Offset PartitionLog::append(std::span<const Record> records) {
  const Offset base = log_end_offset();
  std::string bytes;
  for (const Record& r : records) {
    StoredRecord stored{log_end_offset(), r};
    encode_record(stored, bytes);
    records_.push_back(std::move(stored));
  }
  disk_.append(file_, bytes);
  return base;
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

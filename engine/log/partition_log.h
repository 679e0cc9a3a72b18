// One partition's log on one broker: records at consecutive offsets from the log start
// offset, kept in memory and appended to the node's disk.
//
// Invariants:
// 1. Offsets are consecutive: record i holds offset log_start_offset + i.
// 2. The disk file holds exactly the records in memory, in order (after recover(), a torn or
//    corrupt tail is truncated away).
// 3. log_end_offset never decreases except by recovery truncating an unflushed tail.
// (Segments, indexes, retention and compaction arrive with the broker-engine work.)
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/env/disk.h"
#include "engine/env/messages.h"

namespace logsim::engine {

class PartitionLog {
 public:
  PartitionLog(Disk& disk, std::string file);

  // Rebuilds the log from its file, truncating an invalid tail. Returns the bytes cut.
  std::uint64_t recover();

  // Appends records at the log end; returns the offset of the first.
  Offset append(std::span<const Record> records);

  Offset log_start_offset() const { return start_; }
  Offset log_end_offset() const { return start_ + static_cast<std::int64_t>(records_.size()); }

  // Up to max_records records from `from`, stopping before `upto` (exclusive).
  std::vector<StoredRecord> read(Offset from, std::int32_t max_records, Offset upto) const;

  const std::string& file() const { return file_; }

 private:
  Disk& disk_;
  std::string file_;
  Offset start_{0};
  std::vector<StoredRecord> records_;
};

}  // namespace logsim::engine

// One partition's log on one broker: records at consecutive offsets from the log start
// offset, kept in memory and appended to the node's disk, with the leader-epoch cache that
// replication needs (KIP-101, KIP-279).
//
// Invariants:
// 1. Offsets are consecutive: record i holds offset log_start_offset + i.
// 2. The disk file holds exactly the records in memory, in order (after recover(), a torn or
//    corrupt tail is truncated away).
// 3. Leader epochs never decrease along the log; the epoch cache holds, for each epoch that
//    appended records, the offset of its first record, in increasing order of both.
// (Segments, indexes, retention and compaction arrive with the rest of the broker-engine work.)
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/env/disk.h"
#include "engine/env/messages.h"

namespace logsim::engine {

class PartitionLog {
 public:
  PartitionLog(Disk& disk, std::string file);

  // Rebuilds the log from its file, truncating an invalid tail. Returns the bytes cut.
  std::uint64_t recover();

  // Appends records at the log end as the leader of `epoch`; returns the offset of the first.
  Offset append(std::span<const Record> records, LeaderEpoch epoch = LeaderEpoch(0));
  // Appends records fetched from the leader, keeping their offsets and epochs. The first must
  // sit at the log end offset.
  void append_replicated(std::span<const StoredRecord> records);
  // Removes every record at or above `end` (a follower's truncation to the leader's log).
  void truncate_to(Offset end);

  Offset log_start_offset() const { return start_; }
  Offset log_end_offset() const { return start_ + static_cast<std::int64_t>(records_.size()); }
  // The epoch of the last record, or -1 for an empty log.
  LeaderEpoch latest_epoch() const { return epochs_.empty() ? LeaderEpoch(-1) : epochs_.back().first; }

  // OffsetsForLeaderEpoch (KIP-279): the largest epoch <= `epoch` that this log holds, and the
  // offset just past its last record (the start of the next epoch, or the log end offset).
  // Nothing when the log holds no epoch <= `epoch`.
  std::optional<std::pair<LeaderEpoch, Offset>> end_offset_for_epoch(LeaderEpoch epoch) const;

  // Up to max_records records from `from`, stopping before `upto` (exclusive).
  std::vector<StoredRecord> read(Offset from, std::int32_t max_records, Offset upto) const;

  const std::string& file() const { return file_; }
  // Bytes of the log's file.
  std::uint64_t size_bytes() const { return bytes_; }

 private:
  void note_epoch(LeaderEpoch epoch, Offset offset);

  Disk& disk_;
  std::string file_;
  Offset start_{0};
  std::vector<StoredRecord> records_;
  std::vector<std::uint64_t> positions_;  // byte position of each record's frame in the file
  std::uint64_t bytes_ = 0;
  std::vector<std::pair<LeaderEpoch, Offset>> epochs_;  // (epoch, first offset), increasing
};

}  // namespace logsim::engine

// The leader-epoch cache of one partition log (KIP-101, KIP-279): for each leader epoch that
// appended records, the offset of its first record. Followers ask the leader where an epoch
// ends (OffsetsForLeaderEpoch) and truncate their log there, which is how replicas find the
// point where their logs diverged.
//
// Invariants: epochs strictly increase along the entries and so do start offsets.
//
// Kafka persists this cache in leader-epoch-checkpoint; ours lives in memory and is rebuilt
// from the records by recovery (see partition_log.h for what that loses after compaction).
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "engine/base/types.h"

namespace logsim::engine {

class LeaderEpochCache {
 public:
  struct Entry {
    LeaderEpoch epoch;
    Offset start_offset;
  };

  // Whether a record of `epoch` may follow the records seen so far (epochs never go back).
  bool accepts(LeaderEpoch epoch) const { return entries_.empty() || epoch >= entries_.back().epoch; }
  // Notes a record of `epoch` at `offset`; starts a new entry when the epoch changes.
  void assign(LeaderEpoch epoch, Offset offset);
  // Forgets every entry that starts at or after `end` (the log was truncated to `end`).
  void truncate_from_end(Offset end);
  // Forgets the entries wholly below `start` (the log start moved there); the entry covering
  // `start` keeps its epoch with its start offset raised to `start`, as Kafka does.
  void truncate_from_start(Offset start);
  void clear() { entries_.clear(); }

  // The epoch of the last entry, or -1 when empty.
  LeaderEpoch latest() const { return entries_.empty() ? LeaderEpoch(-1) : entries_.back().epoch; }
  // The largest epoch <= `epoch` held, and where it ends: the next entry's start, or
  // `log_end` for the last. Nothing when no entry is <= `epoch`.
  std::optional<std::pair<LeaderEpoch, Offset>> end_offset_for(LeaderEpoch epoch, Offset log_end) const;
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

}  // namespace logsim::engine

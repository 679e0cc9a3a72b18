// The leader-epoch cache's updates and its OffsetsForLeaderEpoch lookup.
#include "engine/log/leader_epoch_cache.h"

#include <algorithm>

#include "engine/base/assert.h"

namespace logsim::engine {

void LeaderEpochCache::assign(LeaderEpoch epoch, Offset offset) {
  LOGSIM_ASSERT(accepts(epoch), "leader epoch went back");
  if (!entries_.empty()) {
    if (epoch == entries_.back().epoch) return;
    LOGSIM_ASSERT(offset >= entries_.back().start_offset, "epoch cache offsets went back");
    // An entry that retention clamped to an empty log's end holds no record: the new epoch
    // takes its place, as Kafka drops entries at or after a new epoch's start offset.
    if (offset == entries_.back().start_offset) entries_.pop_back();
  }
  entries_.push_back(Entry{epoch, offset});
}

void LeaderEpochCache::truncate_from_end(Offset end) {
  while (!entries_.empty() && entries_.back().start_offset >= end) entries_.pop_back();
}

void LeaderEpochCache::truncate_from_start(Offset start) {
  // The entries starting at or below `start`; the last of them covers `start`.
  const auto covered = std::find_if(entries_.begin(), entries_.end(),
                                    [start](const Entry& e) { return e.start_offset > start; });
  if (covered == entries_.begin()) return;
  const LeaderEpoch epoch = std::prev(covered)->epoch;
  entries_.erase(entries_.begin(), covered);
  entries_.insert(entries_.begin(), Entry{epoch, start});
}

std::optional<std::pair<LeaderEpoch, Offset>> LeaderEpochCache::end_offset_for(LeaderEpoch epoch,
                                                                               Offset log_end) const {
  // The first entry whose epoch is above the one asked for; the one before it is the answer.
  const auto above = std::upper_bound(entries_.begin(), entries_.end(), epoch,
                                      [](LeaderEpoch e, const Entry& entry) { return e < entry.epoch; });
  if (above == entries_.begin()) return std::nullopt;
  const Offset end = above == entries_.end() ? log_end : above->start_offset;
  return std::make_pair(std::prev(above)->epoch, end);
}

}  // namespace logsim::engine

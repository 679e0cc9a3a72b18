// The partition log's background work: deleting old segments by retention and compacting.
#include "engine/log/partition_log.h"

#include <algorithm>

#include "engine/log/cleaner.h"
#include "engine/log/retention.h"

namespace logsim::engine {

RetentionResult PartitionLog::apply_retention(std::int64_t now_ms, Offset high_watermark, std::uint64_t fsync_token) {
  RetentionResult result;
  const std::size_t n = segments_to_delete(segments_, config_, now_ms, high_watermark);
  for (std::size_t i = 0; i < n; ++i) {
    result.bytes_deleted += segments_[i].size_bytes();
    delete_file(segments_[i].file(), fsync_token);
  }
  segments_.erase(segments_.begin(), segments_.begin() + static_cast<std::ptrdiff_t>(n));
  if (n > 0) {
    start_ = std::max(start_, segments_.front().base_offset());
    epochs_.truncate_from_start(start_);
  }
  result.segments_deleted = n;
  result.fsyncs_started = n;
  result.log_start_offset = start_;
  check_invariants();
  return result;
}

CompactionResult PartitionLog::compact(std::int64_t now_ms, Offset uncleanable_from, std::uint64_t fsync_token,
                                      std::span<const AbortedTransaction> aborted) {
  CompactionResult result;
  if (!config_.compacts()) return result;
  const std::set<Offset> aborted_batches = find_aborted_batches(segments_, aborted);
  const OffsetMap map = build_offset_map(segments_, uncleanable_from, aborted_batches);
  const CleaningRules rules{now_ms, config_.min_compaction_lag_ms, config_.delete_retention_ms, uncleanable_from,
                            &aborted_batches};
  // The active segment (the last) is never cleaned.
  for (std::size_t i = 0; i + 1 < segments_.size();) {
    LogSegment& segment = segments_[i];
    CleanedSegment cleaned = clean_segment(segment, map, rules);
    segment.note_cleaned(now_ms);
    result.records_removed += cleaned.records_removed;
    result.tombstones_removed += cleaned.tombstones_removed;
    const std::uint64_t bytes_before = segment.size_bytes();
    if (cleaned.records_removed == 0) {
      ++i;
    } else if (cleaned.headers.empty()) {
      // Nothing left: the segment goes. The log start stays where it is (only retention moves it).
      delete_file(segment.file(), fsync_token);
      segments_.erase(segments_.begin() + static_cast<std::ptrdiff_t>(i));
      result.bytes_removed += bytes_before;
      ++result.segments_deleted;
      ++result.fsyncs_started;
    } else {
      result.fsyncs_started += swap_in_cleaned(disk_, segment.file(), cleaned.bytes, fsync_token);
      segment.replace(cleaned.headers);
      result.bytes_removed += bytes_before - segment.size_bytes();
      ++result.segments_cleaned;
      ++i;
    }
  }
  check_invariants();
  return result;
}

}  // namespace logsim::engine

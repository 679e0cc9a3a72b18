// The retention rules: by time, then by size, over a prefix of deletable segments.
#include "engine/log/retention.h"

#include "engine/base/assert.h"

namespace logsim::engine {
namespace {

// Segment i may be deleted at all: it is not the active one and lies wholly below the HW.
bool may_delete(std::span<const LogSegment> segments, std::size_t i, Offset high_watermark) {
  return i + 1 < segments.size() && segments[i + 1].base_offset() <= high_watermark;
}

std::size_t expired_by_time(std::span<const LogSegment> segments, std::size_t from, std::int64_t retention_ms,
                            std::int64_t now_ms, Offset high_watermark) {
  std::size_t n = from;
  while (may_delete(segments, n, high_watermark)) {
    const auto largest = segments[n].max_timestamp_ms();
    LOGSIM_ASSERT(largest.has_value(), "an inactive segment is empty: " + segments[n].file());
    if (!age_exceeds(*largest, now_ms, retention_ms)) break;
    ++n;
  }
  return n;
}

std::size_t breached_by_size(std::span<const LogSegment> segments, std::size_t from, std::int64_t retention_bytes,
                             Offset high_watermark) {
  std::uint64_t size = 0;
  for (std::size_t i = from; i < segments.size(); ++i) size += segments[i].size_bytes();
  const auto limit = static_cast<std::uint64_t>(retention_bytes);
  std::size_t n = from;
  while (may_delete(segments, n, high_watermark) && size - segments[n].size_bytes() >= limit) {
    size -= segments[n].size_bytes();
    ++n;
  }
  return n;
}

}  // namespace

std::size_t segments_to_delete(std::span<const LogSegment> segments, const LogConfig& config,
                               std::int64_t now_ms, Offset high_watermark) {
  if (!config.deletes()) return 0;
  std::size_t n = 0;
  if (config.retention_ms >= 0) n = expired_by_time(segments, n, config.retention_ms, now_ms, high_watermark);
  if (config.retention_bytes >= 0) n = breached_by_size(segments, n, config.retention_bytes, high_watermark);
  return n;
}

}  // namespace logsim::engine

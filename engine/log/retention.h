// Which old segments retention deletes (Kafka's UnifiedLog.deleteOldSegments), decided over
// the log's segments without touching them, so the rules read in one place.
//
// The rules run in Kafka's order, each on the oldest segments that the previous left:
// 1. retention.ms (if >= 0): a segment goes while its largest record timestamp is more than
//    retention.ms before now.
// 2. retention.bytes (if >= 0): the oldest segment goes while the log's size without it is
//    still >= retention.bytes (Kafka's `size - segment.size >= retentionSize`).
// Each rule stops at the first segment it keeps: deletion only ever takes a prefix, so a
// breaching segment behind a young one waits (as in Kafka). Neither ever deletes the active
// segment, nor a segment not wholly below the high watermark (its upper bound, the next
// segment's base offset, must be <= the high watermark).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "engine/base/types.h"
#include "engine/protocol/log_config.h"
#include "engine/log/segment.h"

namespace logsim::engine {

// How many of the oldest segments retention deletes now.
std::size_t segments_to_delete(std::span<const LogSegment> segments, const LogConfig& config,
                               std::int64_t now_ms, Offset high_watermark);

}  // namespace logsim::engine

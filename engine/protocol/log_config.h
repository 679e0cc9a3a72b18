// The per-topic log configuration (part of the vocabulary: the controller carries it to brokers): how a partition log rolls segments, what retention deletes,
// what compaction keeps, when the log asks to be flushed and which timestamp records carry.
//
// Each field is a Kafka topic config (its key in the comment) with Kafka's unit in the field's
// name and Kafka's default as its initializer, so scenario files can map keys one to one.
// The scenario loader validates user input and reports errors; the engine asserts validity
// (invalid_key() says which key is out of Kafka's bounds).
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

namespace logsim {

// cleanup.policy: what happens to old segments.
enum class CleanupPolicy : std::uint8_t {
  kDelete,         // "delete": retention deletes whole old segments
  kCompact,        // "compact": the cleaner keeps the last record per key
  kCompactDelete,  // "compact,delete": both
};

// message.timestamp.type: which time a record stores.
enum class TimestampType : std::uint8_t {
  kCreateTime,     // "CreateTime": the producer's timestamp, kept as sent
  kLogAppendTime,  // "LogAppendTime": the leader's clock when it appends the record
};

struct LogConfig {
  static constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

  // segment.bytes: a segment is rolled before an append would take it past this size. >= 1.
  // Default 1 GiB.
  std::int64_t segment_bytes = std::int64_t{1} << 30;
  // segment.ms: a non-empty segment is rolled at the next append once its first record was
  // appended more than this long ago, so time retention can delete it. >= 1. Default 7 days.
  std::int64_t segment_ms = 7LL * 24 * 60 * 60 * 1000;
  // retention.ms: delete a segment once its largest record timestamp is older than now minus
  // this. -1 keeps segments forever. >= -1. Default 7 days.
  std::int64_t retention_ms = 7LL * 24 * 60 * 60 * 1000;
  // retention.bytes: delete oldest segments while the log stays at or above this size without
  // them. -1 = no size limit. Default -1.
  std::int64_t retention_bytes = -1;
  // cleanup.policy. Default delete.
  CleanupPolicy cleanup_policy = CleanupPolicy::kDelete;
  // delete.retention.ms: how long a tombstone (null value) survives compaction after a cleaning
  // pass first saw its segment, so consumers can observe the delete. >= 0. Default 1 day.
  std::int64_t delete_retention_ms = 24LL * 60 * 60 * 1000;
  // min.compaction.lag.ms: a record whose timestamp is less than this before now is never
  // removed by compaction. 0 = no lag. >= 0. Default 0.
  std::int64_t min_compaction_lag_ms = 0;
  // flush.messages: the log asks to be fsynced once this many records are unflushed. >= 1.
  // Default Long.MAX_VALUE: never (Kafka leaves durability to replication and the OS).
  std::int64_t flush_messages = kNever;
  // flush.ms: the log asks to be fsynced when it holds unflushed data this long after its last
  // flush. >= 0. Default Long.MAX_VALUE: never.
  std::int64_t flush_ms = kNever;
  // message.timestamp.type. Default CreateTime.
  TimestampType timestamp_type = TimestampType::kCreateTime;
  // index.interval.bytes: bytes appended between two entries of a segment's sparse offset and
  // time indexes. >= 0. Default 4096.
  std::int64_t index_interval_bytes = 4096;

  bool deletes() const { return cleanup_policy != CleanupPolicy::kCompact; }
  bool compacts() const { return cleanup_policy != CleanupPolicy::kDelete; }

  // The Kafka key of the first field outside Kafka's bounds, or "" when all are valid.
  std::string_view invalid_key() const {
    if (segment_bytes < 1) return "segment.bytes";
    if (segment_ms < 1) return "segment.ms";
    if (retention_ms < -1) return "retention.ms";
    if (delete_retention_ms < 0) return "delete.retention.ms";
    if (min_compaction_lag_ms < 0) return "min.compaction.lag.ms";
    if (flush_messages < 1) return "flush.messages";
    if (flush_ms < 0) return "flush.ms";
    if (index_interval_bytes < 0) return "index.interval.bytes";
    return "";
  }
};

// Whether more than `limit_ms` passed from `since_ms` to `now_ms` (never, if since is later),
// computed without overflow for any int64 timestamps. limit_ms >= 0.
inline bool age_exceeds(std::int64_t since_ms, std::int64_t now_ms, std::int64_t limit_ms) {
  if (since_ms > now_ms) return false;
  return static_cast<std::uint64_t>(now_ms) - static_cast<std::uint64_t>(since_ms) > static_cast<std::uint64_t>(limit_ms);
}

// Whether at least `limit_ms` passed from `since_ms` to `now_ms`. limit_ms >= 0.
inline bool age_reaches(std::int64_t since_ms, std::int64_t now_ms, std::int64_t limit_ms) {
  if (since_ms > now_ms) return false;
  return static_cast<std::uint64_t>(now_ms) - static_cast<std::uint64_t>(since_ms) >= static_cast<std::uint64_t>(limit_ms);
}

}  // namespace logsim

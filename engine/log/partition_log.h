// One partition's log on one broker, segmented as Kafka's UnifiedLog: record batches with
// increasing offsets (engine/protocol/record_batch.h), in segment files "<dir>/<base offset>.log"
// (segment.h), each with its sparse offset and time indexes, and the leader-epoch cache that
// replication needs (KIP-101, KIP-279). The log rolls segments, deletes old ones by retention
// (retention.h), compacts by key (cleaner.h), says when it is due for a flush, and recovers
// from its files after a crash or a power loss.
//
// Offsets. A leader's append gives a producer's batch consecutive offsets from the log end
// offset (it writes the batch's base offset; the records carry their deltas). Compaction
// removes records and leaves gaps, inside batches and between them; a follower's append
// carries the leader's batches, gaps included. log_end_offset is one past the last offset of
// the last batch ever appended (not a record count).
//
// Invariants (check_invariants() asserts them after every change):
// 1. There is at least one segment; base offsets strictly increase; the last is the active
//    segment, the only one appends go to.
// 2. Every segment but the active one holds at least one batch. A segment's batches lie in
//    [its base offset, the next segment's base offset), so offsets increase across the log.
// 3. log_start_offset <= the first batch's base offset; every batch's last offset <
//    log_end_offset; the active segment's base <= log_end_offset.
// 4. The epoch cache's epochs and start offsets strictly increase, within
//    [log_start_offset, log_end_offset] (an entry starts at the log end only when retention
//    emptied the log and clamped the entry covering the log start to it).
// 5. The log start offset never moves backwards while the log is open: retention raises it
//    to the first remaining segment's base; compaction and truncation never move it.
// Each segment file holds exactly the batches of its segment (segment.h).
//
// Rolling. Before an append, a non-empty active segment is closed and a new one started at
// the batches' first offset when they would take it past segment.bytes, or when its first
// batch was appended more than segment.ms before now. The batches of one append go whole into
// one segment.
//
// Reads return whole batches, as Kafka's do: from the one holding the offset asked for (whose
// earlier records a consumer skips), each wholly below the bound (the high watermark for a
// consumer, the log end for a follower). Leaders and followers append whole batches and
// truncate at batch boundaries, so the high watermark falls between batches.
//
// Recovery, recover(): reads every segment file under dir in base-offset order and deletes
// any "*.cleaned" file an interrupted cleaning left. Batches are accepted while they are whole
// and valid (records and CRC) and keep the log's order: offsets increasing and inside the
// segment's range, leader epochs not decreasing. At the first batch that does not, the
// segment is cut there and every later segment file is deleted, as Kafka's LogLoader deletes
// the segments after one it had to truncate: what lies beyond a damaged batch cannot be known
// to continue the log. Empty segments other than the last are deleted. The log start offset
// becomes the first batch's base offset (Kafka reads it from its log-start-offset-checkpoint,
// which we do not keep); the log end offset becomes one past the last batch's last offset, or
// the last segment's base if larger (so after a truncation inside a batch, which left the log
// end at the offset asked for, it may come back lower, as Kafka's would without its
// recovery-point checkpoint).
//
// Flushing. The log counts the records appended since its last flush and remembers which
// files changed (appends, truncations, removals). flush_due() applies flush.messages and
// flush.ms; flush(token) fsyncs each changed file and restarts both counts. Retention and
// compaction fsync the files they delete or rewrite at once, with the caller's token; the Env
// reports each completion as Node::on_fsync(token).
//
// Memory. Records live only in the segment files (the Disk's page cache); reads return or
// decode them from there. Per batch the log keeps 24 bytes in memory (segment.h).
//
// Simplified relative to Kafka: indexes and the
// epoch cache are not persisted but rebuilt by recover(), so an epoch whose records compaction
// removed entirely is forgotten across a restart; the time that segment.ms counts from is the
// append time of the segment's first batch (Kafka uses the first batch's timestamp; a
// recovered segment uses its first batch's max timestamp); a rolled segment is not flushed in
// the background; cleaning never merges small segments and drops a batch it empties (Kafka
// keeps the last batch of each producer for its producer state).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/env/disk.h"
#include "engine/protocol/messages.h"
#include "engine/protocol/record_batch.h"
#include "engine/log/leader_epoch_cache.h"
#include "engine/protocol/log_config.h"
#include "engine/log/segment.h"

namespace logsim::engine {

struct RetentionResult {
  std::size_t segments_deleted = 0;
  std::uint64_t bytes_deleted = 0;
  Offset log_start_offset;        // after retention
  std::size_t fsyncs_started = 0;  // on_fsync(token) calls to expect
};

struct CompactionResult {
  std::size_t segments_cleaned = 0;  // rewritten with fewer records
  std::size_t segments_deleted = 0;  // left without records, so removed
  std::uint64_t records_removed = 0;
  std::uint64_t tombstones_removed = 0;
  std::uint64_t bytes_removed = 0;
  std::size_t fsyncs_started = 0;  // on_fsync(token) calls to expect
};

class PartitionLog {
 public:
  // An uncleanable offset beyond any record: compaction may consider the whole log.
  static constexpr Offset kWholeLog{std::numeric_limits<std::int64_t>::max()};

  // The log of the files under `dir`. Call recover() before anything else.
  PartitionLog(Disk& disk, std::string dir, LogConfig config = {});

  // Rebuilds the log from its files (see Recovery above). Returns the bytes cut: invalid tails
  // and the segment files deleted after them. `now_ms` starts the flush.ms clock.
  std::uint64_t recover(std::int64_t now_ms = 0);

  // Appends records at the log end as one batch of the leader of `epoch` (the group
  // coordinator's own writes, and tests); returns the offset of the first.
  Offset append(std::span<const Record> records, LeaderEpoch epoch = LeaderEpoch(0), std::int64_t now_ms = 0,
                const ProducerBatchInfo& producer = {});
  // Appends a producer's batch (one, whole and valid: the broker validated it) at the log end
  // as the leader of `epoch` (Kafka's appendAsLeader): its base offset becomes the log end
  // offset and its leader epoch `epoch`, and under LogAppendTime its max timestamp becomes
  // now_ms. The records' bytes are written as they are. Returns the base offset.
  Offset append_as_leader(std::string_view batch, LeaderEpoch epoch, std::int64_t now_ms);
  // The same; records of kKeepRecordsFrom bytes or more are kept as the slices they came in
  // (the disk shares them rather than copy them into its pages: no copy, and no page of its
  // own), smaller ones copied (a page holds them more tightly than their own allocations).
  Offset append_as_leader(const SharedBytes& batch, LeaderEpoch epoch, std::int64_t now_ms);
  static constexpr std::uint64_t kKeepRecordsFrom = std::uint64_t{4} << 10;
  // Appends batches fetched from the leader as its log holds them (read_batches), as they
  // are; `headers` describes them (scan_batches). Their offsets must increase from at least
  // the log end offset (gaps are compaction's) and their epochs must not go back.
  void append_as_follower(const SharedBytes& batches, std::span<const BatchHeader> headers, std::int64_t now_ms = 0);
  // Removes every batch not wholly below `end` (a follower's truncation to the leader's log);
  // the log end offset becomes `end`. No-op if `end` >= the log end offset.
  void truncate_to(Offset end);

  Offset log_start_offset() const { return start_; }
  Offset log_end_offset() const { return end_; }
  // The epoch of the last record appended, or -1 for an empty log.
  LeaderEpoch latest_epoch() const { return epochs_.latest(); }
  // OffsetsForLeaderEpoch (KIP-279): the largest epoch <= `epoch` that this log holds, and the
  // offset just past its last record (the start of the next epoch, or the log end offset).
  // Nothing when the log holds no epoch <= `epoch`.
  std::optional<std::pair<LeaderEpoch, Offset>> end_offset_for_epoch(LeaderEpoch epoch) const;

  // The records with offsets >= `from` of the batches read_batches() would return, decoded,
  // at most max_records of them. Nothing when `from` is below the log start offset.
  std::vector<StoredRecord> read(Offset from, std::int32_t max_records, Offset upto) const;
  // Whole batches as the log holds them (what a fetch is answered with): from the one holding
  // `from` (or the first after it), each wholly below `upto`, while fewer than max_records
  // records were taken (so at least one batch when there is one); `count` is set to how many
  // records they hold. Nothing when `from` is below the log start offset.
  SharedBytes read_batches(Offset from, std::int32_t max_records, Offset upto, std::size_t& count) const;
  // The header of every batch, in offset order (for the producer state, which they describe).
  std::vector<BatchHeader> batch_headers() const;
  // ListOffsets by timestamp: the first offset whose record's timestamp is >= ts_ms.
  std::optional<Offset> offset_for_timestamp(std::int64_t ts_ms) const;

  // Deletes old segments by retention.ms and retention.bytes when cleanup.policy includes
  // delete (rules in retention.h), then trims the epoch cache below the new log start.
  RetentionResult apply_retention(std::int64_t now_ms, Offset high_watermark, std::uint64_t fsync_token = 0);
  // One cleaning pass over the inactive segments when cleanup.policy includes compact (rules
  // in cleaner.h). Records at or above `uncleanable_from` are neither removed nor count as a
  // key's latest (Kafka's first uncleanable offset: pass the last stable offset). The batches
  // of the `aborted` transactions (as a fetch of the whole log is told of them) are removed.
  CompactionResult compact(std::int64_t now_ms, Offset uncleanable_from = kWholeLog, std::uint64_t fsync_token = 0,
                           std::span<const AbortedTransaction> aborted = {});

  // Whether flush.messages records are unflushed, or data has been unflushed since at least
  // flush.ms after the last flush.
  bool flush_due(std::int64_t now_ms) const;
  // Fsyncs every file changed since the last flush with `token`; returns how many fsyncs it
  // started. The flush time is now_ms, or the latest append's time if that is later.
  std::size_t flush(std::uint64_t token, std::int64_t now_ms = 0);

  const std::string& dir() const { return dir_; }
  const LogConfig& config() const { return config_; }
  // Takes a topic's new configuration (as when it is altered): later rolls, retention,
  // compaction and flushes follow it.
  void reconfigure(const LogConfig& config);
  // Bytes of all segment files.
  std::uint64_t size_bytes() const;
  std::uint64_t unflushed_messages() const { return unflushed_messages_; }
  const std::vector<LogSegment>& segments() const { return segments_; }
  const LeaderEpochCache& epoch_cache() const { return epochs_; }

 private:
  LogSegment make_segment(Offset base) const;
  bool should_roll(std::uint64_t batch_bytes, std::int64_t now_ms) const;
  // Asserts that offsets increase from the log end and epochs never go back.
  void check_follows(std::span<const BatchHeader> headers) const;
  // append_as_leader's work: `batch` is the producer's batch; with `kept`, the same bytes as
  // slices to keep from the header on, not copy.
  Offset leader_append(std::string_view batch, const SharedBytes* kept, LeaderEpoch epoch, std::int64_t now_ms);
  // Rolls if due, has `write` append batches holding `count` records (offsets first..last,
  // `bytes` of them) to the active segment, and takes note of them.
  template <typename Write>
  void append_batches(Offset first, Offset last, std::uint64_t count, std::uint64_t bytes, std::int64_t now_ms,
                      Write&& write);
  // Removes a segment's file; with a token, fsyncs the removal at once.
  void delete_file(const std::string& file, std::optional<std::uint64_t> fsync_token);
  std::size_t first_segment_for(Offset offset) const;
  void check_invariants() const;

  // Recovery steps (partition_log_recovery.cc).
  void reset_state(std::int64_t now_ms);
  std::vector<Offset> scan_files();
  std::uint64_t load_segments(const std::vector<Offset>& bases);
  std::uint64_t load_segment(LogSegment& segment);
  std::uint64_t delete_files_from(const std::vector<Offset>& bases, std::size_t first);
  void finish_recovery();

  Disk& disk_;
  std::string dir_;
  LogConfig config_;
  std::vector<LogSegment> segments_;  // by base offset; back() is active
  Offset start_{0};
  Offset end_{0};
  LeaderEpochCache epochs_;
  std::uint64_t unflushed_messages_ = 0;
  std::set<std::string> unflushed_files_;  // ordered: fsyncs go out in a deterministic order
  std::int64_t last_flush_ms_ = 0;
  std::int64_t last_append_ms_ = 0;
};

}  // namespace logsim::engine

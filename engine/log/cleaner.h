// Log compaction (Kafka's LogCleaner) for one partition log: which records a cleaning pass
// keeps, and how a cleaned segment replaces its file so that no crash loses both versions.
//
// What a pass keeps, for each record of an inactive segment:
// - The offset map holds each key's latest offset among the log's records below the
//   uncleanable offset (the caller's bound; by default the whole log, active segment
//   included). Kafka approximates it with a hash map over the dirty section; ours is exact and
//   rebuilt over the whole log on each pass (there is no clean/dirty split).
// - Kept: records at or above the uncleanable offset; records with a null key (a compacted
//   topic's broker rejects them on produce, so only data from before the policy changed has
//   them); records newer than min.compaction.lag.ms (timestamp less than that before now);
//   each key's latest record, unless it is a tombstone (null value) whose segment a cleaning
//   pass first saw at least delete.retention.ms ago.
// - Everything else goes. Offsets never change: removed records leave gaps.
// Kafka applies min.compaction.lag.ms by treating segments with young records as uncleanable
// (they bound its first uncleanable offset); we apply it to each record, which protects the
// same records and still cleans the older ones beside them.
//
// Tombstone expiry (simplified from Kafka): Kafka 3.x stamps a delete horizon into a batch the
// first time the cleaner rewrites it (KIP-534), earlier versions used the segment's last
// modified time. We remember, per segment and in memory only, when a pass first saw it; a
// tombstone goes on a later pass at least delete.retention.ms after that. After a restart the
// clock starts again, which only ever keeps tombstones longer.
//
// Transactions: markers (control batches) stay, and the batches of aborted transactions go
// whole; their keys never enter the offset map, so an aborted write never supersedes a
// committed one (Kafka's cleaner reads the aborted-transaction index for this). The caller
// passes the aborted transactions as a fetch is told of them, and keeps the uncleanable offset
// at or below the last stable offset, so no undecided transaction is cleaned.
//
// Batches: a cleaned batch keeps its base offset, its lastOffsetDelta, its leader epoch and
// producer, and holds only the records kept, their bytes as they were; a batch left without
// records goes (Kafka keeps the last batch of each producer for its producer state).
//
// The swap: the cleaned batches are written to "<segment file>.cleaned", which is fsynced, then
// renamed over the segment file, which is fsynced so the rename is durable. A crash or power
// loss at any point leaves either the old segment file (perhaps with a .cleaned file beside it,
// which recovery deletes) or the cleaned one; both hold every key's latest record.
// Simplification: fsync completes asynchronously (the Env reports it), and the rename is issued
// without waiting for it. That is safe on the simulated disk, whose rename only becomes durable
// through the later fsync of the segment file, which snapshots the renamed bytes themselves.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/env/disk.h"
#include "engine/protocol/messages.h"
#include "engine/log/segment.h"

namespace logsim::engine {

inline constexpr std::string_view kCleanedSuffix = ".cleaned";

// Key -> latest offset. Ordered, so nothing depends on hash order.
using OffsetMap = std::map<std::string, Offset, std::less<>>;

// The base offsets of the segments' batches that hold aborted transactions' records, given
// the aborted transactions among them (engine/protocol/aborted_batches.h).
std::set<Offset> find_aborted_batches(std::span<const LogSegment> segments, std::span<const AbortedTransaction> aborted);

// Each key's latest offset among the segments' records below `uncleanable_from`, leaving out
// the batches in `aborted`.
OffsetMap build_offset_map(std::span<const LogSegment> segments, Offset uncleanable_from,
                           const std::set<Offset>& aborted = {});

struct CleaningRules {
  std::int64_t now_ms = 0;
  std::int64_t min_compaction_lag_ms = 0;
  std::int64_t delete_retention_ms = 0;
  Offset uncleanable_from;
  const std::set<Offset>* aborted = nullptr;  // base offsets of aborted batches: removed whole
};

struct CleanedSegment {
  std::string bytes;                 // the batches kept, as the cleaned file holds them
  std::vector<BatchHeader> headers;  // theirs, in order
  std::uint64_t records_removed = 0;
  std::uint64_t tombstones_removed = 0;
};

// The records of `segment` that a pass keeps under `rules`.
CleanedSegment clean_segment(const LogSegment& segment, const OffsetMap& map, const CleaningRules& rules);

// Replaces the file's contents by `bytes`, crash-safely (see the header). Returns the number of
// fsyncs started with `fsync_token`.
std::size_t swap_in_cleaned(Disk& disk, const std::string& file, std::string_view bytes, std::uint64_t fsync_token);

}  // namespace logsim::engine

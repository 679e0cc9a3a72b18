// The cleaner's offset map, its keep-or-remove rule, and the crash-safe swap of a cleaned file.
#include "engine/log/cleaner.h"

#include "engine/base/assert.h"
#include "engine/protocol/aborted_batches.h"
#include "engine/protocol/log_config.h"
#include "engine/protocol/record_batch.h"

namespace logsim::engine {
namespace {

bool tombstones_expired(const LogSegment& segment, const CleaningRules& rules) {
  const auto seen = segment.first_cleaned_ms();
  return seen.has_value() && age_reaches(*seen, rules.now_ms, rules.delete_retention_ms);
}

// min.compaction.lag.ms: a record younger than the lag is never removed. 0 means no lag at
// all, as in Kafka (so even a record timestamped in the future may go).
bool within_lag(const StoredRecord& rec, const CleaningRules& rules) {
  if (rules.min_compaction_lag_ms == 0) return false;
  return !age_reaches(rec.record.timestamp_ms, rules.now_ms, rules.min_compaction_lag_ms);
}

bool keep(const StoredRecord& rec, const OffsetMap& map, const CleaningRules& rules, bool expired) {
  if (rec.offset >= rules.uncleanable_from || !rec.record.key || within_lag(rec, rules)) return true;
  const auto latest = map.find(*rec.record.key);
  LOGSIM_ASSERT(latest != map.end() && latest->second >= rec.offset, "a key is missing from the offset map");
  if (latest->second != rec.offset) return false;  // a later record of the key supersedes it
  return rec.record.value.has_value() || !expired;
}

}  // namespace

std::set<Offset> find_aborted_batches(std::span<const LogSegment> segments, std::span<const AbortedTransaction> aborted) {
  std::set<Offset> out;
  if (aborted.empty()) return out;
  AbortedBatches filter(aborted);
  std::string scratch;
  for (const LogSegment& segment : segments) {
    for (std::size_t i = 0; i < segment.batch_count(); ++i) {
      const std::string_view batch = segment.batch_bytes(i, scratch);
      const BatchHeader h = *parse_batch_header(batch);
      if (!h.idempotent()) continue;  // neither transactional nor a marker
      const std::optional<TxnMarker> marker = h.control() ? parse_control_batch(batch) : std::nullopt;
      if (filter.aborted(h, marker)) out.insert(h.base_offset);
    }
  }
  return out;
}

OffsetMap build_offset_map(std::span<const LogSegment> segments, Offset uncleanable_from,
                           const std::set<Offset>& aborted) {
  OffsetMap map;
  std::string scratch;
  for (const LogSegment& segment : segments) {
    for (std::size_t i = 0; i < segment.batch_count(); ++i) {
      if (segment.base_of(i) >= uncleanable_from) return map;
      if (aborted.count(segment.base_of(i)) != 0) continue;  // an aborted write supersedes nothing
      const std::string_view batch = segment.batch_bytes(i, scratch);
      if (parse_batch_header(batch)->control()) continue;  // a marker's key is no record's key
      for_each_record(batch, [&](const StoredRecord& rec) {
        if (rec.offset >= uncleanable_from) return false;
        if (rec.record.key) map.insert_or_assign(*rec.record.key, rec.offset);
        return true;
      });
    }
  }
  return map;
}

CleanedSegment clean_segment(const LogSegment& segment, const OffsetMap& map, const CleaningRules& rules) {
  CleanedSegment out;
  const bool expired = tombstones_expired(segment, rules);
  const auto keeps = [&](const StoredRecord& rec) {
    if (keep(rec, map, rules, expired)) return true;
    ++out.records_removed;
    if (!rec.record.value) ++out.tombstones_removed;
    return false;
  };
  std::string scratch;
  for (std::size_t i = 0; i < segment.batch_count(); ++i) {
    const std::size_t at = out.bytes.size();
    const std::string_view batch = segment.batch_bytes(i, scratch);
    const BatchHeader h = *parse_batch_header(batch);
    if (h.control()) {
      out.bytes.append(batch);  // markers stay: they end transactions
    } else if (rules.aborted != nullptr && h.base_offset < rules.uncleanable_from && rules.aborted->count(h.base_offset) != 0) {
      out.records_removed += static_cast<std::uint64_t>(h.record_count);  // an aborted transaction's records go
      continue;
    } else if (filter_batch(batch, keeps, out.bytes) == 0) {
      continue;
    }
    out.headers.push_back(*parse_batch_header(std::string_view(out.bytes).substr(at)));
  }
  return out;
}

std::size_t swap_in_cleaned(Disk& disk, const std::string& file, std::string_view bytes, std::uint64_t fsync_token) {
  const std::string cleaned = file + std::string(kCleanedSuffix);
  disk.remove(cleaned);  // a leftover of an earlier, interrupted pass (recovery removes them too)
  disk.append(cleaned, bytes);
  disk.fsync(cleaned, fsync_token);
  disk.rename(cleaned, file);
  disk.fsync(file, fsync_token);
  return 2;
}

}  // namespace logsim::engine

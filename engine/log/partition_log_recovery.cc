// Recovery of a partition log from its segment files (the rules are in partition_log.h).
#include "engine/log/partition_log.h"

#include <algorithm>

#include "engine/base/assert.h"
#include "engine/log/cleaner.h"

namespace logsim::engine {

std::uint64_t PartitionLog::recover(std::int64_t now_ms) {
  reset_state(now_ms);
  const std::vector<Offset> bases = scan_files();
  const std::uint64_t cut = load_segments(bases);
  finish_recovery();
  return cut;
}

void PartitionLog::reset_state(std::int64_t now_ms) {
  segments_.clear();
  epochs_.clear();
  start_ = Offset(0);
  end_ = Offset(0);
  unflushed_messages_ = 0;
  unflushed_files_.clear();
  last_flush_ms_ = now_ms;
  last_append_ms_ = now_ms;
}

// The base offsets of the segment files directly under dir, in order. Deletes the files an
// interrupted cleaning left.
std::vector<Offset> PartitionLog::scan_files() {
  std::vector<Offset> bases;
  const std::string prefix = dir_ + "/";
  for (const std::string& file : disk_.list()) {
    if (!file.starts_with(prefix) || file.find('/', prefix.size()) != std::string::npos) continue;
    if (file.ends_with(kCleanedSuffix)) {
      delete_file(file, std::nullopt);
    } else if (const auto base = LogSegment::parse_file_name(dir_, file)) {
      bases.push_back(*base);
    }
  }
  // list() is sorted and the names are zero-padded to one width, so this is offset order.
  LOGSIM_ASSERT(std::is_sorted(bases.begin(), bases.end()), "segment files out of order in " + dir_);
  return bases;
}

std::uint64_t PartitionLog::load_segments(const std::vector<Offset>& bases) {
  std::uint64_t cut = 0;
  for (std::size_t i = 0; i < bases.size(); ++i) {
    // An empty segment before this one holds nothing: its file goes.
    if (!segments_.empty() && segments_.back().empty()) {
      delete_file(segments_.back().file(), std::nullopt);
      segments_.pop_back();
    }
    // The batches before must lie below this segment's base; if not, the files disagree
    // (e.g. a truncation's removals were lost to a power loss), and the earlier ones win.
    if (!segments_.empty() && segments_.back().last_offset() >= bases[i]) return cut + delete_files_from(bases, i);
    segments_.push_back(make_segment(bases[i]));
    const std::uint64_t segment_cut = load_segment(segments_.back());
    cut += segment_cut;
    if (segment_cut > 0) return cut + delete_files_from(bases, i + 1);
  }
  return cut;
}

// Loads the file's valid prefix into `segment` and cuts the file after it; returns the bytes
// cut. Valid: whole batches with well-formed records and good CRCs, with offsets increasing
// from the batches before and from the base, and leader epochs that do not go back.
std::uint64_t PartitionLog::load_segment(LogSegment& segment) {
  const std::string& file = segment.file();
  const std::uint64_t size = disk_.size(file);
  const std::string bytes = disk_.read(file, 0, size);
  const BatchScan scan = scan_batches(bytes, /*verify_records=*/true);
  Offset next = segment.base_offset();
  if (segments_.size() > 1) next = std::max(next, segments_[segments_.size() - 2].last_offset() + 1);
  std::size_t n = 0;
  std::uint64_t valid = 0;
  for (; n < scan.batches.size(); ++n) {
    const BatchHeader& h = scan.batches[n];
    if (h.base_offset < next || !epochs_.accepts(h.leader_epoch)) break;
    epochs_.assign(h.leader_epoch, h.base_offset);
    next = h.last_offset() + 1;
    valid += h.size_bytes();
  }
  segment.load(std::span<const BatchHeader>(scan.batches.data(), n));
  LOGSIM_ASSERT(segment.size_bytes() == valid, "the scan and the segment disagree on " + file);
  unflushed_files_.insert(file);  // page-cache data may survive a crash without being durable
  if (valid == size) return 0;
  disk_.truncate(file, valid);
  return size - valid;
}

std::uint64_t PartitionLog::delete_files_from(const std::vector<Offset>& bases, std::size_t first) {
  std::uint64_t bytes = 0;
  for (std::size_t i = first; i < bases.size(); ++i) {
    const std::string file = LogSegment::file_name(dir_, bases[i]);
    bytes += disk_.size(file);
    delete_file(file, std::nullopt);
  }
  return bytes;
}

void PartitionLog::finish_recovery() {
  if (segments_.empty()) {
    // A new log: create its first segment file, as Kafka does.
    segments_.push_back(make_segment(Offset(0)));
    disk_.append(segments_.back().file(), {});
    unflushed_files_.insert(segments_.back().file());
  }
  const LogSegment& first = segments_.front();
  const LogSegment& active = segments_.back();
  start_ = first.empty() ? first.base_offset() : first.first_offset();
  end_ = active.empty() ? active.base_offset() : active.last_offset() + 1;
  check_invariants();
}

}  // namespace logsim::engine

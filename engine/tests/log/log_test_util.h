// Helpers shared by the segmented-log tests: a SimDisk whose fsyncs complete only when the
// test says so (recording each fsync's token), record builders, and views of a log's offsets,
// segments and files.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/protocol/messages.h"
#include "engine/env/rng.h"
#include "engine/log/partition_log.h"
#include "engine/protocol/record_batch.h"
#include "sim/disk.h"

namespace logsim::engine::logtest {

inline Record rec(std::optional<std::string> key, std::optional<std::string> value, std::int64_t ts = 0) {
  return Record{std::move(key), std::move(value), ts};
}

// A record of exactly kRecordBytes in a batch: a one-letter key and a two-letter value (and
// timestamps within 63 ms of the batch's first, so its delta takes one byte).
inline Record kv(char key, std::string value, std::int64_t ts = 0) {
  value.resize(2, '_');
  return rec(std::string(1, key), std::move(value), ts);
}
// The bytes of a batch of kv() records: its header, then kRecordBytes a record.
inline const std::uint64_t kRecordBytes =
    encode_batch(std::vector<Record>{kv('a', "v"), kv('b', "v")}).size() - encode_batch(std::vector<Record>{kv('a', "v")}).size();
inline std::uint64_t batch_bytes(std::uint64_t records) { return kBatchHeaderBytes + records * kRecordBytes; }
// A batch of one kv() record: what one append of one record adds to a segment.
inline const std::uint64_t kFixedBytes = batch_bytes(1);

class TestDisk {
 public:
  explicit TestDisk(sim::SimDiskOptions options = {}, std::uint64_t seed = 1)
      : disk(options, Rng(seed), [this](Nanos, std::uint64_t token, std::function<void()> complete) {
          tokens.push_back(token);
          completions.push_back(std::move(complete));
        }) {}

  // Completes every fsync started so far.
  void complete_fsyncs() {
    std::vector<std::function<void()>> batch = std::move(completions);
    completions.clear();
    for (auto& c : batch) c();
  }

  std::vector<std::uint64_t> tokens;                 // of every fsync started, in order
  std::vector<std::function<void()>> completions;    // declared before disk: the sink uses them
  sim::SimDisk disk;
};

inline std::string segment_file(const std::string& dir, std::int64_t base) {
  return LogSegment::file_name(dir, Offset(base));
}

// Every file directly or indirectly under dir, sorted.
inline std::vector<std::string> files_under(const Disk& disk, const std::string& dir) {
  std::vector<std::string> out;
  for (const std::string& f : disk.list()) {
    if (f.starts_with(dir + "/")) out.push_back(f);
  }
  return out;
}

inline std::vector<std::string> segment_files(const std::string& dir, const std::vector<std::int64_t>& bases) {
  std::vector<std::string> out;
  for (std::int64_t b : bases) out.push_back(segment_file(dir, b));
  return out;
}

inline std::vector<std::int64_t> offsets_of(const std::vector<StoredRecord>& records) {
  std::vector<std::int64_t> out;
  for (const StoredRecord& r : records) out.push_back(r.offset.value());
  return out;
}

inline std::vector<StoredRecord> read_all(const PartitionLog& log) {
  return log.read(log.log_start_offset(), 1'000'000, log.log_end_offset());
}

inline std::vector<std::int64_t> all_offsets(const PartitionLog& log) { return offsets_of(read_all(log)); }

inline std::vector<std::int64_t> bases_of(const PartitionLog& log) {
  std::vector<std::int64_t> out;
  for (const LogSegment& s : log.segments()) out.push_back(s.base_offset().value());
  return out;
}

// The records as batches of one record each, as a segment file holding exactly them.
inline std::string batches(const std::vector<StoredRecord>& records) {
  std::string out;
  for (const StoredRecord& r : records) encode_stored_batch(std::span<const StoredRecord>(&r, 1), out);
  return out;
}

// Whether the file holds exactly the segment's batches: whole, valid, as many as it counts.
inline ::testing::AssertionResult holds_exactly_its_batches(const Disk& disk, const LogSegment& segment) {
  const std::string bytes = disk.read(segment.file(), 0, disk.size(segment.file()));
  const BatchScan scan = scan_batches(bytes, true);
  if (!scan.complete) return ::testing::AssertionFailure() << segment.file() << " ends in a partial or invalid batch";
  if (scan.batches.size() != segment.batch_count()) {
    return ::testing::AssertionFailure() << segment.file() << " holds " << scan.batches.size() << " batches, not "
                                         << segment.batch_count();
  }
  for (std::size_t i = 0; i < scan.batches.size(); ++i) {
    if (scan.batches[i].base_offset != segment.base_of(i) || scan.batches[i].last_offset() != segment.last_of(i)) {
      return ::testing::AssertionFailure() << segment.file() << ": batch " << i << " is not where the segment says";
    }
  }
  return ::testing::AssertionSuccess();
}

// Appends the records as a follower appends its leader's batches, in one append: a batch for
// each run of records with the same leader epoch and producer, holding them at their offsets.
inline void replicate(PartitionLog& log, const std::vector<StoredRecord>& records, std::int64_t now_ms = 0) {
  std::string bytes;
  for (std::size_t i = 0; i < records.size();) {
    std::size_t j = i + 1;
    while (j < records.size() && records[j].leader_epoch == records[i].leader_epoch &&
           records[j].producer_id == records[i].producer_id && records[j].producer_epoch == records[i].producer_epoch) {
      ++j;
    }
    encode_stored_batch(std::span<const StoredRecord>(records.data() + i, j - i), bytes);
    i = j;
  }
  const BatchScan scan = scan_batches(bytes, true);
  log.append_as_follower(SharedBytes(bytes), scan.batches, now_ms);
}

// A config whose segments hold `records_per_segment` records made by kv(), each appended alone.
inline LogConfig small_segments(std::int64_t records_per_segment) {
  LogConfig c;
  c.segment_bytes = static_cast<std::int64_t>(kFixedBytes) * records_per_segment;
  return c;
}

}  // namespace logsim::engine::logtest

// Helpers shared by the segmented-log tests: a SimDisk whose fsyncs complete only when the
// test says so (recording each fsync's token), record builders, and views of a log's offsets,
// segments and files.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/env/messages.h"
#include "engine/env/rng.h"
#include "engine/log/partition_log.h"
#include "engine/log/record_codec.h"
#include "sim/disk.h"

namespace logsim::engine::logtest {

inline Record rec(std::optional<std::string> key, std::optional<std::string> value, std::int64_t ts = 0) {
  return Record{std::move(key), std::move(value), ts};
}

// A record of exactly kFixedBytes on disk: a one-letter key and a two-letter value.
inline Record kv(char key, std::string value, std::int64_t ts = 0) {
  value.resize(2, '_');
  return rec(std::string(1, key), std::move(value), ts);
}
inline const std::uint64_t kFixedBytes = encoded_size(StoredRecord{Offset(0), kv('a', "v")});

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

// The frames of the records, as a segment file holding exactly them.
inline std::string frames(const std::vector<StoredRecord>& records) {
  std::string out;
  for (const StoredRecord& r : records) encode_record(r, out);
  return out;
}

// A config whose segments hold `records_per_segment` records made by kv().
inline LogConfig small_segments(std::int64_t records_per_segment) {
  LogConfig c;
  c.segment_bytes = static_cast<std::int64_t>(kFixedBytes) * records_per_segment;
  return c;
}

}  // namespace logsim::engine::logtest

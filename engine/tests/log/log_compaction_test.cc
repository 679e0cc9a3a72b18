// Tests of compaction: exactly the last offset per key survives (the active segment counting
// as newer but never cleaned), offsets unchanged, min.compaction.lag.ms, tombstones kept for
// delete.retention.ms after a pass first saw them, null keys, the uncleanable offset, the log
// start offset, and crash safety: a process dying mid-swap leaves a .cleaned file that
// recovery deletes, and power losses leave either the old or the cleaned segment.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/log/cleaner.h"
#include "engine/log/partition_log.h"
#include "engine/tests/log/log_test_util.h"

namespace logsim::engine {
namespace {

using namespace logtest;  // NOLINT(google-build-using-namespace): test helpers

const std::string kDir = "t-0";

struct Spec {
  std::optional<char> key;  // nullopt: a null key
  bool tombstone = false;
  std::int64_t ts = 0;
};

// One record per append (segments of 3 records), valued by its offset so survivors are known.
void fill(PartitionLog& log, const std::vector<Spec>& specs) {
  for (const Spec& s : specs) {
    std::string value = std::to_string(log.log_end_offset().value());
    Record r = kv(s.key.value_or('?'), value, s.ts);
    if (!s.key) {
      value.resize(3, '_');  // as long as a keyed record
      r = rec(std::nullopt, value, s.ts);
    }
    if (s.tombstone) r.value.reset();
    log.append(std::vector<Record>{r});
  }
}

LogConfig compacted(std::int64_t per_segment = 3) {
  LogConfig c = small_segments(per_segment);
  c.cleanup_policy = CleanupPolicy::kCompact;
  return c;
}

// Each surviving record still carries the value it was appended with (its own offset).
void expect_values_match_offsets(const PartitionLog& log) {
  for (const StoredRecord& r : read_all(log)) {
    if (!r.record.value) continue;
    EXPECT_EQ(r.record.value->substr(0, std::to_string(r.offset.value()).size()), std::to_string(r.offset.value()))
        << "offset " << r.offset;
  }
}

TEST(LogCompaction, KeepsExactlyTheLastOffsetPerKeyAndNeverCleansTheActiveSegment) {
  TestDisk t;
  PartitionLog log(t.disk, kDir, compacted());
  log.recover();
  // [0 a, 1 b, 2 a] [3 c, 4 b(tombstone), 5 a] [6 c, 7 d, 8 e] active [9 b, 10 b]
  fill(log, {{'a'}, {'b'}, {'a'}, {'c'}, {'b', true}, {'a'}, {'c'}, {'d'}, {'e'}, {'b'}, {'b'}});
  ASSERT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 3, 6, 9}));
  const CompactionResult r = log.compact(0);
  // Latest: a 5, c 6, d 7, e 8, b 10 (in the active segment: it supersedes 1 and 4). The
  // active segment keeps both of its b's. The first segment is left empty and goes.
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{5, 6, 7, 8, 9, 10}));
  expect_values_match_offsets(log);
  EXPECT_EQ(r.records_removed, 5u);
  EXPECT_EQ(r.tombstones_removed, 1u);  // superseded, so delete.retention.ms plays no part
  EXPECT_EQ(r.segments_deleted, 1u);
  EXPECT_EQ(r.segments_cleaned, 1u);
  EXPECT_EQ(r.bytes_removed, 5 * kFixedBytes - 2);  // the tombstone has no 2-byte value
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{3, 6, 9}));
  EXPECT_EQ(files_under(t.disk, kDir), segment_files(kDir, {3, 6, 9}));
  EXPECT_EQ(t.disk.read(segment_file(kDir, 3), 0, 1 << 20), batches(log.segments()[0].records()));
  // Offsets are unchanged; the log start does not move (only retention moves it).
  EXPECT_EQ(log.log_start_offset(), Offset(0));
  EXPECT_EQ(log.log_end_offset(), Offset(11));
  EXPECT_EQ(offsets_of(log.read(Offset(0), 2, Offset(11))), (std::vector<std::int64_t>{5, 6}));
  EXPECT_EQ(log.append(std::vector<Record>{kv('z', "v")}), Offset(11));
  // A second pass finds nothing more to do.
  EXPECT_EQ(log.compact(0).records_removed, 0u);
  // After a crash the files give the same records; the log start becomes the first record's
  // offset, as there is no log-start checkpoint.
  t.disk.crash();
  PartitionLog after(t.disk, kDir, compacted());
  EXPECT_EQ(after.recover(), 0u);
  EXPECT_EQ(all_offsets(after), (std::vector<std::int64_t>{5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(after.log_start_offset(), Offset(5));
  EXPECT_EQ(after.log_end_offset(), Offset(12));
}

TEST(LogCompaction, OnlyWhenTheCleanupPolicyIncludesCompact) {
  for (const CleanupPolicy policy : {CleanupPolicy::kDelete, CleanupPolicy::kCompact, CleanupPolicy::kCompactDelete}) {
    TestDisk t;
    LogConfig config = compacted();
    config.cleanup_policy = policy;
    PartitionLog log(t.disk, kDir, config);
    log.recover();
    fill(log, {{'a'}, {'a'}, {'a'}, {'a'}});
    EXPECT_EQ(log.compact(0).records_removed, policy == CleanupPolicy::kDelete ? 0u : 3u);
  }
}

TEST(LogCompaction, ALogWithOnlyAnActiveSegmentIsLeftAlone) {
  TestDisk t;
  PartitionLog log(t.disk, kDir, compacted(100));
  log.recover();
  fill(log, {{'a'}, {'a'}, {'a', true}, {'a'}});
  EXPECT_EQ(log.compact(1'000'000'000).records_removed, 0u);
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{0, 1, 2, 3}));
}

TEST(LogCompaction, MinCompactionLagProtectsRecentRecords) {
  TestDisk t;
  LogConfig config = compacted();
  config.min_compaction_lag_ms = 1000;
  PartitionLog log(t.disk, kDir, config);
  log.recover();
  // [0 a@500, 1 b@501, 2 c@0] [3 a@0, 4 b@0, 5 c@1400] active [6 c@0]
  fill(log, {{'a', false, 500}, {'b', false, 501}, {'c', false, 0}, {'a'}, {'b'}, {'c', false, 1400}, {'c'}});
  // At 1500: 0 is exactly 1000 ms old, so it may go; 1 (999 ms) and 5 (100 ms) may not.
  log.compact(1500);
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{1, 3, 4, 5, 6}));
  log.compact(2000);
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{3, 4, 5, 6}));
  log.compact(2399);
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{3, 4, 5, 6}));
  log.compact(2400);
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{3, 4, 6}));
  expect_values_match_offsets(log);
}

TEST(LogCompaction, TombstonesGoOnlyDeleteRetentionMsAfterAPassFirstSawTheirSegment) {
  TestDisk t;
  LogConfig config = compacted();
  config.delete_retention_ms = 1000;
  PartitionLog log(t.disk, kDir, config);
  log.recover();
  // [0 a, 1 b, 2 a×] [3 c, 4 c, 5 d×] active [6 e]; every timestamp 0, so record age is not
  // what decides.
  fill(log, {{'a'}, {'b'}, {'a', true}, {'c'}, {'c'}, {'d', true}, {'e'}});
  CompactionResult r = log.compact(100);  // first seen at 100: the tombstones stay
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{1, 2, 4, 5, 6}));
  EXPECT_EQ(r.tombstones_removed, 0u);
  EXPECT_EQ(log.compact(1099).records_removed, 0u);
  // A segment that becomes inactive later starts its own clock: [6 e, 7 f×, 8 g] rolls.
  fill(log, {{'f', true}, {'g'}, {'h'}});
  ASSERT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 3, 6, 9}));
  r = log.compact(1100);
  EXPECT_EQ(r.tombstones_removed, 2u);
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{1, 4, 6, 7, 8, 9}));
  EXPECT_EQ(log.compact(2099).records_removed, 0u);
  r = log.compact(2100);
  EXPECT_EQ(r.tombstones_removed, 1u);
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{1, 4, 6, 8, 9}));
  expect_values_match_offsets(log);
}

// Even with delete.retention.ms = 0 the pass that first sees a tombstone keeps it (as Kafka's
// first pass only sets the delete horizon); the next pass removes it.
TEST(LogCompaction, WithZeroDeleteRetentionATombstoneSurvivesTheFirstPass) {
  TestDisk t;
  LogConfig config = compacted();
  config.delete_retention_ms = 0;
  PartitionLog log(t.disk, kDir, config);
  log.recover();
  fill(log, {{'a'}, {'a', true}, {'b'}, {'c'}});
  EXPECT_EQ(log.compact(500).tombstones_removed, 0u);
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(log.compact(500).tombstones_removed, 1u);
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{2, 3}));
}

TEST(LogCompaction, NullKeyRecordsAreKeptAsTheyAre) {
  TestDisk t;
  PartitionLog log(t.disk, kDir, compacted());
  log.recover();
  fill(log, {{std::nullopt}, {std::nullopt}, {'a'}, {'a'}, {std::nullopt}, {'a'}, {'b'}});
  log.compact(0);
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{0, 1, 4, 5, 6}));
}

// Records at or above the uncleanable offset (the high watermark) neither go nor supersede.
TEST(LogCompaction, TheUncleanableOffsetBoundsWhatCountsAsLatest) {
  TestDisk t;
  PartitionLog log(t.disk, kDir, compacted());
  log.recover();
  // [0 a, 1 b, 2 c] [3 a, 4 x, 5 b] active [6 c]
  fill(log, {{'a'}, {'b'}, {'c'}, {'a'}, {'x'}, {'b'}, {'c'}});
  log.compact(0, Offset(5));
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}));
  log.compact(0);
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{3, 4, 5, 6}));
}

TEST(LogCompaction, TruncationBelowTheFirstRemainingSegmentStartsAfresh) {
  TestDisk t;
  PartitionLog log(t.disk, kDir, compacted());
  log.recover();
  fill(log, {{'a'}, {'a'}, {'a'}, {'a'}, {'b'}, {'c'}, {'d'}});
  log.compact(0);
  ASSERT_EQ(bases_of(log), (std::vector<std::int64_t>{3, 6}));
  log.truncate_to(Offset(1));  // above the log start (0), below every segment
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(files_under(t.disk, kDir), segment_files(kDir, {1}));
  EXPECT_EQ(log.log_start_offset(), Offset(0));
  EXPECT_EQ(log.log_end_offset(), Offset(1));
  EXPECT_EQ(log.append(std::vector<Record>{kv('z', "v")}), Offset(1));
}

TEST(LogCompaction, TheSwapIsFsyncedWithTheToken) {
  TestDisk t;
  PartitionLog log(t.disk, kDir, compacted());
  log.recover();
  fill(log, {{'a'}, {'a'}, {'b'}, {'a'}, {'a'}, {'a'}, {'b'}});
  t.tokens.clear();
  const CompactionResult r = log.compact(0, PartitionLog::kWholeLog, 77);
  // The first segment empties and goes (one fsync, of the removal); the second keeps [5]
  // (two: the .cleaned file, then the segment file after the rename).
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{5, 6}));
  EXPECT_EQ(r.fsyncs_started, 3u);
  EXPECT_EQ(t.tokens, (std::vector<std::uint64_t>{77, 77, 77}));
}

// ---- Crash safety.

struct ProcessDied {};

// Forwards to a disk, but the process "dies" (throws) when it would rename: the moment
// between writing a .cleaned file and swapping it in.
class DyingDisk final : public Disk {
 public:
  explicit DyingDisk(Disk& inner) : inner_(inner) {}
  bool exists(std::string_view f) const override { return inner_.exists(f); }
  std::uint64_t size(std::string_view f) const override { return inner_.size(f); }
  std::string read(std::string_view f, std::uint64_t o, std::uint64_t n) const override { return inner_.read(f, o, n); }
  std::vector<std::string> list() const override { return inner_.list(); }
  void append(std::string_view f, std::string_view b) override { inner_.append(f, b); }
  void truncate(std::string_view f, std::uint64_t s) override { inner_.truncate(f, s); }
  void rename(std::string_view, std::string_view) override { throw ProcessDied{}; }
  void remove(std::string_view f) override { inner_.remove(f); }
  void fsync(std::string_view f, std::uint64_t token) override { inner_.fsync(f, token); }

 private:
  Disk& inner_;
};

// [0 a, 1 b, 2 a] [3 c, 4 c, 5 d] active [6 a]: cleaning rewrites the first segment to [1]
// and the second to [4, 5].
const std::vector<Spec> kCrashLog = {{'a'}, {'b'}, {'a'}, {'c'}, {'c'}, {'d'}, {'a'}};
const std::vector<std::int64_t> kAll = {0, 1, 2, 3, 4, 5, 6};
const std::vector<std::int64_t> kCleaned = {1, 4, 5, 6};

TEST(LogCompactionCrash, AProcessDyingMidSwapLeavesACleanedFileThatRecoveryDeletes) {
  for (const bool power_loss : {false, true}) {
    SCOPED_TRACE(power_loss ? "power loss" : "crash");
    TestDisk t;
    DyingDisk dying(t.disk);
    {
      PartitionLog log(dying, kDir, compacted());
      log.recover();
      fill(log, kCrashLog);
      log.flush(1);
      t.complete_fsyncs();
      EXPECT_THROW(log.compact(0), ProcessDied);
    }
    const std::string cleaned = segment_file(kDir, 0) + ".cleaned";
    ASSERT_TRUE(t.disk.exists(cleaned));
    t.complete_fsyncs();  // the .cleaned file is durable too
    if (power_loss) {
      t.disk.power_loss();
    } else {
      t.disk.crash();
    }
    ASSERT_TRUE(t.disk.exists(cleaned));
    PartitionLog log(t.disk, kDir, compacted());
    EXPECT_EQ(log.recover(), 0u);
    EXPECT_FALSE(t.disk.exists(cleaned));
    EXPECT_EQ(files_under(t.disk, kDir), segment_files(kDir, {0, 3, 6}));
    EXPECT_EQ(all_offsets(log), kAll);
    expect_values_match_offsets(log);
    // Cleaning again completes, and its result is what the files hold.
    log.compact(0);
    EXPECT_EQ(all_offsets(log), kCleaned);
    t.disk.crash();
    PartitionLog after(t.disk, kDir, compacted());
    after.recover();
    EXPECT_EQ(all_offsets(after), kCleaned);
  }
}

// A power loss after a pass: with the pass's fsyncs completed the cleaned segments survive;
// without, the old ones come back whole. Never a mix within a segment, never a lost latest.
TEST(LogCompactionCrash, PowerLossKeepsEitherTheOldOrTheCleanedSegment) {
  for (const bool completed : {false, true}) {
    SCOPED_TRACE(completed ? "fsyncs completed" : "fsyncs pending");
    TestDisk t;
    {
      PartitionLog log(t.disk, kDir, compacted());
      log.recover();
      fill(log, kCrashLog);
      log.flush(1);
      t.complete_fsyncs();
      log.compact(0, PartitionLog::kWholeLog, 2);
      EXPECT_EQ(all_offsets(log), kCleaned);
      if (completed) t.complete_fsyncs();
    }
    t.disk.power_loss();
    PartitionLog log(t.disk, kDir, compacted());
    EXPECT_EQ(log.recover(), 0u);
    EXPECT_EQ(files_under(t.disk, kDir), segment_files(kDir, {0, 3, 6}));  // no .cleaned file
    EXPECT_EQ(all_offsets(log), completed ? kCleaned : kAll);
    for (const LogSegment& s : log.segments()) EXPECT_TRUE(holds_exactly_its_batches(t.disk, s));
    expect_values_match_offsets(log);
  }
}

}  // namespace
}  // namespace logsim::engine

namespace logsim::engine {
namespace {

// Transactions under compaction (Kafka's cleaner): markers stay, an aborted transaction's
// records go, and an aborted write never counts as its key's latest, so the committed value
// it would have superseded survives for read_committed consumers.
TEST(LogCompaction, AbortedTransactionsGoAndNeverSupersedeCommittedRecords) {
  const auto build = [](PartitionLog& log) {
    log.recover();
    const auto txn = [&](std::int64_t pid, const std::string& value) {
      log.append_as_leader(encode_batch(std::vector<Record>{kv('k', value)},
                                        BatchMeta{Offset(0), LeaderEpoch(-1), ProducerId(pid), ProducerEpoch(0), Sequence(0), true}),
                           LeaderEpoch(0), 0);
    };
    const auto marker = [&](std::int64_t pid, ControlType type) {
      log.append_as_leader(encode_control_batch(TxnMarker{ProducerId(pid), ProducerEpoch(0), type, 0}, 0), LeaderEpoch(0), 0);
    };
    txn(1, "ok");                      // 0
    marker(1, ControlType::kCommit);   // 1
    txn(2, "no");                      // 2
    marker(2, ControlType::kAbort);    // 3
    for (int i = 0; i < 8; ++i) log.append(std::vector<Record>{kv('z', "filler")});  // 4..11
  };
  const auto values_of_k = [](const PartitionLog& log) {
    std::vector<std::string> v;
    for (const StoredRecord& r : read_all(log)) {
      if (r.record.key == "k") v.push_back(*r.record.value);
    }
    return v;
  };
  const auto markers = [](const PartitionLog& log) {
    int n = 0;
    for (const BatchHeader& h : log.batch_headers()) n += h.control() ? 1 : 0;
    return n;
  };
  TestDisk disk;
  PartitionLog log(disk.disk, "t-0", compacted());
  build(log);
  ASSERT_GE(log.segments().size(), 3u);
  const std::vector<AbortedTransaction> aborted{{ProducerId(2), Offset(2)}};
  const CompactionResult r = log.compact(0, PartitionLog::kWholeLog, 0, aborted);
  EXPECT_EQ(values_of_k(log), (std::vector<std::string>{"ok"}));
  EXPECT_EQ(markers(log), 2) << "markers stay";
  EXPECT_GE(r.records_removed, 1u);

  // Without the aborted list the aborted write counts as k's latest: the committed one goes.
  TestDisk disk2;
  PartitionLog blind(disk2.disk, "t-0", compacted());
  build(blind);
  blind.compact(0);
  EXPECT_EQ(values_of_k(blind), (std::vector<std::string>{"no"}));
}

}  // namespace
}  // namespace logsim::engine

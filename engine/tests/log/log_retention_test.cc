// Tests of retention: which segments retention.ms and retention.bytes delete (Kafka's exact
// rules, oldest first, as a prefix), the high-watermark limit, the active segment rule, the
// cleanup policy, the log start offset and epoch cache after deletion, and that deletions are
// made durable with the caller's fsync token.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/log/partition_log.h"
#include "engine/tests/log/log_test_util.h"

namespace logsim::engine {
namespace {

using namespace logtest;  // NOLINT(google-build-using-namespace): test helpers

const std::string kDir = "t-0";

// One record per append, with these timestamps, into segments of 3 records.
void fill(PartitionLog& log, const std::vector<std::int64_t>& timestamps) {
  for (const std::int64_t ts : timestamps) log.append(std::vector<Record>{kv('k', "v", ts)});
}

// Segments [0..2] [3..5] [6..8] and the active [9], all timestamps 0; 430 bytes in all.
const std::vector<std::int64_t> kTenAtZero(10, 0);

LogConfig config_with(std::int64_t retention_ms, std::int64_t retention_bytes) {
  LogConfig c = small_segments(3);
  c.retention_ms = retention_ms;
  c.retention_bytes = retention_bytes;
  return c;
}

TEST(LogRetention, ByTimeDeletesOldestSegmentsWhoseLargestTimestampIsOlderThanRetentionMs) {
  TestDisk t;
  PartitionLog log(t.disk, kDir, config_with(1000, -1));
  log.recover();
  // Largest timestamps: 900, 1500, 700; the active segment 2000.
  fill(log, {100, 900, 200, 300, 400, 1500, 500, 600, 700, 2000});
  ASSERT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 3, 6, 9}));
  const Offset hw = log.log_end_offset();
  // 1900 - 900 is not more than 1000: kept (the oldest timestamp, 100, does not decide).
  RetentionResult r = log.apply_retention(1900, hw);
  EXPECT_EQ(r.segments_deleted, 0u);
  EXPECT_EQ(r.log_start_offset, Offset(0));
  // At 1901 the first segment goes. The third breaches too, but the second (1500) does not,
  // and deletion only takes the oldest segments in order.
  r = log.apply_retention(1901, hw);
  EXPECT_EQ(r.segments_deleted, 1u);
  EXPECT_EQ(r.bytes_deleted, 3 * kFixedBytes);
  EXPECT_EQ(r.log_start_offset, Offset(3));
  EXPECT_EQ(log.log_start_offset(), Offset(3));
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{3, 6, 9}));
  EXPECT_EQ(files_under(t.disk, kDir), segment_files(kDir, {3, 6, 9}));
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{3, 4, 5, 6, 7, 8, 9}));
  EXPECT_TRUE(log.read(Offset(2), 100, hw).empty());
  // At 2501 the second and third go; the active segment stays whatever its age.
  r = log.apply_retention(2501, hw);
  EXPECT_EQ(r.segments_deleted, 2u);
  EXPECT_EQ(r.log_start_offset, Offset(9));
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{9}));
  EXPECT_EQ(log.apply_retention(1'000'000'000, hw).segments_deleted, 0u);
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{9}));
  EXPECT_EQ(log.log_end_offset(), Offset(10));
  EXPECT_EQ(log.size_bytes(), kFixedBytes);
}

TEST(LogRetention, RetentionMsMinusOneKeepsForever) {
  TestDisk t;
  PartitionLog log(t.disk, kDir, config_with(-1, -1));
  log.recover();
  fill(log, kTenAtZero);
  EXPECT_EQ(log.apply_retention(INT64_MAX, log.log_end_offset()).segments_deleted, 0u);
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 3, 6, 9}));
}

// Kafka's rule: delete the oldest segment while size - segment.size >= retention.bytes.
TEST(LogRetention, ByBytesDeletesWhileTheLogWithoutTheOldestSegmentIsStillAtLeastRetentionBytes) {
  const std::uint64_t total = 10 * kFixedBytes;  // 129 + 129 + 129 + 43
  const std::uint64_t seg = 3 * kFixedBytes;
  struct Case {
    std::uint64_t retention_bytes;
    std::int64_t log_start;
  };
  const std::vector<Case> cases = {
      {total - seg + 1, 0},        // without the first, 1 byte short: nothing goes
      {total - seg, 3},            // exactly retention.bytes without it: it goes
      {total - 2 * seg, 6},        // two go
      {total - 2 * seg + 1, 3},    // the second would leave 1 byte short
      {0, 9},                      // everything but the active segment
      {total + 1, 0},              // the log is below the limit
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("retention.bytes " + std::to_string(c.retention_bytes));
    TestDisk t;
    PartitionLog log(t.disk, kDir, config_with(-1, static_cast<std::int64_t>(c.retention_bytes)));
    log.recover();
    fill(log, kTenAtZero);
    ASSERT_EQ(log.size_bytes(), total);
    const RetentionResult r = log.apply_retention(0, log.log_end_offset());
    EXPECT_EQ(r.log_start_offset, Offset(c.log_start));
    EXPECT_EQ(log.log_start_offset(), Offset(c.log_start));
    EXPECT_EQ(r.bytes_deleted, static_cast<std::uint64_t>(c.log_start) * kFixedBytes);
    EXPECT_EQ(log.size_bytes(), total - r.bytes_deleted);
    EXPECT_EQ(all_offsets(log).front(), c.log_start);
  }
}

// Time first, then size over what time left, as Kafka runs them.
TEST(LogRetention, TimeThenBytes) {
  TestDisk t;
  // retention.bytes between 4 and 7 records' worth (F bytes each).
  const auto limit = static_cast<std::int64_t>(4 * kFixedBytes + kFixedBytes / 2);
  PartitionLog log(t.disk, kDir, config_with(1000, limit));
  log.recover();
  fill(log, {0, 0, 0, 5000, 5000, 5000, 5000, 5000, 5000, 5000});
  // By time the first segment goes, leaving 7F bytes; by size the second would leave 4F,
  // under the limit, so it stays (measured from all 10F bytes it would have gone).
  EXPECT_EQ(log.apply_retention(2000, log.log_end_offset()).log_start_offset, Offset(3));
}

TEST(LogRetention, NeverDeletesASegmentNotWhollyBelowTheHighWatermark) {
  for (const auto& [hw, start] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {0, 0}, {2, 0}, {3, 3}, {5, 3}, {6, 6}, {8, 6}, {9, 9}, {10, 9}}) {
    SCOPED_TRACE("high watermark " + std::to_string(hw));
    for (const bool by_time : {true, false}) {
      TestDisk t;
      PartitionLog log(t.disk, kDir, by_time ? config_with(0, -1) : config_with(-1, 0));
      log.recover();
      fill(log, kTenAtZero);
      EXPECT_EQ(log.apply_retention(1'000'000, Offset(hw)).log_start_offset, Offset(start));
      EXPECT_EQ(all_offsets(log).front(), start);
    }
  }
}

TEST(LogRetention, NeverDeletesTheActiveSegment) {
  TestDisk t;
  PartitionLog log(t.disk, kDir, config_with(0, 0));
  log.recover();
  log.append(std::vector<Record>{kv('a', "v"), kv('b', "v")});
  EXPECT_EQ(log.apply_retention(1'000'000'000, log.log_end_offset()).segments_deleted, 0u);
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{0, 1}));
  // Once rolled, the old segment is fair game; an empty active segment still stays.
  log.append(std::vector<Record>{kv('c', "v")}, LeaderEpoch(0), 1'000'000'000);  // rolls by segment.ms
  ASSERT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 2}));
  log.truncate_to(Offset(2));  // the active segment is now empty
  const RetentionResult r = log.apply_retention(1'000'000'000, log.log_end_offset());
  EXPECT_EQ(r.segments_deleted, 1u);
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(log.log_start_offset(), Offset(2));
  EXPECT_EQ(log.log_end_offset(), Offset(2));
  EXPECT_TRUE(read_all(log).empty());
  // The epoch entry covering the log start was clamped to it (the log end); a new epoch
  // appending there takes its place.
  ASSERT_EQ(log.epoch_cache().entries().size(), 1u);
  EXPECT_EQ(log.epoch_cache().entries()[0].start_offset, Offset(2));
  EXPECT_EQ(log.append(std::vector<Record>{kv('d', "v")}, LeaderEpoch(5)), Offset(2));
  ASSERT_EQ(log.epoch_cache().entries().size(), 1u);
  EXPECT_EQ(log.epoch_cache().entries()[0].epoch, LeaderEpoch(5));
  EXPECT_EQ(log.end_offset_for_epoch(LeaderEpoch(4)), std::nullopt);
}

TEST(LogRetention, OnlyWhenTheCleanupPolicyIncludesDelete) {
  for (const CleanupPolicy policy : {CleanupPolicy::kDelete, CleanupPolicy::kCompact, CleanupPolicy::kCompactDelete}) {
    TestDisk t;
    LogConfig config = config_with(0, -1);
    config.cleanup_policy = policy;
    PartitionLog log(t.disk, kDir, config);
    log.recover();
    fill(log, kTenAtZero);
    const bool deletes = policy != CleanupPolicy::kCompact;
    EXPECT_EQ(log.apply_retention(1000, log.log_end_offset()).segments_deleted, deletes ? 3u : 0u);
  }
}

// The epoch cache loses what lies below the new log start; the entry covering it keeps its
// epoch, starting at the log start.
TEST(LogRetention, TrimsTheEpochCacheBelowTheNewLogStart) {
  TestDisk t;
  PartitionLog log(t.disk, kDir, config_with(0, -1));
  log.recover();
  const std::vector<int> epochs = {1, 1, 1, 1, 2, 2, 3, 3, 3, 3};
  for (const int e : epochs) log.append(std::vector<Record>{kv('k', "v")}, LeaderEpoch(e));
  const auto entries = [&log] {
    std::vector<std::pair<std::int32_t, std::int64_t>> out;
    for (const auto& e : log.epoch_cache().entries()) out.emplace_back(e.epoch.value(), e.start_offset.value());
    return out;
  };
  using Entries = std::vector<std::pair<std::int32_t, std::int64_t>>;
  ASSERT_EQ(entries(), (Entries{{1, 0}, {2, 4}, {3, 6}}));
  log.apply_retention(1000, Offset(3));  // the log start, 3, falls inside epoch 1
  EXPECT_EQ(entries(), (Entries{{1, 3}, {2, 4}, {3, 6}}));
  EXPECT_EQ(log.end_offset_for_epoch(LeaderEpoch(1)), std::make_pair(LeaderEpoch(1), Offset(4)));
  EXPECT_FALSE(log.end_offset_for_epoch(LeaderEpoch(0)).has_value());
  log.apply_retention(1000, Offset(6));  // the log start, 6, is where epoch 3 starts
  EXPECT_EQ(entries(), (Entries{{3, 6}}));
  EXPECT_FALSE(log.end_offset_for_epoch(LeaderEpoch(2)).has_value());
  EXPECT_EQ(log.end_offset_for_epoch(LeaderEpoch(3)), std::make_pair(LeaderEpoch(3), Offset(10)));
  EXPECT_EQ(log.latest_epoch(), LeaderEpoch(3));
}

TEST(LogRetention, DeletionsAreFsyncedWithTheTokenAndSurviveAPowerLoss) {
  TestDisk t;
  {
    PartitionLog log(t.disk, kDir, config_with(0, -1));
    log.recover();
    fill(log, kTenAtZero);
    log.flush(1);
    t.complete_fsyncs();
    t.tokens.clear();
    const RetentionResult r = log.apply_retention(1000, Offset(6));
    ASSERT_EQ(r.segments_deleted, 2u);
    EXPECT_EQ(r.fsyncs_started, 2u);
    const RetentionResult r2 = log.apply_retention(1000, Offset(9), 42);
    EXPECT_EQ(r2.fsyncs_started, 1u);
    EXPECT_EQ(t.tokens, (std::vector<std::uint64_t>{0, 0, 42}));
    t.complete_fsyncs();
  }
  t.disk.power_loss();
  PartitionLog log(t.disk, kDir, config_with(0, -1));
  log.recover();
  EXPECT_EQ(files_under(t.disk, kDir), segment_files(kDir, {9}));
  EXPECT_EQ(log.log_start_offset(), Offset(9));
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{9}));
}

}  // namespace
}  // namespace logsim::engine

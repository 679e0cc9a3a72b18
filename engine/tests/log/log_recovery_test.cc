// Tests of a segmented log's recovery and flush policy: multi-segment logs after a process
// crash and after power losses that tear the last segment's tail; damaged or inconsistent
// files (an invalid batch in an earlier segment, overlapping or empty segments); the log start
// and end offsets recovery derives; flush.messages and flush.ms, and that what a flush made
// durable survives a power loss.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/env/rng.h"
#include "engine/log/partition_log.h"
#include "engine/tests/log/log_test_util.h"

namespace logsim::engine {
namespace {

using namespace logtest;  // NOLINT(google-build-using-namespace): test helpers

const std::string kDir = "t-0";

std::vector<Record> batch_of(int n, char key) {
  std::vector<Record> out;
  for (int i = 0; i < n; ++i) out.push_back(kv(key, std::to_string(i)));
  return out;
}

// ---- Crash.

TEST(LogRecovery, ProcessCrashKeepsEverySegmentRecordAndEpoch) {
  TestDisk t;
  {
    PartitionLog log(t.disk, kDir, small_segments(3));
    log.recover();
    log.append(batch_of(2, 'a'), LeaderEpoch(1));  // 0..1
    log.append(batch_of(3, 'b'), LeaderEpoch(3));  // 2..4: fits beside a
    log.append(batch_of(3, 'c'), LeaderEpoch(3));  // 5..7: rolls
    log.append(batch_of(1, 'd'), LeaderEpoch(4));  // 8
    ASSERT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 5}));
  }
  t.disk.crash();  // nothing was ever fsynced; the page cache survives
  PartitionLog log(t.disk, kDir, small_segments(3));
  EXPECT_EQ(log.recover(), 0u);
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 5}));
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(log.log_start_offset(), Offset(0));
  EXPECT_EQ(log.log_end_offset(), Offset(9));
  EXPECT_EQ(log.size_bytes(), batch_bytes(2) + 2 * batch_bytes(3) + batch_bytes(1));
  EXPECT_EQ(log.end_offset_for_epoch(LeaderEpoch(1)), std::make_pair(LeaderEpoch(1), Offset(2)));
  EXPECT_EQ(log.end_offset_for_epoch(LeaderEpoch(3)), std::make_pair(LeaderEpoch(3), Offset(8)));
  EXPECT_EQ(log.latest_epoch(), LeaderEpoch(4));
  // Appends continue in the recovered active segment, which rolls when full.
  EXPECT_EQ(log.append(batch_of(2, 'e'), LeaderEpoch(4)), Offset(9));
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 5, 9}));
  EXPECT_EQ(log.append(batch_of(1, 'f'), LeaderEpoch(4)), Offset(11));
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 5, 9}));
}

// ---- Power loss, torn tails.

// With every power loss tearing unsynced tails, recovery of a multi-segment log yields a
// prefix of what was appended that holds everything flushed; every remaining segment file
// holds exactly its batches; and the log goes on at the right offset.
TEST(LogRecovery, PowerLossTearingTheLastSegmentRecoversAPrefix) {
  std::uint64_t torn = 0;
  std::uint64_t lost_segments = 0;
  std::uint64_t tails_cut = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    sim::SimDiskOptions options;
    options.torn_write_probability = 1.0;
    TestDisk t(options, seed);
    Rng rng(seed * 31);
    std::vector<Record> appended;
    std::size_t flushed = 0;
    std::size_t segments_before = 0;
    {
      PartitionLog log(t.disk, kDir, small_segments(4));
      log.recover();
      // Batches of 1-2 records into segments of 4, some flushes, then a last flush whose
      // active segment the unflushed tail continues (the tail that tears) and rolls beyond.
      for (std::int64_t b = rng.uniform_int(1, 8); b > 0; --b) {
        const std::vector<Record> batch = batch_of(static_cast<int>(rng.uniform_int(1, 2)), 'a');
        log.append(batch);
        appended.insert(appended.end(), batch.begin(), batch.end());
        if (b == 1 || rng.bernoulli(0.3)) {
          log.flush(1);
          t.complete_fsyncs();
          flushed = appended.size();
        }
      }
      for (std::int64_t b = rng.uniform_int(1, 6); b > 0; --b) {
        log.append(batch_of(1, 'b'));
        appended.push_back(batch_of(1, 'b').front());
      }
      segments_before = log.segments().size();
    }
    t.disk.power_loss();
    PartitionLog log(t.disk, kDir, small_segments(4));
    const std::uint64_t cut = log.recover();
    const std::vector<StoredRecord> got = read_all(log);
    ASSERT_GE(got.size(), flushed);
    ASSERT_LE(got.size(), appended.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].offset, Offset(static_cast<std::int64_t>(i)));
      ASSERT_EQ(got[i].record.key, appended[i].key);
      ASSERT_EQ(got[i].record.value, appended[i].value);
    }
    EXPECT_EQ(log.log_end_offset(), Offset(static_cast<std::int64_t>(got.size())));
    std::vector<std::string> files;
    for (const LogSegment& s : log.segments()) {
      files.push_back(s.file());
      EXPECT_TRUE(holds_exactly_its_batches(t.disk, s));
    }
    EXPECT_EQ(files_under(t.disk, kDir), files);
    EXPECT_EQ(log.append(batch_of(1, 'c')), Offset(static_cast<std::int64_t>(got.size())));
    PartitionLog again(t.disk, kDir, small_segments(4));
    EXPECT_EQ(again.recover(), 0u);
    EXPECT_EQ(read_all(again).size(), got.size() + 1);

    if (t.disk.stats().torn_tails > 0) ++torn;
    if (log.segments().size() < segments_before) ++lost_segments;
    if (cut > 0) ++tails_cut;
  }
  // The seeds reached tears, whole segments lost, and partial batches cut away.
  EXPECT_GT(torn, 150u);
  EXPECT_GT(lost_segments, 50u);
  EXPECT_GT(tails_cut, 50u);
}

// ---- Damaged and inconsistent files.

std::vector<StoredRecord> stored(std::int64_t from, std::int64_t to, LeaderEpoch epoch = LeaderEpoch(0)) {
  std::vector<StoredRecord> out;
  for (std::int64_t o = from; o < to; ++o) out.push_back(StoredRecord{Offset(o), kv('k', std::to_string(o)), epoch});
  return out;
}

TEST(LogRecovery, AnInvalidFrameInAnEarlierSegmentDropsEverySegmentAfterIt) {
  TestDisk t;
  const std::string garbage = batches(stored(3, 4)).substr(0, 20);
  t.disk.append(segment_file(kDir, 0), batches(stored(0, 3)) + garbage);
  t.disk.append(segment_file(kDir, 3), batches(stored(3, 6)));
  t.disk.append(segment_file(kDir, 6), batches(stored(6, 7)));
  PartitionLog log(t.disk, kDir);
  EXPECT_EQ(log.recover(), garbage.size() + 4 * kFixedBytes);
  EXPECT_EQ(files_under(t.disk, kDir), segment_files(kDir, {0}));
  EXPECT_EQ(t.disk.size(segment_file(kDir, 0)), 3 * kFixedBytes);
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(log.log_end_offset(), Offset(3));
  EXPECT_EQ(log.append(batch_of(1, 'x')), Offset(3));
}

TEST(LogRecovery, FramesOutOfOrderEndTheLogWhereTheyStart) {
  TestDisk t;
  // A valid frame whose offset goes back, then one whose epoch goes back, in later segments.
  std::vector<StoredRecord> first = stored(0, 3, LeaderEpoch(2));
  t.disk.append(segment_file(kDir, 0), batches(first));
  std::vector<StoredRecord> second = stored(3, 5, LeaderEpoch(2));
  second.push_back(StoredRecord{Offset(4), kv('k', "dup"), LeaderEpoch(2)});
  t.disk.append(segment_file(kDir, 3), batches(second));
  PartitionLog log(t.disk, kDir);
  EXPECT_EQ(log.recover(), kFixedBytes);
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));

  TestDisk u;
  u.disk.append(segment_file(kDir, 0), batches(stored(0, 2, LeaderEpoch(5))));
  u.disk.append(segment_file(kDir, 2), batches(stored(2, 4, LeaderEpoch(4))));
  PartitionLog log2(u.disk, kDir);
  EXPECT_EQ(log2.recover(), 2 * kFixedBytes);
  EXPECT_EQ(all_offsets(log2), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(bases_of(log2), (std::vector<std::int64_t>{0, 2}));  // the cut segment stays, empty
  EXPECT_EQ(log2.log_end_offset(), Offset(2));
  EXPECT_EQ(log2.latest_epoch(), LeaderEpoch(5));
}

// A truncation's removal of a later segment was not durable while the rewritten earlier one
// was: the earlier segment now reaches into the later one's range, and the earlier wins.
TEST(LogRecovery, AnOverlappingLaterSegmentIsDropped) {
  TestDisk t;
  t.disk.append(segment_file(kDir, 0), batches(stored(0, 5)));
  t.disk.append(segment_file(kDir, 3), batches(stored(3, 6)));
  PartitionLog log(t.disk, kDir);
  EXPECT_EQ(log.recover(), 3 * kFixedBytes);
  EXPECT_EQ(files_under(t.disk, kDir), segment_files(kDir, {0}));
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(log.log_end_offset(), Offset(5));
}

TEST(LogRecovery, LogStartIsTheFirstRecordAndLogEndTheEmptyActiveSegmentsBase) {
  TestDisk t;
  t.disk.append(segment_file(kDir, 0), "");                  // empty, not the last: deleted
  t.disk.append(segment_file(kDir, 4), batches(stored(6, 8)));  // records start after the base
  t.disk.append(segment_file(kDir, 12), "");                 // the empty active segment
  t.disk.append("t-0/stray.txt", "x");                       // not a segment: left alone
  t.disk.append("t-00/00000000000000000000.log", batches(stored(0, 1)));  // another log's
  PartitionLog log(t.disk, kDir);
  EXPECT_EQ(log.recover(), 0u);
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{4, 12}));
  EXPECT_FALSE(t.disk.exists(segment_file(kDir, 0)));
  EXPECT_TRUE(t.disk.exists("t-0/stray.txt"));
  EXPECT_EQ(log.log_start_offset(), Offset(6));
  EXPECT_EQ(log.log_end_offset(), Offset(12));
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{6, 7}));
  EXPECT_EQ(log.append(batch_of(1, 'x')), Offset(12));
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{4, 12}));
}

TEST(LogRecovery, ANewLogCreatesItsFirstSegmentFile) {
  TestDisk t;
  PartitionLog log(t.disk, kDir);
  EXPECT_EQ(log.recover(), 0u);
  EXPECT_EQ(files_under(t.disk, kDir), segment_files(kDir, {0}));
  EXPECT_EQ(log.log_start_offset(), Offset(0));
  EXPECT_EQ(log.log_end_offset(), Offset(0));
}

// ---- Flush policy.

TEST(LogFlush, TheDefaultConfigNeverAsksForAFlush) {
  TestDisk t;
  PartitionLog log(t.disk, kDir, small_segments(10));
  log.recover();
  for (int i = 0; i < 2000; ++i) log.append(batch_of(1, 'a'), LeaderEpoch(0), i * 1'000'000LL);
  EXPECT_EQ(log.unflushed_messages(), 2000u);
  EXPECT_FALSE(log.flush_due(4'000'000'000LL));
  EXPECT_TRUE(t.tokens.empty());  // and nothing fsyncs on its own
}

TEST(LogFlush, FlushMessagesTriggersAtTheUnflushedCount) {
  TestDisk t;
  LogConfig config = small_segments(2);
  config.flush_messages = 3;
  PartitionLog log(t.disk, kDir, config);
  log.recover();
  log.flush(9);  // the new log's file
  t.tokens.clear();
  log.append(batch_of(2, 'a'));
  EXPECT_FALSE(log.flush_due(0));
  log.append(batch_of(1, 'b'));  // rolls: offsets 0-1 and 2 in two files
  EXPECT_TRUE(log.flush_due(0));
  EXPECT_EQ(log.flush(7), 2u);  // both changed files
  EXPECT_EQ(t.tokens, (std::vector<std::uint64_t>{7, 7}));
  EXPECT_EQ(log.unflushed_messages(), 0u);
  EXPECT_FALSE(log.flush_due(0));
  log.append(batch_of(2, 'c'));  // 3 and 4, in a new segment: one unflushed file
  EXPECT_FALSE(log.flush_due(0));
  log.append(batch_of(1, 'd'));  // 5, in another new segment
  EXPECT_TRUE(log.flush_due(0));
  ASSERT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 2, 3, 5}));
  EXPECT_EQ(log.flush(8), 2u);  // segments 3 and 5
  EXPECT_EQ(log.flush(8), 0u);  // nothing left to flush
}

TEST(LogFlush, FlushMsTriggersWhenUnflushedDataOutlivesTheIntervalSinceTheLastFlush) {
  TestDisk t;
  LogConfig config;
  config.flush_ms = 100;
  PartitionLog log(t.disk, kDir, config);
  log.recover(1000);  // the clock starts at recovery
  log.flush(1, 1000);
  EXPECT_FALSE(log.flush_due(5000));  // nothing unflushed: never due
  log.append(batch_of(1, 'a'), LeaderEpoch(0), 1010);
  EXPECT_FALSE(log.flush_due(1099));
  EXPECT_TRUE(log.flush_due(1100));  // 100 ms since the last flush, not since the append
  log.flush(2, 1100);
  log.append(batch_of(1, 'b'), LeaderEpoch(0), 1150);
  EXPECT_FALSE(log.flush_due(1199));
  EXPECT_TRUE(log.flush_due(1200));
  // Without a time, the flush counts from the latest append.
  log.append(batch_of(1, 'c'), LeaderEpoch(0), 1300);
  log.flush(3);
  log.append(batch_of(1, 'd'), LeaderEpoch(0), 1310);
  EXPECT_FALSE(log.flush_due(1399));
  EXPECT_TRUE(log.flush_due(1400));
}

TEST(LogFlush, WhatAFlushMadeDurableSurvivesAPowerLossAndNothingMore) {
  TestDisk t;
  LogConfig config = small_segments(2);
  config.flush_messages = 5;
  {
    PartitionLog log(t.disk, kDir, config);
    log.recover();
    for (int i = 0; i < 5; ++i) log.append(batch_of(1, 'a'));  // segments 0, 2, 4
    ASSERT_TRUE(log.flush_due(0));
    EXPECT_EQ(log.flush(1), 3u);
    t.complete_fsyncs();
    log.append(batch_of(1, 'b'));  // 5 beside 4, in a flushed segment
    log.append(batch_of(2, 'c'));  // 6 and 7 in a new segment
    ASSERT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 2, 4, 6}));
    log.flush(2);  // started but never completed
  }
  t.disk.power_loss();
  PartitionLog log(t.disk, kDir, config);
  EXPECT_EQ(log.recover(), 0u);
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(files_under(t.disk, kDir), segment_files(kDir, {0, 2, 4}));
  EXPECT_EQ(log.log_end_offset(), Offset(5));
}

// Recovery cannot know what of the page cache is durable, so the first flush after it
// fsyncs every segment file.
TEST(LogFlush, TheFirstFlushAfterRecoveryCoversEverySegment) {
  TestDisk t;
  {
    PartitionLog log(t.disk, kDir, small_segments(1));
    log.recover();
    log.append(batch_of(1, 'a'));
    log.append(batch_of(1, 'b'));
  }
  t.disk.crash();
  PartitionLog log(t.disk, kDir, small_segments(1));
  log.recover();
  EXPECT_EQ(log.flush(4), 2u);
  t.complete_fsyncs();
  t.disk.power_loss();
  PartitionLog after(t.disk, kDir, small_segments(1));
  after.recover();
  EXPECT_EQ(all_offsets(after), (std::vector<std::int64_t>{0, 1}));
}

}  // namespace
}  // namespace logsim::engine

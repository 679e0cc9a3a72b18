// Tests of the segmented partition log's layout: segment file names, rolling by segment.bytes
// and segment.ms, LogAppendTime, the sparse offset and time indexes, reads across segments and
// offset gaps, truncation across segment boundaries, and ListOffsets by timestamp.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/assert.h"
#include "engine/log/partition_log.h"
#include "engine/log/segment.h"
#include "engine/tests/log/log_test_util.h"

namespace logsim::engine {
namespace {

using namespace logtest;  // NOLINT(google-build-using-namespace): test helpers

const std::string kDir = "t-0";

// ---- File names.

TEST(LogSegmentFiles, NamesAreTheBaseOffsetZeroPaddedToTwentyDigits) {
  EXPECT_EQ(LogSegment::file_name("t-0", Offset(0)), "t-0/00000000000000000000.log");
  EXPECT_EQ(LogSegment::file_name("t-0", Offset(42)), "t-0/00000000000000000042.log");
  EXPECT_EQ(LogSegment::file_name("a/b", Offset(INT64_MAX)), "a/b/09223372036854775807.log");
  EXPECT_EQ(LogSegment::parse_file_name("t-0", "t-0/00000000000000000042.log"), Offset(42));
  EXPECT_EQ(LogSegment::parse_file_name("a/b", "a/b/09223372036854775807.log"), Offset(INT64_MAX));
  // Not segments of t-0: other directories, other lengths, suffixes or characters, overflow.
  for (const char* name : {"t-1/00000000000000000042.log", "t-00/0000000000000000042.log", "t-0/0000000000000000042.log",
                           "t-0/000000000000000000042.log", "t-0/00000000000000000042.log.cleaned",
                           "t-0/00000000000000000042.idx", "t-0/0000000000000000004x.log", "t-0/99999999999999999999.log",
                           "t-0/x/00000000000000000042.log"}) {
    EXPECT_EQ(LogSegment::parse_file_name("t-0", name), std::nullopt) << name;
  }
}

// ---- Rolling.

TEST(LogRolling, RollsBeforeABatchWouldTakeTheActiveSegmentPastSegmentBytes) {
  TestDisk t;
  PartitionLog log(t.disk, kDir, small_segments(3));  // 3 records fill a segment exactly
  log.recover();
  for (int i = 0; i < 8; ++i) log.append(std::vector<Record>{kv('a', "v")});
  // Exactly full is not past: 3 records per segment, not 2.
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 3, 6}));
  EXPECT_EQ(files_under(t.disk, kDir), segment_files(kDir, {0, 3, 6}));
  EXPECT_EQ(t.disk.size(segment_file(kDir, 0)), 3 * kFixedBytes);
  EXPECT_EQ(t.disk.size(segment_file(kDir, 3)), 3 * kFixedBytes);
  EXPECT_EQ(t.disk.size(segment_file(kDir, 6)), 2 * kFixedBytes);
  // A batch goes whole into one segment: two records do not fit beside two, so they roll.
  log.append(std::vector<Record>{kv('b', "v"), kv('c', "v")});
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 3, 6, 8}));
  EXPECT_EQ(t.disk.size(segment_file(kDir, 8)), batch_bytes(2));
  // A batch larger than segment.bytes still goes into an empty segment, whole.
  log.truncate_to(Offset(8));
  log.append(std::vector<Record>{kv('d', "v"), kv('e', "v"), kv('f', "v"), kv('g', "v")});
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 3, 6, 8}));
  EXPECT_EQ(t.disk.size(segment_file(kDir, 8)), batch_bytes(4));
  EXPECT_EQ(log.size_bytes(), 8 * kFixedBytes + batch_bytes(4));
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
}

TEST(LogRolling, RollsWhenTheFirstRecordWasAppendedMoreThanSegmentMsAgo) {
  TestDisk t;
  LogConfig config;
  config.segment_ms = 1000;
  PartitionLog log(t.disk, kDir, config);
  log.recover();
  // Record timestamps (CreateTime) play no part: they are all 0 here.
  log.append(std::vector<Record>{kv('a', "v")}, LeaderEpoch(0), 0);
  log.append(std::vector<Record>{kv('a', "v")}, LeaderEpoch(0), 1000);  // exactly segment.ms: stays
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{0}));
  log.append(std::vector<Record>{kv('a', "v")}, LeaderEpoch(0), 1001);  // more than: rolls
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 2}));
  log.append(std::vector<Record>{kv('a', "v")}, LeaderEpoch(0), 1500);
  // Counted from the segment's first append (1001), not its latest (1500).
  log.append(std::vector<Record>{kv('a', "v")}, LeaderEpoch(0), 2002);
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 2, 4}));
  EXPECT_EQ(files_under(t.disk, kDir), segment_files(kDir, {0, 2, 4}));
  // An empty active segment never rolls, however old.
  log.truncate_to(Offset(4));
  log.append(std::vector<Record>{kv('a', "v")}, LeaderEpoch(0), 100'000);
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 2, 4}));
}

TEST(LogRolling, ReplicatedBatchesRollAtTheirFirstOffset) {
  TestDisk t;
  PartitionLog log(t.disk, kDir, small_segments(2));
  log.recover();
  replicate(log, std::vector<StoredRecord>{{Offset(0), kv('a', "v")}, {Offset(1), kv('b', "v")}});
  // The leader's log has a gap (compaction) before offset 5: the new segment is based at 5.
  replicate(log, std::vector<StoredRecord>{{Offset(5), kv('c', "v")}});
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 5}));
  EXPECT_EQ(log.log_end_offset(), Offset(6));
  EXPECT_EQ(log.append(std::vector<Record>{kv('d', "v")}), Offset(6));
}

// ---- Timestamps.

TEST(LogTimestamps, LogAppendTimeStampsTheLeadersClockAndCreateTimeKeepsTheProducers) {
  for (const TimestampType type : {TimestampType::kCreateTime, TimestampType::kLogAppendTime}) {
    TestDisk t;
    LogConfig config;
    config.timestamp_type = type;
    PartitionLog log(t.disk, kDir, config);
    log.recover();
    log.append(std::vector<Record>{kv('a', "v", 5), kv('b', "v", 6)}, LeaderEpoch(0), 777);
    // A follower keeps the leader's timestamps, whatever the type.
    replicate(log, std::vector<StoredRecord>{{Offset(2), kv('c', "v", 9)}}, 888);
    const auto all = read_all(log);
    ASSERT_EQ(all.size(), 3u);
    const bool append_time = type == TimestampType::kLogAppendTime;
    EXPECT_EQ(all[0].record.timestamp_ms, append_time ? 777 : 5);
    EXPECT_EQ(all[1].record.timestamp_ms, append_time ? 777 : 6);
    EXPECT_EQ(all[2].record.timestamp_ms, 9);
    // What is on disk is what was stamped.
    log.recover();
    EXPECT_EQ(read_all(log)[1].record.timestamp_ms, append_time ? 777 : 6);
  }
}

// ---- Indexes.

TEST(LogIndexes, EntriesEveryIndexIntervalBytesAndTheTimeIndexFollowsTheMaxTimestamp) {
  TestDisk t;
  LogConfig config;
  // An entry once more than two records' bytes were appended since the last: every third.
  config.index_interval_bytes = 2 * static_cast<std::int64_t>(kFixedBytes);
  PartitionLog log(t.disk, kDir, config);
  log.recover();
  const std::vector<std::int64_t> ts = {5, 9, 7, 3, 1, 2, 8, 20, 4, 6};
  for (std::size_t i = 0; i < ts.size(); ++i) log.append(std::vector<Record>{kv('k', "v", ts[i])});
  const LogSegment& s = log.segments().front();
  ASSERT_EQ(s.offset_index().size(), 3u);
  const std::vector<std::int64_t> indexed = {3, 6, 9};
  for (std::size_t i = 0; i < indexed.size(); ++i) {
    EXPECT_EQ(s.offset_index()[i].offset, Offset(indexed[i]));
    EXPECT_EQ(s.offset_index()[i].position, static_cast<std::uint64_t>(indexed[i]) * kFixedBytes);
  }
  // At offset 3 the largest timestamp so far was 9, first seen at offset 1; at 6 it was still 9
  // (no entry: it did not grow); at 9 it was 20, first seen at offset 7.
  ASSERT_EQ(s.time_index().size(), 2u);
  EXPECT_EQ(s.time_index()[0].timestamp_ms, 9);
  EXPECT_EQ(s.time_index()[0].offset, Offset(1));
  EXPECT_EQ(s.time_index()[1].timestamp_ms, 20);
  EXPECT_EQ(s.time_index()[1].offset, Offset(7));
  EXPECT_EQ(s.max_timestamp_ms(), 20);
  // Recovery rebuilds the same indexes.
  log.recover();
  const LogSegment& r = log.segments().front();
  ASSERT_EQ(r.offset_index().size(), 3u);
  EXPECT_EQ(r.offset_index()[2].offset, Offset(9));
  ASSERT_EQ(r.time_index().size(), 2u);
  EXPECT_EQ(r.time_index()[1].offset, Offset(7));
  // Every offset is found through the index (a batch of one record each).
  for (std::int64_t o = 0; o < 10; ++o) EXPECT_EQ(r.find(Offset(o)), static_cast<std::size_t>(o));
  EXPECT_EQ(r.find(Offset(10)), 10u);
}

// find(o) is the first batch whose last offset is at or above o, by the index or by the
// shortcut for the last batches: checked against a scan for every offset, in batches of
// several records with gaps inside and between them.
TEST(LogIndexes, FindIsTheFirstBatchEndingAtOrAboveTheOffset) {
  TestDisk t;
  LogConfig config;
  config.index_interval_bytes = 1;  // an index entry for every batch
  for (const bool indexed : {true, false}) {
    if (!indexed) config.index_interval_bytes = 1 << 30;  // no entries: the search starts at 0
    PartitionLog log(t.disk, indexed ? kDir : std::string(kDir) + "-unindexed", config);
    log.recover();
    // Batches (by offsets): {2,3,4} {7,9} {10} {11,12,15} {20}.
    const std::vector<std::vector<std::int64_t>> batches = {{2, 3, 4}, {7, 9}, {10}, {11, 12, 15}, {20}};
    for (std::size_t b = 0; b < batches.size(); ++b) {
      std::vector<StoredRecord> run;
      for (const std::int64_t o : batches[b]) run.push_back({Offset(o), kv('k', std::to_string(o))});
      replicate(log, run);
    }
    const LogSegment& s = log.segments().front();
    ASSERT_EQ(s.batch_count(), batches.size());
    for (std::int64_t o = 0; o <= 25; ++o) {
      std::size_t expected = 0;
      while (expected < s.batch_count() && s.last_of(expected) < Offset(o)) ++expected;
      EXPECT_EQ(s.find(Offset(o)), expected) << "offset " << o << (indexed ? ", indexed" : ", unindexed");
    }
  }
}

// ---- Reads and offsets with gaps.

class LogWithGaps : public ::testing::Test {
 protected:
  void SetUp() override {
    log.recover();
    for (const std::int64_t o : {0, 1, 2, 5, 6, 9, 10, 14}) {
      replicate(log, std::vector<StoredRecord>{{Offset(o), kv('k', std::to_string(o))}});
    }
  }
  TestDisk t;
  PartitionLog log{t.disk, kDir, small_segments(3)};
};

TEST_F(LogWithGaps, ReadsReturnTheOffsetsAtOrAboveFromInOrder) {
  // A segment starts at the first offset appended to it: 5 and 10, gaps before them.
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 5, 10}));
  EXPECT_EQ(log.log_end_offset(), Offset(15));  // one past the last offset, not the count (8)
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{0, 1, 2, 5, 6, 9, 10, 14}));
  EXPECT_EQ(offsets_of(log.read(Offset(3), 100, Offset(15))), (std::vector<std::int64_t>{5, 6, 9, 10, 14}));
  EXPECT_EQ(offsets_of(log.read(Offset(6), 2, Offset(15))), (std::vector<std::int64_t>{6, 9}));
  EXPECT_EQ(offsets_of(log.read(Offset(7), 1, Offset(15))), (std::vector<std::int64_t>{9}));
  EXPECT_EQ(offsets_of(log.read(Offset(0), 100, Offset(6))), (std::vector<std::int64_t>{0, 1, 2, 5}));
  EXPECT_EQ(offsets_of(log.read(Offset(11), 100, Offset(14))), (std::vector<std::int64_t>{}));
  EXPECT_EQ(offsets_of(log.read(Offset(11), 100, Offset(100))), (std::vector<std::int64_t>{14}));
  EXPECT_TRUE(log.read(Offset(15), 100, Offset(100)).empty());
  EXPECT_EQ(log.append(std::vector<Record>{kv('k', "n")}), Offset(15));
}

TEST_F(LogWithGaps, TruncationInsideAGapSetsTheLogEndThere) {
  log.truncate_to(Offset(8));  // between 6 and 9: 9 goes, and the segment at 10 whole
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 5}));
  EXPECT_EQ(log.log_end_offset(), Offset(8));
  EXPECT_EQ(all_offsets(log), (std::vector<std::int64_t>{0, 1, 2, 5, 6}));
  EXPECT_EQ(files_under(t.disk, kDir), segment_files(kDir, {0, 5}));
  EXPECT_EQ(t.disk.size(segment_file(kDir, 5)), 2 * kFixedBytes);
  EXPECT_EQ(log.append(std::vector<Record>{kv('k', "n")}), Offset(8));
}

// ---- Truncation across segments.

TEST(LogTruncation, AcrossSegmentBoundaries) {
  TestDisk t;
  PartitionLog log(t.disk, kDir, small_segments(3));
  log.recover();
  for (int i = 0; i < 10; ++i) log.append(std::vector<Record>{kv('k', "v")}, LeaderEpoch(i < 5 ? 1 : 2));
  ASSERT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 3, 6, 9}));
  log.truncate_to(Offset(7));  // inside the third segment: the fourth goes whole
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 3, 6}));
  EXPECT_EQ(files_under(t.disk, kDir), segment_files(kDir, {0, 3, 6}));
  EXPECT_EQ(t.disk.size(segment_file(kDir, 6)), kFixedBytes);
  EXPECT_EQ(log.log_end_offset(), Offset(7));
  EXPECT_EQ(log.size_bytes(), 7 * kFixedBytes);
  EXPECT_EQ(log.append(std::vector<Record>{kv('x', "v")}, LeaderEpoch(3)), Offset(7));
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 3, 6}));  // fits in the third again
  // At a segment's base: that segment stays, empty, as the active one (Kafka keeps it).
  log.truncate_to(Offset(6));
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{0, 3, 6}));
  EXPECT_TRUE(log.segments().back().empty());
  EXPECT_TRUE(t.disk.exists(segment_file(kDir, 6)));
  EXPECT_EQ(t.disk.size(segment_file(kDir, 6)), 0u);
  EXPECT_EQ(log.latest_epoch(), LeaderEpoch(2));
  EXPECT_EQ(log.end_offset_for_epoch(LeaderEpoch(2)), std::make_pair(LeaderEpoch(2), Offset(6)));
  // Down into the first segment.
  log.truncate_to(Offset(2));
  EXPECT_EQ(bases_of(log), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(files_under(t.disk, kDir), segment_files(kDir, {0}));
  EXPECT_EQ(log.latest_epoch(), LeaderEpoch(1));
  EXPECT_EQ(log.append(std::vector<Record>{kv('y', "v")}, LeaderEpoch(4)), Offset(2));
  // What the files hold after a crash is the same log.
  t.disk.crash();
  PartitionLog after(t.disk, kDir, small_segments(3));
  EXPECT_EQ(after.recover(), 0u);
  EXPECT_EQ(all_offsets(after), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(*read_all(after)[2].record.key, "y");
  EXPECT_EQ(after.end_offset_for_epoch(LeaderEpoch(3)), std::make_pair(LeaderEpoch(1), Offset(2)));
}

// ---- ListOffsets by timestamp.

// The first offset whose timestamp is >= ts, by brute force.
std::optional<Offset> first_at_or_after(const std::vector<std::int64_t>& ts, std::int64_t target) {
  for (std::size_t i = 0; i < ts.size(); ++i) {
    if (ts[i] >= target) return Offset(static_cast<std::int64_t>(i));
  }
  return std::nullopt;
}

TEST(LogOffsetForTimestamp, FindsTheFirstOffsetAtOrAfterATimestampEvenOutOfOrder) {
  const std::vector<std::int64_t> ts = {10, 50, 20, 60, 30, 40, 90, 70, 15, 80, 85};
  // Several segment sizes and index densities, so lookups go through the indexes' entries and
  // across segment boundaries.
  for (const std::int64_t per_segment : {1, 3, 100}) {
    for (const std::int64_t interval : {0, 50, 4096}) {
      SCOPED_TRACE("per segment " + std::to_string(per_segment) + ", index interval " + std::to_string(interval));
      TestDisk t;
      LogConfig config = small_segments(per_segment);
      config.index_interval_bytes = interval;
      PartitionLog log(t.disk, kDir, config);
      log.recover();
      for (const std::int64_t x : ts) log.append(std::vector<Record>{kv('k', "v", x)});
      for (std::int64_t target = 0; target <= 95; ++target) {
        EXPECT_EQ(log.offset_for_timestamp(target), first_at_or_after(ts, target)) << "ts " << target;
      }
    }
  }
  TestDisk t;
  PartitionLog log(t.disk, kDir, small_segments(3));
  log.recover();
  for (const std::int64_t x : ts) log.append(std::vector<Record>{kv('k', "v", x)});
  EXPECT_EQ(log.offset_for_timestamp(25), Offset(1));  // 50 comes before 30 and 40
  EXPECT_EQ(log.offset_for_timestamp(61), Offset(6));  // in the third segment, past the second's max
  EXPECT_EQ(log.offset_for_timestamp(71), Offset(6));  // 90 at 6 precedes 70 at 7
  EXPECT_EQ(log.offset_for_timestamp(86), Offset(6));
  EXPECT_EQ(log.offset_for_timestamp(91), std::nullopt);
}

TEST(LogOffsetForTimestamp, EmptyLogAndGaps) {
  TestDisk t;
  PartitionLog log(t.disk, kDir, small_segments(2));
  log.recover();
  EXPECT_EQ(log.offset_for_timestamp(0), std::nullopt);
  replicate(log, std::vector<StoredRecord>{{Offset(3), kv('a', "v", 100)}, {Offset(7), kv('b', "v", 200)}});
  EXPECT_EQ(log.offset_for_timestamp(-5), Offset(3));
  EXPECT_EQ(log.offset_for_timestamp(101), Offset(7));
  EXPECT_EQ(log.offset_for_timestamp(201), std::nullopt);
}

// ---- Preconditions.

TEST(LogPreconditions, InvalidConfigAndBadAppendsAreInvariantFailures) {
  TestDisk t;
  LogConfig bad;
  bad.flush_messages = 0;
  EXPECT_EQ(bad.invalid_key(), "flush.messages");
  EXPECT_THROW(PartitionLog(t.disk, kDir, bad), InvariantError);
  EXPECT_EQ(LogConfig{}.invalid_key(), "");
  PartitionLog log(t.disk, kDir);
  log.recover();
  log.append(std::vector<Record>{kv('a', "v"), kv('b', "v")}, LeaderEpoch(2));
  // Below the log end, out of order, or with an epoch going back: refused, and nothing changes.
  EXPECT_THROW(replicate(log, std::vector<StoredRecord>{{Offset(1), kv('c', "v")}}), InvariantError);
  EXPECT_THROW(replicate(log, std::vector<StoredRecord>{{Offset(3), kv('c', "v")}, {Offset(3), kv('d', "v")}}),
               InvariantError);
  EXPECT_THROW(replicate(log, std::vector<StoredRecord>{{Offset(2), kv('c', "v"), LeaderEpoch(1)}}),
               InvariantError);
  EXPECT_EQ(log.log_end_offset(), Offset(2));
  EXPECT_EQ(t.disk.size(segment_file(kDir, 0)), batch_bytes(2));
  EXPECT_THROW(log.truncate_to(Offset(-1)), InvariantError);
}

}  // namespace
}  // namespace logsim::engine

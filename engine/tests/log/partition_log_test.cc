// Tests of the partition log: appends as record batches, append/read semantics (whole batches),
// truncation, and recovery on SimDisk after a process crash, a power loss, and a power loss
// that tears the unsynced tail. Last, record headers end to end: a producer client sends them
// to a broker, a fetch returns them.
#include "engine/log/partition_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/broker/broker.h"
#include "engine/client/producer.h"
#include "engine/base/assert.h"
#include "engine/base/digest.h"
#include "engine/env/env.h"
#include "engine/env/rng.h"
#include "engine/protocol/record_batch.h"
#include "engine/tests/log/log_test_util.h"
#include "sim/disk.h"

namespace logsim::engine {
namespace {

using sim::SimDisk;
using sim::SimDiskOptions;

const std::string kDir = "t-0";
const std::string kFile = kDir + "/00000000000000000000.log";  // its first segment

Record rec(std::optional<std::string> key, std::optional<std::string> value, std::int64_t ts = 0) {
  return Record{std::move(key), std::move(value), ts};
}

// The records' keys, values, timestamps and headers are equal (Record has no operator==).
::testing::AssertionResult same_record(const Record& a, const Record& b) {
  if (a.key != b.key) return ::testing::AssertionFailure() << "keys differ";
  if (a.value != b.value) return ::testing::AssertionFailure() << "values differ";
  if (a.timestamp_ms != b.timestamp_ms) {
    return ::testing::AssertionFailure() << "timestamps " << a.timestamp_ms << " vs " << b.timestamp_ms;
  }
  if (a.headers != b.headers) return ::testing::AssertionFailure() << "headers differ";
  return ::testing::AssertionSuccess();
}

// `got` holds exactly `want[first, first + got.size())` at offsets first, first + 1, ...
void expect_records(const std::vector<StoredRecord>& got, const std::vector<Record>& want,
                    std::int64_t first, std::size_t count) {
  ASSERT_EQ(got.size(), count);
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto expected_offset = first + static_cast<std::int64_t>(i);
    EXPECT_EQ(got[i].offset, Offset(expected_offset)) << "record " << i;
    EXPECT_TRUE(same_record(got[i].record, want[static_cast<std::size_t>(expected_offset)]))
        << "record " << i;
  }
}

// The batch of one stored record, at its offset.
std::string batch_of(const StoredRecord& r) {
  std::string out;
  encode_stored_batch(std::span<const StoredRecord>(&r, 1), out);
  return out;
}

// A SimDisk whose fsync completions wait until the test fires them.
class TestDisk {
 public:
  explicit TestDisk(SimDiskOptions options = {}, std::uint64_t seed = 1)
      : disk(options, Rng(seed), [this](Nanos, std::uint64_t, std::function<void()> complete) {
          completions.push_back(std::move(complete));
        }) {}

  void sync(const std::string& file) {
    disk.fsync(file, 0);
    std::vector<std::function<void()>> batch = std::move(completions);
    completions.clear();
    for (auto& c : batch) c();
  }

  std::vector<std::function<void()>> completions;  // declared first: the sink captures it
  SimDisk disk;
};

// Everything the log holds, read without bounds.
std::vector<StoredRecord> read_all(const PartitionLog& log) {
  return log.read(log.log_start_offset(), 1'000'000, log.log_end_offset());
}

Record with_headers(Record r, std::vector<RecordHeader> headers) {
  r.headers = std::move(headers);
  return r;
}

// Repeated keys, empty and null values, binary bytes.
const std::vector<RecordHeader> kHeaders = {{"trace-id", "abc"}, {"", ""}, {"null", std::nullopt},
                                            {"trace-id", std::string("\x00\xff", 2)}};

// ---- Appends and reads.

TEST(PartitionLog, AppendReturnsConsecutiveBaseOffsets) {
  TestDisk t;
  PartitionLog log(t.disk, kDir);
  EXPECT_EQ(log.recover(), 0u);
  EXPECT_EQ(log.log_start_offset(), Offset(0));
  EXPECT_EQ(log.log_end_offset(), Offset(0));
  const std::vector<Record> a = {rec("k0", "v0")};
  const std::vector<Record> b = {rec("k1", "v1"), rec("k2", "v2"), rec("k3", "v3")};
  const std::vector<Record> c = {rec(std::nullopt, "v4"), rec("k5", std::nullopt)};
  EXPECT_EQ(log.append(a), Offset(0));
  EXPECT_EQ(log.append(b), Offset(1));
  EXPECT_EQ(log.append(c), Offset(4));
  EXPECT_EQ(log.log_end_offset(), Offset(6));
  // No records: no batch, no offset.
  EXPECT_EQ(log.append(std::vector<Record>{}), Offset(6));
  EXPECT_EQ(log.log_end_offset(), Offset(6));
  std::vector<Record> all = a;
  all.insert(all.end(), b.begin(), b.end());
  all.insert(all.end(), c.begin(), c.end());
  expect_records(read_all(log), all, 0, 6);
  // The file holds exactly the three batches, each at its base offset, in order.
  std::string expected;
  encode_batch(a, BatchMeta{Offset(0), LeaderEpoch(0)}, expected);
  encode_batch(b, BatchMeta{Offset(1), LeaderEpoch(0)}, expected);
  encode_batch(c, BatchMeta{Offset(4), LeaderEpoch(0)}, expected);
  EXPECT_EQ(t.disk.read(kFile, 0, 1 << 20), expected);
  EXPECT_EQ(log.segments().front().batch_count(), 3u);
  EXPECT_EQ(log.segments().front().record_count(), 6u);
}

class PartitionLogRead : public ::testing::Test {
 protected:
  void SetUp() override {
    log.recover();
    // A batch of one record each, so that every offset is a batch boundary.
    for (int i = 0; i < 10; ++i) {
      records.push_back(rec("k" + std::to_string(i), "v" + std::to_string(i), i));
      log.append(std::vector<Record>{records.back()});
    }
  }
  TestDisk t;
  PartitionLog log{t.disk, kDir};
  std::vector<Record> records;
};

TEST_F(PartitionLogRead, RespectsFromMaxRecordsAndUpto) {
  expect_records(log.read(Offset(0), 100, Offset(10)), records, 0, 10);
  expect_records(log.read(Offset(3), 100, Offset(10)), records, 3, 7);
  expect_records(log.read(Offset(3), 2, Offset(10)), records, 3, 2);
  expect_records(log.read(Offset(3), 100, Offset(6)), records, 3, 3);
  expect_records(log.read(Offset(3), 2, Offset(6)), records, 3, 2);
  expect_records(log.read(Offset(3), 5, Offset(6)), records, 3, 3);
  expect_records(log.read(Offset(9), 100, Offset(10)), records, 9, 1);
  // upto beyond the log end is clipped to it.
  expect_records(log.read(Offset(8), 100, Offset(1000)), records, 8, 2);
}

TEST_F(PartitionLogRead, EmptyWhenNothingQualifies) {
  EXPECT_TRUE(log.read(Offset(10), 100, Offset(100)).empty());  // at the log end
  EXPECT_TRUE(log.read(Offset(11), 100, Offset(100)).empty());  // beyond it
  EXPECT_TRUE(log.read(Offset(5), 100, Offset(5)).empty());     // upto == from
  EXPECT_TRUE(log.read(Offset(5), 100, Offset(2)).empty());     // upto < from
  EXPECT_TRUE(log.read(Offset(0), 0, Offset(10)).empty());
  EXPECT_TRUE(log.read(Offset(0), -1, Offset(10)).empty());
  EXPECT_TRUE(log.read(Offset(-1), 100, Offset(10)).empty());  // below the log start
}

// A log whose file starts at offset 5 (as after retention) has log start 5; reads below it
// return nothing, even when the range reaches above it.
TEST(PartitionLog, ReadBelowLogStartReturnsNothing) {
  TestDisk t;
  std::vector<Record> records;
  std::string bytes;
  for (int i = 0; i < 8; ++i) {
    records.push_back(rec("k" + std::to_string(i), "v", i));
    if (i >= 5) bytes += batch_of({Offset(i), records.back()});
  }
  t.disk.append(kFile, bytes);
  PartitionLog log(t.disk, kDir);
  EXPECT_EQ(log.recover(), 0u);
  EXPECT_EQ(log.log_start_offset(), Offset(5));
  EXPECT_EQ(log.log_end_offset(), Offset(8));
  EXPECT_TRUE(log.read(Offset(4), 100, Offset(8)).empty());
  EXPECT_TRUE(log.read(Offset(0), 100, Offset(8)).empty());
  expect_records(log.read(Offset(5), 100, Offset(8)), records, 5, 3);
  expect_records(log.read(Offset(6), 1, Offset(8)), records, 6, 1);
  EXPECT_EQ(log.append(std::vector<Record>{rec("k8", "v", 8)}), Offset(8));
}

// ---- Recovery.

std::vector<Record> numbered(int from, int count) {
  std::vector<Record> out;
  for (int i = from; i < from + count; ++i) out.push_back(rec("key-" + std::to_string(i), "value-" + std::to_string(i), i));
  return out;
}

TEST(PartitionLogRecovery, ProcessCrashKeepsEveryRecord) {
  TestDisk t;
  const std::vector<Record> all = numbered(0, 7);
  {
    PartitionLog log(t.disk, kDir);
    log.recover();
    log.append(std::span(all).subspan(0, 3));
    t.sync(kFile);
    log.append(std::span(all).subspan(3, 4));  // never fsynced: still in the page cache
  }
  t.disk.crash();
  PartitionLog log(t.disk, kDir);
  EXPECT_EQ(log.recover(), 0u);
  EXPECT_EQ(log.log_start_offset(), Offset(0));
  EXPECT_EQ(log.log_end_offset(), Offset(7));
  expect_records(read_all(log), all, 0, 7);
  EXPECT_EQ(log.append(numbered(7, 1)), Offset(7));
}

TEST(PartitionLogRecovery, PowerLossWithNothingSyncedLeavesAnEmptyLog) {
  TestDisk t;
  {
    PartitionLog log(t.disk, kDir);
    log.recover();
    log.append(numbered(0, 5));
  }
  t.disk.power_loss();
  PartitionLog log(t.disk, kDir);
  EXPECT_EQ(log.recover(), 0u);
  EXPECT_EQ(log.log_end_offset(), Offset(0));
  EXPECT_TRUE(read_all(log).empty());
  EXPECT_EQ(log.append(numbered(0, 1)), Offset(0));
}

TEST(PartitionLogRecovery, PowerLossKeepsOnlyTheSyncedRecords) {
  TestDisk t;
  const std::vector<Record> all = numbered(0, 9);
  {
    PartitionLog log(t.disk, kDir);
    log.recover();
    log.append(std::span(all).subspan(0, 2));
    log.append(std::span(all).subspan(2, 2));
    t.sync(kFile);
    log.append(std::span(all).subspan(4, 3));
    log.append(std::span(all).subspan(7, 2));
  }
  t.disk.power_loss();
  PartitionLog log(t.disk, kDir);
  EXPECT_EQ(log.recover(), 0u);  // no torn tail: the unsynced appends are simply gone
  EXPECT_EQ(log.log_end_offset(), Offset(4));
  expect_records(read_all(log), all, 0, 4);
  // The lost offsets are reused by the next append.
  EXPECT_EQ(log.append(numbered(100, 1)), Offset(4));
}

// Recovery of a file with garbage after its valid batches cuts it back to them and says so.
TEST(PartitionLogRecovery, TruncatesAnInvalidTailAndReportsTheBytesCut) {
  TestDisk t;
  const std::vector<Record> all = numbered(0, 3);
  std::string bytes;
  for (std::size_t i = 0; i < all.size(); ++i) bytes += batch_of({Offset(static_cast<std::int64_t>(i)), all[i]});
  const std::uint64_t valid = bytes.size();
  t.disk.append(kFile, bytes + batch_of({Offset(3), rec("k", "v")}).substr(0, 15));
  PartitionLog log(t.disk, kDir);
  EXPECT_EQ(log.recover(), 15u);
  EXPECT_EQ(t.disk.size(kFile), valid);
  expect_records(read_all(log), all, 0, 3);
  EXPECT_EQ(log.append(numbered(3, 1)), Offset(3));
  // A second recovery of the now clean file cuts nothing and sees the new record.
  PartitionLog again(t.disk, kDir);
  EXPECT_EQ(again.recover(), 0u);
  EXPECT_EQ(again.log_end_offset(), Offset(4));
}

// The heart of crash safety: with every power loss tearing the unsynced tail (and half of them
// corrupting its last byte), recovery always yields a prefix of what was appended that includes
// everything fsynced, never a damaged record; it cuts the file to exactly that prefix, and the
// log continues at the right offset.
TEST(PartitionLogRecovery, TornTailsAlwaysRecoverAPrefix) {
  std::uint64_t torn = 0;
  std::uint64_t corrupted = 0;
  std::uint64_t partial_batches_cut = 0;
  std::uint64_t records_lost = 0;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    SimDiskOptions options;
    options.torn_write_probability = 1.0;
    options.torn_corrupt_probability = 0.5;
    TestDisk t(options, seed);
    Rng rng(seed * 7919);
    std::vector<Record> appended;
    std::vector<std::string> written;  // each batch as the file holds it
    std::vector<std::size_t> ends;     // the records appended up to the end of each
    const auto next_batch = [&] {
      std::vector<Record> batch;
      const auto n = rng.uniform_int(1, 4);
      for (std::int64_t i = 0; i < n; ++i) {
        const auto id = static_cast<std::int64_t>(appended.size() + batch.size());
        std::optional<std::string> key;
        if (rng.bernoulli(0.8)) key = "key-" + std::to_string(id);
        std::string value(static_cast<std::size_t>(rng.uniform_int(0, 40)), static_cast<char>('a' + id % 26));
        batch.push_back(rec(key, value, id));
      }
      return batch;
    };
    std::size_t synced = 0;
    {
      PartitionLog log(t.disk, kDir);
      log.recover();
      // Odd seeds sync an empty file, so the whole log is an unsynced tail that may tear.
      if (seed % 2 == 1) {
        log.append(std::vector<Record>{});
      } else {
        const std::vector<Record> batch = next_batch();
        written.push_back(encode_batch(batch, BatchMeta{log.append(batch), LeaderEpoch(0)}));
        appended.insert(appended.end(), batch.begin(), batch.end());
        ends.push_back(appended.size());
      }
      t.sync(kFile);
      synced = appended.size();
      const auto batches = rng.uniform_int(1, 5);
      for (std::int64_t b = 0; b < batches; ++b) {
        const std::vector<Record> batch = next_batch();
        EXPECT_EQ(log.append(batch), Offset(static_cast<std::int64_t>(appended.size())));
        written.push_back(encode_batch(batch, BatchMeta{Offset(static_cast<std::int64_t>(appended.size())), LeaderEpoch(0)}));
        appended.insert(appended.end(), batch.begin(), batch.end());
        ends.push_back(appended.size());
      }
    }
    t.disk.power_loss();
    ASSERT_TRUE(t.disk.exists(kFile));
    const std::uint64_t size_before = t.disk.size(kFile);

    PartitionLog log(t.disk, kDir);
    const std::uint64_t cut = log.recover();
    const std::vector<StoredRecord> got = read_all(log);
    ASSERT_GE(got.size(), synced);
    ASSERT_LE(got.size(), appended.size());
    EXPECT_EQ(log.log_start_offset(), Offset(0));
    EXPECT_EQ(log.log_end_offset(), Offset(static_cast<std::int64_t>(got.size())));
    expect_records(got, appended, 0, got.size());
    // The file is cut to exactly the whole batches of the recovered records.
    std::string valid;
    for (std::size_t b = 0; b < written.size() && ends[b] <= got.size(); ++b) valid += written[b];
    EXPECT_TRUE(got.empty() || std::find(ends.begin(), ends.end(), got.size()) != ends.end()) << "whole batches only";
    EXPECT_EQ(t.disk.size(kFile), valid.size());
    EXPECT_EQ(t.disk.read(kFile, 0, size_before), valid);
    EXPECT_EQ(cut, size_before - valid.size());

    // Appending continues at the recovered end; a later recovery sees old and new alike.
    const std::vector<Record> more = next_batch();
    EXPECT_EQ(log.append(more), Offset(static_cast<std::int64_t>(got.size())));
    std::vector<Record> expected(appended.begin(), appended.begin() + static_cast<std::ptrdiff_t>(got.size()));
    expected.insert(expected.end(), more.begin(), more.end());
    t.disk.crash();
    PartitionLog after(t.disk, kDir);
    EXPECT_EQ(after.recover(), 0u);
    expect_records(read_all(after), expected, 0, expected.size());

    torn = t.disk.stats().torn_tails > 0 ? torn + 1 : torn;
    corrupted += t.disk.stats().torn_corruptions;
    if (cut > 0) ++partial_batches_cut;
    if (got.size() < appended.size()) ++records_lost;
  }
  // The seeds reached the interesting cases: tears, corrupt bytes, partial batches cut away,
  // and records lost to the power loss.
  EXPECT_EQ(torn, 400u);
  EXPECT_GT(corrupted, 50u);
  EXPECT_GT(partial_batches_cut, 50u);
  EXPECT_GT(records_lost, 50u);
}

}  // namespace
}  // namespace logsim::engine

// ---- Leader epochs and truncation (replication).
namespace logsim::engine {
namespace {

std::vector<Record> records(int n, const std::string& tag) {
  std::vector<Record> out;
  for (int i = 0; i < n; ++i) out.push_back(rec(tag + std::to_string(i), "v", i));
  return out;
}

TEST(PartitionLogEpochs, AppendStampsEpochsAndTheCacheAnswersOffsetsForLeaderEpoch) {
  TestDisk t;
  PartitionLog log(t.disk, kDir);
  log.recover();
  EXPECT_EQ(log.latest_epoch(), LeaderEpoch(-1));
  EXPECT_FALSE(log.end_offset_for_epoch(LeaderEpoch(5)).has_value());
  log.append(records(3, "a"), LeaderEpoch(1));  // offsets 0..2
  log.append(records(2, "b"), LeaderEpoch(1));  // 3..4
  log.append(records(4, "c"), LeaderEpoch(4));  // 5..8
  EXPECT_EQ(log.latest_epoch(), LeaderEpoch(4));
  const auto all = read_all(log);
  EXPECT_EQ(all[4].leader_epoch, LeaderEpoch(1));
  EXPECT_EQ(all[5].leader_epoch, LeaderEpoch(4));
  // Epoch 1 ends where epoch 4 starts; epochs 2 and 3 never appended, so asking for them
  // answers with epoch 1 and its end (KIP-279); the latest epoch ends at the log end.
  EXPECT_EQ(log.end_offset_for_epoch(LeaderEpoch(1)), std::make_pair(LeaderEpoch(1), Offset(5)));
  EXPECT_EQ(log.end_offset_for_epoch(LeaderEpoch(3)), std::make_pair(LeaderEpoch(1), Offset(5)));
  EXPECT_EQ(log.end_offset_for_epoch(LeaderEpoch(4)), std::make_pair(LeaderEpoch(4), Offset(9)));
  EXPECT_EQ(log.end_offset_for_epoch(LeaderEpoch(9)), std::make_pair(LeaderEpoch(4), Offset(9)));
  EXPECT_FALSE(log.end_offset_for_epoch(LeaderEpoch(0)).has_value());
}

TEST(PartitionLogEpochs, TruncationDropsRecordsBytesAndEpochsAndSurvivesRecovery) {
  TestDisk t;
  {
    PartitionLog log(t.disk, kDir);
    log.recover();
    log.append(records(3, "a"), LeaderEpoch(1));
    const std::uint64_t bytes_after_epoch_1 = log.size_bytes();
    log.append(records(3, "b"), LeaderEpoch(2));
    log.truncate_to(Offset(3));
    EXPECT_EQ(log.log_end_offset(), Offset(3));
    EXPECT_EQ(log.size_bytes(), bytes_after_epoch_1);
    EXPECT_EQ(t.disk.size(kFile), bytes_after_epoch_1);
    EXPECT_EQ(log.latest_epoch(), LeaderEpoch(1));
    // A divergent tail from another leader takes the truncated offsets.
    log.append(records(2, "x"), LeaderEpoch(3));
    log.truncate_to(Offset(10));  // above the end: nothing happens
    EXPECT_EQ(log.log_end_offset(), Offset(5));
  }
  t.disk.crash();
  PartitionLog log(t.disk, kDir);
  log.recover();
  const auto all = read_all(log);
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(*all[3].record.key, "x0");
  EXPECT_EQ(all[3].leader_epoch, LeaderEpoch(3));
  EXPECT_EQ(log.end_offset_for_epoch(LeaderEpoch(2)), std::make_pair(LeaderEpoch(1), Offset(3)));
}

TEST(PartitionLogEpochs, ReplicatedAppendKeepsOffsetsAndEpochsAndRefusesOffsetsBelowTheLogEnd) {
  TestDisk t;
  PartitionLog leader(t.disk, "leader");
  PartitionLog follower(t.disk, "follower");
  leader.recover();
  follower.recover();
  leader.append(records(2, "a"), LeaderEpoch(1));
  leader.append(records(2, "b"), LeaderEpoch(2));
  const auto fetched = leader.read(Offset(0), 100, leader.log_end_offset());
  logtest::replicate(follower, fetched);
  EXPECT_EQ(follower.log_end_offset(), Offset(4));
  EXPECT_EQ(follower.end_offset_for_epoch(LeaderEpoch(1)), leader.end_offset_for_epoch(LeaderEpoch(1)));
  EXPECT_EQ(t.disk.read("follower/00000000000000000000.log", 0, 1 << 20),
            t.disk.read("leader/00000000000000000000.log", 0, 1 << 20));
  // A batch below the log end is an invariant failure, not a silent overwrite.
  EXPECT_THROW(logtest::replicate(follower, std::vector<StoredRecord>{fetched[1]}), InvariantError);
}

// A follower that appends its leader's batches as they are (read_batches in, as replication
// fetches them) ends with the same bytes, batch for batch, the same records and epoch cache,
// across segment rolls and offset gaps (compaction's), whatever the fetch size. (Where its
// segments roll may differ: a log rolls before an append, and a fetch is one append, as in
// Kafka, whose replicas' segments differ too.)
TEST(PartitionLogEpochs, AFollowerAppendingItsLeadersBatchesHasTheSameLog) {
  std::vector<StoredRecord> stored;
  for (std::int64_t i = 0; i < 40; ++i) {
    if (i % 7 == 3) continue;  // gaps
    stored.push_back({Offset(i), rec(std::string(1, static_cast<char>('a' + i % 26)), std::to_string(i % 10), 100 + (i * 37) % 50),
                      LeaderEpoch(static_cast<std::int32_t>(1 + i / 15)), ProducerId(3), ProducerEpoch(0),
                      Sequence(static_cast<std::int32_t>(i))});
  }
  TestDisk t;
  LogConfig config;
  config.segment_bytes = 5 * 80;
  config.index_interval_bytes = 2 * 80;
  PartitionLog leader(t.disk, "leader", config);
  leader.recover();
  for (std::size_t i = 0; i < stored.size(); i += 3) {
    const auto run = std::span<const StoredRecord>(stored).subspan(i, std::min<std::size_t>(3, stored.size() - i));
    logtest::replicate(leader, std::vector<StoredRecord>(run.begin(), run.end()), static_cast<std::int64_t>(i));
  }
  ASSERT_GT(leader.segments().size(), 3u);
  for (const std::int32_t max : {1, 4, 1000}) {
    SCOPED_TRACE("max records " + std::to_string(max));
    PartitionLog follower(t.disk, "follower-" + std::to_string(max), config);
    follower.recover();
    for (int fetches = 0; follower.log_end_offset() < leader.log_end_offset(); ++fetches) {
      ASSERT_LT(fetches, 100);
      std::size_t count = 0;
      const SharedBytes batches = leader.read_batches(follower.log_end_offset(), max, leader.log_end_offset(), count);
      const BatchScan scan = scan_batch_headers(batches);
      ASSERT_TRUE(scan.complete);
      follower.append_as_follower(batches, scan.batches, fetches);
    }
    const auto bytes_of = [&](const PartitionLog& log) {
      std::string all;
      for (const LogSegment& seg : log.segments()) all += t.disk.read(seg.file(), 0, 1 << 20);
      return all;
    };
    EXPECT_EQ(bytes_of(follower), bytes_of(leader));
    EXPECT_EQ(logtest::offsets_of(read_all(follower)), logtest::offsets_of(stored));
    std::size_t batches = 0;
    for (const LogSegment& seg : follower.segments()) batches += seg.batch_count();
    EXPECT_EQ(batches, leader.batch_headers().size());
    if (max == 1) {
      EXPECT_GT(follower.segments().size(), 3u) << "it rolled too";
    }
    EXPECT_EQ(follower.log_end_offset(), Offset(40));
    EXPECT_EQ(follower.epoch_cache().entries().size(), leader.epoch_cache().entries().size());
    for (std::int32_t e = 0; e < 5; ++e) {
      EXPECT_EQ(follower.end_offset_for_epoch(LeaderEpoch(e)), leader.end_offset_for_epoch(LeaderEpoch(e)));
    }
    EXPECT_EQ(follower.offset_for_timestamp(130), leader.offset_for_timestamp(130));
    // A batch below the log end is an invariant failure, not a silent overwrite.
    const std::string again = batch_of(stored.back());
    EXPECT_THROW(follower.append_as_follower(SharedBytes(again), scan_batches(again, true).batches), InvariantError);
  }
}

// A producer's batch with kKeepRecordsFrom bytes of records or more is kept as it came: the
// log holds the same bytes as after a copied append, and a fetch hands out the producer's own
// memory for its records; a smaller batch is copied.
TEST(PartitionLog, LargeProducerBatchesAreKeptNotCopied) {
  TestDisk t;
  PartitionLog kept(t.disk, "kept", LogConfig{});
  PartitionLog copied(t.disk, "copied", LogConfig{});
  kept.recover();
  copied.recover();
  std::vector<SharedBytes> sent;
  for (int i = 0; i < 6; ++i) {
    const std::size_t value_bytes = i % 2 == 0 ? PartitionLog::kKeepRecordsFrom + 100 : 200;
    const StoredRecord r{Offset(0), rec("k" + std::to_string(i), std::string(value_bytes, static_cast<char>('a' + i)), 10 + i),
                         LeaderEpoch(-1), ProducerId(-1), ProducerEpoch(-1), Sequence(-1)};
    sent.push_back(SharedBytes(batch_of(r)));
    std::string scratch;
    EXPECT_EQ(kept.append_as_leader(sent.back(), LeaderEpoch(2), 100 + i), Offset(i));
    EXPECT_EQ(copied.append_as_leader(sent.back().contiguous(scratch), LeaderEpoch(2), 100 + i), Offset(i));
  }
  const auto bytes_of = [&](const PartitionLog& log) { return t.disk.read(log.segments().front().file(), 0, 1 << 20); };
  EXPECT_EQ(bytes_of(kept), bytes_of(copied));
  const std::vector<StoredRecord> records = read_all(kept);
  ASSERT_EQ(records.size(), 6u);
  for (std::size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(records[i].offset, Offset(static_cast<std::int64_t>(i)));
    EXPECT_EQ(records[i].leader_epoch, LeaderEpoch(2));
    EXPECT_EQ(records[i].record.value->front(), static_cast<char>('a' + i));
  }
  std::size_t count = 0;
  const SharedBytes fetched = kept.read_batches(Offset(0), 1000, kept.log_end_offset(), count);
  ASSERT_EQ(count, 6u);
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const SharedBytes::Slice& mine = sent[i].slices().front();
    const bool shared = std::any_of(fetched.slices().begin(), fetched.slices().end(), [&](const SharedBytes::Slice& s) {
      return s.data >= mine.data && s.data < mine.data + mine.size;
    });
    EXPECT_EQ(shared, i % 2 == 0) << "batch " << i;
  }
}

// read_batches answers with whole batches: from the one holding `from`, each wholly below
// `upto`, until max_records were taken; decoded from `from` on, they are what read() returns.
TEST(PartitionLog, ReadBatchesAreWholeBatchesHoldingTheRecordsRead) {
  TestDisk t;
  PartitionLog log(t.disk, kDir);
  log.recover();
  log.append(records(3, "r0"), LeaderEpoch(0));  // batches of 3
  LogConfig config;
  config.segment_bytes = static_cast<std::int32_t>(3 * log.size_bytes());  // 3 batches a segment
  log.reconfigure(config);
  for (int i = 1; i < 8; ++i) log.append(records(3, "r" + std::to_string(i)), LeaderEpoch(i / 3));
  ASSERT_EQ(log.segments().size(), 3u);
  for (const std::int64_t from : {0, 1, 5, 6, 17, 23, 24}) {
    for (const std::int32_t max : {1, 4, 7, 100}) {
      for (const std::int64_t upto : {0, 3, 4, 13, 24, 30}) {
        SCOPED_TRACE(std::to_string(from) + " " + std::to_string(max) + " " + std::to_string(upto));
        std::size_t count = 99;
        const SharedBytes got = log.read_batches(Offset(from), max, Offset(upto), count);
        const BatchScan scan = scan_batches(got.str(), true);
        ASSERT_TRUE(scan.complete);
        std::size_t records_in = 0;
        for (const BatchHeader& h : scan.batches) {
          EXPECT_EQ(h.base_offset.value() % 3, 0) << "whole batches, as the leader wrote them";
          EXPECT_LT(h.last_offset(), Offset(std::min<std::int64_t>(upto, 24)));
          records_in += static_cast<std::size_t>(h.record_count);
        }
        EXPECT_EQ(count, records_in);
        if (!scan.batches.empty()) {
          EXPECT_LE(scan.batches.front().base_offset, Offset(from));
          EXPECT_GE(scan.batches.front().last_offset(), Offset(from));
          EXPECT_LT(records_in - static_cast<std::size_t>(scan.batches.back().record_count), static_cast<std::size_t>(max));
        }
        std::vector<StoredRecord> decoded = decode_batches(got, Offset(from));
        if (decoded.size() > static_cast<std::size_t>(max)) decoded.resize(static_cast<std::size_t>(max));
        EXPECT_EQ(logtest::offsets_of(decoded), logtest::offsets_of(log.read(Offset(from), max, Offset(upto))));
      }
    }
  }
}

// Truncation at an offset inside a batch removes the whole batch (Kafka's LogSegment.truncateTo
// cuts at the batch holding the offset), and the log end is still the offset asked for.
TEST(PartitionLog, TruncationInsideABatchRemovesTheWholeBatch) {
  TestDisk t;
  PartitionLog log(t.disk, kDir);
  log.recover();
  log.append(records(3, "a"), LeaderEpoch(1));  // 0..2
  const std::uint64_t first = log.size_bytes();
  log.append(records(4, "b"), LeaderEpoch(2));  // 3..6
  log.truncate_to(Offset(5));
  EXPECT_EQ(log.log_end_offset(), Offset(5));
  EXPECT_EQ(log.size_bytes(), first);
  EXPECT_EQ(logtest::offsets_of(read_all(log)), (std::vector<std::int64_t>{0, 1, 2}));
  // The epoch cache keeps epoch 2, which started below 5, as Kafka's truncateFromEnd does.
  EXPECT_EQ(log.latest_epoch(), LeaderEpoch(2));
  EXPECT_EQ(log.append(records(1, "c"), LeaderEpoch(3)), Offset(5));
  EXPECT_EQ(logtest::offsets_of(read_all(log)), (std::vector<std::int64_t>{0, 1, 2, 5}));
}

// A segment larger than the disk's pages: reads, truncation and recovery decode batches that
// straddle page boundaries (the disk then copies them; within a page it does not).
TEST(PartitionLog, BatchesAcrossDiskPagesReadBack) {
  TestDisk t;
  std::vector<Record> records;
  for (int i = 0; i < 3000; ++i) {
    records.push_back(rec("k" + std::to_string(i), std::string(static_cast<std::size_t>(1200 + i % 977), static_cast<char>('a' + i % 26)), i));
  }
  {
    PartitionLog log(t.disk, kDir);
    log.recover();
    for (std::size_t i = 0; i < records.size(); i += 7) {
      const std::size_t n = std::min<std::size_t>(7, records.size() - i);
      log.append(std::span<const Record>(records).subspan(i, n));
    }
    ASSERT_EQ(log.segments().size(), 1u);
    ASSERT_GT(log.size_bytes(), 2 * PagedBytes::kPageBytes);
    expect_records(log.read(Offset(0), 5000, Offset(3000)), records, 0, 3000);
    expect_records(log.read(Offset(1234), 1000, Offset(3000)), records, 1234, 1000);
    EXPECT_EQ(log.offset_for_timestamp(2500), Offset(2500));
    log.truncate_to(Offset(2898));  // a batch boundary: batches of 7
    records.resize(2898);
  }
  t.disk.crash();
  PartitionLog log(t.disk, kDir);
  EXPECT_EQ(log.recover(), 0u);
  expect_records(log.read(Offset(0), 5000, Offset(3000)), records, 0, 2898);
  EXPECT_EQ(log.offset_for_timestamp(2897), Offset(2897));
  EXPECT_FALSE(log.offset_for_timestamp(2898).has_value());
}

// ---- Headers end to end.

// Recovery decodes headers from the segment files.
TEST(PartitionLog, RecoveryKeepsHeaders) {
  TestDisk t;
  const std::vector<Record> records = {with_headers(rec("k", "v", 1), kHeaders), rec("k2", "v2", 2)};
  {
    PartitionLog log(t.disk, kDir);
    log.recover();
    log.append(records);
  }
  t.disk.crash();
  PartitionLog log(t.disk, kDir);
  EXPECT_EQ(log.recover(), 0u);
  expect_records(log.read(Offset(0), 100, Offset(2)), records, 0, 2);
}

// A producer client and a standalone broker wired together by hand: messages are delivered in
// order, timers never fire (none is needed for one acknowledged send).
class Wire {
 public:
  class NodeEnv final : public Env {
   public:
    NodeEnv(Wire& wire, NodeId self, Disk& disk) : wire_(wire), self_(self), disk_(disk) {}
    NodeId self() const override { return self_; }
    Nanos now() const override { return 0; }
    TimerId set_timer(Nanos, std::uint64_t) override { return ++last_timer_; }
    void cancel_timer(TimerId) override {}
    void send(NodeId to, Message msg) override { wire_.queue.push_back({self_, to, std::move(msg)}); }
    Disk& disk() override { return disk_; }
    Rng& rng() override { return rng_; }

   private:
    Wire& wire_;
    NodeId self_;
    Disk& disk_;
    TimerId last_timer_ = 0;
    Rng rng_{7};
  };
  struct InFlight {
    NodeId from;
    NodeId to;
    Message msg;
  };
  std::deque<InFlight> queue;
};

TEST(RecordHeaders, ProducedHeadersComeBackInAFetch) {
  TestDisk t;
  const NodeId broker_id(0);
  const NodeId client_id(1);
  Wire wire;
  Wire::NodeEnv broker_env(wire, broker_id, t.disk);
  Wire::NodeEnv client_env(wire, client_id, t.disk);
  BrokerConfig bc;
  bc.topics = {TopicSpec{"t", 1}};
  Broker broker(broker_env, bc);
  broker.on_start();
  ProducerConfig pc;
  pc.bootstrap_servers = {broker_id};
  TimerMux client_timers(client_env);
  Producer producer(client_env, client_timers, pc);
  producer.start();
  std::optional<SendResult> result;
  producer.send("t", with_headers(rec("k", "v", 9), kHeaders), PartitionId(0),
                [&result](const SendResult& r) { result = r; });
  std::optional<FetchResponse> fetched;
  for (int steps = 0; !wire.queue.empty() && steps < 100; ++steps) {
    Wire::InFlight m = std::move(wire.queue.front());
    wire.queue.pop_front();
    if (m.to == broker_id) {
      broker.on_message(m.from, m.msg);
    } else if (const auto* f = std::get_if<FetchResponse>(&m.msg)) {
      fetched = *f;
    } else {
      producer.on_message(m.from, m.msg);
    }
    if (result && !fetched && wire.queue.empty()) {
      FetchRequest req;
      req.correlation_id = 1000;
      req.topic = "t";
      req.partition = PartitionId(0);
      req.fetch_offset = Offset(0);
      client_env.send(broker_id, req);
    }
  }
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->outcome, SendOutcome::kAcknowledged);
  ASSERT_TRUE(fetched.has_value());
  EXPECT_EQ(fetched->error, ErrorCode::NONE);
  const std::vector<StoredRecord> got = decode_batches(fetched->records);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(same_record(got[0].record, with_headers(rec("k", "v", 9), kHeaders)));
}

}  // namespace
}  // namespace logsim::engine

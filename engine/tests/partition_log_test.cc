// Tests of the record codec and the partition log: frame round trips (headers included),
// decode stopping at a torn or corrupt frame, append/read semantics, and recovery on SimDisk
// after a process crash, a power loss, and a power loss that tears the unsynced tail. Last,
// record headers end to end: a producer client sends them to a broker, a fetch returns them.
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
#include "engine/env/assert.h"
#include "engine/env/digest.h"
#include "engine/env/env.h"
#include "engine/env/rng.h"
#include "engine/log/record_codec.h"
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

std::string frame(const StoredRecord& r) {
  std::string out;
  encode_record(r, out);
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

// ---- Record codec.

TEST(RecordCodec, RoundTripsNullEmptyAndBinaryFields) {
  std::string binary;
  for (int b = 0; b < 256; ++b) binary.push_back(static_cast<char>(b));
  const std::vector<StoredRecord> records = {
      {Offset(0), rec(std::nullopt, std::nullopt, 0)},
      {Offset(1), rec(std::nullopt, "v", 1)},
      {Offset(2), rec("k", std::nullopt, -5)},  // a tombstone, and a negative timestamp
      {Offset(3), rec("", "", 3)},               // empty is not null
      {Offset(4), rec(binary, std::string("\0\0\xff", 3), INT64_MAX)},
      {Offset(INT64_MAX), rec(std::string(100'000, 'x'), binary, INT64_MIN)},
  };
  std::string bytes;
  for (const StoredRecord& r : records) encode_record(r, bytes);
  const DecodedLog decoded = decode_records(bytes);
  EXPECT_EQ(decoded.valid_bytes, bytes.size());
  ASSERT_EQ(decoded.records.size(), records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(decoded.records[i].offset, records[i].offset) << i;
    EXPECT_TRUE(same_record(decoded.records[i].record, records[i].record)) << i;
  }
  // Null and empty must stay distinct after the round trip.
  EXPECT_FALSE(decoded.records[0].record.key.has_value());
  EXPECT_FALSE(decoded.records[0].record.value.has_value());
  ASSERT_TRUE(decoded.records[3].record.key.has_value());
  EXPECT_EQ(*decoded.records[3].record.key, "");
  ASSERT_TRUE(decoded.records[3].record.value.has_value());
  EXPECT_EQ(*decoded.records[3].record.value, "");
}

Record with_headers(Record r, std::vector<RecordHeader> headers) {
  r.headers = std::move(headers);
  return r;
}

// Headers keep their order, repeated keys, empty keys and values, and null values.
const std::vector<RecordHeader> kHeaders = {{"trace-id", "abc"}, {"", ""}, {"null", std::nullopt},
                                            {"trace-id", std::string("\x00\xff", 2)}};

TEST(RecordCodec, HeadersRoundTrip) {
  const std::vector<Record> records = {with_headers(rec("k", "v", 5), kHeaders),
                                       with_headers(rec(std::nullopt, std::nullopt, 6), {{"only", std::nullopt}}),
                                       rec("plain", "record", 7)};
  std::string bytes;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const StoredRecord r{Offset(static_cast<std::int64_t>(i)), records[i]};
    const std::size_t before = bytes.size();
    encode_record(r, bytes);
    EXPECT_EQ(bytes.size() - before, encoded_size(r)) << i;
  }
  const DecodedLog decoded = decode_records(bytes);
  ASSERT_EQ(decoded.records.size(), records.size());
  EXPECT_EQ(decoded.valid_bytes, bytes.size());
  for (std::size_t i = 0; i < records.size(); ++i) EXPECT_TRUE(same_record(decoded.records[i].record, records[i])) << i;
  ASSERT_EQ(decoded.records[0].record.headers.size(), 4u);
  EXPECT_FALSE(decoded.records[0].record.headers[2].value.has_value());
  ASSERT_TRUE(decoded.records[0].record.headers[1].value.has_value());
  EXPECT_EQ(*decoded.records[0].record.headers[1].value, "");
}

// The checksum covers the headers: damage in a header's bytes stops the decode there.
TEST(RecordCodec, ChecksumCoversHeaders) {
  const StoredRecord r{Offset(0), with_headers(rec("k", "v"), {{"hk", "hv"}})};
  const std::string good = frame(r);
  const std::size_t at = good.find("hv");
  ASSERT_NE(at, std::string::npos);
  std::string damaged = good;
  damaged[at] = 'x';
  EXPECT_TRUE(decode_records(damaged).records.empty());
}

// Headers are part of a record's digest (so of the trace hash), order included.
TEST(RecordCodec, HeadersReachTheDigest) {
  const auto digest = [](const Record& r) {
    Digest d;
    r.fold(d);
    return d.value();
  };
  const Record plain = rec("k", "v");
  const Record a = with_headers(plain, {{"x", "1"}, {"y", "2"}});
  const Record b = with_headers(plain, {{"y", "2"}, {"x", "1"}});
  const Record null_value = with_headers(plain, {{"x", std::nullopt}});
  const Record empty_value = with_headers(plain, {{"x", ""}});
  EXPECT_NE(digest(plain), digest(a));
  EXPECT_NE(digest(a), digest(b));
  EXPECT_NE(digest(null_value), digest(empty_value));
  EXPECT_EQ(digest(a), digest(with_headers(plain, {{"x", "1"}, {"y", "2"}})));
}

// Record::fold folds keys and values word by word; it must equal Digest's byte-by-byte fold.
TEST(RecordCodec, RecordDigestFoldsBytesAsDigestDoes) {
  for (std::size_t n = 0; n < 40; ++n) {
    std::string value;
    for (std::size_t i = 0; i < n; ++i) value.push_back(static_cast<char>(i * 37 + 11));
    const Record r = rec(std::nullopt, value, 3);
    Digest got;
    r.fold(got);
    Digest want;
    want.add(std::optional<std::string>()).add(std::optional<std::string>(value)).add(std::int64_t{3});
    want.add(std::uint64_t{0});  // no headers
    EXPECT_EQ(got.value(), want.value()) << n;
  }
}

// The frame layout documented in record_codec.h, byte for byte.
TEST(RecordCodec, FrameLayoutIsTheDocumentedOne) {
  const std::string bytes = frame({Offset(7), rec("ab", std::nullopt, 9)});
  std::string body;
  const auto put = [&body](auto v) {
    char buf[sizeof v];
    std::memcpy(buf, &v, sizeof v);
    body.append(buf, sizeof v);
  };
  put(std::int64_t{7});
  put(std::int32_t{0});   // leader epoch
  put(std::int64_t{-1});  // producer id
  put(std::int32_t{-1});  // producer epoch
  put(std::int32_t{-1});  // sequence
  put(std::int64_t{9});
  put(std::int32_t{2});
  body += "ab";
  put(std::int32_t{-1});
  put(std::int32_t{0});  // header count
  std::string expected;
  const auto len = static_cast<std::uint32_t>(body.size());
  const std::uint64_t sum = frame_checksum(body);
  expected.append(reinterpret_cast<const char*>(&len), sizeof len);
  expected.append(reinterpret_cast<const char*>(&sum), sizeof sum);
  expected += body;
  EXPECT_EQ(bytes, expected);
}

TEST(RecordCodec, EmptyInputDecodesToNothing) {
  const DecodedLog decoded = decode_records("");
  EXPECT_TRUE(decoded.records.empty());
  EXPECT_EQ(decoded.valid_bytes, 0u);
}

// Cutting the bytes anywhere keeps exactly the whole frames before the cut.
TEST(RecordCodec, TruncatedInputStopsAtTheLastWholeFrame) {
  std::vector<std::size_t> ends;  // end of each frame
  std::string bytes;
  for (int i = 0; i < 4; ++i) {
    encode_record({Offset(i), rec("key" + std::to_string(i), std::string(static_cast<std::size_t>(i) * 7, 'v'), i)}, bytes);
    ends.push_back(bytes.size());
  }
  for (std::size_t cut = 0; cut <= bytes.size(); ++cut) {
    const DecodedLog decoded = decode_records(std::string_view(bytes).substr(0, cut));
    std::size_t whole = 0;
    while (whole < ends.size() && ends[whole] <= cut) ++whole;
    ASSERT_EQ(decoded.records.size(), whole) << "cut " << cut;
    EXPECT_EQ(decoded.valid_bytes, whole == 0 ? 0 : ends[whole - 1]) << "cut " << cut;
  }
}

// Flip every byte of every frame (header and body) with several masks: decode keeps exactly
// the frames before the damaged one.
TEST(RecordCodec, AnySingleFlippedByteStopsDecodeBeforeThatFrame) {
  std::vector<std::size_t> starts;
  std::string bytes;
  const std::vector<Record> records = {rec("a", "first", 1), rec(std::nullopt, "second-value", 2),
                                       rec("c", std::nullopt, 3), rec("", std::string("\x80\x00\xff", 3), 4)};
  for (std::size_t i = 0; i < records.size(); ++i) {
    starts.push_back(bytes.size());
    encode_record({Offset(static_cast<std::int64_t>(i)), records[i]}, bytes);
  }
  starts.push_back(bytes.size());
  for (std::size_t f = 0; f < records.size(); ++f) {
    for (std::size_t pos = starts[f]; pos < starts[f + 1]; ++pos) {
      for (unsigned mask : {0x01U, 0x10U, 0x80U, 0xffU}) {
        std::string damaged = bytes;
        damaged[pos] = static_cast<char>(static_cast<unsigned char>(damaged[pos]) ^ mask);
        const DecodedLog decoded = decode_records(damaged);
        ASSERT_EQ(decoded.records.size(), f) << "frame " << f << " byte " << pos << " mask " << mask;
        EXPECT_EQ(decoded.valid_bytes, starts[f]) << "frame " << f << " byte " << pos;
      }
    }
  }
}

// A frame whose checksum is right but whose body does not parse is still rejected.
TEST(RecordCodec, WellChecksummedButMalformedBodyStopsDecode) {
  const auto make_frame = [](const std::string& body) {
    std::string out;
    const auto len = static_cast<std::uint32_t>(body.size());
    const std::uint64_t sum = frame_checksum(body);
    out.append(reinterpret_cast<const char*>(&len), sizeof len);
    out.append(reinterpret_cast<const char*>(&sum), sizeof sum);
    return out + body;
  };
  const std::string good = frame({Offset(0), rec("k", "v")});
  std::string body(16, '\0');  // offset 0, timestamp 0
  std::string key_len_minus_2 = body;
  const std::int32_t minus2 = -2;
  key_len_minus_2.append(reinterpret_cast<const char*>(&minus2), sizeof minus2);
  const std::int32_t minus1 = -1;
  key_len_minus_2.append(reinterpret_cast<const char*>(&minus1), sizeof minus1);
  std::string trailing = body;
  trailing.append(reinterpret_cast<const char*>(&minus1), sizeof minus1);
  trailing.append(reinterpret_cast<const char*>(&minus1), sizeof minus1);
  trailing += "junk";
  for (const std::string& bad : {key_len_minus_2, trailing, body}) {
    const DecodedLog decoded = decode_records(good + make_frame(bad) + good);
    EXPECT_EQ(decoded.records.size(), 1u);
    EXPECT_EQ(decoded.valid_bytes, good.size());
  }
}

// scan_frames reads each frame's fixed fields and length, as decode_frame does, without the
// key, value and headers; anything but whole, well-formed frames is refused.
TEST(RecordCodec, ScanFramesDescribesEachFrameAndRefusesMalformedOnes) {
  const std::vector<StoredRecord> stored = {
      {Offset(3), with_headers(rec("k", "v", 5), kHeaders), LeaderEpoch(2), ProducerId(7), ProducerEpoch(1), Sequence(4)},
      {Offset(4), rec(std::nullopt, std::nullopt, -1), LeaderEpoch(2)},
      {Offset(9), rec("", std::string(300, 'x'), 12), LeaderEpoch(5), ProducerId(8), ProducerEpoch(0), Sequence(0)}};
  std::string frames;
  std::vector<std::size_t> ends;
  for (const StoredRecord& r : stored) {
    encode_record(r, frames);
    ends.push_back(frames.size());
  }
  const auto infos = scan_frames(frames);
  ASSERT_TRUE(infos.has_value());
  ASSERT_EQ(infos->size(), stored.size());
  for (std::size_t i = 0; i < stored.size(); ++i) {
    const FrameInfo& f = (*infos)[i];
    EXPECT_EQ(f.offset, stored[i].offset);
    EXPECT_EQ(f.leader_epoch, stored[i].leader_epoch);
    EXPECT_EQ(f.producer_id, stored[i].producer_id);
    EXPECT_EQ(f.producer_epoch, stored[i].producer_epoch);
    EXPECT_EQ(f.sequence, stored[i].sequence);
    EXPECT_EQ(f.timestamp_ms, stored[i].record.timestamp_ms);
    EXPECT_EQ(f.bytes, encoded_size(stored[i]));
  }
  EXPECT_EQ(scan_frames("")->size(), 0u);
  // Every cut that is not at a frame's end leaves a partial frame.
  for (std::size_t cut = 1; cut < frames.size(); ++cut) {
    const bool whole = std::find(ends.begin(), ends.end(), cut) != ends.end();
    EXPECT_EQ(scan_frames(std::string_view(frames).substr(0, cut)).has_value(), whole) << cut;
  }
  // A key length below -1, and bytes after the headers, inside a frame's stated length.
  std::string bad_key = frame(stored[1]);
  const std::int32_t minus2 = -2;
  std::memcpy(bad_key.data() + kFrameHeaderBytes + 36, &minus2, sizeof minus2);
  EXPECT_FALSE(scan_frames(bad_key).has_value());
  std::string trailing = frame(stored[1]) + "junk";
  const auto longer = static_cast<std::uint32_t>(trailing.size() - kFrameHeaderBytes);
  std::memcpy(trailing.data(), &longer, sizeof longer);
  EXPECT_FALSE(scan_frames(trailing).has_value());
  EXPECT_TRUE(scan_frames(frame(stored[1])).has_value());
}

// ---- Append and read.

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
  // An empty batch takes no offset.
  EXPECT_EQ(log.append(std::vector<Record>{}), Offset(6));
  EXPECT_EQ(log.log_end_offset(), Offset(6));
  std::vector<Record> all = a;
  all.insert(all.end(), b.begin(), b.end());
  all.insert(all.end(), c.begin(), c.end());
  expect_records(read_all(log), all, 0, 6);
  // The file holds exactly the frames of the records, in order.
  std::string expected;
  for (std::size_t i = 0; i < all.size(); ++i) encode_record({Offset(static_cast<std::int64_t>(i)), all[i]}, expected);
  EXPECT_EQ(t.disk.read(kFile, 0, 1 << 20), expected);
}

class PartitionLogRead : public ::testing::Test {
 protected:
  void SetUp() override {
    log.recover();
    for (int i = 0; i < 10; ++i) records.push_back(rec("k" + std::to_string(i), "v" + std::to_string(i), i));
    log.append(records);
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
    if (i >= 5) encode_record({Offset(i), records.back()}, bytes);
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

// Recovery of a file with garbage after its valid frames cuts it back to them and says so.
TEST(PartitionLogRecovery, TruncatesAnInvalidTailAndReportsTheBytesCut) {
  TestDisk t;
  const std::vector<Record> all = numbered(0, 3);
  std::string bytes;
  for (std::size_t i = 0; i < all.size(); ++i) encode_record({Offset(static_cast<std::int64_t>(i)), all[i]}, bytes);
  const std::uint64_t valid = bytes.size();
  t.disk.append(kFile, bytes + frame({Offset(3), rec("k", "v")}).substr(0, 15));
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
  std::uint64_t partial_frames_cut = 0;
  std::uint64_t whole_frames_lost = 0;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    SimDiskOptions options;
    options.torn_write_probability = 1.0;
    options.torn_corrupt_probability = 0.5;
    TestDisk t(options, seed);
    Rng rng(seed * 7919);
    std::vector<Record> appended;
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
        log.append(batch);
        appended.insert(appended.end(), batch.begin(), batch.end());
      }
      t.sync(kFile);
      synced = appended.size();
      const auto batches = rng.uniform_int(1, 5);
      for (std::int64_t b = 0; b < batches; ++b) {
        const std::vector<Record> batch = next_batch();
        EXPECT_EQ(log.append(batch), Offset(static_cast<std::int64_t>(appended.size())));
        appended.insert(appended.end(), batch.begin(), batch.end());
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
    // The file is cut to exactly the frames of the recovered records.
    std::string valid;
    for (const StoredRecord& r : got) encode_record(r, valid);
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
    if (cut > 0) ++partial_frames_cut;
    if (got.size() < appended.size()) ++whole_frames_lost;
  }
  // The seeds reached the interesting cases: tears, corrupt bytes, partial frames cut away,
  // and records lost to the power loss.
  EXPECT_EQ(torn, 400u);
  EXPECT_GT(corrupted, 50u);
  EXPECT_GT(partial_frames_cut, 50u);
  EXPECT_GT(whole_frames_lost, 50u);
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
  follower.append_replicated(fetched);
  EXPECT_EQ(follower.log_end_offset(), Offset(4));
  EXPECT_EQ(follower.end_offset_for_epoch(LeaderEpoch(1)), leader.end_offset_for_epoch(LeaderEpoch(1)));
  EXPECT_EQ(t.disk.read("follower/00000000000000000000.log", 0, 1 << 20),
            t.disk.read("leader/00000000000000000000.log", 0, 1 << 20));
  // A batch below the log end is an invariant failure, not a silent overwrite.
  EXPECT_THROW(follower.append_replicated(std::vector<StoredRecord>{fetched[1]}), InvariantError);
}

// A follower that appends the leader's frames as they are (what replication does) ends with
// the same files, byte for byte, the same records, indexes and epoch cache as one that
// appends the decoded records, across segment rolls and offset gaps (compaction's).
TEST(PartitionLogEpochs, AppendedFramesMatchAppendedRecords) {
  std::vector<StoredRecord> leader;
  for (std::int64_t i = 0; i < 40; ++i) {
    if (i % 7 == 3) continue;  // gaps
    leader.push_back({Offset(i), rec(std::string(1, static_cast<char>('a' + i % 26)), std::to_string(i % 10), 100 + (i * 37) % 50),
                      LeaderEpoch(static_cast<std::int32_t>(1 + i / 15)), ProducerId(3), ProducerEpoch(0),
                      Sequence(static_cast<std::int32_t>(i))});
  }
  const std::uint64_t one = encoded_size(leader[0]);  // every record's frame is this long
  TestDisk t;
  LogConfig config;
  config.segment_bytes = static_cast<std::int32_t>(5 * one);
  config.index_interval_bytes = static_cast<std::int32_t>(2 * one);
  PartitionLog by_records(t.disk, "records", config);
  PartitionLog by_frames(t.disk, "frames", config);
  by_records.recover();
  by_frames.recover();
  for (std::size_t i = 0; i < leader.size(); i += 4) {
    const auto batch = std::span<const StoredRecord>(leader).subspan(i, std::min<std::size_t>(4, leader.size() - i));
    by_records.append_replicated(batch, static_cast<std::int64_t>(i));
    std::string frames;
    for (const StoredRecord& r : batch) encode_record(r, frames);
    by_frames.append_frames(SharedBytes(frames), *scan_frames(frames), static_cast<std::int64_t>(i));
  }
  ASSERT_GT(by_frames.segments().size(), 3u);
  ASSERT_EQ(by_frames.segments().size(), by_records.segments().size());
  for (std::size_t s = 0; s < by_frames.segments().size(); ++s) {
    const LogSegment& a = by_records.segments()[s];
    const LogSegment& b = by_frames.segments()[s];
    EXPECT_EQ(a.base_offset(), b.base_offset());
    EXPECT_EQ(t.disk.read(a.file(), 0, 1 << 20), t.disk.read(b.file(), 0, 1 << 20));
    EXPECT_EQ(a.positions(), b.positions());
    EXPECT_EQ(a.offset_index().size(), b.offset_index().size());
    EXPECT_EQ(a.time_index().size(), b.time_index().size());
    EXPECT_EQ(a.max_timestamp_ms(), b.max_timestamp_ms());
  }
  EXPECT_EQ(by_frames.log_end_offset(), Offset(40));
  EXPECT_EQ(by_frames.epoch_cache().entries().size(), by_records.epoch_cache().entries().size());
  for (std::int32_t e = 0; e < 5; ++e) {
    EXPECT_EQ(by_frames.end_offset_for_epoch(LeaderEpoch(e)), by_records.end_offset_for_epoch(LeaderEpoch(e)));
  }
  EXPECT_EQ(by_frames.offset_for_timestamp(130), by_records.offset_for_timestamp(130));
  // A batch below the log end is an invariant failure, not a silent overwrite.
  std::string again;
  encode_record(leader.back(), again);
  EXPECT_THROW(by_frames.append_frames(SharedBytes(again), *scan_frames(again)), InvariantError);
}

// read_frames answers with the frames of exactly the records read() returns, as stored.
TEST(PartitionLog, ReadFramesAreTheFramesOfTheRecordsRead) {
  TestDisk t;
  LogConfig config;
  config.segment_bytes = static_cast<std::int32_t>(6 * encoded_size(StoredRecord{Offset(0), records(1, "r0")[0]}));
  PartitionLog log(t.disk, kDir, config);
  log.recover();
  for (int i = 0; i < 8; ++i) log.append(records(3, "r" + std::to_string(i)), LeaderEpoch(i / 3));
  ASSERT_GT(log.segments().size(), 2u);
  for (const std::int64_t from : {0, 1, 5, 6, 17, 23, 24}) {
    for (const std::int32_t max : {1, 4, 7, 100}) {
      for (const std::int64_t upto : {0, 3, 13, 24, 30}) {
        const std::vector<StoredRecord> read = log.read(Offset(from), max, Offset(upto));
        std::string expected;
        for (const StoredRecord& r : read) encode_record(r, expected);
        std::size_t count = 99;
        EXPECT_EQ(log.read_frames(Offset(from), max, Offset(upto), count).str(), expected) << from << " " << max << " " << upto;
        EXPECT_EQ(count, read.size());
      }
    }
  }
}

// A segment larger than the disk's pages: reads, truncation and recovery decode frames that
// straddle page boundaries (the disk then copies them; within a page it does not).
TEST(PartitionLog, FramesAcrossDiskPagesReadBack) {
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
    ASSERT_GT(log.size_bytes(), 2 * sim::PagedBytes::kPageBytes);
    expect_records(log.read(Offset(0), 5000, Offset(3000)), records, 0, 3000);
    expect_records(log.read(Offset(1234), 1000, Offset(3000)), records, 1234, 1000);
    EXPECT_EQ(log.offset_for_timestamp(2500), Offset(2500));
    log.truncate_to(Offset(2900));
    records.resize(2900);
  }
  t.disk.crash();
  PartitionLog log(t.disk, kDir);
  EXPECT_EQ(log.recover(), 0u);
  expect_records(log.read(Offset(0), 5000, Offset(3000)), records, 0, 2900);
  EXPECT_EQ(log.offset_for_timestamp(2899), Offset(2899));
  EXPECT_FALSE(log.offset_for_timestamp(2900).has_value());
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
  Producer producer(client_env, pc);
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
  ASSERT_EQ(fetched->records.size(), 1u);
  EXPECT_TRUE(same_record(fetched->records[0].record, with_headers(rec("k", "v", 9), kHeaders)));
}

}  // namespace
}  // namespace logsim::engine

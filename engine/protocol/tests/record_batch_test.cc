// Tests for CRC-32C (engine/protocol/crc32c.h) and Kafka's record batch (engine/protocol/record_batch.h).
//
// The batch is Kafka's DefaultRecordBatch byte for byte, so one test spells out the bytes of a
// one-record batch field by field; the others check that what is encoded decodes to the same
// records, that damage anywhere is caught, and that filtering keeps offsets.
#include "engine/protocol/record_batch.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/protocol/crc32c.h"
#include "engine/protocol/messages.h"
#include "engine/env/rng.h"

namespace logsim {
namespace {

TEST(Crc32c, MatchesTheStandardCheckValues) {
  EXPECT_EQ(crc32c(""), 0u);
  EXPECT_EQ(crc32c("123456789"), 0xE3069283u);  // the catalogue's check value for CRC-32C
  // RFC 3720 (iSCSI), B.4: 32 zero bytes, 32 bytes of 0xFF, bytes 0..31.
  EXPECT_EQ(crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(crc32c(std::string(32, '\xFF')), 0x62A8AB43u);
  std::string ascending;
  for (int i = 0; i < 32; ++i) ascending.push_back(static_cast<char>(i));
  EXPECT_EQ(crc32c(ascending), 0x46DD794Eu);
}

TEST(Crc32c, TheInstructionAndTheTablesAgreeAndPiecesExtend) {
  Rng rng(11);
  for (std::size_t len = 0; len < 300; ++len) {
    std::string s(len, '\0');
    for (char& c : s) c = static_cast<char>(rng.uniform_int(0, 255));
    ASSERT_EQ(crc32c(s), crc32c_portable(s)) << "length " << len;
    const std::size_t cut = len / 3;
    ASSERT_EQ(crc32c_extend(crc32c(s.substr(0, cut)), s.substr(cut)), crc32c(s)) << "length " << len;
  }
}

std::string hex(std::string_view s) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const char c : s) {
    out.push_back(kDigits[(static_cast<unsigned char>(c) >> 4) & 0xF]);
    out.push_back(kDigits[static_cast<unsigned char>(c) & 0xF]);
  }
  return out;
}

TEST(RecordBatch, IsKafkasDefaultRecordBatchByteForByte) {
  const std::vector<Record> records{Record{std::nullopt, "a", 1000}};
  const std::string b = encode_batch(records, BatchMeta{Offset(5), LeaderEpoch(3), ProducerId(7), ProducerEpoch(1),
                                                        Sequence(9)});
  // The record: length 7 (zigzag 14), attributes 0, timestamp delta 0, offset delta 0, key -1
  // (zigzag 1), value length 1 (zigzag 2), 'a', no headers.
  const std::string record = "0e0000000102" "61" "00";
  ASSERT_EQ(b.size(), kBatchHeaderBytes + record.size() / 2);
  const std::string h = hex(b);
  EXPECT_EQ(h.substr(0, 16), "0000000000000005");   // baseOffset
  EXPECT_EQ(h.substr(16, 8), "00000039");           // batchLength: 61 - 12 + 8 = 57
  EXPECT_EQ(h.substr(24, 8), "00000003");           // partitionLeaderEpoch
  EXPECT_EQ(h.substr(32, 2), "02");                 // magic
  EXPECT_EQ(h.substr(42, 4), "0000");               // attributes: CreateTime, no compression
  EXPECT_EQ(h.substr(46, 8), "00000000");           // lastOffsetDelta
  EXPECT_EQ(h.substr(54, 16), "00000000000003e8");  // baseTimestamp 1000
  EXPECT_EQ(h.substr(70, 16), "00000000000003e8");  // maxTimestamp
  EXPECT_EQ(h.substr(86, 16), "0000000000000007");  // producerId
  EXPECT_EQ(h.substr(102, 4), "0001");              // producerEpoch
  EXPECT_EQ(h.substr(106, 8), "00000009");          // baseSequence
  EXPECT_EQ(h.substr(114, 8), "00000001");          // records count
  EXPECT_EQ(h.substr(122), record);
  // The CRC covers attributes to the end.
  const std::uint32_t crc = crc32c(std::string_view(b).substr(21));
  char expected_crc[9];
  std::snprintf(expected_crc, sizeof expected_crc, "%08x", crc);
  EXPECT_EQ(h.substr(34, 8), expected_crc);
  EXPECT_TRUE(batch_is_valid(b, true));
}

Record random_record(Rng& rng, std::int64_t ts) {
  Record r;
  if (rng.bernoulli(0.8)) r.key = std::string(static_cast<std::size_t>(rng.uniform_int(0, 20)), 'k');
  if (rng.bernoulli(0.9)) r.value = std::string(static_cast<std::size_t>(rng.uniform_int(0, 300)), 'v');
  if (r.value && !r.value->empty()) (*r.value)[0] = static_cast<char>(rng.uniform_int(0, 255));
  r.timestamp_ms = ts + rng.uniform_int(-5000, 5000);
  const auto headers = rng.uniform_int(0, 3);
  for (std::int64_t i = 0; i < headers; ++i) {
    RecordHeader h{"h" + std::to_string(i), std::nullopt};
    if (rng.bernoulli(0.7)) h.value = std::string(static_cast<std::size_t>(rng.uniform_int(0, 10)), 'x');
    r.headers.push_back(h);
  }
  return r;
}

TEST(RecordBatch, RecordsComeBackAsTheyWereSentWithOffsetsAndSequences) {
  Rng rng(3);
  for (int round = 0; round < 200; ++round) {
    std::vector<Record> records;
    const auto n = rng.uniform_int(1, 40);
    for (std::int64_t i = 0; i < n; ++i) records.push_back(random_record(rng, 1'700'000'000'000));
    const BatchMeta meta{Offset(rng.uniform_int(0, 1'000'000)), LeaderEpoch(4), ProducerId(12), ProducerEpoch(2),
                         Sequence(static_cast<std::int32_t>(rng.uniform_int(0, 100)))};
    const std::string b = encode_batch(records, meta);
    ASSERT_TRUE(batch_is_valid(b, true));
    std::vector<StoredRecord> out;
    decode_batch(b, out);
    ASSERT_EQ(out.size(), records.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
      EXPECT_EQ(out[i].record.key, records[i].key);
      EXPECT_EQ(out[i].record.value, records[i].value);
      EXPECT_EQ(out[i].record.headers, records[i].headers);
      EXPECT_EQ(out[i].record.timestamp_ms, records[i].timestamp_ms);
      EXPECT_EQ(out[i].offset, meta.base_offset + static_cast<std::int64_t>(i));
      EXPECT_EQ(out[i].sequence, meta.base_sequence + static_cast<std::int32_t>(i));
      EXPECT_EQ(out[i].leader_epoch, LeaderEpoch(4));
      EXPECT_EQ(out[i].producer_id, ProducerId(12));
    }
    const BatchHeader h = *parse_batch_header(b);
    EXPECT_EQ(h.last_offset(), meta.base_offset + (n - 1));
    EXPECT_EQ(h.size_bytes(), b.size());
  }
}

// Null is not empty, bytes are bytes, and timestamps far apart still come back (their deltas
// wrap, never overflow).
TEST(RecordBatch, NullEmptyBinaryAndExtremeFieldsComeBack) {
  std::string binary;
  for (int b = 0; b < 256; ++b) binary.push_back(static_cast<char>(b));
  const std::vector<Record> records{
      Record{std::nullopt, std::nullopt, 0},          Record{std::nullopt, "v", INT64_MIN},
      Record{"k", std::nullopt, -5},                  Record{"", "", INT64_MAX},
      Record{binary, std::string("\0\0\xff", 3), 1}, Record{std::string(100'000, 'x'), std::string(70'000, 'y'), 2},
  };
  std::vector<StoredRecord> back;
  decode_batch(encode_batch(records), back);
  ASSERT_EQ(back.size(), records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(back[i].record.key, records[i].key) << i;
    EXPECT_EQ(back[i].record.value, records[i].value) << i;
    EXPECT_EQ(back[i].record.timestamp_ms, records[i].timestamp_ms) << i;
  }
}

// Records seen in place (for_each_record_view) are the decoded records, null apart from empty,
// headers or not.
TEST(RecordBatch, ViewsOfRecordsAreTheDecodedRecords) {
  Rng rng(5);
  for (int round = 0; round < 100; ++round) {
    std::vector<Record> records;
    const auto n = rng.uniform_int(1, 30);
    for (std::int64_t i = 0; i < n; ++i) records.push_back(random_record(rng, 1'700'000'000'000));
    records.push_back(Record{std::nullopt, "", 0});
    records.push_back(Record{"", std::nullopt, 0});
    const BatchMeta meta{Offset(rng.uniform_int(0, 1'000'000)), LeaderEpoch(1), ProducerId(7), ProducerEpoch(3),
                         Sequence(static_cast<std::int32_t>(rng.uniform_int(0, 100)))};
    const std::string b = encode_batch(records, meta);
    std::vector<StoredRecord> decoded;
    decode_batch(b, decoded);
    std::size_t i = 0;
    for_each_record_view(b, [&](const RecordView& v) {
      ASSERT_LT(i, decoded.size());
      const StoredRecord& d = decoded[i++];
      EXPECT_EQ(v.key.has_value(), d.record.key.has_value());
      EXPECT_EQ(v.value.has_value(), d.record.value.has_value());
      EXPECT_EQ(v.key.value_or("(null)"), d.record.key.value_or("(null)"));
      EXPECT_EQ(v.value.value_or("(null)"), d.record.value.value_or("(null)"));
      EXPECT_EQ(v.offset, d.offset);
      EXPECT_EQ(v.producer_id, d.producer_id);
      EXPECT_EQ(v.producer_epoch, d.producer_epoch);
      EXPECT_EQ(v.sequence, d.sequence);
    });
    EXPECT_EQ(i, decoded.size());
  }
}

TEST(RecordBatch, LogAppendTimeGivesEveryRecordTheBatchsMaxTimestamp) {
  const std::vector<Record> records{Record{"a", "1", 10}, Record{"b", "2", 30}};
  std::string b = encode_batch(records);
  BatchHeader h = *parse_batch_header(b);
  EXPECT_EQ(h.max_timestamp_ms, 30);
  h.attributes |= kLogAppendTimeAttribute;
  h.max_timestamp_ms = 500;
  h.crc = batch_crc(h, std::string_view(b).substr(kBatchHeaderBytes));
  write_batch_header(h, b.data());
  ASSERT_TRUE(batch_is_valid(b, true));
  std::vector<StoredRecord> out;
  decode_batch(b, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].record.timestamp_ms, 500);
  EXPECT_EQ(out[1].record.timestamp_ms, 500);
}

TEST(RecordBatch, TheBaseOffsetAndLeaderEpochAreOutsideTheCrc) {
  std::string b = encode_batch(std::vector<Record>{Record{"k", "v", 1}});
  BatchHeader h = *parse_batch_header(b);
  h.base_offset = Offset(1234);
  h.leader_epoch = LeaderEpoch(9);
  write_batch_header(h, b.data());
  EXPECT_TRUE(batch_is_valid(b, true)) << "the leader assigns both without computing the CRC again";
  h.max_timestamp_ms = 2;
  write_batch_header(h, b.data());
  EXPECT_FALSE(batch_is_valid(b, true)) << "the max timestamp is under the CRC";
}

TEST(RecordBatch, AnyFlippedByteOrCutIsCaught) {
  Rng rng(5);
  std::vector<Record> records;
  for (int i = 0; i < 5; ++i) records.push_back(random_record(rng, 0));
  const std::string b = encode_batch(records);
  for (std::size_t i = 0; i < b.size(); ++i) {
    // Base offset and leader epoch (bytes 0-7, 12-15) are outside the CRC by design.
    if (i < 8 || (i >= 12 && i < 16)) continue;
    std::string damaged = b;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x10);
    const BatchScan scan = scan_batches(damaged, true);
    EXPECT_FALSE(scan.complete) << "byte " << i;
    EXPECT_TRUE(scan.batches.empty()) << "byte " << i;
  }
  for (std::size_t len = 0; len < b.size(); ++len) {
    const BatchScan scan = scan_batches(std::string_view(b).substr(0, len), false);
    EXPECT_EQ(scan.valid_bytes, 0u) << "cut at " << len;
    EXPECT_EQ(scan.complete, len == 0) << "cut at " << len;
  }
}

TEST(RecordBatch, ScanStopsAtTheFirstBatchThatIsNotWhole) {
  std::string bytes;
  encode_batch(std::vector<Record>{Record{"a", "1", 1}, Record{"b", "2", 2}}, BatchMeta{Offset(0)}, bytes);
  const std::size_t first = bytes.size();
  encode_batch(std::vector<Record>{Record{"c", "3", 3}}, BatchMeta{Offset(2)}, bytes);
  const std::size_t second = bytes.size();
  encode_batch(std::vector<Record>{Record{"d", "4", 4}}, BatchMeta{Offset(3)}, bytes);
  const BatchScan whole = scan_batches(bytes, true);
  ASSERT_EQ(whole.batches.size(), 3u);
  EXPECT_TRUE(whole.complete);
  EXPECT_EQ(whole.batches[1].base_offset, Offset(2));
  const BatchScan torn = scan_batches(std::string_view(bytes).substr(0, bytes.size() - 1), true);
  ASSERT_EQ(torn.batches.size(), 2u);
  EXPECT_FALSE(torn.complete);
  EXPECT_EQ(torn.valid_bytes, second);
  EXPECT_EQ(decode_batches(bytes, Offset(2)).size(), 2u);
  EXPECT_EQ(decode_batches(std::string_view(bytes).substr(0, first)).size(), 2u);
}

TEST(RecordBatch, FilteringKeepsOffsetsAndTheSpanOfTheBatch) {
  std::vector<Record> records;
  for (int i = 0; i < 6; ++i) records.push_back(Record{"k" + std::to_string(i % 3), std::to_string(i), 100 + i});
  const std::string b = encode_batch(records, BatchMeta{Offset(40), LeaderEpoch(2), ProducerId(3), ProducerEpoch(0),
                                                        Sequence(10)});
  std::string out;
  const std::size_t kept = filter_batch(b, [](const StoredRecord& r) { return r.offset.value() % 2 == 1; }, out);
  ASSERT_EQ(kept, 3u);
  ASSERT_TRUE(batch_is_valid(out, true));
  const BatchHeader h = *parse_batch_header(out);
  EXPECT_EQ(h.base_offset, Offset(40));
  EXPECT_EQ(h.last_offset(), Offset(45));
  EXPECT_EQ(h.record_count, 3);
  EXPECT_EQ(h.max_timestamp_ms, 105);
  std::vector<StoredRecord> back;
  decode_batch(out, back);
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[0].offset, Offset(41));
  EXPECT_EQ(back[0].sequence, Sequence(11));
  EXPECT_EQ(back[0].record.value, "1");
  EXPECT_EQ(back[2].offset, Offset(45));
  EXPECT_EQ(back[2].record.timestamp_ms, 105);
  std::string none;
  EXPECT_EQ(filter_batch(b, [](const StoredRecord&) { return false; }, none), 0u);
  EXPECT_TRUE(none.empty());
}

// Batches held in pieces (a leader keeps a producer's records apart from the header it wrote)
// decode as the same bytes in one piece do, wherever the pieces are cut.
TEST(RecordBatch, BatchesInPiecesDecodeAsInOne) {
  std::string bytes;
  for (int b = 0; b < 6; ++b) {
    std::vector<Record> records;
    for (int r = 0; r <= b; ++r) records.push_back(Record{"k" + std::to_string(r), std::string(static_cast<std::size_t>(30 * r), 'v'), 100 + r});
    encode_batch(records, BatchMeta{Offset(static_cast<std::int64_t>(b * 10))}, bytes);
  }
  const auto same = [](const std::vector<StoredRecord>& a, const std::vector<StoredRecord>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i].offset != b[i].offset || a[i].record.key != b[i].record.key || a[i].record.value != b[i].record.value ||
          a[i].record.timestamp_ms != b[i].record.timestamp_ms) {
        return false;
      }
    }
    return true;
  };
  Rng rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    SharedBytes pieces;
    for (std::size_t at = 0; at < bytes.size();) {
      const std::size_t n = std::min<std::size_t>(bytes.size() - at, 1 + rng.uniform_u64(trial % 2 == 0 ? 80 : 400));
      pieces.append(SharedBytes(bytes.substr(at, n)));
      at += n;
    }
    ASSERT_GT(pieces.slices().size(), 1u);
    for (const std::int64_t from : {0, 12, 33, 55}) {
      ASSERT_TRUE(same(decode_batches(pieces, Offset(from)), decode_batches(bytes, Offset(from)))) << "trial " << trial;
    }
  }
  EXPECT_EQ(decode_batches(bytes).size(), 21u);
}

TEST(RecordBatch, StoredRecordsKeepTheirOwnOffsets) {
  std::vector<StoredRecord> records{StoredRecord{Offset(10), Record{"a", "1", 5}, LeaderEpoch(1)},
                                    StoredRecord{Offset(13), Record{"b", std::nullopt, 6}, LeaderEpoch(1)}};
  std::string b;
  encode_stored_batch(records, b, Offset(20));
  const BatchHeader h = *parse_batch_header(b);
  EXPECT_EQ(h.base_offset, Offset(10));
  EXPECT_EQ(h.last_offset(), Offset(20));
  const std::vector<StoredRecord> back = decode_batches(b);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].offset, Offset(13));
  EXPECT_FALSE(back[1].record.value.has_value());
}

// What a header may say: no compression, transaction or control bits (logsim writes none and
// reads none), no more records than its bytes can hold, a max timestamp that is the records'.
TEST(RecordBatch, HeadersThatCannotBeOursAreRefused) {
  const std::string good = encode_batch(std::vector<Record>{Record{"k", "v", 3}, Record{"k", "w", 9}});
  const auto with = [&](const std::function<void(BatchHeader&)>& change) {
    std::string b = good;
    BatchHeader h = *parse_batch_header(b);
    change(h);
    h.crc = batch_crc(h, std::string_view(b).substr(kBatchHeaderBytes));
    write_batch_header(h, b.data());
    return b;
  };
  for (const int bits : {0x01, 0x02, 0x04, 0x20, 0x40}) {  // compression, control without transactional
    EXPECT_FALSE(parse_batch_header(with([&](BatchHeader& h) { h.attributes = static_cast<std::int16_t>(bits); })).has_value()) << bits;
  }
  EXPECT_TRUE(parse_batch_header(with([](BatchHeader& h) { h.attributes = kLogAppendTimeAttribute; })).has_value());
  EXPECT_TRUE(parse_batch_header(with([](BatchHeader& h) { h.attributes = kTransactionalAttribute; })).has_value());
  EXPECT_TRUE(parse_batch_header(with([](BatchHeader& h) { h.attributes = 0x30; })).has_value());
  EXPECT_FALSE(parse_batch_header(with([](BatchHeader& h) {
                 h.record_count = 1'000'000;
                 h.last_offset_delta = 2'000'000;
               })).has_value())
      << "more records than its bytes hold";
  EXPECT_FALSE(batch_is_valid(with([](BatchHeader& h) { h.max_timestamp_ms = 8; }), true));
  EXPECT_FALSE(batch_is_valid(with([](BatchHeader& h) { h.max_timestamp_ms = 10; }), true));
  EXPECT_TRUE(batch_is_valid(with([](BatchHeader&) {}), true));
}

TEST(RecordBatch, SequencesWrapPastIntMaxAsKafkasDo) {
  EXPECT_EQ(sequence_after(Sequence(5), 3), Sequence(8));
  EXPECT_EQ(sequence_after(Sequence(2147483646), 2), Sequence(0));
  EXPECT_EQ(sequence_after(Sequence(-1), 4), Sequence(-1));
}

// Kafka's EndTransactionMarker: a control batch (attributes 0x30) of one record whose key is
// version 0 and the type (1: COMMIT), and whose value is version 0 and the coordinator epoch.
TEST(RecordBatch, AControlBatchIsKafkasEndTransactionMarker) {
  const TxnMarker commit{ProducerId(7), ProducerEpoch(2), ControlType::kCommit, 5};
  const std::string b = encode_control_batch(commit, 1000);
  const std::optional<BatchHeader> h = parse_batch_header(b);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->attributes, 0x30);
  EXPECT_TRUE(h->control());
  EXPECT_TRUE(h->transactional());
  EXPECT_EQ(h->producer_id, ProducerId(7));
  EXPECT_EQ(h->producer_epoch, ProducerEpoch(2));
  EXPECT_EQ(h->base_sequence, Sequence(-1));
  EXPECT_EQ(h->record_count, 1);
  EXPECT_TRUE(batch_is_valid(b, true));
  // The record: length 16 (zigzag 32), attributes 0, deltas 0, key length 4 (zigzag 8) "0000" "0001", value
  // length 6 (zigzag 12) "0000" "00000005", no headers.
  EXPECT_EQ(hex(b).substr(2 * kBatchHeaderBytes), "2000000008" "00000001" "0c" "000000000005" "00");
  EXPECT_EQ(parse_control_batch(b), commit);
  const TxnMarker abort{ProducerId(9), ProducerEpoch(0), ControlType::kAbort, 0};
  EXPECT_EQ(parse_control_batch(encode_control_batch(abort, 0)), abort);
  // Markers are no application's records: decoders pass over them.
  EXPECT_TRUE(decode_batches(b).empty());
  int seen = 0;
  for_each_record_view(b, [&](const RecordView&) { ++seen; });
  EXPECT_EQ(seen, 0);
  // An ordinary batch holds no marker.
  EXPECT_FALSE(parse_control_batch(encode_batch(std::vector<Record>{Record{std::nullopt, "a", 0}})).has_value());
}

TEST(RecordBatch, TransactionalBatchesCarryTheirBitAndAControlBitAloneIsRefused) {
  const std::vector<Record> records{Record{std::nullopt, "a", 0}};
  const std::string t = encode_batch(records, BatchMeta{Offset(0), LeaderEpoch(0), ProducerId(1), ProducerEpoch(0),
                                                        Sequence(0), true});
  ASSERT_TRUE(parse_batch_header(t).has_value());
  EXPECT_TRUE(parse_batch_header(t)->transactional());
  EXPECT_FALSE(parse_batch_header(t)->control());
  EXPECT_EQ(decode_batches(t).size(), 1u) << "a transactional batch's records are records";
  EXPECT_FALSE(parse_batch_header(encode_batch(records))->transactional());
  std::string control_only = encode_batch(records);
  control_only[22] = 0x20;  // attributes' low byte: control without transactional
  EXPECT_FALSE(parse_batch_header(control_only).has_value());
  std::string compressed = encode_batch(records);
  compressed[22] = 0x01;  // gzip: not supported
  EXPECT_FALSE(parse_batch_header(compressed).has_value());
}

}  // namespace
}  // namespace logsim

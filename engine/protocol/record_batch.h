// Kafka's record batch (magic v2): the unit in which records travel and are stored.
//
// A producer encodes each batch once. The leader validates it, then writes its base offset
// and leader epoch into the header, fields that the CRC does not cover, so the records' bytes
// and checksum stay as the producer made them (LogAppendTime also sets the max timestamp,
// which the CRC covers, so then the leader computes it again). The log stores the batches
// back to back; followers and consumers are sent the stored bytes as they are, and only a
// consumer decodes the records. This is Kafka's DefaultRecordBatch, byte for byte, without
// compression:
//
//   baseOffset i64 | batchLength i32 (the bytes after it) | partitionLeaderEpoch i32 |
//   magic i8 (2) | crc u32 (CRC-32C of attributes .. the end) | attributes i16 |
//   lastOffsetDelta i32 | baseTimestamp i64 | maxTimestamp i64 | producerId i64 |
//   producerEpoch i16 | baseSequence i32 | records count i32 | the records
//
// and each record (DefaultRecord), its integers zigzag varints as in Kafka's ByteUtils:
//
//   length | attributes i8 (0) | timestampDelta (varlong) | offsetDelta | keyLength (-1: null) |
//   key | valueLength (-1: null, a tombstone) | value | header count |
//   per header: keyLength | key | valueLength (-1: null) | value
//
// Fixed-width fields are big-endian, as on Kafka's wire. A record's offset is baseOffset +
// offsetDelta, its sequence baseSequence + offsetDelta, its timestamp baseTimestamp +
// timestampDelta, or maxTimestamp for the whole batch when attributes has the LogAppendTime
// bit (0x08). Offset deltas increase within [0, lastOffsetDelta]; compaction removes records
// but keeps the batch's base offset and lastOffsetDelta, so a batch spans the same offsets
// before and after, as in Kafka.
//
// Transactions. A transactional producer's batches carry the transactional bit (0x10). A
// transaction ends in a control batch (bits 0x10 and 0x20, Kafka's EndTransactionMarker) that
// the partition's leader writes for the coordinator: the producer's id and epoch, sequence -1,
// and one record whose key is version i16 (0) | type i16 (0 ABORT, 1 COMMIT) and whose value
// is version i16 (0) | coordinatorEpoch i32. Control batches hold no application records:
// the decoders below pass over them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/shared_bytes.h"
#include "engine/base/types.h"

namespace logsim {

struct Record;
struct StoredRecord;

inline constexpr std::int8_t kBatchMagic = 2;
inline constexpr std::size_t kBatchHeaderBytes = 61;
// baseOffset and batchLength, which batchLength does not count.
inline constexpr std::size_t kBatchLogOverhead = 12;
inline constexpr std::int16_t kLogAppendTimeAttribute = 0x08;
inline constexpr std::int16_t kTransactionalAttribute = 0x10;
inline constexpr std::int16_t kControlAttribute = 0x20;

struct BatchHeader {
  Offset base_offset{0};
  std::int32_t batch_length = 0;
  LeaderEpoch leader_epoch{-1};
  std::uint32_t crc = 0;
  std::int16_t attributes = 0;
  std::int32_t last_offset_delta = 0;
  std::int64_t base_timestamp_ms = 0;
  std::int64_t max_timestamp_ms = 0;
  ProducerId producer_id{-1};
  ProducerEpoch producer_epoch{-1};
  Sequence base_sequence{-1};
  std::int32_t record_count = 0;

  Offset last_offset() const { return base_offset + last_offset_delta; }
  std::uint64_t size_bytes() const { return kBatchLogOverhead + static_cast<std::uint64_t>(batch_length); }
  bool log_append_time() const { return (attributes & kLogAppendTimeAttribute) != 0; }
  bool idempotent() const { return producer_id.value() >= 0; }
  bool transactional() const { return (attributes & kTransactionalAttribute) != 0; }
  bool control() const { return (attributes & kControlAttribute) != 0; }
  // baseSequence + lastOffsetDelta (-1 when not idempotent).
  Sequence last_sequence() const;
};

// The sequence `delta` records after `base`, wrapping past INT32_MAX to 0 as Kafka's do; -1
// (not idempotent) stays -1.
Sequence sequence_after(Sequence base, std::int32_t delta);

// What a batch carries beside its records.
struct BatchMeta {
  Offset base_offset{0};
  LeaderEpoch leader_epoch{-1};
  ProducerId producer_id{-1};
  ProducerEpoch producer_epoch{-1};
  Sequence base_sequence{-1};
  bool transactional = false;  // part of a transaction (the 0x10 attribute)
};

// The end of a transaction on one partition, as its control batch holds it.
enum class ControlType : std::int16_t { kAbort = 0, kCommit = 1 };
struct TxnMarker {
  ProducerId producer_id{-1};
  ProducerEpoch producer_epoch{-1};
  ControlType type = ControlType::kAbort;
  std::int32_t coordinator_epoch = 0;
  bool operator==(const TxnMarker&) const = default;
};
// The control batch of `marker` (base offset 0, for the leader to place), stamped `now_ms`.
std::string encode_control_batch(const TxnMarker& marker, std::int64_t now_ms);
// The marker a control batch (valid, whole) holds; none for any other batch, or a control
// batch whose record is not an end-transaction marker of version 0.
std::optional<TxnMarker> parse_control_batch(std::string_view batch);

// A batch built one record at a time, as Kafka's producer builds one (MemoryRecordsBuilder):
// each record is encoded into the batch's bytes as it is appended; finish() writes the header
// and the CRC in front of them. Offset deltas must increase; the first record's timestamp is
// the base timestamp.
class BatchBuilder {
 public:
  BatchBuilder();
  // Room for `bytes` of records before the builder grows (a producer's batch.size).
  void reserve(std::size_t bytes) { bytes_.reserve(kBatchHeaderBytes + bytes); }
  void append(const Record& record, std::int32_t offset_delta);
  void append(const Record& record) { append(record, count_); }
  std::int32_t count() const { return count_; }
  bool empty() const { return count_ == 0; }
  // The batch (at least one record), its header made from `meta`, `last_offset_delta` (at
  // least the last record's) and the records. The builder is left empty.
  std::string finish(const BatchMeta& meta, std::optional<std::int32_t> last_offset_delta = {});

 private:
  std::string bytes_;  // kBatchHeaderBytes reserved for the header, then the records
  std::int32_t count_ = 0;
  std::int32_t last_delta_ = -1;
  std::int64_t base_timestamp_ms_ = 0;
  std::int64_t max_timestamp_ms_ = 0;
};

// Appends the batch of `records` (offset deltas 0, 1, ...; CreateTime) to `out`. Precondition:
// at least one record.
void encode_batch(std::span<const Record> records, const BatchMeta& meta, std::string& out);
std::string encode_batch(std::span<const Record> records, const BatchMeta& meta = {});
// Appends one batch of stored records at their own offsets (increasing): its base offset is the
// first's, its last offset the last's (or `last`, when larger), its leader epoch and producer
// the first's (each record's sequence is then base + offset delta, as Kafka's are).
void encode_stored_batch(std::span<const StoredRecord> records, std::string& out, std::optional<Offset> last = {});

// The header at the start of `bytes`, if it is well formed: at least kBatchHeaderBytes, magic
// 2, a batch length that holds the header, a record count in [0, lastOffsetDelta + 1].
std::optional<BatchHeader> parse_batch_header(std::string_view bytes);
// Writes `h` into the first kBatchHeaderBytes of `out`, crc as given.
void write_batch_header(const BatchHeader& h, char* out);
// The CRC-32C a batch's crc field must hold: over attributes .. the end of `batch`.
std::uint32_t batch_crc(std::string_view batch);
// The same, for a header to be written (`h`, whose crc is ignored) followed by `records`.
std::uint32_t batch_crc(const BatchHeader& h, std::string_view records);
// Whether `batch` (exactly one, whole) has well-formed records, as many as its count, with
// offset deltas increasing within [0, lastOffsetDelta], and (with verify_crc) its CRC.
bool batch_is_valid(std::string_view batch, bool verify_crc);
// The same checks for what a producer sent, less the header's max timestamp, which Kafka's
// LogValidator sets from the records instead (Sarama 1.22 sends none): whether the records are
// valid, and then in `max_timestamp_ms` their largest timestamp (none: no records, or the
// batch is LogAppendTime). The CRC is not checked.
bool batch_records_valid(std::string_view batch, std::optional<std::int64_t>& max_timestamp_ms);

// Decodes the records of `batch` (valid, whole) with offsets >= `from` onto `out` (none from a
// control batch).
void decode_batch(std::string_view batch, std::vector<StoredRecord>& out, Offset from = Offset(0));
// Calls fn(record) for each record of `batch` (valid, whole) in offset order until it returns false.
void for_each_record(std::string_view batch, const std::function<bool(const StoredRecord&)>& fn);
// A record of a batch seen in place: its key and value are views of the batch's bytes (valid
// while they are), its headers skipped. For readers that look at records without keeping them
// (logsim serve's gateway, which notes what passes it).
struct RecordView {
  Offset offset{0};
  std::optional<std::string_view> key;    // none: a null key
  std::optional<std::string_view> value;  // none: a null value (a tombstone)
  ProducerId producer_id{-1};
  ProducerEpoch producer_epoch{-1};
  Sequence sequence{-1};
  std::int64_t timestamp_ms = 0;  // the record's (the batch's max under LogAppendTime)
};
// Calls fn(record) for each record of `batch` (valid, whole) in offset order, without copying
// (none of a control batch).
void for_each_record_view(std::string_view batch, const std::function<void(const RecordView&)>& fn);
// Appends to `out` the batch holding only the records of `batch` that keep() keeps, with the
// same base offset, lastOffsetDelta, leader epoch, producer and base timestamp, the max
// timestamp of what is kept (the batch's own under LogAppendTime), and a new CRC; the kept
// records' bytes are copied as they are. Appends nothing when none is kept. Returns how many were.
std::size_t filter_batch(std::string_view batch, const std::function<bool(const StoredRecord&)>& keep,
                         std::string& out);

// Batches back to back from the start of some bytes, as far as they are whole and valid.
struct BatchScan {
  std::vector<BatchHeader> batches;
  std::uint64_t valid_bytes = 0;  // the length of those batches together
  bool complete = true;           // false when bytes follow them that are not a whole valid batch
};
// verify_records: check each batch's records and CRC too (recovery, a produce), not only its
// header (a follower's append of what its leader validated); never its max timestamp, which
// Kafka's leader sets from the records (Sarama 1.22 sends none).
BatchScan scan_batches(std::string_view bytes, bool verify_records);
// The headers of the batches in `bytes`, checking only the headers, without a copy.
BatchScan scan_batch_headers(const SharedBytes& bytes);
// The same scan without keeping the headers: calls visit(header) for each batch in order and
// returns what scan_batch_headers would, less `batches`.
BatchScan visit_batch_headers(const SharedBytes& bytes, const std::function<void(const BatchHeader&)>& visit);
// Every record of the batches in `bytes` (whole, valid), from offset `from` on.
std::vector<StoredRecord> decode_batches(std::string_view bytes, Offset from = Offset(0));
std::vector<StoredRecord> decode_batches(const SharedBytes& bytes, Offset from = Offset(0));
// The same, appended to `out`.
void decode_batches(const SharedBytes& bytes, Offset from, std::vector<StoredRecord>& out);

}  // namespace logsim

// Encoding, validation, decoding and filtering of Kafka's record batches (magic v2).
#include "engine/protocol/record_batch.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <type_traits>

#include "engine/base/assert.h"
#include "engine/protocol/crc32c.h"
#include "engine/protocol/messages.h"

namespace logsim {
namespace {

// Header field positions (DefaultRecordBatch).
constexpr std::size_t kLengthAt = 8;
constexpr std::size_t kEpochAt = 12;
constexpr std::size_t kMagicAt = 16;
constexpr std::size_t kCrcAt = 17;
constexpr std::size_t kAttributesAt = 21;  // the CRC covers from here to the end

template <typename U>
U swap_to_big(U u) {
  if constexpr (std::endian::native == std::endian::big || sizeof(U) == 1) {
    return u;
  } else if constexpr (sizeof(U) == 2) {
    return __builtin_bswap16(u);
  } else if constexpr (sizeof(U) == 4) {
    return __builtin_bswap32(u);
  } else {
    return __builtin_bswap64(u);
  }
}

template <typename T>
void put_be(char* p, T v) {
  const auto u = swap_to_big(static_cast<std::make_unsigned_t<T>>(v));
  std::memcpy(p, &u, sizeof u);
}

template <typename T>
T get_be(const char* p) {
  std::make_unsigned_t<T> u = 0;
  std::memcpy(&u, p, sizeof u);
  return static_cast<T>(swap_to_big(u));
}

// Timestamps and their deltas wrap rather than overflow: a batch is decoded from whatever bytes
// a damaged file holds, and that must never be undefined behaviour.
std::int64_t wrapping_add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
std::int64_t wrapping_sub(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}

std::uint64_t zigzag(std::int64_t v) { return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63); }
std::int64_t unzigzag(std::uint64_t u) { return static_cast<std::int64_t>(u >> 1) ^ -static_cast<std::int64_t>(u & 1); }

std::size_t varint_size(std::int64_t v) {
  std::uint64_t u = zigzag(v);
  std::size_t n = 1;
  while (u >= 0x80) {
    u >>= 7;
    ++n;
  }
  return n;
}

char* put_varint(char* p, std::int64_t v) {
  std::uint64_t u = zigzag(v);
  while (u >= 0x80) {
    *p++ = static_cast<char>((u & 0x7F) | 0x80);
    u >>= 7;
  }
  *p++ = static_cast<char>(u);
  return p;
}

std::size_t bytes_size(const std::optional<std::string>& s) {
  return s ? varint_size(static_cast<std::int64_t>(s->size())) + s->size() : varint_size(-1);
}

char* put_bytes(char* p, std::string_view s) {
  p = put_varint(p, static_cast<std::int64_t>(s.size()));
  std::memcpy(p, s.data(), s.size());
  return p + s.size();
}

char* put_bytes(char* p, const std::optional<std::string>& s) {
  return s ? put_bytes(p, std::string_view(*s)) : put_varint(p, -1);
}

// The record's fields after its length.
std::size_t body_size(const Record& r, std::int64_t timestamp_delta, std::int32_t offset_delta) {
  std::size_t n = 1 + varint_size(timestamp_delta) + varint_size(offset_delta) + bytes_size(r.key) + bytes_size(r.value);
  n += varint_size(static_cast<std::int64_t>(r.headers.size()));
  for (const RecordHeader& h : r.headers) {
    n += varint_size(static_cast<std::int64_t>(h.key.size())) + h.key.size() + bytes_size(h.value);
  }
  return n;
}

char* put_record(char* p, const Record& r, std::size_t body, std::int64_t timestamp_delta, std::int32_t offset_delta) {
  p = put_varint(p, static_cast<std::int64_t>(body));
  *p++ = 0;  // attributes: unused in magic 2
  p = put_varint(p, timestamp_delta);
  p = put_varint(p, offset_delta);
  p = put_bytes(p, r.key);
  p = put_bytes(p, r.value);
  p = put_varint(p, static_cast<std::int64_t>(r.headers.size()));
  for (const RecordHeader& h : r.headers) {
    p = put_bytes(p, std::string_view(h.key));
    p = put_bytes(p, h.value);
  }
  return p;
}

// Reads one batch's records in order, checking every bound.
class RecordReader {
 public:
  RecordReader(std::string_view batch, const BatchHeader& h) : b_(batch), h_(h), pos_(kBatchHeaderBytes) {}
  // Over the records alone, apart from their header `h` (a batch held in two pieces).
  static RecordReader of_records(std::string_view records, const BatchHeader& h) { return RecordReader(records, h, 0); }

  bool done() const { return pos_ == b_.size(); }
  // The next record as views of the batch (headers checked, not kept); false when malformed.
  bool next_view(RecordView& out) {
    end_ = b_.size();
    std::int64_t body = 0;
    if (!varint(body) || body < 1 || static_cast<std::uint64_t>(body) > b_.size() - pos_) return false;
    const std::size_t body_end = pos_ + static_cast<std::size_t>(body);
    end_ = body_end;
    ++pos_;  // attributes
    std::int64_t ts_delta = 0;
    std::int64_t offset_delta = 0;
    std::int64_t headers = 0;
    if (!varint(ts_delta) || !varint(offset_delta) || !view(out.key, body_end) || !view(out.value, body_end) ||
        !varint(headers) || headers < 0 || headers > static_cast<std::int64_t>(body_end - pos_) / 2) {
      return false;
    }
    if (offset_delta < 0 || offset_delta > h_.last_offset_delta || offset_delta <= last_delta_) return false;
    last_delta_ = offset_delta;
    std::optional<std::string_view> ignored;
    for (std::int64_t i = 0; i < headers; ++i) {
      if (!view(ignored, body_end) || !ignored || !view(ignored, body_end)) return false;
    }
    if (pos_ != body_end) return false;
    const auto delta = static_cast<std::int32_t>(offset_delta);
    out.offset = h_.base_offset + delta;
    out.producer_id = h_.producer_id;
    out.producer_epoch = h_.producer_epoch;
    out.sequence = sequence_after(h_.base_sequence, delta);
    out.timestamp_ms = h_.log_append_time() ? h_.max_timestamp_ms : wrapping_add(h_.base_timestamp_ms, ts_delta);
    return true;
  }

  // The next record into `out`, all its fields copied; false when it is malformed.
  // `start`/`end`: its bytes in the batch.
  bool next(StoredRecord& out, std::size_t& start, std::size_t& end) {
    start = pos_;
    end_ = b_.size();
    std::int64_t body = 0;
    if (!varint(body) || body < 1 || static_cast<std::uint64_t>(body) > b_.size() - pos_) return false;
    const std::size_t body_end = pos_ + static_cast<std::size_t>(body);
    end_ = body_end;  // every field below lies inside the record
    ++pos_;  // attributes
    std::int64_t ts_delta = 0;
    std::int64_t offset_delta = 0;
    std::int64_t headers = 0;
    if (!varint(ts_delta) || !varint(offset_delta) || !bytes(out.record.key, body_end) ||
        !bytes(out.record.value, body_end) || !varint(headers) || headers < 0 ||
        headers > static_cast<std::int64_t>(body_end - pos_) / 2) {
      return false;
    }
    if (offset_delta < 0 || offset_delta > h_.last_offset_delta || offset_delta <= last_delta_) return false;
    last_delta_ = offset_delta;
    out.record.headers.resize(static_cast<std::size_t>(headers));
    for (RecordHeader& rh : out.record.headers) {
      std::optional<std::string> key;
      if (!bytes(key, body_end) || !key || !bytes(rh.value, body_end)) return false;
      rh.key = std::move(*key);
    }
    if (pos_ != body_end) return false;
    end = pos_;
    const auto delta = static_cast<std::int32_t>(offset_delta);
    out.offset = h_.base_offset + delta;
    out.record.timestamp_ms = h_.log_append_time() ? h_.max_timestamp_ms : wrapping_add(h_.base_timestamp_ms, ts_delta);
    out.leader_epoch = h_.leader_epoch;
    out.producer_id = h_.producer_id;
    out.producer_epoch = h_.producer_epoch;
    out.sequence = sequence_after(h_.base_sequence, delta);
    return true;
  }

 private:
  RecordReader(std::string_view bytes, const BatchHeader& h, std::size_t pos) : b_(bytes), h_(h), pos_(pos) {}
  bool varint(std::int64_t& v) {
    std::uint64_t u = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= end_) return false;
      const auto byte = static_cast<unsigned char>(b_[pos_++]);
      u |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) {
        v = unzigzag(u);
        return true;
      }
    }
    return false;
  }
  // A length-prefixed byte string (-1: null) as a view of the batch.
  bool view(std::optional<std::string_view>& s, std::size_t limit) {
    std::int64_t len = 0;
    if (!varint(len) || len < -1) return false;
    if (len == -1) {
      s.reset();
      return true;
    }
    if (pos_ > limit || static_cast<std::uint64_t>(len) > limit - pos_) return false;
    s = b_.substr(pos_, static_cast<std::size_t>(len));
    pos_ += static_cast<std::size_t>(len);
    return true;
  }
  // A length-prefixed byte string (-1: null) copied into `s`.
  bool bytes(std::optional<std::string>& s, std::size_t limit) {
    std::optional<std::string_view> v;
    if (!view(v, limit)) return false;
    if (v) {
      s.emplace(*v);
    } else {
      s.reset();
    }
    return true;
  }

  std::string_view b_;
  const BatchHeader& h_;
  std::size_t pos_;
  std::size_t end_ = 0;  // where the field being read must end: the record's end, or the batch's
  std::int64_t last_delta_ = -1;
};

constexpr std::size_t kLargeBatchBytes = std::size_t{4} << 10;

BatchHeader header_of(std::string_view batch) {
  const std::optional<BatchHeader> h = parse_batch_header(batch);
  LOGSIM_ASSERT(h && h->size_bytes() == batch.size(), "not one whole record batch");
  return *h;
}

// The records `reader` reads, of the batch whose header is `h`, from offset `from` on.
void decode_records(const BatchHeader& h, RecordReader reader, std::vector<StoredRecord>& out, Offset from) {
  if (h.last_offset() < from || h.control()) return;
  std::size_t start = 0;
  std::size_t end = 0;
  // Room for the batch, growing geometrically: `out` may be a buffer that takes many batches.
  const std::size_t need = out.size() + static_cast<std::size_t>(h.record_count);
  if (need > out.capacity()) out.reserve(std::max(need, 2 * out.capacity()));
  for (std::int32_t i = 0; i < h.record_count; ++i) {
    StoredRecord& rec = out.emplace_back();
    LOGSIM_ASSERT(reader.next(rec, start, end), "a malformed record in a batch taken for valid");
    if (rec.offset < from) out.pop_back();
  }
}

}  // namespace

Sequence sequence_after(Sequence base, std::int32_t delta) {
  if (base.value() < 0) return base;
  const std::int64_t s = static_cast<std::int64_t>(base.value()) + delta;
  const std::int64_t span = static_cast<std::int64_t>(std::numeric_limits<std::int32_t>::max()) + 1;
  return Sequence(static_cast<std::int32_t>(s % span));
}

Sequence BatchHeader::last_sequence() const { return sequence_after(base_sequence, last_offset_delta); }

void write_batch_header(const BatchHeader& h, char* out) {
  put_be<std::int64_t>(out, h.base_offset.value());
  put_be<std::int32_t>(out + kLengthAt, h.batch_length);
  put_be<std::int32_t>(out + kEpochAt, h.leader_epoch.value());
  put_be<std::int8_t>(out + kMagicAt, kBatchMagic);
  put_be<std::uint32_t>(out + kCrcAt, h.crc);
  put_be<std::int16_t>(out + kAttributesAt, h.attributes);
  put_be<std::int32_t>(out + 23, h.last_offset_delta);
  put_be<std::int64_t>(out + 27, h.base_timestamp_ms);
  put_be<std::int64_t>(out + 35, h.max_timestamp_ms);
  put_be<std::int64_t>(out + 43, h.producer_id.value());
  put_be<std::int16_t>(out + 51, h.producer_epoch.value());
  put_be<std::int32_t>(out + 53, h.base_sequence.value());
  put_be<std::int32_t>(out + 57, h.record_count);
}

std::optional<BatchHeader> parse_batch_header(std::string_view bytes) {
  if (bytes.size() < kBatchHeaderBytes) return std::nullopt;
  const char* p = bytes.data();
  BatchHeader h;
  h.base_offset = Offset(get_be<std::int64_t>(p));
  h.batch_length = get_be<std::int32_t>(p + kLengthAt);
  h.leader_epoch = LeaderEpoch(get_be<std::int32_t>(p + kEpochAt));
  const auto magic = get_be<std::int8_t>(p + kMagicAt);
  h.crc = get_be<std::uint32_t>(p + kCrcAt);
  h.attributes = get_be<std::int16_t>(p + kAttributesAt);
  h.last_offset_delta = get_be<std::int32_t>(p + 23);
  h.base_timestamp_ms = get_be<std::int64_t>(p + 27);
  h.max_timestamp_ms = get_be<std::int64_t>(p + 35);
  h.producer_id = ProducerId(get_be<std::int64_t>(p + 43));
  h.producer_epoch = ProducerEpoch(get_be<std::int16_t>(p + 51));
  h.base_sequence = Sequence(get_be<std::int32_t>(p + 53));
  h.record_count = get_be<std::int32_t>(p + 57);
  if (magic != kBatchMagic || h.batch_length < static_cast<std::int32_t>(kBatchHeaderBytes - kBatchLogOverhead)) {
    return std::nullopt;
  }
  // The timestamp type and the transaction bits: no compression. A control batch is
  // transactional.
  constexpr std::int16_t kKnown = kLogAppendTimeAttribute | kTransactionalAttribute | kControlAttribute;
  if ((h.attributes & ~kKnown) != 0 || (h.control() && !h.transactional())) return std::nullopt;
  // A record takes at least 7 bytes (a length, attributes, two deltas, two lengths, a count).
  constexpr std::int64_t kSmallestRecordBytes = 7;
  constexpr auto kHeaderAfterLength = static_cast<std::int64_t>(kBatchHeaderBytes - kBatchLogOverhead);
  if (h.record_count > (std::int64_t{h.batch_length} - kHeaderAfterLength) / kSmallestRecordBytes) {
    return std::nullopt;
  }
  if (h.base_offset.value() < 0 || h.last_offset_delta < 0 || h.record_count < 0 ||
      h.record_count > static_cast<std::int64_t>(h.last_offset_delta) + 1 ||
      h.base_offset.value() > std::numeric_limits<std::int64_t>::max() - h.last_offset_delta) {
    return std::nullopt;
  }
  return h;
}

std::uint32_t batch_crc(std::string_view batch) {
  LOGSIM_ASSERT(batch.size() >= kBatchHeaderBytes, "a record batch shorter than its header");
  return crc32c(batch.substr(kAttributesAt));
}

std::uint32_t batch_crc(const BatchHeader& h, std::string_view records) {
  char header[kBatchHeaderBytes];
  write_batch_header(h, header);
  const std::uint32_t crc = crc32c(std::string_view(header + kAttributesAt, kBatchHeaderBytes - kAttributesAt));
  return crc32c_extend(crc, records);
}

BatchBuilder::BatchBuilder() : bytes_(kBatchHeaderBytes, '\0') {}

void BatchBuilder::append(const Record& record, std::int32_t offset_delta) {
  LOGSIM_ASSERT(offset_delta > last_delta_, "record offsets out of order in a batch");
  if (count_ == 0) {
    base_timestamp_ms_ = record.timestamp_ms;
    max_timestamp_ms_ = record.timestamp_ms;
  }
  max_timestamp_ms_ = std::max(max_timestamp_ms_, record.timestamp_ms);
  const std::int64_t ts_delta = wrapping_sub(record.timestamp_ms, base_timestamp_ms_);
  const std::size_t body = body_size(record, ts_delta, offset_delta);
  const std::size_t at = bytes_.size();
  bytes_.resize(at + varint_size(static_cast<std::int64_t>(body)) + body);
  char* const end = put_record(bytes_.data() + at, record, body, ts_delta, offset_delta);
  LOGSIM_ASSERT(end == bytes_.data() + bytes_.size(), "a record's size was miscounted");
  last_delta_ = offset_delta;
  ++count_;
}

std::string BatchBuilder::finish(const BatchMeta& meta, std::optional<std::int32_t> last_offset_delta) {
  LOGSIM_ASSERT(count_ > 0, "an empty record batch");
  LOGSIM_ASSERT(bytes_.size() - kBatchLogOverhead <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()),
                "a record batch beyond 2 GiB");
  BatchHeader h;
  h.base_offset = meta.base_offset;
  h.batch_length = static_cast<std::int32_t>(bytes_.size() - kBatchLogOverhead);
  h.leader_epoch = meta.leader_epoch;
  h.last_offset_delta = std::max(last_delta_, last_offset_delta.value_or(last_delta_));
  h.base_timestamp_ms = base_timestamp_ms_;
  h.max_timestamp_ms = max_timestamp_ms_;
  h.producer_id = meta.producer_id;
  h.producer_epoch = meta.producer_epoch;
  h.base_sequence = meta.base_sequence;
  h.record_count = count_;
  if (meta.transactional) h.attributes |= kTransactionalAttribute;
  write_batch_header(h, bytes_.data());
  put_be<std::uint32_t>(bytes_.data() + kCrcAt, batch_crc(bytes_));
  // A batch far smaller than the room reserved for it (one record of a batch.size buffer) gives
  // the room back: the batch lives on, in flight and in retries. So does a large one (4 KiB and
  // up) with more than an eighth to spare: a leader keeps such records as its log
  // (PartitionLog::kKeepRecordsFrom).
  const std::size_t spare = bytes_.capacity() - bytes_.size();
  if (spare > bytes_.size() + 256 || (bytes_.size() >= kLargeBatchBytes && spare > bytes_.size() / 8)) bytes_.shrink_to_fit();
  std::string out = std::move(bytes_);
  bytes_.assign(kBatchHeaderBytes, '\0');
  count_ = 0;
  last_delta_ = -1;
  return out;
}

void encode_batch(std::span<const Record> records, const BatchMeta& meta, std::string& out) {
  BatchBuilder builder;
  for (const Record& r : records) builder.append(r);
  out += builder.finish(meta);
}

std::string encode_batch(std::span<const Record> records, const BatchMeta& meta) {
  BatchBuilder builder;
  for (const Record& r : records) builder.append(r);
  return builder.finish(meta);
}

void encode_stored_batch(std::span<const StoredRecord> records, std::string& out, std::optional<Offset> last) {
  LOGSIM_ASSERT(!records.empty(), "an empty record batch");
  const StoredRecord& first = records.front();
  const Offset end = last && *last > records.back().offset ? *last : records.back().offset;
  LOGSIM_ASSERT(end - first.offset <= std::numeric_limits<std::int32_t>::max(), "a record batch spanning 2^31 offsets");
  BatchBuilder builder;
  for (const StoredRecord& r : records) {
    LOGSIM_ASSERT(r.offset >= first.offset, "stored records out of offset order");
    builder.append(r.record, static_cast<std::int32_t>(r.offset - first.offset));
  }
  out += builder.finish(BatchMeta{first.offset, first.leader_epoch, first.producer_id, first.producer_epoch, first.sequence},
                        static_cast<std::int32_t>(end - first.offset));
}

std::string encode_control_batch(const TxnMarker& marker, std::int64_t now_ms) {
  char key[4];
  put_be<std::int16_t>(key, 0);
  put_be<std::int16_t>(key + 2, static_cast<std::int16_t>(marker.type));
  char value[6];
  put_be<std::int16_t>(value, 0);
  put_be<std::int32_t>(value + 2, marker.coordinator_epoch);
  BatchBuilder builder;
  builder.append(Record{std::string(key, sizeof key), std::string(value, sizeof value), now_ms});
  std::string batch = builder.finish(BatchMeta{Offset(0), LeaderEpoch(-1), marker.producer_id, marker.producer_epoch,
                                               Sequence(-1), true});
  BatchHeader h = header_of(batch);
  h.attributes |= kControlAttribute;
  write_batch_header(h, batch.data());
  put_be<std::uint32_t>(batch.data() + kCrcAt, batch_crc(batch));
  return batch;
}

std::optional<TxnMarker> parse_control_batch(std::string_view batch) {
  const BatchHeader h = header_of(batch);
  if (!h.control() || h.record_count != 1) return std::nullopt;
  RecordReader reader(batch, h);
  RecordView rec;
  LOGSIM_ASSERT(reader.next_view(rec), "a malformed record in a batch taken for valid");
  if (!rec.key || rec.key->size() != 4 || get_be<std::int16_t>(rec.key->data()) != 0) return std::nullopt;
  const auto type = get_be<std::int16_t>(rec.key->data() + 2);
  if (type != 0 && type != 1) return std::nullopt;
  if (!rec.value || rec.value->size() < 6 || get_be<std::int16_t>(rec.value->data()) != 0) return std::nullopt;
  return TxnMarker{h.producer_id, h.producer_epoch, static_cast<ControlType>(type), get_be<std::int32_t>(rec.value->data() + 2)};
}

namespace {
bool records_valid(std::string_view batch, const BatchHeader& h, std::optional<std::int64_t>& max_ts) {
  RecordReader reader(batch, h);
  RecordView rec;  // every field checked, nothing copied
  max_ts.reset();
  for (std::int32_t i = 0; i < h.record_count; ++i) {
    if (!reader.next_view(rec)) return false;
    if (!h.log_append_time()) max_ts = std::max(max_ts.value_or(rec.timestamp_ms), rec.timestamp_ms);
  }
  return reader.done();
}

// A whole batch's CRC and records, as Kafka checks them (not its max timestamp: see
// batch_records_valid).
bool batch_and_records_valid(std::string_view batch, const BatchHeader& h) {
  std::optional<std::int64_t> max_ts;
  return batch_crc(batch) == h.crc && records_valid(batch, h, max_ts);
}

}  // namespace

bool batch_is_valid(std::string_view batch, bool verify_crc) {
  const std::optional<BatchHeader> h = parse_batch_header(batch);
  if (!h || h->size_bytes() != batch.size()) return false;
  if (verify_crc && batch_crc(batch) != h->crc) return false;
  std::optional<std::int64_t> max_ts;
  return records_valid(batch, *h, max_ts) && (!max_ts || *max_ts == h->max_timestamp_ms);
}

bool batch_records_valid(std::string_view batch, std::optional<std::int64_t>& max_timestamp_ms) {
  const std::optional<BatchHeader> h = parse_batch_header(batch);
  return h && h->size_bytes() == batch.size() && records_valid(batch, *h, max_timestamp_ms);
}

void for_each_record(std::string_view batch, const std::function<bool(const StoredRecord&)>& fn) {
  const BatchHeader h = header_of(batch);
  RecordReader reader(batch, h);
  StoredRecord rec;
  std::size_t start = 0;
  std::size_t end = 0;
  for (std::int32_t i = 0; i < h.record_count; ++i) {
    LOGSIM_ASSERT(reader.next(rec, start, end), "a malformed record in a batch taken for valid");
    if (!fn(rec)) return;
  }
}

void for_each_record_view(std::string_view batch, const std::function<void(const RecordView&)>& fn) {
  const BatchHeader h = header_of(batch);
  if (h.control()) return;
  RecordReader reader(batch, h);
  RecordView rec;
  for (std::int32_t i = 0; i < h.record_count; ++i) {
    LOGSIM_ASSERT(reader.next_view(rec), "a malformed record in a batch taken for valid");
    fn(rec);
  }
}

void decode_batch(std::string_view batch, std::vector<StoredRecord>& out, Offset from) {
  const BatchHeader h = header_of(batch);
  decode_records(h, RecordReader(batch, h), out, from);
}

std::size_t filter_batch(std::string_view batch, const std::function<bool(const StoredRecord&)>& keep,
                         std::string& out) {
  BatchHeader h = header_of(batch);
  RecordReader reader(batch, h);
  StoredRecord rec;
  std::size_t start = 0;
  std::size_t end = 0;
  std::string records;
  std::int32_t kept = 0;
  std::int64_t max_ts = std::numeric_limits<std::int64_t>::min();
  for (std::int32_t i = 0; i < h.record_count; ++i) {
    LOGSIM_ASSERT(reader.next(rec, start, end), "a malformed record in a batch taken for valid");
    if (!keep(rec)) continue;
    records.append(batch.substr(start, end - start));
    ++kept;
    max_ts = std::max(max_ts, rec.record.timestamp_ms);
  }
  if (kept == 0) return 0;
  if (!h.log_append_time()) h.max_timestamp_ms = max_ts;
  h.record_count = kept;
  h.batch_length = static_cast<std::int32_t>(kBatchHeaderBytes - kBatchLogOverhead + records.size());
  h.crc = batch_crc(h, records);
  const std::size_t at = out.size();
  out.resize(at + kBatchHeaderBytes);
  write_batch_header(h, out.data() + at);
  out.append(records);
  return static_cast<std::size_t>(kept);
}

BatchScan scan_batches(std::string_view bytes, bool verify_records) {
  BatchScan scan;
  while (scan.valid_bytes < bytes.size()) {
    const std::string_view rest = bytes.substr(static_cast<std::size_t>(scan.valid_bytes));
    const std::optional<BatchHeader> h = parse_batch_header(rest);
    if (!h || h->size_bytes() > rest.size() ||
        (verify_records && !batch_and_records_valid(rest.substr(0, static_cast<std::size_t>(h->size_bytes())), *h))) {
      scan.complete = false;
      break;
    }
    scan.batches.push_back(*h);
    scan.valid_bytes += h->size_bytes();
  }
  return scan;
}

BatchScan scan_batch_headers(const SharedBytes& bytes) {
  std::vector<BatchHeader> headers;
  BatchScan scan = visit_batch_headers(bytes, [&headers](const BatchHeader& h) { headers.push_back(h); });
  scan.batches = std::move(headers);
  return scan;
}

BatchScan visit_batch_headers(const SharedBytes& bytes, const std::function<void(const BatchHeader&)>& visit) {
  BatchScan scan;
  char head[kBatchHeaderBytes];
  while (scan.valid_bytes < bytes.size()) {
    std::optional<BatchHeader> h;
    if (bytes.copy_out(scan.valid_bytes, sizeof head, head)) h = parse_batch_header(std::string_view(head, sizeof head));
    if (!h || h->size_bytes() > bytes.size() - scan.valid_bytes) {
      scan.complete = false;
      break;
    }
    visit(*h);
    scan.valid_bytes += h->size_bytes();
  }
  return scan;
}

namespace {
void decode_all(std::string_view bytes, Offset from, std::vector<StoredRecord>& out) {
  std::uint64_t pos = 0;
  while (pos < bytes.size()) {
    const std::optional<BatchHeader> h = parse_batch_header(bytes.substr(pos));
    LOGSIM_ASSERT(h && h->size_bytes() <= bytes.size() - pos, "malformed record batches taken for valid");
    decode_batch(bytes.substr(pos, static_cast<std::size_t>(h->size_bytes())), out, from);
    pos += h->size_bytes();
  }
}
}  // namespace

std::vector<StoredRecord> decode_batches(std::string_view bytes, Offset from) {
  std::vector<StoredRecord> out;
  decode_all(bytes, from, out);
  return out;
}

std::vector<StoredRecord> decode_batches(const SharedBytes& bytes, Offset from) {
  std::vector<StoredRecord> out;
  decode_batches(bytes, from, out);
  return out;
}

void decode_batches(const SharedBytes& bytes, Offset from, std::vector<StoredRecord>& out) {
  if (bytes.slices().size() <= 1) {
    std::string scratch;
    return decode_all(bytes.contiguous(scratch), from, out);
  }
  // Batches in pieces (a leader keeps a producer's large records apart from the header it
  // wrote): each header is read on its own and the records where they lie, copied only when
  // they span slices.
  std::string scratch;
  std::uint64_t pos = 0;
  std::size_t slice = 0;
  std::uint64_t slice_start = 0;
  const auto& slices = bytes.slices();
  while (pos < bytes.size()) {
    char head[kBatchHeaderBytes];
    const std::optional<BatchHeader> h =
        bytes.copy_out(pos, sizeof head, head) ? parse_batch_header(std::string_view(head, sizeof head)) : std::nullopt;
    LOGSIM_ASSERT(h && h->size_bytes() <= bytes.size() - pos, "malformed record batches taken for valid");
    const std::uint64_t records_at = pos + kBatchHeaderBytes;
    const auto records_len = static_cast<std::size_t>(h->size_bytes() - kBatchHeaderBytes);
    while (slice < slices.size() && slice_start + slices[slice].size <= records_at) slice_start += slices[slice++].size;
    std::string_view records;
    if (slice < slices.size() && records_at + records_len <= slice_start + slices[slice].size) {
      records = std::string_view(slices[slice].data + (records_at - slice_start), records_len);
    } else if (records_len > 0) {
      scratch.resize(records_len);
      bytes.copy_out(records_at, records_len, scratch.data());
      records = scratch;
    }
    decode_records(*h, RecordReader::of_records(records, *h), out, from);
    pos += h->size_bytes();
  }
}

}  // namespace logsim

// Encoding and checksummed decoding of record frames.
#include "engine/log/record_codec.h"

#include <cstring>

#include "engine/env/assert.h"

namespace logsim::engine {
namespace {

// Body offsets of the fixed fields.
constexpr std::size_t kOffsetAt = 0;
constexpr std::size_t kTimestampAt = 8 + 4 + 8 + 4 + 4;
constexpr std::size_t kFixedBody = kTimestampAt + 8;

// Writes fields into a buffer sized in advance (the simulator runs on little-endian hosts only).
class Writer {
 public:
  explicit Writer(char* p) : p_(p) {}
  template <typename T>
  void put(T v) {
    std::memcpy(p_, &v, sizeof(T));
    p_ += sizeof(T);
  }
  void put_bytes(std::string_view s) {
    put<std::int32_t>(static_cast<std::int32_t>(s.size()));
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
  }
  void put_bytes(const std::optional<std::string>& s) {
    if (s) return put_bytes(std::string_view(*s));
    put<std::int32_t>(-1);
  }
  char* at() const { return p_; }

 private:
  char* p_;
};

class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  template <typename T>
  bool get(T& v) {
    if (b_.size() - pos_ < sizeof(T)) return false;
    std::memcpy(&v, b_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  bool get_bytes(std::optional<std::string>& s) {
    std::int32_t len = 0;
    if (!get(len)) return false;
    if (len < 0) {
      s.reset();
      return len == -1;
    }
    if (b_.size() - pos_ < static_cast<std::size_t>(len)) return false;
    s.emplace(b_.substr(pos_, static_cast<std::size_t>(len)));
    pos_ += static_cast<std::size_t>(len);
    return true;
  }
  bool get_string(std::string& s) {
    std::optional<std::string> o;
    if (!get_bytes(o) || !o) return false;
    s = std::move(*o);
    return true;
  }
  // Steps over a length-prefixed byte string (-1: null when `nullable`).
  bool skip_bytes(bool nullable) {
    std::int32_t len = 0;
    if (!get(len)) return false;
    if (len < 0) return nullable && len == -1;
    if (b_.size() - pos_ < static_cast<std::size_t>(len)) return false;
    pos_ += static_cast<std::size_t>(len);
    return true;
  }
  bool done() const { return pos_ == b_.size(); }

 private:
  std::string_view b_;
  std::size_t pos_ = 0;
};

// The fixed fields at the start of a frame's body, into `f` (all but its length).
bool get_fixed(Reader& r, FrameInfo& f) {
  std::int64_t offset = 0;
  std::int32_t epoch = 0;
  std::int64_t pid = 0;
  std::int32_t pepoch = 0;
  std::int32_t seq = 0;
  if (!r.get(offset) || !r.get(epoch) || !r.get(pid) || !r.get(pepoch) || !r.get(seq) || !r.get(f.timestamp_ms)) {
    return false;
  }
  f.offset = Offset(offset);
  f.leader_epoch = LeaderEpoch(epoch);
  f.producer_id = ProducerId(pid);
  f.producer_epoch = ProducerEpoch(static_cast<std::int16_t>(pepoch));
  f.sequence = Sequence(seq);
  return true;
}

std::uint64_t load64(const char* p) {
  std::uint64_t w = 0;
  std::memcpy(&w, p, sizeof w);
  return w;
}

std::uint64_t mix(std::uint64_t h, std::uint64_t w) {
  h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
  return h ^ (h >> 29);
}

// Four independent lanes over 32-byte blocks, so the multiplies overlap; then the tail and the
// length, and a final avalanche.
std::uint64_t checksum(std::string_view body) {
  std::uint64_t lane[4] = {0x6A09E667F3BCC908ULL, 0xBB67AE8584CAA73BULL, 0x3C6EF372FE94F82BULL,
                           0xA54FF53A5F1D36F1ULL};
  const char* p = body.data();
  std::size_t n = body.size();
  for (; n >= 32; p += 32, n -= 32) {
    for (int i = 0; i < 4; ++i) lane[i] = mix(lane[i], load64(p + 8 * i));
  }
  std::uint64_t h = mix(mix(lane[0], lane[1]), mix(lane[2], lane[3]));
  for (; n >= 8; p += 8, n -= 8) h = mix(h, load64(p));
  std::uint64_t tail = 0;
  std::memcpy(&tail, p, n);
  h = mix(mix(h, tail), body.size());
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBULL;
  return h ^ (h >> 31);
}

std::uint64_t bytes_len(const std::optional<std::string>& s) { return s ? s->size() : 0; }

}  // namespace

std::uint64_t frame_checksum(std::string_view body) { return checksum(body); }

std::uint64_t encoded_size(const RecordRef& rec) {
  // Fixed fields, the key and value lengths, the header count.
  std::uint64_t n = kFrameHeaderBytes + kFixedBody + 3 * sizeof(std::int32_t);
  n += bytes_len(rec.record->key) + bytes_len(rec.record->value);
  for (const RecordHeader& h : rec.record->headers) n += 2 * sizeof(std::int32_t) + h.key.size() + bytes_len(h.value);
  return n;
}

void encode_record(const RecordRef& rec, std::string& out) {
  const std::size_t start = out.size();
  const std::uint64_t size = encoded_size(rec);
  LOGSIM_ASSERT(size - kFrameHeaderBytes <= UINT32_MAX, "a record frame beyond 4 GiB");
  out.resize(start + size);
  char* const frame = out.data() + start;
  Writer w(frame + kFrameHeaderBytes);
  w.put<std::int64_t>(rec.offset.value());
  w.put<std::int32_t>(rec.leader_epoch.value());
  w.put<std::int64_t>(rec.producer_id.value());
  w.put<std::int32_t>(rec.producer_epoch.value());
  w.put<std::int32_t>(rec.sequence.value());
  w.put<std::int64_t>(rec.timestamp_ms);
  w.put_bytes(rec.record->key);
  w.put_bytes(rec.record->value);
  w.put<std::int32_t>(static_cast<std::int32_t>(rec.record->headers.size()));
  for (const RecordHeader& h : rec.record->headers) {
    w.put_bytes(std::string_view(h.key));
    w.put_bytes(h.value);
  }
  LOGSIM_ASSERT(w.at() == frame + size, "encoded_size disagrees with encode_record");
  const auto body_len = static_cast<std::uint32_t>(size - kFrameHeaderBytes);
  Writer header(frame);
  header.put<std::uint32_t>(body_len);
  header.put<std::uint64_t>(checksum(std::string_view(frame + kFrameHeaderBytes, body_len)));
}

std::size_t decode_frame(std::string_view bytes, StoredRecord& rec, bool verify) {
  if (bytes.size() < kFrameHeaderBytes) return 0;
  std::uint32_t len = 0;
  std::uint64_t sum = 0;
  std::memcpy(&len, bytes.data(), sizeof len);
  std::memcpy(&sum, bytes.data() + sizeof len, sizeof sum);
  if (bytes.size() - kFrameHeaderBytes < len) return 0;
  const std::string_view body = bytes.substr(kFrameHeaderBytes, len);
  if (verify && checksum(body) != sum) return 0;
  Reader r(body);
  FrameInfo f;
  std::int32_t header_count = 0;
  if (!get_fixed(r, f) || !r.get_bytes(rec.record.key) || !r.get_bytes(rec.record.value) ||
      !r.get(header_count) || header_count < 0 ||
      static_cast<std::size_t>(header_count) > len / (2 * sizeof(std::int32_t))) {
    return 0;
  }
  rec.record.headers.clear();
  rec.record.headers.resize(static_cast<std::size_t>(header_count));
  for (RecordHeader& h : rec.record.headers) {
    if (!r.get_string(h.key) || !r.get_bytes(h.value)) return 0;
  }
  if (!r.done()) return 0;
  rec.offset = f.offset;
  rec.leader_epoch = f.leader_epoch;
  rec.producer_id = f.producer_id;
  rec.producer_epoch = f.producer_epoch;
  rec.sequence = f.sequence;
  rec.record.timestamp_ms = f.timestamp_ms;
  return kFrameHeaderBytes + len;
}

Offset frame_offset(std::string_view bytes) {
  LOGSIM_ASSERT(bytes.size() >= kFrameHeaderBytes + kFixedBody, "a frame too short for its offset");
  std::int64_t v = 0;
  std::memcpy(&v, bytes.data() + kFrameHeaderBytes + kOffsetAt, sizeof v);
  return Offset(v);
}

std::int64_t frame_timestamp_ms(std::string_view bytes) {
  LOGSIM_ASSERT(bytes.size() >= kFrameHeaderBytes + kFixedBody, "a frame too short for its timestamp");
  std::int64_t v = 0;
  std::memcpy(&v, bytes.data() + kFrameHeaderBytes + kTimestampAt, sizeof v);
  return v;
}

std::optional<std::vector<FrameInfo>> scan_frames(std::string_view frames) {
  std::vector<FrameInfo> infos;
  while (!frames.empty()) {
    if (frames.size() < kFrameHeaderBytes) return std::nullopt;
    std::uint32_t len = 0;
    std::memcpy(&len, frames.data(), sizeof len);
    if (frames.size() - kFrameHeaderBytes < len) return std::nullopt;
    Reader r(frames.substr(kFrameHeaderBytes, len));
    FrameInfo f;
    std::int32_t header_count = 0;
    if (!get_fixed(r, f) || !r.skip_bytes(true) || !r.skip_bytes(true) || !r.get(header_count) || header_count < 0) {
      return std::nullopt;
    }
    for (std::int32_t h = 0; h < header_count; ++h) {
      if (!r.skip_bytes(false) || !r.skip_bytes(true)) return std::nullopt;
    }
    if (!r.done()) return std::nullopt;
    f.bytes = kFrameHeaderBytes + len;
    infos.push_back(f);
    frames.remove_prefix(kFrameHeaderBytes + len);
  }
  return infos;
}

DecodedLog decode_records(std::string_view bytes) {
  DecodedLog log;
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    StoredRecord rec;
    const std::size_t len = decode_frame(bytes.substr(pos), rec, /*verify=*/true);
    if (len == 0) break;
    log.records.push_back(std::move(rec));
    log.positions.push_back(pos);
    pos += len;
    log.valid_bytes = pos;
  }
  return log;
}

}  // namespace logsim::engine

// Encoding and checksummed decoding of record frames.
#include "engine/log/record_codec.h"

#include <cstring>

#include "engine/env/digest.h"

namespace logsim::engine {
namespace {

template <typename T>
void put(std::string& out, T v) {
  char buf[sizeof(T)];
  std::memcpy(buf, &v, sizeof(T));  // the simulator runs on little-endian hosts only
  out.append(buf, sizeof(T));
}

void put_bytes(std::string& out, const std::optional<std::string>& s) {
  if (!s) {
    put<std::int32_t>(out, -1);
    return;
  }
  put<std::int32_t>(out, static_cast<std::int32_t>(s->size()));
  out.append(*s);
}

std::uint64_t checksum(std::string_view body) { return Digest().add(body).value(); }

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
  bool done() const { return pos_ == b_.size(); }

 private:
  std::string_view b_;
  std::size_t pos_ = 0;
};

}  // namespace

void encode_record(const StoredRecord& rec, std::string& out) {
  std::string body;
  put<std::int64_t>(body, rec.offset.value());
  put<std::int32_t>(body, rec.leader_epoch.value());
  put<std::int64_t>(body, rec.producer_id.value());
  put<std::int32_t>(body, rec.producer_epoch.value());
  put<std::int32_t>(body, rec.sequence.value());
  put<std::int64_t>(body, rec.record.timestamp_ms);
  put_bytes(body, rec.record.key);
  put_bytes(body, rec.record.value);
  put<std::uint32_t>(out, static_cast<std::uint32_t>(body.size()));
  put<std::uint64_t>(out, checksum(body));
  out.append(body);
}

std::uint64_t encoded_size(const StoredRecord& rec) {
  constexpr std::uint64_t kFixed = sizeof(std::uint32_t) + sizeof(std::uint64_t) +  // header
                                   sizeof(std::int64_t) + sizeof(std::int32_t) +  // offset, epoch
                                   sizeof(std::int64_t) + 2 * sizeof(std::int32_t) +  // producer
                                   sizeof(std::int64_t) + 2 * sizeof(std::int32_t);  // timestamp, lengths
  const auto len = [](const std::optional<std::string>& s) -> std::uint64_t { return s ? s->size() : 0; };
  return kFixed + len(rec.record.key) + len(rec.record.value);
}

DecodedLog decode_records(std::string_view bytes) {
  DecodedLog log;
  std::size_t pos = 0;
  constexpr std::size_t kHeader = sizeof(std::uint32_t) + sizeof(std::uint64_t);
  while (bytes.size() - pos >= kHeader) {
    std::uint32_t len = 0;
    std::uint64_t sum = 0;
    std::memcpy(&len, bytes.data() + pos, sizeof len);
    std::memcpy(&sum, bytes.data() + pos + sizeof len, sizeof sum);
    if (bytes.size() - pos - kHeader < len) break;
    const std::string_view body = bytes.substr(pos + kHeader, len);
    if (checksum(body) != sum) break;
    Reader r(body);
    StoredRecord rec;
    std::int64_t offset = 0;
    std::int32_t epoch = 0;
    std::int64_t pid = 0;
    std::int32_t pepoch = 0;
    std::int32_t seq = 0;
    if (!r.get(offset) || !r.get(epoch) || !r.get(pid) || !r.get(pepoch) || !r.get(seq) ||
        !r.get(rec.record.timestamp_ms) || !r.get_bytes(rec.record.key) ||
        !r.get_bytes(rec.record.value) || !r.done()) {
      break;
    }
    rec.offset = Offset(offset);
    rec.leader_epoch = LeaderEpoch(epoch);
    rec.producer_id = ProducerId(pid);
    rec.producer_epoch = ProducerEpoch(static_cast<std::int16_t>(pepoch));
    rec.sequence = Sequence(seq);
    log.records.push_back(std::move(rec));
    log.positions.push_back(pos);
    pos += kHeader + len;
    log.valid_bytes = pos;
  }
  return log;
}

}  // namespace logsim::engine

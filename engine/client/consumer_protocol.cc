// Encoding of the consumer's subscription and assignment: a version byte, then fields as
// decimal integers and length-prefixed strings, each ended by ';'.
#include "engine/client/consumer_protocol.h"

#include <charconv>

namespace logsim::engine {
namespace {

constexpr char kVersion = '1';

class Writer {
 public:
  Writer() { out_.push_back(kVersion); }
  void integer(std::int64_t v) { out_ += std::to_string(v) + ';'; }
  void string(std::string_view s) {
    integer(static_cast<std::int64_t>(s.size()));
    out_.append(s);
  }
  void partitions(const std::vector<TopicPartition>& tps) {
    integer(static_cast<std::int64_t>(tps.size()));
    for (const auto& tp : tps) {
      string(tp.topic);
      integer(tp.partition.value());
    }
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {
    ok_ = !in_.empty() && in_[0] == kVersion;
    pos_ = 1;
  }
  std::int64_t integer() {
    if (!ok_) return 0;
    const auto end = in_.find(';', pos_);
    std::int64_t v = 0;
    if (end == std::string_view::npos) return fail();
    const auto [ptr, ec] = std::from_chars(in_.data() + pos_, in_.data() + end, v);
    if (ec != std::errc() || ptr != in_.data() + end) return fail();
    pos_ = end + 1;
    return v;
  }
  std::string string() {
    const std::int64_t n = integer();
    if (!ok_ || n < 0 || static_cast<std::uint64_t>(n) > in_.size() - pos_) {
      fail();
      return {};
    }
    std::string s(in_.substr(pos_, static_cast<std::size_t>(n)));
    pos_ += static_cast<std::size_t>(n);
    return s;
  }
  std::vector<TopicPartition> partitions() {
    const std::int64_t n = integer();
    std::vector<TopicPartition> out;
    if (n < 0 || static_cast<std::uint64_t>(n) > in_.size()) fail();
    for (std::int64_t i = 0; ok_ && i < n; ++i) {
      std::string topic = string();
      const std::int64_t p = integer();
      if (p < 0 || p > INT32_MAX) fail();
      out.push_back({std::move(topic), PartitionId(static_cast<std::int32_t>(p))});
    }
    return out;
  }
  bool done() const { return ok_ && pos_ == in_.size(); }

 private:
  std::int64_t fail() {
    ok_ = false;
    return 0;
  }
  std::string_view in_;
  std::size_t pos_ = 0;
  bool ok_ = false;
};

}  // namespace

std::string encode_subscription(const ConsumerSubscription& s) {
  Writer w;
  w.integer(static_cast<std::int64_t>(s.topics.size()));
  for (const auto& t : s.topics) w.string(t);
  w.partitions(s.owned_partitions);
  w.integer(s.generation_id);
  return w.take();
}

std::optional<ConsumerSubscription> decode_subscription(std::string_view bytes) {
  Reader r(bytes);
  ConsumerSubscription s;
  const std::int64_t n = r.integer();
  if (n < 0 || static_cast<std::uint64_t>(n) > bytes.size()) return std::nullopt;
  for (std::int64_t i = 0; i < n; ++i) s.topics.push_back(r.string());
  s.owned_partitions = r.partitions();
  const std::int64_t generation = r.integer();
  if (!r.done() || generation < INT32_MIN || generation > INT32_MAX) return std::nullopt;
  s.generation_id = static_cast<std::int32_t>(generation);
  return s;
}

std::string encode_assignment(const ConsumerAssignment& a) {
  Writer w;
  w.partitions(a.partitions);
  return w.take();
}

std::optional<ConsumerAssignment> decode_assignment(std::string_view bytes) {
  Reader r(bytes);
  ConsumerAssignment a{r.partitions()};
  if (!r.done()) return std::nullopt;
  return a;
}

}  // namespace logsim::engine

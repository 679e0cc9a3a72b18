// The fast path for one history.jsonl line (reports/history_line.h): a scanner for the shape
// logsim writes, about twenty times faster than building an nlohmann::json per line.
//
// Contract: when scan_history_line returns true, parse_history_line would have returned the
// same event for the same line; it returns false on anything it is not sure of, and the caller
// asks the strict reader, which gives the event or the error. So the scanner gives up rather
// than judge: on an escape, a control character or a non-ASCII byte in a string (the strict
// reader checks escapes and UTF-8), a number that is not a plain integer of at most 18 digits,
// a duplicate or unknown key, a value out of its range or of another type, or anything after
// the closing brace but whitespace.
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "reports/history_line.h"

namespace logsim::reports {
namespace {

using properties::HistoryEvent;
using properties::OpKind;

// The keys of docs/history.md, one bit each, to refuse a key seen twice.
enum Key : std::uint8_t {
  kIndex, kAtNs, kOp, kProcess, kGroup, kGeneration, kTopic, kPartition, kOffset, kKeyField,
  kValueId, kIdempotent, kAssignment, kError, kNote, kCommitId, kLogStartOffset, kHighWatermark, kRecords, kTombstone, kReadCommitted, kSourceValueId, kUnknown
};

Key key_of(std::string_view k) {
  // By length first: most keys differ in length, and the rest in their first byte.
  switch (k.size()) {
    case 2: return k == "op" ? kOp : kUnknown;
    case 3: return k == "key" ? kKeyField : kUnknown;
    case 4: return k == "note" ? kNote : kUnknown;
    case 5:
      if (k == "index") return kIndex;
      if (k == "at_ns") return kAtNs;
      if (k == "topic") return kTopic;
      if (k == "group") return kGroup;
      if (k == "error") return kError;
      return kUnknown;
    case 6: return k == "offset" ? kOffset : kUnknown;
    case 7:
      if (k == "process") return kProcess;
      if (k == "records") return kRecords;
      return kUnknown;
    case 8: return k == "value_id" ? kValueId : kUnknown;
    case 9:
      if (k == "partition") return kPartition;
      if (k == "commit_id") return kCommitId;
      if (k == "tombstone") return kTombstone;
      return kUnknown;
    case 10:
      if (k == "generation") return kGeneration;
      if (k == "idempotent") return kIdempotent;
      if (k == "assignment") return kAssignment;
      return kUnknown;
    case 14:
      if (k == "high_watermark") return kHighWatermark;
      if (k == "read_committed") return kReadCommitted;
      return kUnknown;
    case 15: return k == "source_value_id" ? kSourceValueId : kUnknown;
    case 16: return k == "log_start_offset" ? kLogStartOffset : kUnknown;
    default: return kUnknown;
  }
}

std::optional<OpKind> op_of(std::string_view op) {
  // The common ops first; the rest by name.
  if (op == "process") return OpKind::kProcess;
  if (op == "send-ok") return OpKind::kSendOk;
  if (op == "send-invoke") return OpKind::kSendInvoke;
  return properties::op_kind_from_name(op);
}

// For each byte of w (as loaded from memory on a little-endian machine) that is '"', '\\', below
// 0x20 or 0x80 and above, a set high bit; the lowest set bit is exact (a borrow only marks bytes
// after a true one).
constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
constexpr std::uint64_t kHighs = 0x8080808080808080ULL;
constexpr std::uint64_t below(std::uint64_t w, std::uint8_t n) { return (w - kOnes * n) & ~w & kHighs; }
constexpr std::uint64_t stops(std::uint64_t w) {
  return below(w ^ (kOnes * '"'), 1) | below(w ^ (kOnes * '\\'), 1) | below(w, 0x20) | (w & kHighs);
}
static_assert(std::endian::native == std::endian::little, "the scanner reads strings eight bytes at a time, little-endian");

class Scanner {
 public:
  explicit Scanner(std::string_view line) : p_(line.data()), end_(line.data() + line.size()) {}

  // Skips JSON's whitespace.
  void space() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\r' || *p_ == '\n')) ++p_;
  }
  // The next token is `c`: consumes it.
  bool take(char c) {
    space();
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }
  bool at_end() {
    space();
    return p_ == end_;
  }
  bool peek(char c) {
    space();
    return p_ < end_ && *p_ == c;
  }
  // A string with nothing to decode: no escape, no control character, only ASCII.
  bool string(std::string_view& out) {
    if (!take('"')) return false;
    const char* start = p_;
    // Eight bytes at a time up to the first byte that is a quote, a backslash, a control
    // character or not ASCII; then byte by byte, as for the line's last few bytes.
    while (end_ - p_ >= 8) {
      std::uint64_t w = 0;
      std::memcpy(&w, p_, 8);
      const std::uint64_t special = stops(w);
      if (special == 0) {
        p_ += 8;
        continue;
      }
      p_ += static_cast<unsigned>(__builtin_ctzll(special)) / 8;  // the first such byte (little-endian)
      break;
    }
    while (p_ < end_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        out = std::string_view(start, static_cast<std::size_t>(p_ - start));
        ++p_;
        return true;
      }
      if (c < 0x20 || c == '\\' || c >= 0x80) return false;
      ++p_;
    }
    return false;
  }
  // The same into a string, reusing its storage.
  bool string(std::string& out) {
    std::string_view text;
    if (!string(text)) return false;
    out.assign(text);
    return true;
  }
  // A plain integer (JSON's -?(0|[1-9][0-9]*)) of at most 18 digits, so it fits in int64 and
  // the strict reader takes it as an integer too (not a float, as it would 1.0 or 1e3).
  bool integer(std::int64_t& out) {
    space();
    bool negative = false;
    if (p_ < end_ && *p_ == '-') {
      negative = true;
      ++p_;
    }
    const char* start = p_;
    std::int64_t v = 0;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
      v = v * 10 + (*p_ - '0');
      ++p_;
      if (p_ - start > 18) return false;
    }
    if (p_ == start || (*start == '0' && p_ - start > 1)) return false;
    if (p_ < end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E')) return false;
    out = negative ? -v : v;
    return true;
  }
  // An integer from lo to hi.
  bool integer(std::int64_t& out, std::int64_t lo, std::int64_t hi) { return integer(out) && out >= lo && out <= hi; }
  // A non-negative integer written without a sign (the strict reader's "unsigned").
  bool unsigned_integer(std::uint64_t& out) {
    if (peek('-')) return false;
    std::int64_t v = 0;
    if (!integer(v)) return false;
    out = static_cast<std::uint64_t>(v);
    return true;
  }
  bool word(std::string_view w) {
    space();
    if (static_cast<std::size_t>(end_ - p_) < w.size() || std::memcmp(p_, w.data(), w.size()) != 0) return false;
    p_ += w.size();
    return true;
  }

 private:
  const char* p_;
  const char* end_;
};

// An offset, partition or generation: -1 (Kafka's "none") is none, as in the strict reader.
template <typename T>
bool id(Scanner& s, std::optional<T>& out) {
  using Rep = typename T::rep;
  std::int64_t v = 0;
  if (!s.integer(v, -1, std::numeric_limits<Rep>::max())) return false;
  out = properties::known(T(static_cast<Rep>(v)));
  return true;
}

// {"topic": "orders", "partition": 0}, the keys in either order, each once.
bool assignment_entry(Scanner& s, HistoryEvent& e) {
  if (!s.take('{')) return false;
  std::string_view topic;
  std::int64_t partition = -1;
  bool has_topic = false;
  bool has_partition = false;
  for (int i = 0; i < 2; ++i) {
    std::string_view k;
    if ((i == 1 && !s.take(',')) || !s.string(k) || !s.take(':')) return false;
    if (k == "topic" && !has_topic) {
      if (!s.string(topic)) return false;
      has_topic = true;
    } else if (k == "partition" && !has_partition) {
      if (!s.integer(partition, 0, std::numeric_limits<std::int32_t>::max())) return false;
      has_partition = true;
    } else {
      return false;
    }
  }
  if (!s.take('}')) return false;
  e.assignment.push_back({std::string(topic), PartitionId(static_cast<std::int32_t>(partition))});
  return true;
}

bool assignment(Scanner& s, HistoryEvent& e) {
  if (!s.take('[')) return false;
  if (s.take(']')) return true;
  do {
    if (!assignment_entry(s, e)) return false;
  } while (s.take(','));
  return s.take(']');
}

// The value of key `k`, into `e`.
bool value(Scanner& s, Key k, std::uint64_t index, HistoryEvent& e) {
  std::string_view text;
  std::int64_t n = 0;
  switch (k) {
    case kIndex:
      return s.integer(n) && n == static_cast<std::int64_t>(index);
    case kAtNs:
      if (!s.integer(n, 0, std::numeric_limits<std::int64_t>::max())) return false;
      e.at = n;
      return true;
    case kOp: {
      if (!s.string(text)) return false;
      const auto kind = op_of(text);
      if (!kind) return false;
      e.kind = *kind;
      return true;
    }
    case kProcess: return s.string(e.process);
    case kGroup: return s.string(e.group);
    case kTopic: return s.string(e.topic);
    case kError: return s.string(e.error);
    case kNote: return s.string(e.note);
    case kGeneration: return id(s, e.generation);
    case kPartition: return id(s, e.partition);
    case kOffset: return id(s, e.offset);
    case kLogStartOffset: return id(s, e.log_start_offset);
    case kHighWatermark: return id(s, e.high_watermark);
    case kKeyField:
      if (s.word("null")) return true;
      if (!s.string(text)) return false;
      e.key.emplace(text);
      return true;
    case kValueId: return s.unsigned_integer(e.value_id);
    case kCommitId: return s.unsigned_integer(e.commit_id);
    case kSourceValueId: return s.unsigned_integer(e.source_value_id);
    case kRecords: {
      std::uint64_t count = 0;
      if (!s.unsigned_integer(count) || count > UINT32_MAX) return false;
      e.records = static_cast<std::uint32_t>(count);
      return true;
    }
    case kIdempotent:
      e.idempotent = s.word("true");
      return e.idempotent || s.word("false");
    case kTombstone:
      e.tombstone = s.word("true");
      return e.tombstone || s.word("false");
    case kReadCommitted:
      e.read_committed = s.word("true");
      return e.read_committed || s.word("false");
    case kAssignment: return assignment(s, e);
    case kUnknown: return false;
  }
  return false;
}

void reset(HistoryEvent& e, std::uint64_t index) {
  e.index = index;
  e.at = 0;
  e.kind = OpKind::kFault;
  e.process.clear();
  e.group.clear();
  e.generation.reset();
  e.topic.clear();
  e.partition.reset();
  e.offset.reset();
  e.key.reset();
  e.value_id = 0;
  e.commit_id = 0;
  e.source_value_id = 0;
  e.log_start_offset.reset();
  e.high_watermark.reset();
  e.idempotent = false;
  e.tombstone = false;
  e.read_committed = false;
  e.records = 0;
  e.assignment.clear();
  e.error.clear();
  e.note.clear();
}

}  // namespace

bool scan_history_line(std::string_view line, std::uint64_t index, HistoryEvent& out) {
  reset(out, index);
  Scanner s(line);
  if (!s.take('{')) return false;
  std::uint32_t seen = 0;
  if (!s.take('}')) {
    do {
      std::string_view name;
      if (!s.string(name) || !s.take(':')) return false;
      const Key k = key_of(name);
      const std::uint32_t bit = std::uint32_t{1} << k;
      if (k == kUnknown || (seen & bit) != 0) return false;
      seen |= bit;
      if (!value(s, k, index, out)) return false;
    } while (s.take(','));
    if (!s.take('}')) return false;
  }
  // "op" and "at_ns" are required; the strict reader names the one missing.
  const std::uint32_t required = (std::uint32_t{1} << kOp) | (std::uint32_t{1} << kAtNs);
  return (seen & required) == required && s.at_end();
}

}  // namespace logsim::reports

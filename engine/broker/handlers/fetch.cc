// Fetch: consumers read up to the high watermark (read_committed ones up to the last stable
// offset, told of the aborted transactions among what they read), follower replicas up to the
// log end offset. A fetch with nothing to return is held up to its max wait (the long poll).
#include "engine/broker/broker.h"
#include "engine/protocol/record_batch.h"

namespace logsim::engine {
namespace {
// A bound on held fetches per partition (STYLE.md: every queue has one). Past it a fetch is
// answered at once, empty, which a client treats like an expired wait.
constexpr std::size_t kMaxParkedFetchesPerPartition = 4096;

// The batches without the second record at or above `from` (the fetch-skips-record plant).
SharedBytes without_second_record(const SharedBytes& batches, Offset from) {
  std::string scratch;
  const std::string_view bytes = batches.contiguous(scratch);
  std::string out;
  int seen = 0;
  for (std::size_t pos = 0; pos < bytes.size();) {
    const std::size_t len = static_cast<std::size_t>(parse_batch_header(bytes.substr(pos))->size_bytes());
    filter_batch(bytes.substr(pos, len), [&](const StoredRecord& r) { return r.offset < from || ++seen != 2; }, out);
    pos += len;
  }
  return SharedBytes(std::move(out));
}

// How far `req` may read: a follower to the log end, a consumer to the high watermark, or to
// the last stable offset under read_committed.
Offset read_bound(const BrokerState& b, const Partition& p, const FetchRequest& req) {
  // PLANTED BUG (fetch-above-hw): consumers are served up to the log end, uncommitted records
  // included, as followers are.
  if (req.replica_id.value() >= 0 || b.config.plants.has(Plant::kFetchAboveHighWatermark)) {
    return p.log->log_end_offset();
  }
  if (req.isolation_level == IsolationLevel::kReadCommitted) return p.last_stable_offset();
  return p.high_watermark;
}

// True only when read_for_fetch would answer `req` with no error and no records: the checks
// it makes pass and the fetch offset is at or past what the fetcher may read. A cheap test
// that lets a woken fetch go back to waiting without building an answer.
bool surely_nothing_to_read(const BrokerState& b, const Partition& p, const FetchRequest& req) {
  if (!p.led_by(b.env.self())) return false;
  if (req.current_leader_epoch.value() >= 0 && req.current_leader_epoch != p.state.leader_epoch) return false;
  const PartitionLog& log = *p.log;
  if (req.fetch_offset < log.log_start_offset() || req.fetch_offset > log.log_end_offset()) return false;
  return req.fetch_offset >= read_bound(b, p, req);
}

// read_for_fetch's answer, given the partition the request names as found (null: not hosted).
FetchResponse read_from(BrokerState& b, const Partition* p, const FetchRequest& req) {
  FetchResponse resp{req.correlation_id, req.topic, req.partition, ErrorCode::NONE, Offset(-1), Offset(-1)};
  if (p == nullptr) {
    resp.error = b.cluster.count(TopicPartitionView{req.topic, req.partition}) ? ErrorCode::NOT_LEADER_OR_FOLLOWER
                                                                     : ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
    return resp;
  }
  if (!p->led_by(b.env.self())) {
    resp.error = ErrorCode::NOT_LEADER_OR_FOLLOWER;
    return resp;
  }
  if (req.current_leader_epoch.value() >= 0 && req.current_leader_epoch != p->state.leader_epoch) {
    resp.error = req.current_leader_epoch < p->state.leader_epoch ? ErrorCode::FENCED_LEADER_EPOCH
                                                                   : ErrorCode::UNKNOWN_LEADER_EPOCH;
    return resp;
  }
  const PartitionLog& log = *p->log;
  resp.high_watermark = p->high_watermark;
  resp.log_start_offset = log.log_start_offset();
  resp.last_stable_offset = p->last_stable_offset();
  if (req.fetch_offset < log.log_start_offset() || req.fetch_offset > log.log_end_offset()) {
    resp.error = ErrorCode::OFFSET_OUT_OF_RANGE;
    return resp;
  }
  const bool replica = req.replica_id.value() >= 0;
  std::size_t count = 0;
  resp.records = log.read_batches(req.fetch_offset, req.max_records, read_bound(b, *p, req), count);
  if (!replica && req.isolation_level == IsolationLevel::kReadCommitted && !resp.records.empty()) {
    const BatchScan read = scan_batch_headers(resp.records);
    resp.aborted_transactions = p->aborted_transactions(read.batches.front().base_offset, read.batches.back().last_offset() + 1);
  }
  // PLANTED BUG (fetch-skips-record): a consumer's answer of two or more records loses its
  // second; the consumer goes on after the last record it got, past the one left out.
  if (!replica && count >= 2 && b.config.plants.has(Plant::kFetchSkipsRecord)) {
    resp.records = without_second_record(resp.records, req.fetch_offset);
  }
  return resp;
}

}  // namespace

FetchResponse read_for_fetch(BrokerState& b, const FetchRequest& req) {
  return read_from(b, b.find(req.topic, req.partition), req);
}

void handle_fetch(BrokerState& b, NodeId from, const FetchRequest& req) {
  // Found once: noting a follower's progress sends and wakes fetches, but never drops a replica.
  Partition* p = b.find(req.topic, req.partition);
  if (p != nullptr && p->led_by(b.env.self()) && req.replica_id.value() >= 0 &&
      req.current_leader_epoch == p->state.leader_epoch) {
    note_follower_fetch(b, *p, req.replica_id, req.fetch_offset);
  }
  FetchResponse resp = read_from(b, p, req);
  auto held = b.parked.find(TopicPartitionView{req.topic, req.partition});
  if (resp.error != ErrorCode::NONE || !resp.records.empty() || req.max_wait_ms <= 0 ||
      (held != b.parked.end() && held->second.size() >= kMaxParkedFetchesPerPartition)) {
    b.env.send(from, std::move(resp));
    return;
  }
  if (held == b.parked.end()) held = b.parked.emplace(TopicPartition{req.topic, req.partition}, std::vector<ParkedFetch>{}).first;
  auto& parked = held->second;
  const TimerId timer = b.timers.set(millis(req.max_wait_ms), BrokerTimer::kFetchWait);
  parked.push_back(ParkedFetch{from, req, timer});
}

void wake_fetches(BrokerState& b, TopicPartitionView key) {
  auto it = b.parked.find(key);
  if (it == b.parked.end() || it->second.empty()) return;
  // Compacted in place: sends and timer cancels are queued by the Env, never re-enter here.
  std::vector<ParkedFetch>& waiting = it->second;
  const auto hosted = b.partitions.find(key);
  const Partition* p = hosted == b.partitions.end() ? nullptr : &hosted->second;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < waiting.size(); ++i) {
    ParkedFetch& w = waiting[i];
    bool still = p != nullptr && surely_nothing_to_read(b, *p, w.request);
    if (!still) {
      FetchResponse resp = read_from(b, p, w.request);
      still = resp.error == ErrorCode::NONE && resp.records.empty();  // e.g. a consumer at the HW
      if (!still) {
        b.timers.cancel(w.timer);
        b.env.send(w.from, std::move(resp));
      }
    }
    if (still) {
      if (kept != i) waiting[kept] = std::move(w);
      ++kept;
    }
  }
  waiting.erase(waiting.begin() + static_cast<std::ptrdiff_t>(kept), waiting.end());
}

}  // namespace logsim::engine

// The producer client's send path: partition choice, attempts, retries and timeouts.
#include "engine/client/producer.h"

#include "engine/client/partitioner.h"
#include "engine/env/assert.h"

namespace logsim::engine {
namespace {
// metadata_correlation_ while waiting out a backoff: no request is in flight, none may start.
constexpr CorrelationId kMetadataBackoff = -1;
constexpr std::uint64_t kMetadataRetryTag = 1;
constexpr std::uint64_t kSendTimerTag = 2;
}  // namespace

Producer::Producer(Env& env, ProducerConfig config) : env_(env), config_(std::move(config)) {
  LOGSIM_ASSERT(!config_.bootstrap_servers.empty(), "producer needs bootstrap.servers");
}

void Producer::start() { request_metadata(); }

void Producer::request_metadata() {
  if (metadata_correlation_ != 0) return;
  // Refresh no more often than retry.backoff.ms: a partition without a leader would otherwise
  // be asked about in a tight loop.
  if (last_metadata_request_ >= 0 && env_.now() - last_metadata_request_ < millis(config_.retry_backoff_ms)) {
    metadata_correlation_ = kMetadataBackoff;
    metadata_timer_ = env_.set_timer(last_metadata_request_ + millis(config_.retry_backoff_ms) - env_.now(), kMetadataRetryTag);
    return;
  }
  last_metadata_request_ = env_.now();
  const auto& servers = config_.bootstrap_servers;
  const NodeId target = servers[env_.rng().uniform_u64(servers.size())];
  metadata_correlation_ = ++next_correlation_;
  metadata_target_ = target;
  env_.send(target, MetadataRequest{metadata_correlation_, {}});
  // If no answer comes (broker down, message lost), ask again after the request timeout.
  metadata_timer_ = env_.set_timer(millis(config_.request_timeout_ms), kMetadataRetryTag);
}

void Producer::send(const std::string& topic, Record record, std::optional<PartitionId> partition,
                    SendCallback done) {
  const std::uint64_t id = ++next_send_;
  PendingSend s;
  s.topic = topic;
  s.record = std::move(record);
  s.partition = partition;
  s.done = std::move(done);
  s.deadline = env_.now() + millis(config_.delivery_timeout_ms);
  sends_.emplace(id, std::move(s));
  try_send(id);
}

PartitionId Producer::choose_partition(PendingSend& s) {
  const std::int32_t n = metadata_.partition_count(s.topic);
  if (s.record.key) return PartitionId(partition_for_key(*s.record.key, n));
  // Sticky partitioning (KIP-480): keep one partition until a batch's worth of bytes went to it.
  auto it = sticky_partition_.find(s.topic);
  std::int64_t& bytes = sticky_bytes_[s.topic];
  const auto size = static_cast<std::int64_t>(s.record.value ? s.record.value->size() : 0);
  if (it == sticky_partition_.end() || bytes + size > config_.batch_size) {
    const auto p = static_cast<std::int32_t>(env_.rng().uniform_u64(static_cast<std::uint64_t>(n)));
    it = sticky_partition_.insert_or_assign(s.topic, p).first;
    bytes = 0;
  }
  bytes += size;
  return PartitionId(it->second);
}

void Producer::try_send(std::uint64_t id) {
  PendingSend& s = sends_.at(id);
  if (!metadata_.knows(s.topic)) {
    if (metadata_correlation_ != 0) return;  // the send goes out when metadata arrives
    if (!s.asked_metadata) {
      s.asked_metadata = true;
      request_metadata();
      return;
    }
    // Metadata came back without the topic: back off, then ask again.
    s.asked_metadata = false;
    retry_or_finish(id, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, false);
    return;
  }
  if (!s.partition) s.partition = choose_partition(s);
  const auto leader = metadata_.leader(s.topic, *s.partition);
  if (!leader) {
    request_metadata();
    retry_or_finish(id, ErrorCode::LEADER_NOT_AVAILABLE, false);
    return;
  }
  ++s.attempts;
  s.target = *leader;
  s.correlation = ++next_correlation_;
  by_correlation_[s.correlation] = id;
  ProduceRequest req{s.correlation, s.topic, *s.partition, config_.acks, config_.request_timeout_ms, {s.record}};
  env_.send(*leader, std::move(req));
  if (config_.acks == 0) {
    by_correlation_.erase(s.correlation);
    finish(id, SendResult{SendOutcome::kAcknowledged, *s.partition, Offset(-1), ErrorCode::NONE});
    return;
  }
  s.timer = env_.set_timer(millis(config_.request_timeout_ms), kSendTimerTag);
  by_timer_[s.timer] = id;
}

bool Producer::on_message(NodeId, const Message& msg) {
  if (const auto* meta = std::get_if<MetadataResponse>(&msg)) {
    if (metadata_correlation_ <= 0 || meta->correlation_id != metadata_correlation_) return false;
    metadata_correlation_ = 0;
    env_.cancel_timer(metadata_timer_);
    metadata_.update(*meta);
    std::vector<std::uint64_t> waiting;
    for (const auto& [id, s] : sends_) {
      if (s.correlation == 0 && !s.waiting_backoff) waiting.push_back(id);
    }
    for (std::uint64_t id : waiting) try_send(id);
    return true;
  }
  if (const auto* resp = std::get_if<ProduceResponse>(&msg)) {
    if (!by_correlation_.contains(resp->correlation_id)) return false;
    on_produce_response(*resp);
    return true;
  }
  return false;
}

void Producer::on_produce_response(const ProduceResponse& resp) {
  const std::uint64_t id = by_correlation_.at(resp.correlation_id);
  by_correlation_.erase(resp.correlation_id);
  PendingSend& s = sends_.at(id);
  s.correlation = 0;
  env_.cancel_timer(s.timer);
  by_timer_.erase(s.timer);
  if (resp.error == ErrorCode::NONE) {
    finish(id, SendResult{SendOutcome::kAcknowledged, resp.partition, resp.base_offset, ErrorCode::NONE});
    return;
  }
  if (resp.error == ErrorCode::NOT_LEADER_OR_FOLLOWER || resp.error == ErrorCode::UNKNOWN_TOPIC_OR_PARTITION) {
    request_metadata();
  }
  retry_or_finish(id, resp.error, resp.error == ErrorCode::NOT_ENOUGH_REPLICAS_AFTER_APPEND);
}

bool Producer::on_timer(TimerId timer, std::uint64_t tag) {
  if (tag == kMetadataRetryTag && timer == metadata_timer_) {
    metadata_correlation_ = 0;  // the request timed out, or its backoff ended
    request_metadata();
    return true;
  }
  auto it = by_timer_.find(timer);
  if (it == by_timer_.end()) return false;
  const std::uint64_t id = it->second;
  by_timer_.erase(it);
  PendingSend& s = sends_.at(id);
  if (s.waiting_backoff) {
    s.waiting_backoff = false;
    try_send(id);
    return true;
  }
  // The attempt timed out: it may have been written. A retry may duplicate it.
  by_correlation_.erase(s.correlation);
  s.correlation = 0;
  retry_or_finish(id, ErrorCode::REQUEST_TIMED_OUT, true);
  return true;
}

void Producer::on_disconnect(NodeId peer) {
  if (metadata_correlation_ > 0 && metadata_target_ == peer) {
    // Ask again after a backoff (reconnect.backoff.ms in Kafka), not at once: a broker that is
    // down would answer every immediate retry with another reset.
    env_.cancel_timer(metadata_timer_);
    metadata_correlation_ = kMetadataBackoff;
    metadata_timer_ = env_.set_timer(millis(config_.retry_backoff_ms), kMetadataRetryTag);
  }
  std::vector<std::uint64_t> broken;
  for (const auto& [id, s] : sends_) {
    if (s.correlation != 0 && s.target == peer) broken.push_back(id);
  }
  for (std::uint64_t id : broken) {
    PendingSend& s = sends_.at(id);
    by_correlation_.erase(s.correlation);
    s.correlation = 0;
    env_.cancel_timer(s.timer);
    by_timer_.erase(s.timer);
    // Kafka's NetworkException: the request may have been processed before the reset.
    request_metadata();
    retry_or_finish(id, ErrorCode::NETWORK_EXCEPTION, true);
  }
}

void Producer::retry_or_finish(std::uint64_t id, ErrorCode error, bool ambiguous) {
  PendingSend& s = sends_.at(id);
  if (ambiguous) s.maybe_written = true;
  const Nanos backoff = millis(config_.retry_backoff_ms);
  if (!is_retriable(error) || s.attempts > config_.retries || env_.now() + backoff >= s.deadline) {
    // Once any attempt may have been written, giving up is "unknown", not "failed".
    const SendOutcome outcome = s.maybe_written ? SendOutcome::kUnknown : SendOutcome::kFailed;
    finish(id, SendResult{outcome, s.partition.value_or(PartitionId(-1)), Offset(-1), error});
    return;
  }
  s.waiting_backoff = true;
  s.timer = env_.set_timer(backoff, kSendTimerTag);
  by_timer_[s.timer] = id;
}

void Producer::finish(std::uint64_t id, SendResult result) {
  auto node = sends_.extract(id);
  node.mapped().done(result);
}

}  // namespace logsim::engine

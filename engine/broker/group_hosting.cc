// Hosting the group coordinator: the broker gives it the __consumer_offsets partitions it
// leads (appends answered at the high watermark, as acks=all), tells it when that leadership
// changes, routes the group APIs to it, and answers FindCoordinator from its metadata,
// asking the controller to create __consumer_offsets the first time a group is looked up.
#include <algorithm>

#include "engine/broker/broker.h"

namespace logsim::engine {
namespace {

const std::string kOffsetsTopic(kConsumerOffsetsTopic);

class BrokerOffsetsHost final : public OffsetsTopicHost {
 public:
  explicit BrokerOffsetsHost(BrokerState& b) : b_(b) {}

  void append(PartitionId partition, std::vector<Record> records, std::int32_t timeout_ms,
              std::function<void(ErrorCode)> done) override {
    const auto fail = [&](ErrorCode e) { b_.defer([done = std::move(done), e] { done(e); }); };
    Partition* p = b_.find_leader(kOffsetsTopic, partition);
    if (p == nullptr) return fail(ErrorCode::NOT_LEADER_OR_FOLLOWER);
    if (static_cast<std::int32_t>(p->state.isr.size()) < p->state.min_insync_replicas) {
      return fail(ErrorCode::NOT_ENOUGH_REPLICAS);
    }
    const std::int64_t now_ms = to_millis(b_.env.now());
    for (Record& r : records) r.timestamp_ms = now_ms;
    p->log->append(records, p->state.leader_epoch, now_ms);
    const Offset required = p->log->log_end_offset();
    flush_if_due(b_, *p);
    const TopicPartition key{kOffsetsTopic, partition};
    PendingProduce pending{NodeId(-1), {}, required, b_.timers.set(millis(timeout_ms), BrokerTimer::kProduceTimeout),
                           std::move(done)};
    b_.pending_produces[key].push_back(std::move(pending));
    // Completes at once when this replica is the whole ISR; always through a later turn,
    // since maybe_advance_high_watermark runs callbacks only from complete_produces.
    b_.defer([this, partition] {
      if (Partition* led = b_.find_leader(kOffsetsTopic, partition)) maybe_advance_high_watermark(b_, *led);
    });
    wake_fetches(b_, key);
  }

  std::vector<StoredRecord> read_all(PartitionId partition) override {
    Partition* p = b_.find_leader(kOffsetsTopic, partition);
    if (p == nullptr) return {};
    return p->log->read(p->log->log_start_offset(), std::numeric_limits<std::int32_t>::max(), p->log->log_end_offset());
  }

 private:
  BrokerState& b_;
};

std::int32_t offsets_topic_partitions(const BrokerState& b) {
  std::int32_t n = 0;
  for (auto it = b.cluster.lower_bound(TopicPartitionView{kOffsetsTopic, PartitionId(INT32_MIN)}); it != b.cluster.end() && it->first.topic == kOffsetsTopic;
       ++it) {
    ++n;
  }
  return n;
}

// Asks for __consumer_offsets: from the controller, or, standalone, by leading it alone.
void request_offsets_topic(BrokerState& b) {
  const Nanos now = b.env.now();
  if (b.offsets_topic_requested >= 0 && now - b.offsets_topic_requested < millis(b.config.request_timeout_ms)) return;
  b.offsets_topic_requested = now;
  const std::vector<ConfigEntry> configs{{"cleanup.policy", "compact"},
                                         {"segment.bytes", std::to_string(b.config.offsets_topic_segment_bytes)}};
  if (b.config.controller) {
    b.env.send(*b.config.controller,
               CreateTopicsRequest{++b.next_correlation, kOffsetsTopic, b.config.offsets_topic_num_partitions,
                                   b.config.offsets_topic_replication_factor, configs, false});
    return;
  }
  LeaderAndIsrRequest alone;
  alone.controller_epoch = b.controller_epoch;
  alone.version = b.metadata_version + 1;
  alone.live_brokers = b.live_brokers;
  for (const auto& [key, s] : b.cluster) alone.partitions.push_back(s);
  for (std::int32_t p = 0; p < b.config.offsets_topic_num_partitions; ++p) {
    alone.partitions.push_back(PartitionState{kOffsetsTopic, PartitionId(p), 0, b.env.self(), LeaderEpoch(0), 0,
                                              {b.env.self()}, {b.env.self()}, 1});
  }
  LogConfig compacted;
  compacted.cleanup_policy = CleanupPolicy::kCompact;
  compacted.segment_bytes = b.config.offsets_topic_segment_bytes;
  for (const auto& [topic, log] : b.topic_configs) alone.topic_configs.push_back(TopicConfig{topic, log});
  alone.topic_configs.push_back(TopicConfig{kOffsetsTopic, compacted});
  handle_leader_and_isr(b, alone);
}

}  // namespace

std::unique_ptr<OffsetsTopicHost> make_offsets_topic_host(BrokerState& b) { return std::make_unique<BrokerOffsetsHost>(b); }

void update_coordinator_leadership(BrokerState& b) {
  std::set<std::int32_t> led;
  for (auto it = b.partitions.lower_bound(TopicPartitionView{kOffsetsTopic, PartitionId(INT32_MIN)}); it != b.partitions.end() && it->first.topic == kOffsetsTopic;
       ++it) {
    if (it->second.led_by(b.env.self())) led.insert(it->first.partition.value());
  }
  b.coordinator->on_leadership(led, offsets_topic_partitions(b));
}

void handle_find_coordinator(BrokerState& b, NodeId from, const FindCoordinatorRequest& req) {
  FindCoordinatorResponse resp{req.correlation_id, ErrorCode::COORDINATOR_NOT_AVAILABLE, NodeId(-1)};
  if (req.key_type != CoordinatorKeyType::kGroup) {
    b.env.send(from, resp);  // transactions come later
    return;
  }
  const std::int32_t n = offsets_topic_partitions(b);
  if (n == 0) {
    request_offsets_topic(b);
    b.env.send(from, resp);
    return;
  }
  const PartitionId p = GroupCoordinator::partition_for(req.key, n);
  auto it = b.cluster.find(TopicPartitionView{kOffsetsTopic, p});
  if (it != b.cluster.end() && it->second.leader.value() >= 0 &&
      std::find(b.live_brokers.begin(), b.live_brokers.end(), it->second.leader) != b.live_brokers.end()) {
    resp.error = ErrorCode::NONE;
    resp.node_id = it->second.leader;
  }
  b.env.send(from, resp);
}

bool route_to_coordinator(BrokerState& b, NodeId from, const Message& msg) {
  return std::visit(
      [&](const auto& m) {
        using M = std::decay_t<decltype(m)>;
        if constexpr (requires(GroupCoordinator& c, const M& x) { c.handle(NodeId(0), x); }) {
          b.coordinator->handle(from, m);
          return true;
        } else {
          return false;
        }
      },
      msg);
}

}  // namespace logsim::engine

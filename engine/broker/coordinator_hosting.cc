// Hosting the coordinators: the broker gives the group coordinator the __consumer_offsets
// partitions it leads, and the transaction coordinator the __transaction_state ones (appends
// answered at the high watermark, as acks=all), tells each when that leadership changes,
// routes their APIs to them, and answers FindCoordinator from its metadata, asking the
// controller to create the internal topic the first time a group or transactional id is
// looked up.
#include <algorithm>

#include "engine/broker/broker.h"
#include "engine/protocol/record_batch.h"

namespace logsim::engine {
namespace {

const std::string kOffsetsTopic(kConsumerOffsetsTopic);
const std::string kTxnTopic(kTransactionStateTopic);

std::int32_t partition_count(const BrokerState& b, const std::string& topic) {
  std::int32_t n = 0;
  for (auto it = b.cluster.lower_bound(TopicPartitionView{topic, PartitionId(INT32_MIN)});
       it != b.cluster.end() && it->first.topic == topic; ++it) {
    ++n;
  }
  return n;
}

// One internal topic's partitions that this broker leads, and the cluster's metadata.
class BrokerInternalTopicHost final : public TxnCoordinatorHost {
 public:
  BrokerInternalTopicHost(BrokerState& b, std::string topic) : b_(b), topic_(std::move(topic)) {}

  void append(PartitionId partition, std::vector<Record> records, std::int32_t timeout_ms, AppendDone done) override {
    append_batch(partition, std::move(records), std::nullopt, timeout_ms, std::move(done));
  }

  void append_transactional(PartitionId partition, std::vector<Record> records, TxnWriter writer,
                            std::int32_t timeout_ms, AppendDone done) override {
    append_batch(partition, std::move(records), writer, timeout_ms, std::move(done));
  }

  std::vector<StoredRecord> read_all(PartitionId partition) override {
    Partition* p = b_.find_leader(topic_, partition);
    if (p == nullptr) return {};
    return p->log->read(p->log->log_start_offset(), std::numeric_limits<std::int32_t>::max(), p->log->log_end_offset());
  }

  std::vector<LoggedMarker> read_markers(PartitionId partition) override {
    Partition* p = b_.find_leader(topic_, partition);
    if (p == nullptr) return {};
    std::vector<LoggedMarker> markers;
    std::string scratch;
    for (const BatchHeader& h : p->log->batch_headers()) {
      if (!h.control()) continue;
      std::size_t count = 0;
      const SharedBytes bytes = p->log->read_batches(h.base_offset, 1, h.last_offset() + 1, count);
      if (const std::optional<TxnMarker> m = parse_control_batch(bytes.contiguous(scratch))) {
        markers.push_back({h.base_offset, m->producer_id, m->type == ControlType::kCommit});
      }
    }
    return markers;
  }

  NodeId leader_of(const TopicPartition& tp) override {
    auto it = b_.cluster.find(tp);
    if (it == b_.cluster.end()) return NodeId(-1);
    const NodeId leader = it->second.leader;
    const bool live = std::find(b_.live_brokers.begin(), b_.live_brokers.end(), leader) != b_.live_brokers.end();
    return live ? leader : NodeId(-1);
  }

  std::int32_t partition_count(std::string_view topic) override {
    return engine::partition_count(b_, std::string(topic));
  }

 private:
  // Appends the records as one batch (the writer's, transactional, when given) and answers
  // `done` once the high watermark passes it, as acks=all.
  void append_batch(PartitionId partition, std::vector<Record> records, std::optional<TxnWriter> writer,
                    std::int32_t timeout_ms, AppendDone done) {
    const auto fail = [&](ErrorCode e) { b_.defer([done = std::move(done), e] { done(e, Offset(-1)); }); };
    Partition* p = b_.find_leader(topic_, partition);
    if (p == nullptr) return fail(ErrorCode::NOT_LEADER_OR_FOLLOWER);
    if (static_cast<std::int32_t>(p->state.isr.size()) < p->state.min_insync_replicas) {
      return fail(ErrorCode::NOT_ENOUGH_REPLICAS);
    }
    const std::int64_t now_ms = to_millis(b_.env.now());
    for (Record& r : records) r.timestamp_ms = now_ms;
    Offset base{-1};
    if (writer) {
      // Sequence -1: the coordinator's own writes are not numbered (Kafka skips their check),
      // so of the producer state's answers only an older epoch refuses them.
      const ProducerBatchInfo info{writer->producer_id, writer->producer_epoch, Sequence(-1)};
      const auto count = static_cast<std::int32_t>(records.size());
      if (const auto c = p->producers.check(info, count, {}, true); c.error == ErrorCode::INVALID_PRODUCER_EPOCH) {
        return fail(c.error);
      }
      BatchMeta meta;
      meta.producer_id = writer->producer_id;
      meta.producer_epoch = writer->producer_epoch;
      meta.transactional = true;
      const std::string batch = encode_batch(records, meta);
      BatchHeader h = *parse_batch_header(batch);
      h.base_offset = base = p->log->append_as_leader(batch, p->state.leader_epoch, now_ms);
      p->producers.record(h);
    } else {
      base = p->log->append(records, p->state.leader_epoch, now_ms);
    }
    const Offset required = p->log->log_end_offset();
    flush_if_due(b_, *p);
    const TopicPartition key{topic_, partition};
    PendingProduce pending{NodeId(-1), {}, required, b_.timers.set(millis(timeout_ms), BrokerTimer::kProduceTimeout),
                           [done = std::move(done), base](ErrorCode e) { done(e, e == ErrorCode::NONE ? base : Offset(-1)); }};
    b_.pending_produces[key].push_back(std::move(pending));
    // Completes at once when this replica is the whole ISR; always through a later turn,
    // since maybe_advance_high_watermark runs callbacks only from complete_produces.
    b_.defer([this, partition] {
      if (Partition* led = b_.find_leader(topic_, partition)) maybe_advance_high_watermark(b_, *led);
    });
    wake_fetches(b_, key);
  }

  BrokerState& b_;
  std::string topic_;
};

// How an internal topic is created: Kafka's broker settings for it.
struct InternalTopic {
  const std::string& name;
  std::int32_t partitions;
  std::int32_t replication_factor;
  std::int32_t min_isr;
  std::int32_t segment_bytes;
};

InternalTopic internal_topic(const BrokerState& b, CoordinatorKeyType type) {
  const BrokerConfig& c = b.config;
  if (type == CoordinatorKeyType::kTransaction) {
    return {kTxnTopic, c.transaction_state_log_num_partitions, c.transaction_state_log_replication_factor,
            c.transaction_state_log_min_isr, c.transaction_state_log_segment_bytes};
  }
  return {kOffsetsTopic, c.offsets_topic_num_partitions, c.offsets_topic_replication_factor, 0,
          c.offsets_topic_segment_bytes};
}

// Asks for an internal topic: from the controller, or, standalone, by leading it alone.
void request_internal_topic(BrokerState& b, const InternalTopic& t) {
  const Nanos now = b.env.now();
  Nanos& requested = b.internal_topic_requested[t.name];
  if (requested > 0 && now - requested < millis(b.config.request_timeout_ms)) return;
  requested = std::max<Nanos>(now, 1);
  std::vector<ConfigEntry> configs{{"cleanup.policy", "compact"}, {"segment.bytes", std::to_string(t.segment_bytes)}};
  if (t.min_isr > 0) configs.push_back({"min.insync.replicas", std::to_string(t.min_isr)});
  if (b.config.controller) {
    b.env.send(*b.config.controller,
               CreateTopicsRequest{++b.next_correlation, t.name, t.partitions, t.replication_factor, configs, false});
    return;
  }
  LeaderAndIsrRequest alone;
  alone.controller_epoch = b.controller_epoch;
  alone.version = b.metadata_version + 1;
  alone.live_brokers = b.live_brokers;
  for (const auto& [key, s] : b.cluster) alone.partitions.push_back(s);
  for (std::int32_t p = 0; p < t.partitions; ++p) {
    alone.partitions.push_back(PartitionState{t.name, PartitionId(p), 0, b.env.self(), LeaderEpoch(0), 0,
                                              {b.env.self()}, {b.env.self()}, 1});
  }
  LogConfig compacted;
  compacted.cleanup_policy = CleanupPolicy::kCompact;
  compacted.segment_bytes = t.segment_bytes;
  for (const auto& [topic, log] : b.topic_configs) alone.topic_configs.push_back(TopicConfig{topic, log});
  alone.topic_configs.push_back(TopicConfig{t.name, compacted});
  handle_leader_and_isr(b, alone);
}

}  // namespace

std::unique_ptr<TxnCoordinatorHost> make_internal_topic_host(BrokerState& b, std::string_view topic) {
  return std::make_unique<BrokerInternalTopicHost>(b, std::string(topic));
}

void update_coordinator_leadership(BrokerState& b) {
  std::set<std::int32_t> offsets;
  std::map<std::int32_t, std::int32_t> txn;  // partition -> its leader epoch: the coordinator epoch
  for (auto it = b.partitions.lower_bound(TopicPartitionView{kTxnTopic, PartitionId(INT32_MIN)});
       it != b.partitions.end() && it->first.topic == kTxnTopic; ++it) {
    if (it->second.led_by(b.env.self())) txn[it->first.partition.value()] = it->second.state.leader_epoch.value();
  }
  for (auto it = b.partitions.lower_bound(TopicPartitionView{kOffsetsTopic, PartitionId(INT32_MIN)});
       it != b.partitions.end() && it->first.topic == kOffsetsTopic; ++it) {
    if (it->second.led_by(b.env.self())) offsets.insert(it->first.partition.value());
  }
  b.coordinator->on_leadership(offsets, partition_count(b, kOffsetsTopic));
  b.txn_coordinator->on_leadership(txn, partition_count(b, kTxnTopic));
}

void handle_find_coordinator(BrokerState& b, NodeId from, const FindCoordinatorRequest& req) {
  FindCoordinatorResponse resp{req.correlation_id, ErrorCode::COORDINATOR_NOT_AVAILABLE, NodeId(-1)};
  const InternalTopic topic = internal_topic(b, req.key_type);
  const std::int32_t n = partition_count(b, topic.name);
  if (n == 0) {
    request_internal_topic(b, topic);
    b.env.send(from, resp);
    return;
  }
  const PartitionId p = GroupCoordinator::partition_for(req.key, n);
  auto it = b.cluster.find(TopicPartitionView{topic.name, p});
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
        if constexpr (std::is_same_v<M, InitProducerIdRequest>) {
          if (!m.transactional_id) return false;  // idempotent only: handle_init_producer_id
          b.txn_coordinator->handle(from, m);
          return true;
        } else if constexpr (requires(TransactionCoordinator& c, const M& x) { c.handle(NodeId(0), x); }) {
          b.txn_coordinator->handle(from, m);
          return true;
        } else if constexpr (requires(GroupCoordinator& c, const M& x) { c.handle(NodeId(0), x); }) {
          b.coordinator->handle(from, m);
          return true;
        } else {
          return false;
        }
      },
      msg);
}

}  // namespace logsim::engine

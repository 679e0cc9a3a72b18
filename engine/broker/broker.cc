// The broker's lifecycle (log recovery, registration, heartbeats, checkpoints) and its API
// registry.
#include "engine/broker/broker.h"

#include <algorithm>
#include <sstream>

#include "engine/base/assert.h"

namespace logsim::engine {
namespace {

constexpr const char* kCheckpointFile = "replication-offset-checkpoint";
constexpr const char* kCheckpointTemp = "replication-offset-checkpoint.tmp";

constexpr const char* kPartitionMetadata = "partition.metadata";

// "orders-2/000...log" -> ("orders", 2); nothing for other files.
std::optional<TopicPartition> partition_of_file(const std::string& file) {
  const auto slash = file.find('/');
  if (slash == std::string::npos) return std::nullopt;
  const std::string dir = file.substr(0, slash);
  const auto dash = dir.rfind('-');
  if (dash == std::string::npos || dash + 1 >= dir.size()) return std::nullopt;
  const std::string num = dir.substr(dash + 1);
  if (num.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return TopicPartition{dir.substr(0, dash), PartitionId(std::stoi(num))};
}

}  // namespace

std::string partition_dir(const std::string& topic, PartitionId p) { return topic + "-" + std::to_string(p.value()); }

Partition* BrokerState::find(const std::string& topic, PartitionId p) {
  auto it = partitions.find(TopicPartitionView{topic, p});
  return it == partitions.end() ? nullptr : &it->second;
}

Partition* BrokerState::find_leader(const std::string& topic, PartitionId p) {
  Partition* part = find(topic, p);
  return part != nullptr && part->led_by(env.self()) ? part : nullptr;
}

Partition& BrokerState::open(const std::string& topic, PartitionId p) {
  Partition& part = partitions[TopicPartition{topic, p}];
  if (!part.log) {
    auto topic_config = topic_configs.find(topic);
    part.log = std::make_unique<PartitionLog>(env.disk(), partition_dir(topic, p),
                                              topic_config == topic_configs.end() ? LogConfig{} : topic_config->second);
    part.log->recover(to_millis(env.now()));
    if (config.plants.has(Plant::kFiveBatchProducerState)) part.producers.only_five_batches();
    if (config.plants.has(Plant::kLsoPastOpenTransaction)) part.producers.lso_ignores_open_transactions();
    part.producers.rebuild(*part.log);
    part.state.topic = topic;
    part.state.partition = p;
    const std::string meta = part.log->dir() + "/" + kPartitionMetadata;
    Disk& disk = env.disk();
    if (disk.exists(meta)) {
      std::istringstream in(disk.read(meta, 0, disk.size(meta)));
      std::string word;
      while (in >> word) {
        if (word == "topic_id:") in >> part.topic_id;
      }
    }
  }
  return part;
}

void BrokerState::write_topic_id(Partition& p, std::int64_t topic_id) {
  p.topic_id = topic_id;
  const std::string meta = p.log->dir() + "/" + kPartitionMetadata;
  const std::string temp = meta + ".tmp";
  Disk& disk = env.disk();
  if (disk.exists(temp)) disk.remove(temp);
  disk.append(temp, "version: 0\ntopic_id: " + std::to_string(topic_id) + "\n");
  disk.rename(temp, meta);
  disk.fsync(meta, 0);
}

void BrokerState::remove(const TopicPartition& key) {
  auto it = partitions.find(key);
  if (it == partitions.end()) return;
  Partition& p = it->second;
  // Follower work in flight is forgotten; its answers find no partition and are dropped.
  follower_requests.erase(p.in_flight);
  timers.cancel(p.timer);
  follower_timers.erase(p.timer);
  fail_pending_produces(*this, key, ErrorCode::NOT_LEADER_OR_FOLLOWER);
  const std::string prefix = p.log->dir() + "/";
  partitions.erase(it);
  wake_fetches(*this, key);  // held fetches now learn the partition is gone
  parked.erase(key);
  pending_produces.erase(key);
  Disk& disk = env.disk();
  for (const std::string& file : disk.list()) {
    if (!file.starts_with(prefix)) continue;
    disk.remove(file);
    disk.fsync(file, 0);  // a power loss before this completes brings the files back; the
                          // next LeaderAndIsr deletes them again
  }
}

void BrokerState::defer(std::function<void()> fn) { deferred[timers.set(0, BrokerTimer::kDeferred)] = std::move(fn); }

namespace {

TxnCoordinatorConfig txn_coordinator_config(const BrokerConfig& config) {
  TxnCoordinatorConfig c = config.transaction;
  c.offsets_topic_num_partitions = config.offsets_topic_num_partitions;
  c.plants = config.plants;
  return c;
}

}  // namespace

Broker::Broker(Env& env, BrokerConfig config)
    : timers_(env),
      own_timers_(timers_, [this](TimerId id, BrokerTimer tag) { on_own_timer(id, tag); }),
      state_{env, own_timers_, std::move(config), {}, {}, {}, {}, -1, -1, {}, {}, {}, {}, 0, nullptr, nullptr, {}, {}},
      offsets_host_(make_internal_topic_host(state_, kConsumerOffsetsTopic)),
      coordinator_(std::make_unique<GroupCoordinator>(env, timers_, state_.config.group, *offsets_host_)),
      txn_host_(make_internal_topic_host(state_, kTransactionStateTopic)),
      txn_coordinator_(std::make_unique<TransactionCoordinator>(env, timers_, txn_coordinator_config(state_.config),
                                                                *txn_host_)) {
  state_.coordinator = coordinator_.get();
  state_.txn_coordinator = txn_coordinator_.get();
}

void Broker::on_start() {
  recover_logs();
  if (!state_.config.controller) {
    // Standalone: this broker is the whole cluster and leads every configured partition.
    LeaderAndIsrRequest alone;
    alone.version = 0;
    alone.live_brokers = {state_.env.self()};
    for (const TopicSpec& t : state_.config.topics) {
      for (std::int32_t p = 0; p < t.partitions; ++p) {
        PartitionState s{t.name, PartitionId(p), 0, state_.env.self(), LeaderEpoch(0), 0,
                         {state_.env.self()}, {state_.env.self()}, 1};
        alone.partitions.push_back(s);
      }
    }
    handle_leader_and_isr(state_, alone);
  } else {
    register_with_controller();
  }
  state_.timers.set(millis(state_.config.replica_lag_time_max_ms) / 2, BrokerTimer::kIsrCheck);
  state_.timers.set(millis(state_.config.replica_high_watermark_checkpoint_interval_ms), BrokerTimer::kCheckpoint);
  state_.timers.set(millis(state_.config.log_retention_check_interval_ms), BrokerTimer::kRetention);
}

// Opens every partition log found on disk, and restores high watermarks from the checkpoint.
void Broker::recover_logs() {
  Disk& disk = state_.env.disk();
  for (const std::string& file : disk.list()) {
    if (auto key = partition_of_file(file)) state_.open(key->topic, key->partition);
  }
  if (disk.exists(kCheckpointFile)) {
    std::istringstream in(disk.read(kCheckpointFile, 0, disk.size(kCheckpointFile)));
    std::string topic;
    std::int32_t p = 0;
    std::int64_t hw = 0;
    while (in >> topic >> p >> hw) {
      if (Partition* part = state_.find(topic, PartitionId(p))) part->high_watermark = Offset(hw);
    }
  }
  // As Kafka: the high watermark lies within [log start, log end]. The checkpoint may be older
  // than the retention that moved the log start, or newer than what the disk kept.
  for (auto& [key, part] : state_.partitions) {
    const PartitionLog& log = *part.log;
    part.high_watermark = std::clamp(part.high_watermark, log.log_start_offset(), log.log_end_offset());
    part.producers.forget_replicated(part.high_watermark);
  }
}

void Broker::checkpoint_high_watermarks() {
  std::string text;
  for (const auto& [key, p] : state_.partitions) {
    text += key.topic + " " + std::to_string(key.partition.value()) + " " + std::to_string(p.high_watermark.value()) + "\n";
  }
  Disk& disk = state_.env.disk();
  if (disk.exists(kCheckpointTemp)) disk.remove(kCheckpointTemp);
  disk.append(kCheckpointTemp, text);
  disk.rename(kCheckpointTemp, kCheckpointFile);
  disk.fsync(kCheckpointFile, 0);
}

void Broker::register_with_controller() {
  registration_ = ++state_.next_correlation;
  state_.env.send(*state_.config.controller, BrokerRegistrationRequest{registration_, state_.env.self()});
  // Until the controller answers, ask again now and then.
  state_.timers.set(millis(state_.config.broker_heartbeat_interval_ms), BrokerTimer::kRegistrationRetry);
}

void Broker::heartbeat() {
  state_.env.send(*state_.config.controller,
                  BrokerHeartbeatRequest{++state_.next_correlation, state_.env.self(), broker_epoch_,
                                         state_.controller_epoch, state_.metadata_version});
}

void Broker::on_message(NodeId from, const Message& msg) {
  BrokerState& b = state_;
  if (const auto* m = std::get_if<ProduceRequest>(&msg)) {
    handle_produce(b, from, *m);
  } else if (const auto* f = std::get_if<FetchRequest>(&msg)) {
    handle_fetch(b, from, *f);
  } else if (const auto* l = std::get_if<ListOffsetsRequest>(&msg)) {
    handle_list_offsets(b, from, *l);
  } else if (const auto* md = std::get_if<MetadataRequest>(&msg)) {
    handle_metadata(b, from, *md);
  } else if (const auto* lai = std::get_if<LeaderAndIsrRequest>(&msg)) {
    handle_leader_and_isr(b, *lai);
  } else if (const auto* ofl = std::get_if<OffsetsForLeaderEpochRequest>(&msg)) {
    handle_offsets_for_leader_epoch(b, from, *ofl);
  } else if (const auto* init = std::get_if<InitProducerIdRequest>(&msg); init != nullptr && !init->transactional_id) {
    handle_init_producer_id(b, from, *init);  // a transactional one goes to the transaction coordinator
  } else if (const auto* find = std::get_if<FindCoordinatorRequest>(&msg)) {
    handle_find_coordinator(b, from, *find);
  } else if (const auto* markers = std::get_if<WriteTxnMarkersRequest>(&msg)) {
    handle_write_txn_markers(b, from, *markers);
  } else if (route_to_coordinator(b, from, msg)) {
  } else if (const auto* ofl_resp = std::get_if<OffsetsForLeaderEpochResponse>(&msg)) {
    on_offsets_for_leader_epoch_response(b, *ofl_resp);
  } else if (const auto* fetch_resp = std::get_if<FetchResponse>(&msg)) {
    on_replica_fetch_response(b, *fetch_resp);
  } else if (const auto* alter = std::get_if<AlterPartitionResponse>(&msg)) {
    on_alter_partition_response(b, *alter);
  } else if (const auto* reg = std::get_if<BrokerRegistrationResponse>(&msg)) {
    if (reg->correlation_id != registration_ || reg->error != ErrorCode::NONE) return;
    registration_ = 0;
    broker_epoch_ = reg->broker_epoch;
    state_.timers.cancel(heartbeat_timer_);
    heartbeat_timer_ = state_.timers.set(millis(state_.config.broker_heartbeat_interval_ms), BrokerTimer::kHeartbeat);
  } else if (const auto* hb = std::get_if<BrokerHeartbeatResponse>(&msg)) {
    // Fenced (the controller lost track of this broker): register again as a new incarnation.
    if (hb->error == ErrorCode::STALE_BROKER_EPOCH && registration_ == 0) register_with_controller();
  }
}

void Broker::on_timer(TimerId id, std::uint64_t tag) { timers_.on_timer(id, tag); }

void Broker::on_own_timer(TimerId id, BrokerTimer tag) {
  switch (tag) {
    case BrokerTimer::kDeferred:
      run_deferred(state_, id);
      break;
    case BrokerTimer::kFetchWait:
      end_fetch_wait(state_, id);
      break;
    case BrokerTimer::kProduceTimeout:
      end_produce_wait(state_, id);
      break;
    case BrokerTimer::kFollower:
      on_follower_timer(state_, id);
      break;
    case BrokerTimer::kHeartbeat:
      heartbeat();
      heartbeat_timer_ = state_.timers.set(millis(state_.config.broker_heartbeat_interval_ms), BrokerTimer::kHeartbeat);
      break;
    case BrokerTimer::kRegistrationRetry:
      if (registration_ != 0) register_with_controller();
      break;
    case BrokerTimer::kIsrCheck:
      shrink_isrs(state_);
      state_.timers.set(millis(state_.config.replica_lag_time_max_ms) / 2, BrokerTimer::kIsrCheck);
      break;
    case BrokerTimer::kRetention:
      run_log_maintenance(state_);
      state_.timers.set(millis(state_.config.log_retention_check_interval_ms), BrokerTimer::kRetention);
      break;
    case BrokerTimer::kCheckpoint:
      checkpoint_high_watermarks();
      state_.timers.set(millis(state_.config.replica_high_watermark_checkpoint_interval_ms), BrokerTimer::kCheckpoint);
      break;
  }
}

void Broker::on_disconnect(NodeId peer) {
  on_leader_disconnect(state_, peer);
  txn_coordinator_->on_disconnect(peer);
  if (state_.config.controller == peer) on_controller_disconnect(state_);
}

}  // namespace logsim::engine

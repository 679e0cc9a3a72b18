// The controller's message handling, sessions, persistence and broadcasts.
#include "engine/controller/controller.h"

#include <algorithm>

#include "engine/base/assert.h"

namespace logsim::engine {
namespace {
constexpr const char* kFile = "metadata";
constexpr const char* kTempFile = "metadata.tmp";
}  // namespace

Controller::Controller(Env& env, ControllerConfig config)
    : env_(env),
      timers_(env),
      own_timers_(timers_, [this](TimerId, ControllerTimer tag) { on_own_timer(tag); }),
      config_(std::move(config)) {
  std::sort(config_.brokers.begin(), config_.brokers.end());
}

void Controller::on_start() {
  Disk& disk = env_.disk();
  if (disk.exists(kFile)) {
    auto recovered = ClusterMetadata::decode(disk.read(kFile, 0, disk.size(kFile)));
    LOGSIM_ASSERT(recovered.has_value(), "the controller's metadata file is corrupt");
    md_ = std::move(*recovered);
    ++md_.controller_epoch;
    ++md_.version;
  }
  if (!md_.initial_topics_created) {
    // Wait for the brokers, but not for ever: one that never comes leaves its replicas offline.
    own_timers_.set(millis(config_.broker_session_timeout_ms), ControllerTimer::kInitialTopics);
  }
  // Every broker registered before gets a full session from now.
  for (const auto& [b, _] : md_.broker_epochs) last_heartbeat_[b] = env_.now();
  md_.check_invariants();
  changed();
  own_timers_.set(millis(config_.broker_session_timeout_ms) / 4, ControllerTimer::kSession);
  if (config_.auto_leader_rebalance_enable) {
    own_timers_.set(millis(config_.leader_imbalance_check_interval_ms), ControllerTimer::kRebalance);
  }
}

// Persists the current state; broadcast() follows when the fsync completes.
void Controller::changed() {
  md_.check_invariants();
  Disk& disk = env_.disk();
  if (disk.exists(kTempFile)) disk.remove(kTempFile);
  disk.append(kTempFile, md_.encode());
  disk.rename(kTempFile, kFile);
  disk.fsync(kFile, static_cast<std::uint64_t>(md_.version));
}

void Controller::on_fsync(std::uint64_t token) {
  const auto version = static_cast<std::int64_t>(token);
  durable_version_ = std::max(durable_version_, version);
  auto end = pending_.upper_bound(durable_version_);
  for (auto it = pending_.begin(); it != end; ++it) env_.send(it->second.first, std::move(it->second.second));
  pending_.erase(pending_.begin(), end);
  if (durable_version_ == md_.version) broadcast();
}

void Controller::broadcast() {
  const LeaderAndIsrRequest state = md_.snapshot();
  for (NodeId b : md_.live_brokers()) env_.send(b, state);
}

void Controller::on_message(NodeId from, const Message& msg) {
  if (const auto* reg = std::get_if<BrokerRegistrationRequest>(&msg)) {
    const std::int64_t epoch = md_.register_broker(reg->broker_id);
    last_heartbeat_[reg->broker_id] = env_.now();
    if (std::all_of(config_.brokers.begin(), config_.brokers.end(), [&](NodeId b) { return md_.is_live(b); })) {
      create_initial_topics();
    }
    changed();
    pending_.emplace(md_.version, std::make_pair(from, Message(BrokerRegistrationResponse{reg->correlation_id, ErrorCode::NONE, epoch})));
  } else if (const auto* hb = std::get_if<BrokerHeartbeatRequest>(&msg)) {
    auto it = md_.broker_epochs.find(hb->broker_id);
    const bool current = it != md_.broker_epochs.end() && it->second == hb->broker_epoch;
    if (current) last_heartbeat_[hb->broker_id] = env_.now();
    env_.send(from, BrokerHeartbeatResponse{hb->correlation_id, current ? ErrorCode::NONE : ErrorCode::STALE_BROKER_EPOCH});
    // A broker that missed a LeaderAndIsr (cut off when it was sent) catches up here, as a KRaft
    // broker fetching the metadata log would: without this it would follow a deposed leader
    // for ever, never fetching from the new one, and the high watermark would stall.
    const bool behind = hb->controller_epoch < md_.controller_epoch ||
                        (hb->controller_epoch == md_.controller_epoch && hb->metadata_version < durable_version_);
    if (current && behind && durable_version_ == md_.version) env_.send(from, md_.snapshot());
  } else if (std::holds_alternative<CreateTopicsRequest>(msg) || std::holds_alternative<DeleteTopicsRequest>(msg) ||
             std::holds_alternative<CreatePartitionsRequest>(msg) ||
             std::holds_alternative<IncrementalAlterConfigsRequest>(msg) || std::holds_alternative<DescribeConfigsRequest>(msg)) {
    handle_admin(from, msg);
  } else if (const auto* alter = std::get_if<AlterPartitionRequest>(&msg)) {
    const ErrorCode error = md_.alter_isr(*alter);
    AlterPartitionResponse resp{alter->correlation_id, error, {}};
    auto it = md_.partitions.find({alter->topic, alter->partition.value()});
    if (it != md_.partitions.end()) resp.state = it->second;
    if (error == ErrorCode::NONE) {
      changed();
      pending_.emplace(md_.version, std::make_pair(from, Message(std::move(resp))));
    } else {
      env_.send(from, std::move(resp));
    }
  }
}

void Controller::answer_when_durable(NodeId from, Message answer) {
  changed();
  pending_.emplace(md_.version, std::make_pair(from, std::move(answer)));
}

void Controller::handle_admin(NodeId from, const Message& msg) {
  const std::vector<NodeId> live = md_.live_brokers();  // sorted
  if (const auto* req = std::get_if<CreateTopicsRequest>(&msg)) {
    CreateTopicsResponse resp{req->correlation_id, req->name, ErrorCode::NONE, "", 0, -1, -1};
    TopicCreation t{req->name, req->num_partitions == -1 ? config_.num_partitions : req->num_partitions,
                    req->replication_factor == -1 ? config_.default_replication_factor : req->replication_factor,
                    config_.topic_defaults};
    for (const ConfigEntry& c : req->configs) {
      if (auto err = set_topic_config(t.configs, c.name, c.value); !err.empty()) {
        resp.error = ErrorCode::INVALID_CONFIG;
        resp.error_message = err;
        env_.send(from, std::move(resp));
        return;
      }
    }
    const AdminOutcome out = md_.create_topic(t, live, env_.rng(), req->validate_only, config_.racks);
    resp.error = out.error;
    resp.error_message = out.message;
    if (out.ok()) {
      resp.num_partitions = t.partitions;
      resp.replication_factor = t.replication_factor;
      if (!req->validate_only) {
        resp.topic_id = md_.topics.at(t.name).topic_id;
        answer_when_durable(from, std::move(resp));
        return;
      }
    }
    env_.send(from, std::move(resp));
  } else if (const auto* del = std::get_if<DeleteTopicsRequest>(&msg)) {
    const AdminOutcome out = md_.delete_topic(del->name);
    DeleteTopicsResponse resp{del->correlation_id, del->name, out.error, out.message};
    if (out.ok()) answer_when_durable(from, std::move(resp));
    else env_.send(from, std::move(resp));
  } else if (const auto* cp = std::get_if<CreatePartitionsRequest>(&msg)) {
    const AdminOutcome out = md_.create_partitions(cp->name, cp->count, live, cp->validate_only, config_.racks);
    CreatePartitionsResponse resp{cp->correlation_id, cp->name, out.error, out.message};
    if (out.ok() && !cp->validate_only) answer_when_durable(from, std::move(resp));
    else env_.send(from, std::move(resp));
  } else if (const auto* alter = std::get_if<IncrementalAlterConfigsRequest>(&msg)) {
    const AdminOutcome out = md_.alter_configs(alter->topic, alter->configs, config_.topic_defaults, alter->validate_only);
    IncrementalAlterConfigsResponse resp{alter->correlation_id, alter->topic, out.error, out.message};
    if (out.ok() && !alter->validate_only) answer_when_durable(from, std::move(resp));
    else env_.send(from, std::move(resp));
  } else if (const auto* desc = std::get_if<DescribeConfigsRequest>(&msg)) {
    DescribeConfigsResponse resp{desc->correlation_id, desc->topic, ErrorCode::NONE, "", {}};
    auto t = md_.topics.find(desc->topic);
    if (t == md_.topics.end()) {
      resp.error = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
      resp.error_message = "Topic '" + desc->topic + "' does not exist.";
    } else {
      resp.configs = describe_topic_configs(t->second.configs, config_.topic_defaults);
    }
    env_.send(from, std::move(resp));
  }
}

void Controller::check_sessions() {
  const Nanos timeout = millis(config_.broker_session_timeout_ms);
  std::vector<NodeId> expired;
  for (const auto& [b, _] : md_.broker_epochs) {
    auto it = last_heartbeat_.find(b);
    if (it == last_heartbeat_.end() || env_.now() - it->second > timeout) expired.push_back(b);
  }
  for (NodeId b : expired) {
    md_.broker_failed(b);
    last_heartbeat_.erase(b);
  }
  if (!expired.empty()) changed();
}

// Creates the configured topics over the configured brokers, once: as Kafka creates a topic
// once its brokers have registered, each partition is led by its first (preferred) replica at
// leader epoch 0, and leadership spreads over the cluster.
void Controller::create_initial_topics() {
  if (md_.initial_topics_created) return;
  md_.initial_topics_created = true;
  for (const TopicCreation& t : config_.topics) {
    const AdminOutcome created = md_.create_topic(t, config_.brokers, env_.rng(), false, config_.racks);
    LOGSIM_ASSERT(created.ok(), "cannot create topic " + t.name + ": " + created.message);
  }
}

void Controller::on_timer(TimerId id, std::uint64_t tag) { timers_.on_timer(id, tag); }

void Controller::on_own_timer(ControllerTimer tag) {
  switch (tag) {
    case ControllerTimer::kInitialTopics:
      if (!md_.initial_topics_created) {
        create_initial_topics();
        changed();
      }
      break;
    case ControllerTimer::kSession:
      check_sessions();
      own_timers_.set(millis(config_.broker_session_timeout_ms) / 4, ControllerTimer::kSession);
      break;
    case ControllerTimer::kRebalance:
      if (md_.elect_preferred_leaders()) changed();
      own_timers_.set(millis(config_.leader_imbalance_check_interval_ms), ControllerTimer::kRebalance);
      break;
  }
}

}  // namespace logsim::engine

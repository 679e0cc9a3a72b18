// LeaderAndIsr: the controller's whole state. The broker keeps it for Metadata, and takes the
// role the controller gave it for each partition it replicates: leader (track followers, own
// the high watermark) or follower (truncate by leader epoch, then fetch). Replicas it hosts
// that the state no longer lists, or lists under another topic id, are deleted.
#include <algorithm>

#include "engine/broker/broker.h"

namespace logsim::engine {
namespace {

bool contains(const std::vector<NodeId>& v, NodeId x) { return std::find(v.begin(), v.end(), x) != v.end(); }

void become_leader(BrokerState& b, Partition& p) {
  p.followers.clear();
  for (NodeId r : p.state.replicas) {
    if (r != b.env.self()) p.followers[r] = FollowerProgress{Offset(-1), b.env.now()};
  }
  p.phase = FollowerPhase::kIdle;
  b.follower_requests.erase(p.in_flight);  // its answer, if it comes, is for no one
  p.in_flight = 0;
  p.isr_change_in_flight = false;
}

void apply(BrokerState& b, const PartitionState& s) {
  const TopicPartition key{s.topic, s.partition};
  if (Partition* existing = b.find(s.topic, s.partition);
      existing != nullptr && existing->topic_id != 0 && s.topic_id != 0 && existing->topic_id != s.topic_id) {
    b.remove(key);  // the log of a deleted topic of the same name: start afresh
  }
  Partition& p = b.open(s.topic, s.partition);
  if (p.topic_id == 0 && s.topic_id != 0) b.write_topic_id(p, s.topic_id);
  const PartitionState old = p.state;
  const NodeId self = b.env.self();
  const bool same_epoch = old.leader == s.leader && old.leader_epoch == s.leader_epoch;
  p.state = s;
  if (s.leader == self) {
    if (!same_epoch) become_leader(b, p);
    // A newer partition epoch under the same leader epoch: the controller committed an ISR
    // change (perhaps ours, whose answer was lost). Like Kafka's leader, which replaces its
    // pending ISR state with the committed one, stop waiting for the AlterPartition in flight:
    // the next change is proposed from this state at once, not after request.timeout.ms.
    if (same_epoch && s.partition_epoch > old.partition_epoch) p.isr_change_in_flight = false;
    if (static_cast<std::int32_t>(s.isr.size()) < s.min_insync_replicas) {
      fail_pending_produces(b, key, ErrorCode::NOT_ENOUGH_REPLICAS_AFTER_APPEND);
    }
    maybe_advance_high_watermark(b, p);
    return;
  }
  if (old.leader == self) {
    fail_pending_produces(b, key, ErrorCode::NOT_LEADER_OR_FOLLOWER);
    wake_fetches(b, key);  // held fetches learn they asked the wrong broker
  }
  if (s.leader.value() < 0) {
    p.phase = FollowerPhase::kIdle;
    return;
  }
  if (!same_epoch || p.phase == FollowerPhase::kIdle) start_following(b, key);
}

}  // namespace

void handle_leader_and_isr(BrokerState& b, const LeaderAndIsrRequest& req) {
  if (req.controller_epoch < b.controller_epoch) return;
  if (req.controller_epoch == b.controller_epoch && req.version <= b.metadata_version) return;
  b.controller_epoch = req.controller_epoch;
  b.metadata_version = req.version;
  b.live_brokers = req.live_brokers;
  for (const TopicConfig& t : req.topic_configs) {
    b.topic_configs[t.topic] = t.log;
    for (auto it = b.partitions.lower_bound(TopicPartitionView{t.topic, PartitionId(INT32_MIN)}); it != b.partitions.end() && it->first.topic == t.topic; ++it) {
      it->second.log->reconfigure(t.log);
    }
  }
  b.cluster.clear();
  for (const PartitionState& s : req.partitions) b.cluster[TopicPartition{s.topic, s.partition}] = s;
  // Replicas the controller no longer places here (their topic was deleted, perhaps while this
  // broker was down) are stopped and their logs deleted, as Kafka's brokers do.
  std::vector<TopicPartition> gone;
  for (const auto& [key, p] : b.partitions) {
    auto it = b.cluster.find(key);
    if (it == b.cluster.end() || !contains(it->second.replicas, b.env.self())) gone.push_back(key);
  }
  for (const TopicPartition& key : gone) b.remove(key);
  for (const PartitionState& s : req.partitions) {
    if (contains(s.replicas, b.env.self())) apply(b, s);
  }
  update_coordinator_leadership(b);
}

}  // namespace logsim::engine

// Applying a Metadata response to the client's cache, and the refresh that asks for it.
#include "engine/client/metadata.h"

#include <algorithm>

namespace logsim::engine {

void MetadataCache::update(const MetadataResponse& resp) {
  for (const TopicMetadata& t : resp.topics) {
    if (t.error != ErrorCode::NONE) continue;
    Topic& topic = topics_[t.name];
    if (t.topic_id != 0 && t.topic_id != topic.id) {
      topic.id = t.topic_id;  // a new incarnation: its epochs start again
      topic.leaders.clear();
    }
    topic.count = static_cast<std::int32_t>(t.partitions.size());
    for (const PartitionMetadata& p : t.partitions) {
      if (p.partition.value() < 0) continue;
      const auto i = static_cast<std::size_t>(p.partition.value());
      if (i >= topic.leaders.size()) topic.leaders.resize(i + 1);
      Leader& known = topic.leaders[i];
      // KIP-320: an answer from a broker whose metadata is behind (a deposed leader cut off from
      // the controller, say) names an older leader epoch than one already seen: Kafka's client
      // keeps what it knows rather than go back to the old leader.
      if (p.leader_epoch.value() >= 0 && p.leader_epoch < known.last_seen) continue;
      const bool led = p.error == ErrorCode::NONE && p.leader.value() >= 0;
      const LeaderEpoch last_seen = std::max(known.last_seen, p.leader_epoch);
      known = led ? Leader{p.leader, p.leader_epoch, last_seen} : Leader{NodeId(-1), LeaderEpoch(-1), last_seen};
    }
  }
}

const MetadataCache::Topic* MetadataCache::find(const std::string& topic) const {
  if (memo_.topic != nullptr && *memo_.name == topic) return memo_.topic;
  auto it = topics_.find(topic);
  if (it == topics_.end()) return nullptr;
  memo_.name = &it->first;
  memo_.topic = &it->second;
  return memo_.topic;
}

const MetadataCache::Leader* MetadataCache::find(const std::string& topic, PartitionId p) const {
  const Topic* t = find(topic);
  if (t == nullptr || p.value() < 0 || static_cast<std::size_t>(p.value()) >= t->leaders.size()) return nullptr;
  return &t->leaders[static_cast<std::size_t>(p.value())];
}

std::optional<NodeId> MetadataCache::leader(const std::string& topic, PartitionId p) const {
  const Leader* l = find(topic, p);
  if (l == nullptr || l->node.value() < 0) return std::nullopt;
  return l->node;
}

LeaderEpoch MetadataCache::leader_epoch(const std::string& topic, PartitionId p) const {
  const Leader* l = find(topic, p);
  return l == nullptr ? LeaderEpoch(-1) : l->epoch;
}

std::int32_t MetadataCache::partition_count(const std::string& topic) const {
  const Topic* t = find(topic);
  return t == nullptr ? 0 : t->count;
}

MetadataRefresh::MetadataRefresh(ClientChannel& channel, TimerMux& timers, Topics topics)
    : channel_(channel),
      timers_(timers, [this](TimerId id, MetadataTimer) { on_timer(id); }),
      requests_(channel, timers_, MetadataTimer::kRetry, MetadataTimer::kRetry),
      topics_(std::move(topics)) {}

void MetadataRefresh::request() {
  if (!slot_.idle()) return;
  const Nanos now = channel_.env().now();
  if (last_request_ >= 0 && now - last_request_ < channel_.retry_backoff()) {
    requests_.wait({}, slot_, last_request_ + channel_.retry_backoff() - now);
    return;
  }
  last_request_ = now;
  const NodeId target = channel_.any_bootstrap();
  requests_.send({}, slot_, target, MetadataRequest{0, topics_ ? topics_() : std::vector<std::string>{}});
}

bool MetadataRefresh::on_response(const MetadataResponse& resp) {
  if (!slot_.in_flight() || resp.correlation_id != slot_.correlation) return false;
  requests_.end(slot_);
  cache_.update(resp);
  return true;
}

void MetadataRefresh::on_disconnect(NodeId peer) {
  if (!slot_.in_flight() || slot_.target != peer) return;
  requests_.end(slot_);
  requests_.wait({}, slot_);
}

// The request timed out (its late answer is ignored), or the wait ended: ask now.
void MetadataRefresh::on_timer(TimerId id) {
  if (!requests_.fired(id)) return;
  slot_.timer = 0;
  requests_.end(slot_);
  request();
}

}  // namespace logsim::engine

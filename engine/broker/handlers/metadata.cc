// Metadata: the live brokers and every partition's leader, replicas and ISR, as the
// controller last told this broker.
#include "engine/broker/broker.h"

#include <algorithm>

namespace logsim::engine {

void handle_metadata(BrokerState& b, NodeId from, const MetadataRequest& req) {
  MetadataResponse resp;
  resp.correlation_id = req.correlation_id;
  resp.brokers = b.live_brokers;
  std::vector<std::string> names = req.topics;
  if (names.empty()) {
    for (const auto& [key, _] : b.cluster) {
      if (names.empty() || names.back() != key.topic) names.push_back(key.topic);
    }
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    if (std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i), name) !=
        names.begin() + static_cast<std::ptrdiff_t>(i)) {
      continue;  // named twice: listed once, as Kafka does
    }
    TopicMetadata tm{name, ErrorCode::NONE, {}};
    for (auto it = b.cluster.lower_bound(TopicPartitionView{name, PartitionId(INT32_MIN)}); it != b.cluster.end() && it->first.topic == name; ++it) {
      const PartitionState& s = it->second;
      const ErrorCode e = s.leader.value() < 0 ? ErrorCode::LEADER_NOT_AVAILABLE : ErrorCode::NONE;
      tm.partitions.push_back(PartitionMetadata{s.partition, e, s.leader, s.leader_epoch, s.replicas, s.isr});
      tm.topic_id = s.topic_id;
    }
    if (tm.partitions.empty()) tm.error = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
    resp.topics.push_back(std::move(tm));
  }
  b.env.send(from, std::move(resp));
}

}  // namespace logsim::engine

// Metadata: the topics this broker hosts, with itself as every partition's leader.
#include "engine/broker/broker.h"

#include <algorithm>

namespace logsim::engine {

MetadataResponse handle_metadata(BrokerState& b, const MetadataRequest& req) {
  MetadataResponse resp;
  resp.correlation_id = req.correlation_id;
  const NodeId self = b.env.self();
  resp.brokers.push_back(self);
  auto wanted = [&](const std::string& name) {
    return req.topics.empty() || std::find(req.topics.begin(), req.topics.end(), name) != req.topics.end();
  };
  for (const TopicSpec& t : b.config.topics) {
    if (!wanted(t.name)) continue;
    TopicMetadata tm{t.name, ErrorCode::NONE, {}};
    for (std::int32_t p = 0; p < t.partitions; ++p) {
      tm.partitions.push_back(PartitionMetadata{PartitionId(p), ErrorCode::NONE, self, LeaderEpoch(0), {self}, {self}});
    }
    resp.topics.push_back(std::move(tm));
  }
  for (std::size_t i = 0; i < req.topics.size(); ++i) {
    const std::string& name = req.topics[i];
    if (std::find(req.topics.begin(), req.topics.begin() + static_cast<std::ptrdiff_t>(i), name) !=
        req.topics.begin() + static_cast<std::ptrdiff_t>(i)) {
      continue;  // named twice: listed once, as Kafka does
    }
    const bool known = std::any_of(b.config.topics.begin(), b.config.topics.end(),
                                   [&](const TopicSpec& t) { return t.name == name; });
    if (!known) resp.topics.push_back(TopicMetadata{name, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, {}});
  }
  return resp;
}

}  // namespace logsim::engine

// The client's view of the cluster: which broker leads each partition, and how many
// partitions each topic has. Refreshed from any bootstrap broker by a Metadata request.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/protocol/messages.h"
#include "engine/base/name_order.h"
#include "engine/base/topic_partition.h"
#include "engine/env/rng.h"

namespace logsim::engine {

class MetadataCache {
 public:
  void update(const MetadataResponse& resp);
  std::optional<NodeId> leader(const std::string& topic, PartitionId p) const;
  // Number of partitions of a topic, or 0 when unknown.
  std::int32_t partition_count(const std::string& topic) const;
  bool knows(const std::string& topic) const { return partition_count(topic) > 0; }

 private:
  std::map<TopicPartition, NodeId, TopicPartitionLess> leaders_;
  std::map<std::string, std::int32_t, NameLess> counts_;
};

// Where a client incarnation starts its correlation ids. Kafka matches a response to its
// request on one connection, and a restarted client opens new connections, so it never sees
// what a broker answers its previous incarnation. Here a broker answers a node id, so a
// restarted client (same node id) starts at a fresh random base: an answer meant for its
// previous incarnation matches nothing it has in flight.
inline CorrelationId fresh_correlation_base(Rng& rng) { return static_cast<CorrelationId>(rng.uniform_u64(CorrelationId{1} << 30)); }

}  // namespace logsim::engine

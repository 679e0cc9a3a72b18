// Applying a Metadata response to the client's cache.
#include "engine/client/metadata.h"

namespace logsim::engine {

void MetadataCache::update(const MetadataResponse& resp) {
  for (const TopicMetadata& t : resp.topics) {
    if (t.error != ErrorCode::NONE) continue;
    counts_[t.name] = static_cast<std::int32_t>(t.partitions.size());
    for (const PartitionMetadata& p : t.partitions) {
      if (p.error == ErrorCode::NONE && p.leader.value() >= 0) {
        leaders_[TopicPartition{t.name, p.partition}] = p.leader;
      } else {
        leaders_.erase(TopicPartition{t.name, p.partition});
      }
    }
  }
}

std::optional<NodeId> MetadataCache::leader(const std::string& topic, PartitionId p) const {
  auto it = leaders_.find(TopicPartitionView{topic, p});
  if (it == leaders_.end()) return std::nullopt;
  return it->second;
}

std::int32_t MetadataCache::partition_count(const std::string& topic) const {
  auto it = counts_.find(topic);
  return it == counts_.end() ? 0 : it->second;
}

}  // namespace logsim::engine

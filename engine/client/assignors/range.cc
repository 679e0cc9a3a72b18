// Kafka's RangeAssignor: each topic on its own, its partitions split into contiguous ranges
// over its subscribers in Kafka's member order; the first P % C subscribers get one extra.
#include <cstdint>
#include <vector>

#include "engine/client/assignors/assignor.h"
#include "engine/client/assignors/assignor_util.h"

namespace logsim::engine {

GroupAssignment range_assign(const GroupSubscription& group) {
  using namespace assignors;
  GroupAssignment out = empty_assignment(group);
  const auto partitions = subscribed_partitions(group);
  const std::vector<const MemberSubscription*> order = kafka_member_order(group);
  for (const auto& [topic, count] : partitions) {
    std::vector<const MemberSubscription*> consumers;
    for (const MemberSubscription* m : order) {
      if (subscribes(*m, topic)) consumers.push_back(m);
    }
    const auto n = static_cast<std::int32_t>(consumers.size());
    const std::int32_t quota = count / n;
    const std::int32_t extra = count % n;
    for (std::int32_t i = 0; i < n; ++i) {
      const std::int32_t start = quota * i + (i < extra ? i : extra);
      const std::int32_t length = quota + (i < extra ? 1 : 0);
      std::vector<TopicPartition>& mine = out[consumers[static_cast<std::size_t>(i)]->member_id];
      for (std::int32_t p = start; p < start + length; ++p) mine.push_back({topic, PartitionId(p)});
    }
  }
  finish(out, group, partitions, /*complete=*/true);
  return out;
}

}  // namespace logsim::engine

// Kafka's RoundRobinAssignor: all partitions of all subscribed topics, sorted by topic then
// partition, dealt in turn over the members in Kafka's member order (one circle, never
// restarted); a member that does not subscribe to a partition's topic is passed over.
#include <cstddef>
#include <vector>

#include "engine/client/assignors/assignor.h"
#include "engine/client/assignors/assignor_util.h"
#include "engine/base/assert.h"

namespace logsim::engine {

GroupAssignment round_robin_assign(const GroupSubscription& group) {
  using namespace assignors;
  GroupAssignment out = empty_assignment(group);
  const auto partitions = subscribed_partitions(group);
  const std::vector<const MemberSubscription*> order = kafka_member_order(group);
  std::size_t next = 0;  // Kafka's CircularIterator over `order`
  for (const auto& [topic, count] : partitions) {
    for (std::int32_t p = 0; p < count; ++p) {
      // Some member subscribes to `topic` (that is how it got here), so one lap finds it.
      std::size_t skipped = 0;
      while (!subscribes(*order[next], topic)) {
        next = (next + 1) % order.size();
        LOGSIM_ASSERT(++skipped <= order.size(), "no subscriber of " + topic);
      }
      out[order[next]->member_id].push_back({topic, PartitionId(p)});
      next = (next + 1) % order.size();
    }
  }
  finish(out, group, partitions, /*complete=*/true);
  return out;
}

}  // namespace logsim::engine

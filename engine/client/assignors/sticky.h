// The two halves of Kafka's sticky assignor (internal to engine/client/assignors/): the
// validated claims both algorithms start from, and the general algorithm, used when members
// subscribe to different topics (sticky_general.cc).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/client/assignors/assignor.h"

namespace logsim::engine::assignors {

// What each member may keep, after conflicting claims were settled (assignor.h: a stale claim
// loses; two claims of one generation both lose and the partition counts as moving).
struct StickyClaims {
  std::map<MemberId, std::vector<TopicPartition>> owned;  // every member, in claim order
  std::set<TopicPartition> multiply_claimed;              // claimed twice in one generation
  std::int32_t max_generation = -1;
  bool all_subscriptions_equal = true;
};

// `partitions` is Kafka's partitionsPerTopic (assignor_util.h subscribed_partitions).
StickyClaims resolve_claims(const GroupSubscription& group, const std::map<std::string, std::int32_t>& partitions);

// Kafka's general sticky algorithm (AbstractStickyAssignor's GeneralAssignmentBuilder).
GroupAssignment general_sticky_assign(const GroupSubscription& group,
                                      const std::map<std::string, std::int32_t>& partitions,
                                      StickyClaims claims);

}  // namespace logsim::engine::assignors

// Helpers the assignors share (internal to engine/client/assignors/): Kafka's view of the
// metadata, Kafka's member order, and the checks every result must pass.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/client/assignors/assignor.h"

namespace logsim::engine::assignors {

// Kafka's partitionsPerTopic: the topics some member subscribes to that the metadata knows
// with at least one partition.
std::map<std::string, std::int32_t> subscribed_partitions(const GroupSubscription& group);

bool subscribes(const MemberSubscription& member, const std::string& topic);

// Kafka's MemberInfo order (KIP-345): static members by group.instance.id, then dynamic
// members by member id. Ties (two members with one instance id) by member id.
std::vector<const MemberSubscription*> kafka_member_order(const GroupSubscription& group);

// Every member with an empty list; asserts that member ids are distinct.
GroupAssignment empty_assignment(const GroupSubscription& group);

// Sorts every member's partitions and asserts the invariants of assignor.h: each partition at
// most once, to a subscriber, of a known topic; with `complete`, every partition of
// `partitions` assigned.
void finish(GroupAssignment& assignment, const GroupSubscription& group,
            const std::map<std::string, std::int32_t>& partitions, bool complete);

// The sticky assignment and, when the constrained algorithm ran, the partitions it moved from
// an owner to another member (what cooperative-sticky must hold back). Without it (the
// general algorithm), cooperative-sticky computes the moves from the owned partitions.
struct StickyResult {
  GroupAssignment assignment;
  std::optional<std::map<TopicPartition, MemberId>> transferring;
};
StickyResult sticky_assign_tracking(const GroupSubscription& group);

}  // namespace logsim::engine::assignors

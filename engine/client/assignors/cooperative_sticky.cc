// Kafka's CooperativeStickyAssignor (KIP-429): the sticky assignment, less every partition it
// moves from one member to another. The member that owned such a partition is not assigned it
// any more, so it revokes it and rejoins; the follow-up rebalance, where nobody owns it, gives
// it to its new member. So no partition is given to a member while another member's valid
// claim (assignor.h) still holds it.
//
// Which partitions move: when the constrained algorithm ran it tracked them (dealt partitions
// that a member owned beyond its quota, or that two members claimed in one generation);
// otherwise, as Kafka does, every partition assigned to a member that did not own it while some
// member owned it and is not assigned it (both by the members' own owned-partition lists).
#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "engine/client/assignors/assignor.h"
#include "engine/client/assignors/assignor_util.h"

namespace logsim::engine {

namespace {

std::map<TopicPartition, MemberId> moving_partitions(const GroupSubscription& group,
                                                     const GroupAssignment& assignment) {
  std::map<TopicPartition, MemberId> added;
  std::set<TopicPartition> revoked;
  for (const MemberSubscription& m : group.members) {
    const std::vector<TopicPartition>& mine = assignment.at(m.member_id);
    const std::set<TopicPartition> owned(m.owned.begin(), m.owned.end());
    const std::set<TopicPartition> assigned(mine.begin(), mine.end());
    for (const TopicPartition& tp : mine) {
      if (!owned.contains(tp)) added.emplace(tp, m.member_id);
    }
    for (const TopicPartition& tp : owned) {
      if (!assigned.contains(tp)) revoked.insert(tp);
    }
  }
  std::erase_if(added, [&](const auto& entry) { return !revoked.contains(entry.first); });
  return added;
}

}  // namespace

GroupAssignment cooperative_sticky_assign(const GroupSubscription& group) {
  return cooperative_sticky_assign(group, Plants{});
}

GroupAssignment cooperative_sticky_assign(const GroupSubscription& group, Plants plants) {
  assignors::StickyResult sticky = assignors::sticky_assign_tracking(group);
  std::map<TopicPartition, MemberId> moving =
      sticky.transferring ? *sticky.transferring : moving_partitions(group, sticky.assignment);
  // PLANTED BUG (KAFKA-12984, cooperative-double-ownership): no partition is held back, so a
  // moving one is given to its new owner in the rebalance in which its old owner still holds
  // it (the old owner revokes it only when it applies this assignment).
  if (plants.has(Plant::kCooperativeDoubleOwnership)) moving.clear();
  for (const auto& [tp, member] : moving) {
    std::vector<TopicPartition>& mine = sticky.assignment.at(member);
    mine.erase(std::remove(mine.begin(), mine.end(), tp), mine.end());
  }
  assignors::finish(sticky.assignment, group, assignors::subscribed_partitions(group), /*complete=*/false);
  return sticky.assignment;
}

}  // namespace logsim::engine

// The assignor factory by partition.assignment.strategy value, and the shared helpers.
#include "engine/client/assignors/assignor.h"

#include <algorithm>
#include <array>
#include <set>
#include <string>

#include "engine/client/assignors/assignor_util.h"
#include "engine/base/assert.h"

namespace logsim::engine {

namespace {

struct NamedAssignor {
  std::string_view short_name;
  std::string_view class_name;
  PartitionAssignor assignor;
};

constexpr std::array<NamedAssignor, 4> kAssignors = {{
    {"range", "org.apache.kafka.clients.consumer.RangeAssignor",
     {"range", RebalanceProtocol::kEager, &range_assign}},
    {"roundrobin", "org.apache.kafka.clients.consumer.RoundRobinAssignor",
     {"roundrobin", RebalanceProtocol::kEager, &round_robin_assign}},
    {"sticky", "org.apache.kafka.clients.consumer.StickyAssignor",
     {"sticky", RebalanceProtocol::kEager, &sticky_assign}},
    {"cooperative-sticky", "org.apache.kafka.clients.consumer.CooperativeStickyAssignor",
     {"cooperative-sticky", RebalanceProtocol::kCooperative, &cooperative_sticky_assign}},
}};

}  // namespace

std::optional<PartitionAssignor> assignor_by_name(std::string_view strategy) {
  for (const NamedAssignor& a : kAssignors) {
    if (strategy == a.short_name || strategy == a.class_name) return a.assignor;
  }
  return std::nullopt;
}

namespace assignors {

std::map<std::string, std::int32_t> subscribed_partitions(const GroupSubscription& group) {
  std::map<std::string, std::int32_t> out;
  for (const MemberSubscription& m : group.members) {
    for (const std::string& topic : m.topics) {
      const auto it = group.partitions_per_topic.find(topic);
      if (it != group.partitions_per_topic.end() && it->second > 0) out.emplace(topic, it->second);
    }
  }
  return out;
}

bool subscribes(const MemberSubscription& member, const std::string& topic) {
  return std::find(member.topics.begin(), member.topics.end(), topic) != member.topics.end();
}

std::vector<const MemberSubscription*> kafka_member_order(const GroupSubscription& group) {
  std::vector<const MemberSubscription*> order;
  order.reserve(group.members.size());
  for (const MemberSubscription& m : group.members) order.push_back(&m);
  std::sort(order.begin(), order.end(), [](const MemberSubscription* a, const MemberSubscription* b) {
    if (a->group_instance_id.has_value() != b->group_instance_id.has_value()) {
      return a->group_instance_id.has_value();  // static members first
    }
    if (a->group_instance_id && *a->group_instance_id != *b->group_instance_id) {
      return *a->group_instance_id < *b->group_instance_id;
    }
    return a->member_id < b->member_id;
  });
  return order;
}

GroupAssignment empty_assignment(const GroupSubscription& group) {
  GroupAssignment out;
  for (const MemberSubscription& m : group.members) {
    const bool inserted = out.emplace(m.member_id, std::vector<TopicPartition>{}).second;
    LOGSIM_ASSERT(inserted, "duplicate member id " + m.member_id);
  }
  return out;
}

void finish(GroupAssignment& assignment, const GroupSubscription& group,
            const std::map<std::string, std::int32_t>& partitions, bool complete) {
  LOGSIM_ASSERT(assignment.size() == group.members.size(), "the assignment names every member, once");
  std::set<TopicPartition> seen;
  for (const MemberSubscription& m : group.members) {
    const auto it = assignment.find(m.member_id);
    LOGSIM_ASSERT(it != assignment.end(), "member " + m.member_id + " missing from the assignment");
    std::sort(it->second.begin(), it->second.end());
    for (const TopicPartition& tp : it->second) {
      const auto topic = partitions.find(tp.topic);
      LOGSIM_ASSERT(topic != partitions.end() && tp.partition.value() >= 0 &&
                        tp.partition.value() < topic->second,
                    "assigned a partition the metadata does not have: " + tp.topic);
      LOGSIM_ASSERT(subscribes(m, tp.topic), m.member_id + " got a partition of unsubscribed " + tp.topic);
      LOGSIM_ASSERT(seen.insert(tp).second, "a partition of " + tp.topic + " assigned twice");
    }
  }
  if (complete) {
    std::size_t total = 0;
    for (const auto& [topic, count] : partitions) total += static_cast<std::size_t>(count);
    LOGSIM_ASSERT(seen.size() == total, "some partition of a subscribed topic left unassigned");
  }
}

}  // namespace assignors
}  // namespace logsim::engine

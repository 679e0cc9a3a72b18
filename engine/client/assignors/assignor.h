// Kafka's consumer-group partition assignors, as pure functions: the group leader's view of
// every member's subscription and the topics' partition counts in, an assignment out.
//
// The model (Kafka's ConsumerPartitionAssignor, classic group protocol): the coordinator hands
// the elected leader every member's ConsumerProtocolSubscription; the leader runs the assignor
// named by partition.assignment.strategy and returns one assignment per member in SyncGroup.
// Four assignors, each computed as Kafka computes it:
// - range: per topic, its subscribers in Kafka's member order; P partitions over C
//   subscribers: the first P % C get P / C + 1 contiguous partitions, the rest P / C.
// - roundrobin: every partition, sorted by topic then partition, dealt round-robin over the
//   members in Kafka's member order, skipping members that do not subscribe to its topic.
// - sticky: balance first, then stickiness (KIP-54, KIP-341). When all members subscribe to
//   the same topics, the constrained algorithm: each member keeps its owned partitions up to
//   its quota (floor or ceil of P / C; at most P % C members get the ceil), the rest are dealt
//   round-robin to the members under quota. Otherwise the general algorithm: keep every owned
//   partition whose topic the member still subscribes, give unassigned partitions to the
//   least-loaded subscriber, then move partitions while that improves the balance.
// - cooperative-sticky (KIP-429): the sticky assignment, minus every partition it moves from
//   one member to another; the owner revokes it and rejoins, and the follow-up rebalance gives
//   it to its new member. So a moving partition belongs to nobody for one rebalance.
//
// Kafka's member order (range and roundrobin, KIP-345 MemberInfo): static members (with a
// group.instance.id) first, sorted by instance id, then dynamic members sorted by member id.
//
// Owned partitions and generations (sticky, cooperative-sticky): each member reports what it
// owned and in which generation (the sticky assignor's userData, or ConsumerProtocolSubscription
// ownedPartitions + generationId for cooperative-sticky; both are `owned` and `generation`
// here). Claims are validated before use: a partition claimed by two members keeps the claim
// of the higher generation (a stale claim loses); claimed by two members of the same
// generation it is taken from both and counts as moving. A missing generation is -1.
//
// Invariants of every result (asserted):
// - every member of the input appears, with its partitions sorted by (topic, partition);
// - a partition is assigned at most once, only to a member that subscribes to its topic;
// - range, roundrobin, sticky: every partition of every subscribed topic known to the metadata
//   is assigned (cooperative-sticky leaves out exactly the partitions that move).
// Members with no partition (more members than partitions) get an empty list.
//
// Simplifications (where a result can differ from Kafka's, and why):
// - Where Kafka iterates a java.util.HashMap or HashSet (members, when the constrained
//   algorithm decides which members keep ceil-quota partitions and when claims conflict; the
//   partition picked to undo an earlier movement in the general algorithm), we iterate in
//   member-id order and (topic, partition) order. The result is then a pure function of the
//   input, independent of the order members are listed in; Kafka's depends on String
//   hashCode and JoinGroup order. Only the choice among equally entitled members or
//   partitions differs; balance and stickiness do not.
// - No rack awareness (KIP-881): members have no client.rack here.
// - Names compare as bytes (UTF-8 order), Java's as UTF-16 units: these differ only between
//   characters above U+FFFF and U+E000..U+FFFF.
// - Input Kafka cannot produce is cleaned, not trusted: owned partitions outside their topic's
//   partition count are dropped, duplicate claims within one member count once, subscription
//   equality is set equality (Kafka's check treats a first member with an empty subscription
//   as equal to anything), and the general algorithm moves a partition back to its previous
//   owner only if that owner still subscribes to its topic (Kafka would assign it regardless,
//   or throw if that owner's assignment is fixed).
// - maxGeneration is this call's maximum; Kafka's assignor object remembers the largest seen
//   over its lifetime.
//
// Pure and deterministic: no state, no randomness, no hashing; safe to call from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/topic_partition.h"
#include "engine/plants.h"
#include "engine/base/types.h"

namespace logsim::engine {

// Kafka's member.id, as the coordinator handed it out.
using MemberId = std::string;

// One member's ConsumerProtocolSubscription, as the leader sees it.
struct MemberSubscription {
  MemberId member_id;
  std::optional<std::string> group_instance_id;  // group.instance.id (KIP-345), static members
  std::vector<std::string> topics;               // the subscribed topics, any order
  // Sticky assignors only: the partitions the member owned, and the generation it owned them
  // in (absent: never assigned, counts as -1).
  std::vector<TopicPartition> owned;
  std::optional<GenerationId> generation;
};

// Everything an assignor reads.
struct GroupSubscription {
  std::vector<MemberSubscription> members;  // distinct member ids, any order
  // The metadata: partition count per topic. Subscribed topics missing here, or with 0
  // partitions, are skipped (Kafka: "no metadata is available").
  std::map<std::string, std::int32_t> partitions_per_topic;
};

// Member id -> its partitions, sorted by (topic, partition); every member present.
using GroupAssignment = std::map<MemberId, std::vector<TopicPartition>>;

// How members give up partitions: EAGER revokes everything before rejoining; COOPERATIVE
// revokes only what the assignment moved away (then rejoins once more).
enum class RebalanceProtocol : std::uint8_t { kEager, kCooperative };

GroupAssignment range_assign(const GroupSubscription& group);
GroupAssignment round_robin_assign(const GroupSubscription& group);
GroupAssignment sticky_assign(const GroupSubscription& group);
GroupAssignment cooperative_sticky_assign(const GroupSubscription& group);
// The same, under planted bugs: cooperative-double-ownership skips the withholding, so a
// moving partition goes to its new owner while its old owner still holds it (KAFKA-12984).
GroupAssignment cooperative_sticky_assign(const GroupSubscription& group, Plants plants);

// An assignor as partition.assignment.strategy names it.
struct PartitionAssignor {
  std::string_view name;                // Kafka's name: "range", "roundrobin", ...
  RebalanceProtocol protocol;           // the protocol a consumer using only this assignor runs
  GroupAssignment (*assign)(const GroupSubscription&);
};

// By a partition.assignment.strategy value: Kafka's short name ("range", "roundrobin",
// "sticky", "cooperative-sticky") or class name (org.apache.kafka.clients.consumer.RangeAssignor,
// ...RoundRobinAssignor, ...StickyAssignor, ...CooperativeStickyAssignor). Nothing if unknown.
std::optional<PartitionAssignor> assignor_by_name(std::string_view strategy);

}  // namespace logsim::engine

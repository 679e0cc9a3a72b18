// Tests of Kafka's partition assignors (engine/client/assignors/): Kafka's documented examples
// (the RangeAssignor, RoundRobinAssignor and StickyAssignor javadoc) reproduced exactly, the
// sticky assignors' generation rules, cooperative-sticky's two rebalances, the factory, and
// RapidCheck properties over random groups: every partition assigned once to a subscriber,
// cooperative-sticky holding back only partitions that move, balance, optimal stickiness,
// determinism and independence of the order members are listed in.
//
// The properties judge results with their own checks, never with the assignors' internal
// assertions, so that an assignor bug shows here as a counterexample.
#include "engine/client/assignors/assignor.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace logsim::engine {
namespace {

TopicPartition tp(const std::string& topic, std::int32_t partition) { return {topic, PartitionId(partition)}; }

MemberSubscription member(const std::string& id, std::vector<std::string> topics,
                          std::vector<TopicPartition> owned = {}, std::optional<std::int32_t> generation = {}) {
  MemberSubscription m;
  m.member_id = id;
  m.topics = std::move(topics);
  m.owned = std::move(owned);
  if (generation) m.generation = GenerationId(*generation);
  return m;
}

using Partitions = std::map<std::string, std::int32_t>;

GroupSubscription group(std::vector<MemberSubscription> members, Partitions partitions) {
  return GroupSubscription{std::move(members), std::move(partitions)};
}

// The next rebalance's subscriptions: each member owns what `assignment` gave it, in
// `generation`.
GroupSubscription after(GroupSubscription g, const GroupAssignment& assignment, std::int32_t generation) {
  for (MemberSubscription& m : g.members) {
    m.owned = assignment.at(m.member_id);
    m.generation = GenerationId(generation);
  }
  return g;
}

// ---- RangeAssignor -------------------------------------------------------------------------

// RangeAssignor javadoc: C0, C1 subscribe to t0 and t1, three partitions each.
TEST(RangeAssignor, JavadocExample) {
  const auto g = group({member("C0", {"t0", "t1"}), member("C1", {"t0", "t1"})}, {{"t0", 3}, {"t1", 3}});
  const GroupAssignment expected = {
      {"C0", {tp("t0", 0), tp("t0", 1), tp("t1", 0), tp("t1", 1)}},
      {"C1", {tp("t0", 2), tp("t1", 2)}},
  };
  EXPECT_EQ(range_assign(g), expected);
}

TEST(RangeAssignor, SplitsEachTopicIntoContiguousRangesExtrasFirst) {
  const auto g = group({member("a", {"t"}), member("b", {"t"}), member("c", {"t"})}, {{"t", 8}});
  const GroupAssignment expected = {
      {"a", {tp("t", 0), tp("t", 1), tp("t", 2)}},
      {"b", {tp("t", 3), tp("t", 4), tp("t", 5)}},
      {"c", {tp("t", 6), tp("t", 7)}},
  };
  EXPECT_EQ(range_assign(g), expected);
}

// KIP-345: static members come first, ordered by group.instance.id, whatever their member ids.
TEST(RangeAssignor, StaticMembersFirstByInstanceId) {
  MemberSubscription a = member("a", {"t"});
  MemberSubscription b = member("b", {"t"});
  MemberSubscription c = member("c", {"t"});
  b.group_instance_id = "z";
  c.group_instance_id = "y";
  const auto g = group({a, b, c}, {{"t", 4}});
  const GroupAssignment expected = {
      {"c", {tp("t", 0), tp("t", 1)}},
      {"b", {tp("t", 2)}},
      {"a", {tp("t", 3)}},
  };
  EXPECT_EQ(range_assign(g), expected);
  EXPECT_EQ(round_robin_assign(g),
            (GroupAssignment{{"c", {tp("t", 0), tp("t", 3)}}, {"b", {tp("t", 1)}}, {"a", {tp("t", 2)}}}));
}

TEST(RangeAssignor, MoreMembersThanPartitionsLeavesExtrasEmpty) {
  const auto g = group({member("a", {"t"}), member("b", {"t"}), member("c", {"t"})}, {{"t", 2}});
  const GroupAssignment expected = {{"a", {tp("t", 0)}}, {"b", {tp("t", 1)}}, {"c", {}}};
  EXPECT_EQ(range_assign(g), expected);
  EXPECT_EQ(round_robin_assign(g), expected);
  EXPECT_EQ(sticky_assign(g), expected);
  EXPECT_EQ(cooperative_sticky_assign(g), expected);
}

// Kafka skips a subscribed topic that the metadata does not know, or that has no partitions.
TEST(RangeAssignor, SkipsTopicsWithoutMetadata) {
  const auto g = group({member("a", {"t", "gone", "empty"}), member("b", {"gone"})}, {{"t", 2}, {"empty", 0}});
  const GroupAssignment expected = {{"a", {tp("t", 0), tp("t", 1)}}, {"b", {}}};
  EXPECT_EQ(range_assign(g), expected);
  EXPECT_EQ(round_robin_assign(g), expected);
  EXPECT_EQ(sticky_assign(g), expected);
}

// ---- RoundRobinAssignor --------------------------------------------------------------------

// RoundRobinAssignor javadoc, first example.
TEST(RoundRobinAssignor, JavadocExample) {
  const auto g = group({member("C0", {"t0", "t1"}), member("C1", {"t0", "t1"})}, {{"t0", 3}, {"t1", 3}});
  const GroupAssignment expected = {
      {"C0", {tp("t0", 0), tp("t0", 2), tp("t1", 1)}},
      {"C1", {tp("t0", 1), tp("t1", 0), tp("t1", 2)}},
  };
  EXPECT_EQ(round_robin_assign(g), expected);
}

// RoundRobinAssignor javadoc, different subscriptions.
TEST(RoundRobinAssignor, JavadocExampleWithDifferentSubscriptions) {
  const auto g = group({member("C0", {"t0"}), member("C1", {"t0", "t1"}), member("C2", {"t0", "t1", "t2"})},
                       {{"t0", 1}, {"t1", 2}, {"t2", 3}});
  const GroupAssignment expected = {
      {"C0", {tp("t0", 0)}},
      {"C1", {tp("t1", 0)}},
      {"C2", {tp("t1", 1), tp("t2", 0), tp("t2", 1), tp("t2", 2)}},
  };
  EXPECT_EQ(round_robin_assign(g), expected);
}

// ---- StickyAssignor ------------------------------------------------------------------------

// StickyAssignor javadoc, example 1: three consumers, four topics of two partitions each.
TEST(StickyAssignor, JavadocExample1) {
  const std::vector<std::string> all = {"t0", "t1", "t2", "t3"};
  const Partitions partitions = {{"t0", 2}, {"t1", 2}, {"t2", 2}, {"t3", 2}};
  const auto first = group({member("C0", all), member("C1", all), member("C2", all)}, partitions);
  const GroupAssignment initial = {
      {"C0", {tp("t0", 0), tp("t1", 1), tp("t3", 0)}},
      {"C1", {tp("t0", 1), tp("t2", 0), tp("t3", 1)}},
      {"C2", {tp("t1", 0), tp("t2", 1)}},
  };
  EXPECT_EQ(sticky_assign(first), initial);  // "with both sticky and round robin assignors"
  EXPECT_EQ(round_robin_assign(first), initial);

  // C1 leaves. Round robin starts over and moves partitions of C0 and C2.
  auto second = after(first, initial, 1);
  second.members.erase(second.members.begin() + 1);
  EXPECT_EQ(round_robin_assign(second), (GroupAssignment{
                                            {"C0", {tp("t0", 0), tp("t1", 0), tp("t2", 0), tp("t3", 0)}},
                                            {"C2", {tp("t0", 1), tp("t1", 1), tp("t2", 1), tp("t3", 1)}},
                                        }));
  // Sticky keeps all of C0's and C2's partitions and shares out C1's. (The javadoc, written for
  // the original algorithm, gives C0 t2p0 and C2 t0p1; Kafka's constrained algorithm, used
  // since 2.8 when subscriptions are equal, deals C1's partitions in (topic, partition) order
  // round-robin over the members under quota: t0p1 to C0, t2p0 and t3p1 to C2.)
  const GroupAssignment sticky = sticky_assign(second);
  EXPECT_EQ(sticky, (GroupAssignment{
                        {"C0", {tp("t0", 0), tp("t0", 1), tp("t1", 1), tp("t3", 0)}},
                        {"C2", {tp("t1", 0), tp("t2", 0), tp("t2", 1), tp("t3", 1)}},
                    }));
  for (const char* id : {"C0", "C2"}) {
    for (const TopicPartition& p : initial.at(id)) {
      EXPECT_NE(std::find(sticky.at(id).begin(), sticky.at(id).end(), p), sticky.at(id).end()) << id;
    }
  }
}

// StickyAssignor javadoc, example 2: C0 subscribes to t0; C1 to t0, t1; C2 to t0, t1, t2;
// with 1, 2 and 3 partitions.
TEST(StickyAssignor, JavadocExample2UnevenSubscriptions) {
  const auto first = group({member("C0", {"t0"}), member("C1", {"t0", "t1"}), member("C2", {"t0", "t1", "t2"})},
                           {{"t0", 1}, {"t1", 2}, {"t2", 3}});
  const GroupAssignment initial = {
      {"C0", {tp("t0", 0)}},
      {"C1", {tp("t1", 0), tp("t1", 1)}},
      {"C2", {tp("t2", 0), tp("t2", 1), tp("t2", 2)}},
  };
  EXPECT_EQ(sticky_assign(first), initial);
  EXPECT_EQ(round_robin_assign(first), (GroupAssignment{
                                           {"C0", {tp("t0", 0)}},
                                           {"C1", {tp("t1", 0)}},
                                           {"C2", {tp("t1", 1), tp("t2", 0), tp("t2", 1), tp("t2", 2)}},
                                       }));

  // C0 leaves: sticky preserves 5 partition assignments, round robin 3.
  auto second = after(first, initial, 1);
  second.members.erase(second.members.begin());
  EXPECT_EQ(sticky_assign(second), (GroupAssignment{
                                       {"C1", {tp("t0", 0), tp("t1", 0), tp("t1", 1)}},
                                       {"C2", {tp("t2", 0), tp("t2", 1), tp("t2", 2)}},
                                   }));
  EXPECT_EQ(round_robin_assign(second), (GroupAssignment{
                                            {"C1", {tp("t0", 0), tp("t1", 1)}},
                                            {"C2", {tp("t1", 0), tp("t2", 0), tp("t2", 1), tp("t2", 2)}},
                                        }));
}

// Two members claim t0p0; the claim of the older generation loses, whichever member id sorts
// first. (Were the first claim kept, the stale member would get t0p0.)
TEST(StickyAssignor, StaleClaimLosesToNewerGeneration) {
  for (const auto& [stale, fresh] : {std::pair{"A", "B"}, std::pair{"B", "A"}}) {
    const auto g = group({member(stale, {"t0"}, {tp("t0", 0)}, 1), member(fresh, {"t0"}, {tp("t0", 0)}, 2)},
                         {{"t0", 2}});
    const GroupAssignment expected = {{stale, {tp("t0", 1)}}, {fresh, {tp("t0", 0)}}};
    EXPECT_EQ(sticky_assign(g), expected) << "stale " << stale;
    EXPECT_EQ(cooperative_sticky_assign(g), expected) << "stale " << stale;
  }
}

// Claimed by two members of one generation, t0p0 is nobody's: sticky gives it to someone,
// cooperative-sticky to nobody until the next rebalance.
TEST(StickyAssignor, DoubleClaimInOneGenerationMoves) {
  const auto g = group({member("A", {"t0"}, {tp("t0", 0)}, 3), member("B", {"t0"}, {tp("t0", 0)}, 3)}, {{"t0", 2}});
  EXPECT_EQ(sticky_assign(g), (GroupAssignment{{"A", {tp("t0", 0)}}, {"B", {tp("t0", 1)}}}));
  EXPECT_EQ(cooperative_sticky_assign(g), (GroupAssignment{{"A", {}}, {"B", {tp("t0", 1)}}}));
}

// A claim without a generation (an older client) loses to one with a generation.
TEST(StickyAssignor, MissingGenerationCountsAsMinusOne) {
  const auto g = group({member("A", {"t0"}, {tp("t0", 0)}), member("B", {"t0"}, {tp("t0", 0)}, 0)}, {{"t0", 2}});
  EXPECT_EQ(sticky_assign(g), (GroupAssignment{{"A", {tp("t0", 1)}}, {"B", {tp("t0", 0)}}}));
}

// ---- CooperativeStickyAssignor -------------------------------------------------------------

// C joins a group where A and B own two partitions each: B must give one up. The first
// rebalance takes it from B and gives it to nobody; the second gives it to C.
TEST(CooperativeStickyAssignor, MemberJoinsTwoRebalances) {
  const auto first = group({member("A", {"t0"}, {tp("t0", 0), tp("t0", 1)}, 5),
                            member("B", {"t0"}, {tp("t0", 2), tp("t0", 3)}, 5), member("C", {"t0"})},
                           {{"t0", 4}});
  EXPECT_EQ(sticky_assign(first),
            (GroupAssignment{{"A", {tp("t0", 0), tp("t0", 1)}}, {"B", {tp("t0", 2)}}, {"C", {tp("t0", 3)}}}));
  const GroupAssignment round1 = cooperative_sticky_assign(first);
  EXPECT_EQ(round1, (GroupAssignment{{"A", {tp("t0", 0), tp("t0", 1)}}, {"B", {tp("t0", 2)}}, {"C", {}}}));
  const GroupAssignment round2 = cooperative_sticky_assign(after(first, round1, 6));
  EXPECT_EQ(round2, (GroupAssignment{{"A", {tp("t0", 0), tp("t0", 1)}}, {"B", {tp("t0", 2)}}, {"C", {tp("t0", 3)}}}));
}

// Different subscriptions (the general algorithm): the moves are computed from owned lists.
TEST(CooperativeStickyAssignor, GeneralAlgorithmHoldsBackMovedPartitions) {
  const auto first = group(
      {member("A", {"t0", "t1"}, {tp("t0", 0), tp("t0", 1), tp("t1", 0), tp("t1", 1)}, 1), member("B", {"t0"})},
      {{"t0", 2}, {"t1", 2}});
  EXPECT_EQ(sticky_assign(first),
            (GroupAssignment{{"A", {tp("t1", 0), tp("t1", 1)}}, {"B", {tp("t0", 0), tp("t0", 1)}}}));
  const GroupAssignment round1 = cooperative_sticky_assign(first);
  EXPECT_EQ(round1, (GroupAssignment{{"A", {tp("t1", 0), tp("t1", 1)}}, {"B", {}}}));
  EXPECT_EQ(cooperative_sticky_assign(after(first, round1, 2)),
            (GroupAssignment{{"A", {tp("t1", 0), tp("t1", 1)}}, {"B", {tp("t0", 0), tp("t0", 1)}}}));
}

// A member that leaves frees its partitions at once: nobody else owned them.
TEST(CooperativeStickyAssignor, PartitionsOfALeaverAreAssignedAtOnce) {
  const auto g = group({member("A", {"t0"}, {tp("t0", 0)}, 2), member("B", {"t0"}, {tp("t0", 1)}, 2)}, {{"t0", 3}});
  EXPECT_EQ(cooperative_sticky_assign(g), (GroupAssignment{{"A", {tp("t0", 0), tp("t0", 2)}}, {"B", {tp("t0", 1)}}}));
}

// PLANTED BUG cooperative-double-ownership (KAFKA-12984): nothing is held back, so C gets
// t0-3 in the rebalance in which B still owns it.
TEST(CooperativeStickyAssignor, DoubleOwnershipPlantSkipsTheWithholding) {
  const auto first = group({member("A", {"t0"}, {tp("t0", 0), tp("t0", 1)}, 5),
                            member("B", {"t0"}, {tp("t0", 2), tp("t0", 3)}, 5), member("C", {"t0"})},
                           {{"t0", 4}});
  Plants plants;
  EXPECT_EQ(cooperative_sticky_assign(first, plants), cooperative_sticky_assign(first));
  plants.add(Plant::kCooperativeDoubleOwnership);
  EXPECT_EQ(cooperative_sticky_assign(first, plants), sticky_assign(first));
  EXPECT_EQ(cooperative_sticky_assign(first, plants).at("C"), std::vector<TopicPartition>{tp("t0", 3)});
}

// ---- Factory -------------------------------------------------------------------------------

TEST(AssignorByName, KafkaNamesAndClassNames) {
  struct Case {
    const char* name;
    const char* class_name;
    RebalanceProtocol protocol;
    GroupAssignment (*assign)(const GroupSubscription&);
  };
  const Case cases[] = {
      {"range", "org.apache.kafka.clients.consumer.RangeAssignor", RebalanceProtocol::kEager, &range_assign},
      {"roundrobin", "org.apache.kafka.clients.consumer.RoundRobinAssignor", RebalanceProtocol::kEager,
       &round_robin_assign},
      {"sticky", "org.apache.kafka.clients.consumer.StickyAssignor", RebalanceProtocol::kEager, &sticky_assign},
      {"cooperative-sticky", "org.apache.kafka.clients.consumer.CooperativeStickyAssignor",
       RebalanceProtocol::kCooperative, &cooperative_sticky_assign},
  };
  for (const Case& c : cases) {
    for (const char* key : {c.name, c.class_name}) {
      const auto a = assignor_by_name(key);
      ASSERT_TRUE(a.has_value()) << key;
      EXPECT_EQ(a->name, c.name);
      EXPECT_EQ(a->protocol, c.protocol);
      EXPECT_EQ(a->assign, c.assign);
    }
  }
  for (const char* unknown : {"", "Range", "round-robin", "uniform", "RangeAssignor",
                              "org.apache.kafka.clients.consumer.UniformAssignor"}) {
    EXPECT_FALSE(assignor_by_name(unknown).has_value()) << unknown;
  }
}

TEST(AssignorByName, EmptyGroupGetsEmptyAssignment) {
  for (const char* name : {"range", "roundrobin", "sticky", "cooperative-sticky"}) {
    EXPECT_TRUE(assignor_by_name(name)->assign(group({}, {{"t", 3}})).empty()) << name;
  }
}

// ---- Properties ----------------------------------------------------------------------------

// A random group. Claims are either "valid" (one previous assignment: disjoint, one
// generation, new members without) or "messy" (overlapping claims of mixed generations,
// partitions and topics that do not exist).
struct RandomGroup {
  GroupSubscription group;
};

void showValue(const RandomGroup& r, std::ostream& os) {
  os << "metadata:";
  for (const auto& [topic, count] : r.group.partitions_per_topic) os << " " << topic << "=" << count;
  for (const MemberSubscription& m : r.group.members) {
    os << "\n  " << m.member_id;
    if (m.group_instance_id) os << " (instance " << *m.group_instance_id << ")";
    os << " topics [";
    for (const std::string& t : m.topics) os << " " << t;
    os << " ] owned [";
    for (const TopicPartition& p : m.owned) os << " " << p.topic << "p" << p.partition;
    os << " ] generation " << (m.generation ? m.generation->value() : -1);
  }
}

enum class Subscriptions : std::uint8_t { kEqual, kAny };
enum class Claims : std::uint8_t { kValid, kMessy };

void showValue(Subscriptions s, std::ostream& os) { os << (s == Subscriptions::kEqual ? "equal" : "any"); }
void showValue(Claims c, std::ostream& os) { os << (c == Claims::kValid ? "valid" : "messy"); }

std::vector<std::string> random_topics(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& t : names) {
    if (*rc::gen::inRange(0, 2) == 0) out.push_back(t);
  }
  return out;
}

rc::Gen<RandomGroup> gen_group(Subscriptions subscriptions, Claims claims) {
  return rc::gen::exec([subscriptions, claims] {
    RandomGroup r;
    const int topic_count = *rc::gen::inRange(1, 5);
    std::vector<std::string> names = {"gone"};  // subscribed by some, unknown to the metadata
    for (int t = 0; t < topic_count; ++t) {
      names.push_back("t" + std::to_string(t));
      r.group.partitions_per_topic[names.back()] = *rc::gen::inRange(0, 7);
    }
    std::vector<int> ids = *rc::gen::unique<std::vector<int>>(rc::gen::inRange(0, 40));
    if (ids.empty()) ids.push_back(0);
    if (ids.size() > 7) ids.resize(7);
    const std::vector<std::string> common = random_topics(names);
    const std::int32_t generation = *rc::gen::inRange(0, 5);
    for (int id : ids) {
      MemberSubscription m;
      m.member_id = "m" + std::to_string(id);
      if (*rc::gen::inRange(0, 4) == 0) m.group_instance_id = "i" + std::to_string(*rc::gen::inRange(0, 40));
      m.topics = subscriptions == Subscriptions::kEqual ? common : random_topics(names);
      const bool fresh = *rc::gen::inRange(0, 4) == 0;
      if (!fresh) m.generation = GenerationId(claims == Claims::kValid ? generation : *rc::gen::inRange(-1, 3));
      r.group.members.push_back(std::move(m));
    }
    // Owned partitions: every existing partition (and in messy mode some that do not exist)
    // is claimed by no member, one, or (messy) two, drawn from the first `owners` members, so
    // that ownership is often lopsided (members that left, or a scale-out).
    const std::size_t owners = *rc::gen::inRange<std::size_t>(1, r.group.members.size() + 1);
    for (const auto& [topic, count] : r.group.partitions_per_topic) {
      const std::int32_t top = claims == Claims::kValid ? count : count + 1;
      for (std::int32_t p = 0; p < top; ++p) {
        const int claimants = claims == Claims::kValid ? *rc::gen::weightedElement<int>({{1, 0}, {3, 1}})
                                                       : *rc::gen::inRange(0, 3);
        for (int c = 0; c < claimants; ++c) {
          MemberSubscription& m = r.group.members[*rc::gen::inRange<std::size_t>(0, owners)];
          if (m.generation || claims == Claims::kMessy) m.owned.push_back(tp(topic, p));
        }
      }
    }
    if (claims == Claims::kMessy) r.group.members.front().owned.push_back(tp("gone", 0));
    return r;
  });
}

// Kafka's partitions to assign: topics subscribed by someone, known with partitions.
std::set<TopicPartition> partitions_to_assign(const GroupSubscription& g) {
  std::set<TopicPartition> out;
  for (const MemberSubscription& m : g.members) {
    for (const std::string& topic : m.topics) {
      const auto it = g.partitions_per_topic.find(topic);
      if (it == g.partitions_per_topic.end()) continue;
      for (std::int32_t p = 0; p < it->second; ++p) out.insert(tp(topic, p));
    }
  }
  return out;
}

const MemberSubscription* find_member(const GroupSubscription& g, const MemberId& id) {
  const auto it = std::find_if(g.members.begin(), g.members.end(),
                               [&](const MemberSubscription& m) { return m.member_id == id; });
  return it == g.members.end() ? nullptr : &*it;
}

bool subscribed(const MemberSubscription& m, const std::string& topic) {
  return std::find(m.topics.begin(), m.topics.end(), topic) != m.topics.end();
}

// Each assigned partition exists, goes to a subscriber of its topic, at most once; every
// member is listed, with sorted partitions. Returns what was assigned.
std::set<TopicPartition> check_valid(const GroupSubscription& g, const GroupAssignment& a) {
  RC_ASSERT(a.size() == g.members.size());
  const std::set<TopicPartition> all = partitions_to_assign(g);
  std::set<TopicPartition> assigned;
  for (const auto& [id, mine] : a) {
    const MemberSubscription* found = find_member(g, id);
    RC_ASSERT(found != nullptr);
    const MemberSubscription& m = *found;
    RC_ASSERT(std::is_sorted(mine.begin(), mine.end()));
    for (const TopicPartition& p : mine) {
      RC_ASSERT(all.contains(p));
      RC_ASSERT(subscribed(m, p.topic));
      RC_ASSERT(assigned.insert(p).second);
    }
  }
  return assigned;
}

RC_GTEST_PROP(AssignorProperty, EveryPartitionGoesToExactlyOneSubscriber, ()) {
  const Subscriptions s = *rc::gen::element(Subscriptions::kEqual, Subscriptions::kAny);
  const RandomGroup r = *gen_group(s, Claims::kMessy);
  for (auto assign : {&range_assign, &round_robin_assign, &sticky_assign}) {
    RC_ASSERT(check_valid(r.group, assign(r.group)) == partitions_to_assign(r.group));
  }
}

// Cooperative-sticky gives out a subset of the sticky assignment; what it holds back was
// owned by a member other than the one the sticky assignment gives it to.
RC_GTEST_PROP(AssignorProperty, CooperativeHoldsBackOnlyPartitionsThatMove, ()) {
  const Subscriptions s = *rc::gen::element(Subscriptions::kEqual, Subscriptions::kAny);
  const RandomGroup r = *gen_group(s, Claims::kMessy);
  const GroupAssignment sticky = sticky_assign(r.group);
  const GroupAssignment coop = cooperative_sticky_assign(r.group);
  check_valid(r.group, coop);
  RC_CLASSIFY(coop != sticky, "some partition held back");
  for (const auto& [id, mine] : sticky) {
    const std::vector<TopicPartition>& given = coop.at(id);
    RC_ASSERT(std::includes(mine.begin(), mine.end(), given.begin(), given.end()));
    for (const TopicPartition& p : mine) {
      if (std::binary_search(given.begin(), given.end(), p)) continue;
      const bool owned_elsewhere =
          std::any_of(r.group.members.begin(), r.group.members.end(), [&](const MemberSubscription& m) {
            return m.member_id != id && std::find(m.owned.begin(), m.owned.end(), p) != m.owned.end();
          });
      RC_ASSERT(owned_elsewhere);
    }
  }
}

// With claims from one valid previous assignment, no member is given a partition that another
// member still owns (no double ownership, the bug class of KAFKA-12984).
RC_GTEST_PROP(AssignorProperty, CooperativeNeverGivesAPartitionAnotherMemberOwns, ()) {
  const Subscriptions s = *rc::gen::element(Subscriptions::kEqual, Subscriptions::kAny);
  const RandomGroup r = *gen_group(s, Claims::kValid);
  const GroupAssignment coop = cooperative_sticky_assign(r.group);
  for (const auto& [id, mine] : coop) {
    for (const MemberSubscription& other : r.group.members) {
      if (other.member_id == id) continue;
      for (const TopicPartition& p : mine) {
        RC_ASSERT(std::find(other.owned.begin(), other.owned.end(), p) == other.owned.end());
      }
    }
  }
}

RC_GTEST_PROP(AssignorProperty, StickyIsBalancedWhenSubscriptionsAreEqual, ()) {
  const RandomGroup r = *gen_group(Subscriptions::kEqual, Claims::kMessy);
  const GroupAssignment a = sticky_assign(r.group);
  std::size_t min = SIZE_MAX;
  std::size_t max = 0;
  for (const auto& [id, mine] : a) {
    min = std::min(min, mine.size());
    max = std::max(max, mine.size());
  }
  RC_ASSERT(max <= min + 1);
}

// With equal subscriptions and valid claims, sticky keeps as many owned partitions as a
// balanced assignment can: each member min(owned, minQuota), plus one more for as many members
// owning maxQuota or more as may end at maxQuota.
RC_GTEST_PROP(AssignorProperty, StickyKeepsEveryOwnedPartitionBalanceAllows, ()) {
  const RandomGroup r = *gen_group(Subscriptions::kEqual, Claims::kValid);
  const std::set<TopicPartition> all = partitions_to_assign(r.group);
  const std::size_t members = r.group.members.size();
  const std::size_t min_quota = all.size() / members;
  const std::size_t max_quota = (all.size() + members - 1) / members;
  const GroupAssignment a = sticky_assign(r.group);
  std::size_t best = 0;
  std::size_t owning_max = 0;
  std::size_t kept = 0;
  std::size_t owned_total = 0;
  for (const MemberSubscription& m : r.group.members) {
    std::size_t owned = 0;
    std::size_t retained = 0;
    for (const TopicPartition& p : m.owned) {
      if (!all.contains(p)) continue;
      ++owned;
      const std::vector<TopicPartition>& mine = a.at(m.member_id);
      if (std::find(mine.begin(), mine.end(), p) != mine.end()) ++retained;
    }
    RC_ASSERT(retained >= std::min(owned, min_quota));
    owned_total += owned;
    best += std::min(owned, min_quota);
    if (owned >= max_quota && max_quota > min_quota) ++owning_max;
    kept += retained;
  }
  best += std::min(owning_max, all.size() % members);
  RC_CLASSIFY(kept > 0 && kept < owned_total, "some owned partitions given up");
  RC_ASSERT(kept == best);
}

// A previous assignment that is complete and balanced (sizes differ by at most one) is kept
// as it is, by both sticky algorithms; here it is what range or roundrobin gave.
RC_GTEST_PROP(AssignorProperty, StickyKeepsABalancedPreviousAssignment, ()) {
  const Subscriptions s = *rc::gen::element(Subscriptions::kEqual, Subscriptions::kAny);
  const RandomGroup r = *gen_group(s, Claims::kValid);
  const bool from_range = *rc::gen::arbitrary<bool>();
  const GroupAssignment previous = from_range ? range_assign(r.group) : round_robin_assign(r.group);
  std::size_t min = SIZE_MAX;
  std::size_t max = 0;
  for (const auto& [id, mine] : previous) {
    min = std::min(min, mine.size());
    max = std::max(max, mine.size());
  }
  RC_PRE(max <= min + 1);
  RC_CLASSIFY(s == Subscriptions::kAny, "different subscriptions");
  const GroupSubscription next = after(r.group, previous, 7);
  RC_ASSERT(sticky_assign(next) == previous);
  RC_ASSERT(cooperative_sticky_assign(next) == previous);
}

// KIP-429's promise: with stable membership, the rebalance after a cooperative one (each
// member owning what it was given) assigns everything and moves nothing more.
RC_GTEST_PROP(AssignorProperty, CooperativeCompletesInTheFollowUpRebalance, ()) {
  const RandomGroup r = *gen_group(Subscriptions::kEqual, Claims::kValid);
  const GroupAssignment round1 = cooperative_sticky_assign(r.group);
  RC_CLASSIFY(round1 != sticky_assign(r.group), "first rebalance held partitions back");
  const GroupSubscription next = after(r.group, round1, 100);
  const GroupAssignment round2 = cooperative_sticky_assign(next);
  RC_ASSERT(check_valid(next, round2) == partitions_to_assign(next));
  for (const auto& [id, mine] : round1) {
    const std::vector<TopicPartition>& now = round2.at(id);
    RC_ASSERT(std::includes(now.begin(), now.end(), mine.begin(), mine.end()));
  }
}

// Same input, same output; and the order of members, of their topics and of their owned
// partitions does not matter.
RC_GTEST_PROP(AssignorProperty, DeterministicAndIndependentOfInputOrder, ()) {
  const Subscriptions s = *rc::gen::element(Subscriptions::kEqual, Subscriptions::kAny);
  const Claims c = *rc::gen::element(Claims::kValid, Claims::kMessy);
  const RandomGroup r = *gen_group(s, c);
  GroupSubscription shuffled = r.group;
  const auto keys = *rc::gen::container<std::vector<int>>(shuffled.members.size(), rc::gen::arbitrary<int>());
  std::vector<std::pair<int, MemberSubscription>> keyed;
  for (std::size_t i = 0; i < keys.size(); ++i) keyed.emplace_back(keys[i], shuffled.members[i]);
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  shuffled.members.clear();
  for (auto& [key, m] : keyed) {
    std::reverse(m.topics.begin(), m.topics.end());
    std::reverse(m.owned.begin(), m.owned.end());
    shuffled.members.push_back(std::move(m));
  }
  for (auto assign : {&range_assign, &round_robin_assign, &sticky_assign, &cooperative_sticky_assign}) {
    const GroupAssignment once = assign(r.group);
    RC_ASSERT(assign(r.group) == once);
    RC_ASSERT(assign(shuffled) == once);
  }
}

}  // namespace
}  // namespace logsim::engine

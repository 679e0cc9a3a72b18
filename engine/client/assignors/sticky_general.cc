// Kafka's general sticky algorithm, for groups whose members subscribe to different topics
// (AbstractStickyAssignor's GeneralAssignmentBuilder, without racks):
// 1. Every member keeps its validated owned partitions whose topic it still subscribes to
//    (dropping one that it no longer subscribes to means a revocation is required).
// 2. Each unassigned partition goes to the least-loaded subscriber, partitions taken by topic
//    (fewest potential consumers first, then by name) and then by partition.
// 3. Balancing: while the assignment is not balanced (some member could take a partition of
//    a member with two or more partitions more than it has), walk the partitions that could
//    move: one whose owner has more than one partition more than its owner of an earlier
//    generation goes back there; otherwise it goes to the least-loaded subscriber if some
//    subscriber has two fewer. Moves are recorded so that a movement between two members is
//    undone rather than mirrored (stickiness). First only the partitions that were unassigned
//    are walked (unless a revocation is required), then all.
// 4. If the owned partitions were kept and balancing did not improve the balance score (the
//    sum of size differences over all member pairs), the pre-balancing assignment stands.
// Topics with one potential consumer and members that cannot gain or lose anything stay out
// of step 3.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/client/assignors/assignor.h"
#include "engine/client/assignors/assignor_util.h"
#include "engine/client/assignors/sticky.h"
#include "engine/base/assert.h"

namespace logsim::engine::assignors {

namespace {

// Kafka's PartitionMovements: where each moved partition came from and went, per topic and
// (source, destination) pair, so that a move can undo an earlier one instead.
class Movements {
 public:
  using Pair = std::pair<MemberId, MemberId>;  // (source, destination)

  void move(const TopicPartition& tp, const MemberId& from, const MemberId& to) {
    const auto it = moves_.find(tp);
    if (it == moves_.end()) {
      add(tp, {from, to});
      return;
    }
    const Pair earlier = remove(tp);
    LOGSIM_ASSERT(earlier.second == from, "sticky: a moved partition left a member that did not have it");
    if (earlier.first != to) add(tp, {earlier.first, to});  // else it went back home
  }

  // The partition to move so that `from` -> `to` undoes an earlier `to` -> `from` of the same
  // topic if there was one; else `tp` itself. (Kafka takes the first of a HashSet; we take the
  // lowest partition.)
  TopicPartition actual_partition_to_move(const TopicPartition& tp, MemberId from, const MemberId& to) const {
    const auto topic = by_topic_.find(tp.topic);
    if (topic == by_topic_.end()) return tp;
    if (const auto it = moves_.find(tp); it != moves_.end()) from = it->second.first;
    const auto reverse = topic->second.find(Pair{to, from});
    if (reverse == topic->second.end()) return tp;
    return *reverse->second.begin();
  }

 private:
  void add(const TopicPartition& tp, const Pair& pair) {
    moves_[tp] = pair;
    by_topic_[tp.topic][pair].insert(tp);
  }

  Pair remove(const TopicPartition& tp) {
    const Pair pair = moves_.at(tp);
    moves_.erase(tp);
    auto& topic = by_topic_.at(tp.topic);
    topic.at(pair).erase(tp);
    if (topic.at(pair).empty()) topic.erase(pair);
    if (topic.empty()) by_topic_.erase(tp.topic);
    return pair;
  }

  std::map<TopicPartition, Pair> moves_;
  std::map<std::string, std::map<Pair, std::set<TopicPartition>>> by_topic_;
};

struct PreviousOwner {
  MemberId member;
  std::int32_t generation = -1;
};

class GeneralBuilder {
 public:
  GeneralBuilder(const GroupSubscription& group, const std::map<std::string, std::int32_t>& partitions,
                 StickyClaims claims)
      : partitions_(partitions), max_generation_(claims.max_generation), current_(std::move(claims.owned)) {
    for (const auto& [topic, count] : partitions) topic_consumers_[topic];
    for (const MemberSubscription& m : group.members) members_.emplace(m.member_id, &m);
    for (const auto& [id, member] : members_) {
      std::vector<std::string>& topics = consumer_topics_[id];
      for (const std::string& topic : std::set<std::string>(member->topics.begin(), member->topics.end())) {
        if (!partitions.contains(topic)) continue;
        topics.push_back(topic);
        topic_consumers_[topic].push_back(id);
      }
      current_[id];
    }
    for (const auto& [member, mine] : current_) {
      for (const TopicPartition& tp : mine) owner_[tp] = member;
    }
    std::vector<std::string> topics;
    for (const auto& [topic, count] : partitions) topics.push_back(topic);
    std::stable_sort(topics.begin(), topics.end(), [&](const std::string& a, const std::string& b) {
      return topic_consumers_[a].size() < topic_consumers_[b].size();
    });
    for (const std::string& topic : topics) {
      for (std::int32_t p = 0; p < partitions.at(topic); ++p) sorted_all_.push_back({topic, PartitionId(p)});
    }
  }

  GroupAssignment build() {
    prepopulate_previous();
    const std::set<TopicPartition> assigned = keep_owned();
    std::vector<TopicPartition> unassigned;
    for (const TopicPartition& tp : sorted_all_) {
      if (!assigned.contains(tp)) unassigned.push_back(tp);
    }
    balance(unassigned);
    return current_;
  }

 private:
  // Claims of members older than the newest generation: where a partition may go back to.
  void prepopulate_previous() {
    for (const auto& [id, member] : members_) {
      std::int32_t generation = -1;
      if (member->generation && member->generation->value() < max_generation_) {
        generation = member->generation->value();
      } else if (member->generation || max_generation_ == -1) {
        continue;
      }
      for (const TopicPartition& tp : member->owned) {
        const auto it = previous_.find(tp);
        if (it == previous_.end() || generation > it->second.generation) previous_[tp] = {id, generation};
      }
    }
  }

  std::set<TopicPartition> keep_owned() {
    std::set<TopicPartition> assigned;
    for (auto& [member, mine] : current_) {
      const auto& subscriber = *members_.at(member);  // (clang 14 cannot capture a structured binding)
      std::erase_if(mine, [&](const TopicPartition& tp) {
        if (subscribes(subscriber, tp.topic)) return false;
        revocation_required_ = true;
        return true;
      });
      assigned.insert(mine.begin(), mine.end());
    }
    return assigned;
  }

  bool subscribes_to(const MemberId& member, const std::string& topic) const {
    const std::vector<std::string>& topics = consumer_topics_.at(member);
    return std::find(topics.begin(), topics.end(), topic) != topics.end();
  }

  // Kafka's first of sortedCurrentSubscriptions (by load, then id) that can take `topic`.
  std::optional<MemberId> least_loaded_subscriber(const std::string& topic) const {
    std::optional<MemberId> best;
    for (const auto& [member, mine] : current_) {
      if (!subscribes_to(member, topic)) continue;
      if (!best || mine.size() < current_.at(*best).size()) best = member;
    }
    return best;
  }

  std::size_t max_assignment_size(const MemberId& member) const {
    std::size_t total = 0;
    for (const std::string& topic : consumer_topics_.at(member)) {
      total += static_cast<std::size_t>(partitions_.at(topic));
    }
    return total;
  }

  bool is_balanced() const {
    std::size_t min = SIZE_MAX;
    std::size_t max = 0;
    for (const auto& [member, mine] : current_) {
      min = std::min(min, mine.size());
      max = std::max(max, mine.size());
    }
    if (current_.empty() || min + 1 >= max) return true;
    std::map<TopicPartition, MemberId> owners;
    for (const auto& [member, mine] : current_) {
      for (const TopicPartition& tp : mine) owners[tp] = member;
    }
    for (const auto& [member, mine] : current_) {
      if (mine.size() == max_assignment_size(member)) continue;
      const std::set<TopicPartition> has(mine.begin(), mine.end());
      for (const std::string& topic : consumer_topics_.at(member)) {
        for (std::int32_t p = 0; p < partitions_.at(topic); ++p) {
          const TopicPartition tp{topic, PartitionId(p)};
          const auto other = owners.find(tp);
          if (has.contains(tp) || other == owners.end()) continue;
          if (mine.size() + 1 < current_.at(other->second).size()) return false;
        }
      }
    }
    return true;
  }

  bool topic_can_move(const std::string& topic) const { return topic_consumers_.at(topic).size() >= 2; }

  bool member_can_move(const MemberId& member) const {
    const std::vector<TopicPartition>& mine = current_.at(member);
    if (mine.size() < max_assignment_size(member)) return true;
    return std::any_of(mine.begin(), mine.end(), [&](const TopicPartition& tp) { return topic_can_move(tp.topic); });
  }

  static std::size_t balance_score(const GroupAssignment& assignment) {
    std::vector<std::size_t> sizes;
    for (const auto& [member, mine] : assignment) sizes.push_back(mine.size());
    std::size_t score = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      for (std::size_t j = i + 1; j < sizes.size(); ++j) {
        score += sizes[i] > sizes[j] ? sizes[i] - sizes[j] : sizes[j] - sizes[i];
      }
    }
    return score;
  }

  void give(const TopicPartition& tp, const MemberId& member) {
    current_[member].push_back(tp);
    owner_[tp] = member;
  }

  void balance(std::vector<TopicPartition> unassigned) {
    bool initializing = true;
    for (const auto& [member, mine] : current_) initializing = initializing && mine.empty();
    for (const TopicPartition& tp : unassigned) {
      if (const auto member = least_loaded_subscriber(tp.topic)) give(tp, *member);
    }
    // Only what can move takes part: topics with two or more potential consumers, members
    // that could gain a partition or hold one such a topic.
    std::vector<TopicPartition> movable_all = sorted_all_;
    std::erase_if(movable_all, [&](const TopicPartition& tp) { return !topic_can_move(tp.topic); });
    std::erase_if(unassigned, [&](const TopicPartition& tp) { return !topic_can_move(tp.topic); });
    GroupAssignment fixed;
    for (const auto& [member, topics] : consumer_topics_) {
      if (!member_can_move(member)) fixed.emplace(member, std::move(current_.extract(member).mapped()));
    }
    const GroupAssignment before = current_;
    const std::map<TopicPartition, MemberId> owners_before = owner_;
    if (!revocation_required_) reassign_while_unbalanced(unassigned);
    const bool moved = reassign_while_unbalanced(movable_all);
    if (!initializing && moved && balance_score(current_) >= balance_score(before)) {
      current_ = before;
      owner_ = owners_before;
    }
    current_.merge(fixed);
  }

  bool reassign_while_unbalanced(const std::vector<TopicPartition>& movable) {
    bool moved = false;
    bool modified = true;
    // Each pass moves partitions towards balance; Kafka has no bound, so a pass count far past
    // any real need means the algorithm failed to converge: stop with an invariant failure.
    const std::size_t passes_max = 64 + 16 * (sorted_all_.size() + 1) * (current_.size() + 1);
    for (std::size_t pass = 0; modified; ++pass) {
      LOGSIM_ASSERT(pass < passes_max, "sticky: balancing does not converge");
      modified = false;
      for (std::size_t i = 0; i < movable.size() && !is_balanced(); ++i) {
        if (reassign_one(movable[i])) moved = modified = true;
      }
    }
    return moved;
  }

  bool reassign_one(const TopicPartition& tp) {
    const MemberId owner = owner_.at(tp);
    const std::size_t load = current_.at(owner).size();
    const auto previous = previous_.find(tp);
    if (previous != previous_.end() && current_.contains(previous->second.member) &&
        subscribes_to(previous->second.member, tp.topic) &&
        load > current_.at(previous->second.member).size() + 1) {
      reassign(tp, previous->second.member);
      return true;
    }
    for (const MemberId& other : topic_consumers_.at(tp.topic)) {
      if (current_.contains(other) && load > current_.at(other).size() + 1) {
        reassign(tp, *least_loaded_subscriber(tp.topic));
        return true;
      }
    }
    return false;
  }

  void reassign(const TopicPartition& tp, const MemberId& to) {
    const TopicPartition moving = movements_.actual_partition_to_move(tp, owner_.at(tp), to);
    const MemberId from = owner_.at(moving);
    movements_.move(moving, from, to);
    std::vector<TopicPartition>& theirs = current_.at(from);
    theirs.erase(std::find(theirs.begin(), theirs.end(), moving));
    give(moving, to);
  }

  const std::map<std::string, std::int32_t>& partitions_;
  const std::int32_t max_generation_;
  std::map<MemberId, const MemberSubscription*> members_;
  std::map<std::string, std::vector<MemberId>> topic_consumers_;  // potential consumers per topic
  std::map<MemberId, std::vector<std::string>> consumer_topics_;  // subscribed topics with metadata
  GroupAssignment current_;
  std::map<TopicPartition, MemberId> owner_;
  std::vector<TopicPartition> sorted_all_;
  std::map<TopicPartition, PreviousOwner> previous_;
  Movements movements_;
  bool revocation_required_ = false;
};

}  // namespace

GroupAssignment general_sticky_assign(const GroupSubscription& group,
                                      const std::map<std::string, std::int32_t>& partitions,
                                      StickyClaims claims) {
  return GeneralBuilder(group, partitions, std::move(claims)).build();
}

}  // namespace logsim::engine::assignors

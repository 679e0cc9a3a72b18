// Kafka's sticky assignor: the validation of owned-partition claims, and the constrained
// algorithm that runs when every member subscribes to the same topics (the general one is in
// sticky_general.cc).
//
// The constrained algorithm, with P partitions over C members, minQuota = P / C, maxQuota =
// ceil(P / C), and exactly P % C members ending at maxQuota:
// 1. Each member (in member-id order; Kafka: HashMap order) keeps its owned partitions,
//    sorted by (partition, topic): all of them if fewer than minQuota (it is then "under"),
//    maxQuota if it owns that many and fewer than P % C members have taken maxQuota so far,
//    else minQuota (and, while maxQuota places remain, it may take one more later).
// 2. The partitions nobody kept, sorted by (topic, partition), are dealt round-robin to the
//    under members (sorted by id) until each reaches minQuota, then one each to the members at
//    minQuota (sorted by id) until P % C members are at maxQuota.
// A partition dealt in step 2 that some member owned (it was over quota, or claimed twice in
// one generation) is "transferring": cooperative-sticky holds it back for one rebalance.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "engine/client/assignors/assignor.h"
#include "engine/client/assignors/assignor_util.h"
#include "engine/client/assignors/sticky.h"
#include "engine/base/assert.h"

namespace logsim::engine::assignors {

namespace {

std::int32_t generation_of(const MemberSubscription& m) {
  return m.generation ? m.generation->value() : -1;  // Kafka's DEFAULT_GENERATION
}

bool same_topics(const MemberSubscription& a, const MemberSubscription& b) {
  return std::set<std::string>(a.topics.begin(), a.topics.end()) ==
         std::set<std::string>(b.topics.begin(), b.topics.end());
}

void erase_partition(std::vector<TopicPartition>& list, const TopicPartition& tp) {
  list.erase(std::remove(list.begin(), list.end(), tp), list.end());
}

bool known(const std::map<std::string, std::int32_t>& partitions, const TopicPartition& tp) {
  const auto it = partitions.find(tp.topic);
  return it != partitions.end() && tp.partition.value() >= 0 && tp.partition.value() < it->second;
}

}  // namespace

StickyClaims resolve_claims(const GroupSubscription& group, const std::map<std::string, std::int32_t>& partitions) {
  std::map<MemberId, const MemberSubscription*> members;
  for (const MemberSubscription& m : group.members) members.emplace(m.member_id, &m);
  StickyClaims claims;
  std::map<TopicPartition, const MemberSubscription*> claimant;
  for (const auto& [id, member] : members) {
    claims.all_subscriptions_equal =
        claims.all_subscriptions_equal && same_topics(*member, *members.begin()->second);
    const std::int32_t generation = generation_of(*member);
    claims.max_generation = std::max(claims.max_generation, generation);
    std::vector<TopicPartition>& owned = claims.owned[id];
    std::set<TopicPartition> once;
    for (const TopicPartition& tp : member->owned) {
      if (!known(partitions, tp) || !once.insert(tp).second) continue;
      const auto [it, first] = claimant.emplace(tp, member);
      if (first) {
        owned.push_back(tp);
        continue;
      }
      const MemberSubscription* other = it->second;
      if (generation == generation_of(*other)) {
        claims.multiply_claimed.insert(tp);  // nobody's: it moves
        erase_partition(claims.owned[other->member_id], tp);
        it->second = member;
      } else if (generation > generation_of(*other)) {
        owned.push_back(tp);  // the other claim is stale
        erase_partition(claims.owned[other->member_id], tp);
        it->second = member;
      }
    }
  }
  return claims;
}

namespace {

// The constrained algorithm's state; see the file comment.
class ConstrainedBuilder {
 public:
  ConstrainedBuilder(const std::map<std::string, std::int32_t>& partitions, const StickyClaims& claims)
      : partitions_(partitions), claims_(claims) {
    std::size_t total = 0;
    for (const auto& [topic, count] : partitions) total += static_cast<std::size_t>(count);
    const std::size_t members = claims.owned.size();
    min_quota_ = total / members;
    max_quota_ = (total + members - 1) / members;
    expected_over_ = total % members;
  }

  StickyResult build() {
    StickyResult result{{}, std::map<TopicPartition, MemberId>{}};
    for (const auto& [member, owned] : claims_.owned) keep_owned(member, owned, result.assignment);
    std::sort(under_.begin(), under_.end());
    std::sort(at_min_.begin(), at_min_.end());
    deal_unassigned(result);
    check_quotas(result.assignment);
    return result;
  }

 private:
  void keep_owned(const MemberId& member, std::vector<TopicPartition> owned, GroupAssignment& out) {
    std::erase_if(owned, [&](const TopicPartition& tp) { return claims_.multiply_claimed.contains(tp); });
    std::sort(owned.begin(), owned.end(), [](const TopicPartition& a, const TopicPartition& b) {
      return std::tie(a.partition, a.topic) < std::tie(b.partition, b.topic);
    });
    std::size_t keep = min_quota_;
    if (owned.size() < min_quota_) {
      keep = owned.size();
      under_.push_back(member);
    } else if (owned.size() >= max_quota_ && over_ < expected_over_) {
      keep = max_quota_;
      if (++over_ == expected_over_) at_min_.clear();
    } else if (over_ < expected_over_) {
      at_min_.push_back(member);
    }
    std::vector<TopicPartition>& mine = out[member];
    for (std::size_t i = 0; i < owned.size(); ++i) {
      if (i < keep) {
        mine.push_back(owned[i]);
        kept_.insert(owned[i]);
      } else {
        revoked_.insert(owned[i]);
      }
    }
  }

  void deal_unassigned(StickyResult& result) {
    std::size_t next = 0;  // Kafka's iterator over the under members
    for (const auto& [topic, count] : partitions_) {
      for (std::int32_t p = 0; p < count; ++p) {
        const TopicPartition tp{topic, PartitionId(p)};
        if (kept_.contains(tp)) continue;
        MemberId member;
        bool from_under = true;
        if (next < under_.size()) {
          member = under_[next++];
        } else if (!under_.empty()) {
          next = 0;  // another lap over the under members
          member = under_[next++];
        } else {
          LOGSIM_ASSERT(!at_min_.empty(), "sticky: partitions left but every member at its quota");
          member = at_min_.front();
          at_min_.pop_front();
          from_under = false;
        }
        std::vector<TopicPartition>& mine = result.assignment[member];
        mine.push_back(tp);
        if (revoked_.contains(tp) || claims_.multiply_claimed.contains(tp)) (*result.transferring)[tp] = member;
        if (mine.size() == min_quota_) {
          LOGSIM_ASSERT(from_under, "sticky: a member at minQuota was dealt to again");
          under_.erase(under_.begin() + static_cast<std::ptrdiff_t>(--next));
          at_min_.push_back(member);
        }
      }
    }
  }

  // Balance, the constrained algorithm's first promise: minQuota or maxQuota each, and exactly
  // P % C members at maxQuota (when the quotas differ).
  void check_quotas(const GroupAssignment& out) const {
    std::size_t at_max = 0;
    for (const auto& [member, mine] : out) {
      LOGSIM_ASSERT(mine.size() >= min_quota_ && mine.size() <= max_quota_, "sticky: " + member + " off quota");
      if (mine.size() == max_quota_ && max_quota_ != min_quota_) ++at_max;
    }
    LOGSIM_ASSERT(at_max == expected_over_, "sticky: wrong number of members at maxQuota");
  }

  const std::map<std::string, std::int32_t>& partitions_;
  const StickyClaims& claims_;
  std::size_t min_quota_ = 0;
  std::size_t max_quota_ = 0;
  std::size_t expected_over_ = 0;  // members that end at maxQuota
  std::size_t over_ = 0;           // members that kept maxQuota owned partitions
  std::vector<MemberId> under_;    // below minQuota
  std::deque<MemberId> at_min_;    // at minQuota, may take one more
  std::set<TopicPartition> kept_;
  std::set<TopicPartition> revoked_;  // owned beyond quota
};

}  // namespace

StickyResult sticky_assign_tracking(const GroupSubscription& group) {
  const auto partitions = subscribed_partitions(group);
  StickyResult result{empty_assignment(group), std::nullopt};
  if (group.members.empty()) return result;
  StickyClaims claims = resolve_claims(group, partitions);
  if (claims.all_subscriptions_equal) {
    result = ConstrainedBuilder(partitions, claims).build();
  } else {
    result.assignment = general_sticky_assign(group, partitions, std::move(claims));
  }
  finish(result.assignment, group, partitions, /*complete=*/true);
  return result;
}

}  // namespace logsim::engine::assignors

namespace logsim::engine {

GroupAssignment sticky_assign(const GroupSubscription& group) {
  return assignors::sticky_assign_tracking(group).assignment;
}

}  // namespace logsim::engine

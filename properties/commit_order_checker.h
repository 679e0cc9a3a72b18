// `nonmonotonic-commit`: within one generation of a group, the coordinator accepted a commit of
// a partition at an offset below one it had already accepted for it, with no seek or reset of
// that partition in between. A group's committed offset going backwards re-delivers what was
// already processed after the next rebalance; it is what a retried or reordered asynchronous
// commit does (cf. librdkafka #2782, committed offsets reset during a rebalance). Commits
// without a generation (an admin's, manual assignment's) and commits of different generations
// are not compared: a new owner may legitimately commit where it stands. Found online, at the
// accepted commit that went backwards; one report per (group, partition) and generation.
//
// State: per (group, topic-partition), the last accepted commit (hash map keyed on the pair).
// O(1) per event.
#pragma once

#include <cstdint>

#include "engine/base/flat_map.h"
#include "properties/checker.h"

namespace logsim::properties {

class CommitOrderChecker final : public Checker {
 public:
  std::string_view name() const override { return "commit-order"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;
  KindSet kinds() const override { return kinds_of({OpKind::kSeek, OpKind::kCommitOk}); }

 private:
  struct Accepted {
    std::int64_t offset;
    std::int32_t generation;
    std::uint64_t event;
    Id process;
    bool reported;  // in this generation
  };
  FlatMap<std::uint64_t, Accepted> last_;  // pack(group, tp) -> the last accepted commit
};

}  // namespace logsim::properties

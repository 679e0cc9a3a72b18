// `group-interference` (DESIGN.md): one group's actions changed another group's offsets. A
// group's committed offset of a partition moves only by its own members' commits and by resets
// aimed at it (an executed reset-offsets, recorded as a `seek` by `admin` with the group).
//
// Where a committed offset shows in the history: when a partition is newly assigned to a member
// (it was not in that process's previous `assign`), the consumer fetches the group's committed
// offset and starts there, so the first record it processes there (with no `seek` of it in
// between, which would mean auto.offset.reset moved it instead) is at the committed offset. A
// partition a member kept across a rebalance keeps its position: not judged.
//
// What is decided, with no false alarm from timing: the start offset s is explained when the
// group itself asked to commit s (any `commit-invoke` of its members before the start, whatever
// its outcome: an answer can arrive after the coordinator applied it, a timed-out one may have
// been applied) or a reset aimed at it set s. A start that is not explained is
// `group-interference` when the group certainly had a committed offset before the assignment
// (a `commit-ok` or reset of its own before the `assign`: without one, auto.offset.reset picks
// the start, which the history does not tell) and another group, or a reset aimed at another
// group, had set exactly s before the start: the other group's offset became this group's.
// Online, at the `process` of the start.
//
// Known limits: offsets a coordinator loses (an offsets topic without replicas that lost data)
// fall back to auto.offset.reset, and a start there that happens to equal another group's
// commit would be reported; on a compacted topic a start past a compacted-away committed offset
// can equal another group's commit by chance.
//
// Cost: O(log n) per event plus the size of each assignment; memory linear in the commits.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "properties/checker.h"

namespace logsim::properties {

class GroupInterferenceChecker final : public Checker {
 public:
  std::string_view name() const override { return "group-independence"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;

 private:
  using GroupPartition = std::tuple<std::string, std::string, std::int32_t>;  // group, topic, partition
  using RunKey = std::tuple<std::string, std::string, std::int32_t>;          // process, topic, partition
  using Where = std::tuple<std::string, std::int32_t, std::int64_t>;          // topic, partition, offset
  struct Pending {
    std::string group;
    std::uint64_t assigned;  // the `assign` that added the partition
  };
  struct Setter {
    std::uint64_t event;
    std::string process;
    bool reset;
  };

  std::map<std::string, std::set<TopicPartitionRef>> assignment_;  // process -> its last assignment
  std::map<RunKey, Pending> pending_;                              // newly assigned, not processed yet
  std::map<GroupPartition, std::set<std::int64_t>> own_;           // offsets the group asked for or was reset to
  std::map<GroupPartition, std::uint64_t> settled_;                // first event by which it certainly had one
  std::map<Where, std::map<std::string, Setter>> set_by_;          // per offset, each group that set it first
  std::set<std::pair<std::string, RunKey>> reported_;
};

}  // namespace logsim::properties

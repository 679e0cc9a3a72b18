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
// (a `commit-ok` or reset of its own before the `assign`, and no delete-offsets since — an
// admin `seek` with no offset: without one, auto.offset.reset picks the start, which the
// history does not tell) and another group, or a reset aimed at another
// group, had set exactly s before the start: the other group's offset became this group's.
// Online, at the `process` of the start.
//
// Known limits: offsets a coordinator loses (an offsets topic without replicas that lost data)
// fall back to auto.offset.reset, and a start there that happens to equal another group's
// commit would be reported; on a compacted topic a start past a compacted-away committed offset
// can equal another group's commit by chance.
//
// State: integers only (interned ids, see symbols.h). Per process, its last assignment as a
// sorted vector of topic-partition ids with, beside each, whether it is still waiting for its
// first record (and the group and `assign` that added it), so a `process` with nothing pending
// costs one comparison; per (group, partition), found through one small hash table, when it was
// settled and the offsets it asked for and was set to, appended in order (commits and resets
// only; a repeat of the last offset is not stored again).
//
// Cost: O(1) per event but a `process` of a pending partition (O(log a), a: the process's
// assignment; and, once per start, sorting what its partition's groups committed since the last
// start: O(c log c)) and an `assign` (O(a log a)); memory linear in the commits.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "properties/checker.h"
#include "engine/base/flat_map.h"

namespace logsim::properties {

class GroupInterferenceChecker final : public Checker {
 public:
  std::string_view name() const override { return "group-independence"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;
  KindSet kinds() const override {
    return kinds_of({OpKind::kAssign, OpKind::kSeek, OpKind::kCommitInvoke, OpKind::kCommitOk, OpKind::kProcess});
  }

 private:
  struct Pending {
    Id group = kNoId;        // kNoId: not pending (its first record was seen, or a seek moved it)
    std::uint64_t assigned;  // the `assign` that added the partition
  };
  struct Member {
    std::vector<Id> tps;           // its last assignment, sorted
    std::vector<Pending> pending;  // beside tps
    std::size_t waiting = 0;       // how many are pending
  };
  // An offset a group's commit or a reset aimed at it set, and the first event that set it.
  struct Set {
    std::int64_t offset;
    std::uint64_t event;
    Id process;
    bool reset;
  };
  // What one group did to one partition's committed offset. Both vectors are appended to in
  // event order (offsets mostly rising) and sorted only when a start is judged: the first
  // *_sorted entries of each are sorted and free of repeats, and only what came since is sorted
  // and merged into them.
  struct GroupPartition {
    Id group = kNoId;
    std::vector<std::int64_t> own;  // the offsets it asked to commit or was reset to
    std::size_t own_sorted = 0;
    std::vector<Set> sets;          // the first setting of each offset (commit-ok or reset)
    std::size_t sets_sorted = 0;
    std::uint64_t settled = kNever;  // the first event by which it certainly had a committed offset
  };
  static constexpr std::uint64_t kNever = UINT64_MAX;

  void on_assign(const HistoryEvent& e, const EventIds& ids);
  void on_reset(const EventIds& ids);  // a seek by auto.offset.reset
  // A commit accepted, or a reset aimed at the group, set e.offset as its committed offset.
  void on_set(const HistoryEvent& e, const EventIds& ids, bool reset);
  void on_process(const HistoryEvent& e, const EventIds& ids);
  GroupPartition& group_partition(Id group, Id tp);
  static void add_own(GroupPartition& gp, std::int64_t offset) {
    if (gp.own.empty() || gp.own.back() != offset) gp.own.push_back(offset);
  }
  static bool owns(GroupPartition& gp, std::int64_t offset);
  static const Set* first_set(GroupPartition& gp, std::int64_t offset);
  // The process's partition ids.tp when it still waits for its first record, else nullptr.
  Pending* pending_of(const EventIds& ids);

  std::vector<Member> members_;                                // process id -> its assignment
  std::vector<Id> now_;                                        // scratch: the new assignment
  std::vector<Pending> now_pending_;                           // scratch
  FlatMap<std::uint64_t, std::uint32_t> gp_index_;  // pack(group, tp) -> index in gps_ (looked up only)
  std::vector<GroupPartition> gps_;
  std::vector<std::vector<std::uint32_t>> by_tp_;  // tp id -> its entries in gps_, one per group
  std::set<std::tuple<Id, Id, Id>> reported_;                  // (group, process, tp)
};

}  // namespace logsim::properties

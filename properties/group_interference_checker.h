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
// costs one comparison; per (group, partition) its offsets and when it was settled, and per
// (partition, offset) the groups that set it, in hash tables fed only by commits and resets.
//
// Cost: O(1) per event but a `process` of a pending partition (O(log a), a: the process's
// assignment) and an `assign` (O(a log a)); memory linear in the commits.
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
  // (partition, offset) and (group-partition, offset) keys.
  struct At {
    std::uint64_t id;
    std::int64_t offset;
    bool operator==(const At&) const = default;
  };
  struct AtHash {
    std::size_t operator()(const At& a) const noexcept;
  };
  // The first setter of an offset per group, linked per (partition, offset).
  struct Setter {
    Id group;
    Id process;
    bool reset;
    std::uint32_t next;  // index in setters_ of the next setter of the same offset, or UINT32_MAX
    std::uint64_t event;
  };

  void on_assign(const HistoryEvent& e, const EventIds& ids);
  void on_reset(const EventIds& ids);  // a seek by auto.offset.reset
  // A commit accepted, or a reset aimed at the group, set e.offset as its committed offset.
  void on_set(const HistoryEvent& e, const EventIds& ids, bool reset);
  void on_process(const HistoryEvent& e, const EventIds& ids);
  // The process's partition ids.tp when it still waits for its first record, else nullptr.
  Pending* pending_of(const EventIds& ids);

  std::vector<Member> members_;                                // process id -> its assignment
  std::vector<Id> now_;                                        // scratch: the new assignment
  std::vector<Pending> now_pending_;                           // scratch
  // The three hash tables are looked up and erased from, never iterated.
  FlatMap<At, bool, AtHash> own_;                      // (pack(group, tp), offset) the group asked for or was reset to
  FlatMap<std::uint64_t, std::uint64_t> settled_;      // pack(group, tp) -> first event by which it certainly had one
  FlatMap<At, std::uint32_t, AtHash> set_by_;          // (tp, offset) -> its first setter in setters_
  std::vector<Setter> setters_;
  std::set<std::tuple<Id, Id, Id>> reported_;                  // (group, process, tp)
};

}  // namespace logsim::properties

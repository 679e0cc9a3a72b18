// Consumer-group properties (DESIGN.md's group anomalies), over assignments, processed records,
// commits and admin seeks:
// - `double-ownership` (DoubleOwnershipChecker): within one generation of a group, each
//   partition is processed by one member only. Online, at the second member's record.
// - `stale-commit-accepted` (StaleCommitChecker): the coordinator never accepts a commit sent
//   from a generation the group had already left when it was sent. Online, at the commit-ok.
//   A commit's outcome pairs with its invoke by (process, commit id) within one incarnation of
//   the process (a restarted process numbers its commits from 1 again).
// - `lost-commit` (LostCommitChecker): every acknowledged offset below a group's committed
//   offset, from where the group's processing legitimately starts, was processed by the group.
//   At the end, named at the commit that first moved the committed offset past the hole.
// - `unseen` (UnseenChecker): at-least-once at the end of a run: every record acknowledged
//   before a cutoff, at or above the group's starting point, was processed by the group. Not a
//   default checker: the runner chooses the cutoff (records acknowledged just before the end
//   cannot have been read yet).
//
// Only events with a non-empty `group` count: consumers under manual assignment are judged by
// the log checkers. "Processed" means processed by any member of the group, at any time, at
// that partition and offset (a record replaced at its offset by an unclean election is the log
// checker's `lost-write`, not a group anomaly). No group owes a record of a transaction that
// aborted or whose outcome is unknown (txn_witness.h): lost-commit and unseen pass over it.
//
// State: integer-keyed, names looked up only to report. A (group, topic-partition) pair gets a
// dense slot in first-seen order (per-group vectors indexed by the topic-partition id); per
// partition, offsets live in paged OffsetTables/OffsetSets. Each event costs O(1) amortized
// (O(log pages) when it leaves the last page touched), plus O(size of its assignment) for
// assignments; the end-of-run checks walk each group's partitions once, in the order of
// (group name, topic name, partition), so violations come out in the same order as ever.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "properties/checker.h"
#include "engine/base/flat_map.h"
#include "properties/compaction.h"
#include "properties/txn_witness.h"
#include "properties/offset_table.h"

namespace logsim::properties {

// (group, topic-partition) id pairs to dense slots, from 0 in first-seen order. Each group keeps
// a row indexed by topic-partition id, up to the highest it touched (4 bytes an entry).
class GroupPartitionSlots {
 public:
  // The pair's slot, created if new.
  Id slot(Id group, Id tp) {
    if (group >= by_group_.size()) by_group_.resize(std::size_t{group} + 1);
    std::vector<Id>& row = by_group_[group];
    if (tp >= row.size()) row.resize(std::size_t{tp} + 1, kNoId);
    if (row[tp] == kNoId) {
      row[tp] = static_cast<Id>(pairs_.size());
      pairs_.emplace_back(group, tp);
    }
    return row[tp];
  }
  // The pair's slot, or kNoId.
  Id find(Id group, Id tp) const {
    return group < by_group_.size() && tp < by_group_[group].size() ? by_group_[group][tp] : kNoId;
  }
  Id group_of(Id slot) const { return pairs_[slot].first; }
  Id tp_of(Id slot) const { return pairs_[slot].second; }
  std::size_t size() const { return pairs_.size(); }

 private:
  std::vector<std::vector<Id>> by_group_;  // [group][tp] -> slot, kNoId: none yet
  std::vector<std::pair<Id, Id>> pairs_;   // slot -> (group, tp)
};

class DoubleOwnershipChecker final : public Checker {
 public:
  std::string_view name() const override { return "single-owner"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;
  KindSet kinds() const override { return kinds_of({OpKind::kProcess}); }

 private:
  // The first member seen processing a partition in one generation of a group.
  struct Owner {
    std::int32_t generation;
    Id process;
    std::int64_t offset;
    std::uint64_t event;
    bool reported;
  };
  GroupPartitionSlots slots_;
  std::vector<std::vector<Owner>> owners_;  // per slot, ascending by generation
};

class StaleCommitChecker final : public Checker {
 public:
  std::string_view name() const override { return "stale-commits"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;
  KindSet kinds() const override {
    return kinds_of({OpKind::kAssign, OpKind::kCommitInvoke, OpKind::kCommitOk, OpKind::kCommitFail});
  }
  // Commits sent whose every partition's outcome has not been seen yet (what it remembers).
  std::size_t commits_awaiting_outcome() const {
    std::size_t n = 0;
    for (const Process& p : processes_) n += p.invoked.size();
    return n;
  }

 private:
  struct Newest {
    std::int32_t generation = -1;
    std::uint64_t event = 0;  // the assignment that first reached it
  };
  struct Invoke {
    Newest newest;  // the group's newest generation when the commit was sent
    std::uint64_t event;
    std::uint32_t awaited;  // invokes (one per partition) whose outcome has not been seen
    bool reported;
  };
  // One process's commits in its current incarnation. Commit ids count up from 1 in each
  // incarnation of a process: an invoke whose id is below the last one's, or equal to it after
  // that commit's outcome or a new assignment (one commit's invokes are appended together),
  // comes from a restarted process, whose ids must not pair with the old incarnation's.
  struct Process {
    std::uint64_t last_id = 0;
    bool last_ended = false;      // an outcome of last_id was seen
    bool assigned_since = false;  // an assignment of the process since the invoke of last_id
    // By commit id, until each of its partitions has its outcome (lookups only, never iterated).
    FlatMap<std::uint64_t, Invoke> invoked;
  };
  Process& process(Id id) {
    if (id >= processes_.size()) processes_.resize(std::size_t{id} + 1);
    return processes_[id];
  }
  // Counts one more outcome of `commit_id`; forgets the commit once each invoke has one.
  static void settle(Process& p, std::uint64_t commit_id);
  std::vector<Newest> newest_;  // by group id: its newest generation so far
  std::vector<Process> processes_;  // by process id
};

// Where groups stand on partitions, and the acknowledged records: the state LostCommitChecker
// and UnseenChecker share (each keeps its own copy).
//
// A group's floor on a partition is where its processing legitimately starts: the offset of
// the last seek aimed at the group (an executed reset-offsets moves it either way), else the
// first offset the group processed there. Its committed offset is the last accepted commit or
// admin seek; `passes` keeps, of its changes since the last admin seek in history order, those
// that moved it above every earlier one (the only ones that can first pass an offset).
class GroupProgress {
 public:
  struct Move {
    std::int64_t offset;
    std::uint64_t event;
    Nanos at;
    Id process;
    std::int32_t generation;
    bool seek;
  };
  struct Partition {
    OffsetSet processed;
    std::optional<std::int64_t> first_processed;
    std::optional<std::int64_t> seek_floor;
    std::optional<std::int64_t> first_committed;
    std::optional<std::int64_t> committed;
    std::vector<Move> passes;                     // ascending by offset
    std::optional<std::uint64_t> first_assigned;  // event index of the first assignment listing it
    // The offset of the first record on the partition acknowledged after first_assigned.
    std::optional<std::int64_t> first_acked_after_assigned;
    Id last_assignee = kNoId;

    std::optional<std::int64_t> floor() const { return seek_floor ? seek_floor : first_processed; }
    // The first change of the committed offset (since the last admin seek) above `offset`.
    const Move* first_past(std::int64_t offset) const;
  };
  struct Ack {
    std::uint64_t event;
    Nanos at;
    Id process;
    Id key;  // kNoId: a null key
    std::uint64_t value_id;
  };
  // What is kept of each acknowledged record: its key only (all LostCommitChecker reports), or
  // the whole Ack (UnseenChecker).
  enum class Keep : std::uint8_t { kKeys, kAcks };

  GroupProgress(Keep keep, std::optional<std::set<std::string>> compacted_topics)
      : keep_(keep), compaction_(std::move(compacted_topics)) {}
  void observe(const HistoryEvent& e, const EventIds& ids, const Symbols& symbols);
  // Whether compaction could have removed the record at `offset` of `tp` (key `key`) before
  // history event `before` (compaction.h): a group owes no record compaction removed.
  bool compacted(Id tp, Id key, std::int64_t offset, std::uint64_t before, const Symbols& symbols) {
    return compaction_.may_have_removed(tp, key, offset, before, symbols);
  }

  std::size_t partitions() const { return partitions_.size(); }
  // Whether an admin's delete-group ended this group (this incarnation of its name: symbols.h).
  bool deleted(Id group) const { return group < deleted_.size() && deleted_[group]; }
  const Partition& partition(Id slot) const { return partitions_[slot]; }
  Id group_of(Id slot) const { return slots_.group_of(slot); }
  // The slot of (group, tp), or kNoId when the group never touched the partition.
  Id find(Id group, Id tp) const { return slots_.find(group, tp); }
  Id tp_of(Id slot) const { return slots_.tp_of(slot); }
  // The slots ordered by (group name, topic name, partition).
  std::vector<Id> by_name(const Symbols& symbols) const;
  // f(offset, key) for each first acknowledgement in [from, to) of `tp`, whichever is kept;
  // f returns whether to go on.
  template <class F>
  void for_each_ack_key(Id tp, std::int64_t from, std::int64_t to, F&& f) const {
    if (tp >= tps_.size()) return;
    if (keep_ == Keep::kKeys) {
      tps_[tp].keys.for_each_in(from, to, f);
    } else {
      tps_[tp].acks.for_each_in(from, to, [&](std::int64_t offset, const Ack& a) { return f(offset, a.key); });
    }
  }
  // Per partition, the first acknowledgement of each offset (nullptr: none), under Keep::kAcks.
  const OffsetTable<Ack>* acks(Id tp) const {
    return tp < tps_.size() && !tps_[tp].acks.empty() ? &tps_[tp].acks : nullptr;
  }
  // Whether the record acknowledged at `offset` of `tp` belongs to a transaction that aborted or
  // whose outcome is unknown (txn_witness.h): a group owes no such record.
  bool txn_excused(Id tp, std::int64_t offset) const {
    if (!txns_.any() || tp >= tps_.size()) return false;
    const std::uint64_t* value = tps_[tp].txn_values.find(offset);
    return value != nullptr && txns_.excused(*value);
  }

 private:
  struct TopicPartition {
    OffsetTable<Id> keys;     // Keep::kKeys
    OffsetTable<Ack> acks;    // Keep::kAcks
    OffsetTable<std::uint64_t> txn_values;  // the value acknowledged at each offset, for sends in a transaction
    std::vector<Id> waiting;  // slots whose first_acked_after_assigned is still to come
  };
  TopicPartition& tp_state(Id tp) {
    if (tp >= tps_.size()) tps_.resize(std::size_t{tp} + 1);
    return tps_[tp];
  }
  Partition& slot_state(Id group, Id tp, Id* slot = nullptr) {
    const Id s = slots_.slot(group, tp);
    if (s >= partitions_.size()) partitions_.resize(std::size_t{s} + 1);
    if (slot != nullptr) *slot = s;
    return partitions_[s];
  }

  Keep keep_;
  CompactionWitness compaction_;
  TxnWitness txns_;
  std::vector<bool> deleted_;  // by group id
  GroupPartitionSlots slots_;
  std::vector<Partition> partitions_;  // by slot
  std::vector<TopicPartition> tps_;    // by topic-partition id
};

// LostCommitChecker and UnseenChecker may share one GroupProgress (Keep::kAcks), fed by one of
// them only: the other reads no events (kinds() is empty) and judges from it at finish.
struct SharedProgress {
  std::shared_ptr<GroupProgress> progress;
  bool feeds;  // whether this checker shows it the events
};

class LostCommitChecker final : public Checker {
 public:
  // compacted_topics: the topics whose cleanup.policy includes compact (nullopt: any may be).
  explicit LostCommitChecker(std::optional<std::set<std::string>> compacted_topics = std::nullopt)
      : progress_(std::make_shared<GroupProgress>(GroupProgress::Keep::kKeys, std::move(compacted_topics))) {}
  explicit LostCommitChecker(SharedProgress shared) : progress_(std::move(shared.progress)), feeds_(shared.feeds) {}
  std::string_view name() const override { return "lost-commits"; }
  KindSet kinds() const override { return feeds_ ? kAllKinds : KindSet{0}; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override {
    if (feeds_) progress_->observe(e, ids, symbols());
  }
  void finish() override;

 private:
  std::shared_ptr<GroupProgress> progress_;
  bool feeds_ = true;
};

// Reports `unseen` when the group processed later offsets of the partition (it skipped the
// records: lost to the group), and `liveness` when it never got past them (it did not catch up
// by the end of the run, which the runner gives a quiet period after the faults). A partition
// the group never touched at all, although it held acknowledged records before the group's first
// assignment of its topic (so it existed, and every assignor gives every partition of a
// subscribed topic to some member), owes what was acknowledged after that assignment: `liveness`.
// One added to the topic later owes what was acknowledged from kNewPartitionGrace after its
// first record on: by then every member's metadata refresh has shown it to the group.
// A group an admin deleted (symbols.h: a new group of the same name may follow) owes no
// catching up: only what it skipped before it was deleted counts (`unseen`).
class UnseenChecker final : public Checker {
 public:
  // Records acknowledged at or after `required_before` are not owed; nor are records compaction
  // may have removed (compacted_topics: the topics whose cleanup.policy includes compact;
  // nullopt: any may be).
  explicit UnseenChecker(Nanos required_before, std::optional<std::set<std::string>> compacted_topics = std::nullopt)
      : required_before_(required_before),
        progress_(std::make_shared<GroupProgress>(GroupProgress::Keep::kAcks, std::move(compacted_topics))) {}
  // `shared` keeps Keep::kAcks.
  UnseenChecker(Nanos required_before, SharedProgress shared)
      : required_before_(required_before), progress_(std::move(shared.progress)), feeds_(shared.feeds) {}
  std::string_view name() const override { return "unseen"; }
  KindSet kinds() const override { return feeds_ ? kAllKinds : KindSet{0}; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override {
    if (feeds_) progress_->observe(e, ids, symbols());
  }
  void finish() override;

 private:
  struct Owed {
    std::int64_t floor;
    std::optional<std::uint64_t> acked_after;  // only records acknowledged after this event are owed
  };
  static std::optional<Owed> owed_from(const GroupProgress::Partition& p);
  void check(Id slot);
  void check_never_assigned(Id group, Id topic, std::uint64_t first_assigned);
  // How long after a partition's first record a group that subscribes to its topic must have
  // been given it: Kafka's default metadata.max.age.ms (every member's metadata refresh, after
  // which the group leader sees the new partition count and rebalances) plus a minute for the
  // rebalance.
  static constexpr Nanos kNewPartitionGrace = 360 * kNanosPerSecond;

  Nanos required_before_;
  std::shared_ptr<GroupProgress> progress_;
  bool feeds_ = true;
};

}  // namespace logsim::properties

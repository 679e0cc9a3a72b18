// Consumer-group properties (DESIGN.md's group anomalies), over assignments, processed records,
// commits and admin seeks:
// - `double-ownership` (DoubleOwnershipChecker): within one generation of a group, each
//   partition is processed by one member only. Online, at the second member's record.
// - `stale-commit-accepted` (StaleCommitChecker): the coordinator never accepts a commit sent
//   from a generation the group had already left when it was sent. Online, at the commit-ok.
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
// checker's `lost-write`, not a group anomaly).
//
// State: per key maps (ordered containers); each event costs O(log n), plus O(size of its
// assignment) for assignments; the end-of-run checks walk each group's partitions once.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "properties/checker.h"

namespace logsim::properties {

class DoubleOwnershipChecker final : public Checker {
 public:
  std::string_view name() const override { return "single-owner"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;

 private:
  using Key = std::tuple<std::string, std::int32_t, std::string, std::int32_t>;  // group, generation, topic, partition
  struct Owner {
    std::string process;
    std::int64_t offset;
    std::uint64_t event;
  };
  std::map<Key, Owner> owner_;  // the first member seen processing the partition in the generation
  std::set<Key> reported_;
};

class StaleCommitChecker final : public Checker {
 public:
  std::string_view name() const override { return "stale-commits"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;

 private:
  struct Newest {
    std::int32_t generation = -1;
    std::uint64_t event = 0;  // the assignment that first reached it
  };
  struct Invoke {
    Newest newest;  // the group's newest generation when the commit was sent
    std::uint64_t event;
  };
  using CommitKey = std::pair<std::string, std::uint64_t>;  // process, commit_id
  std::map<std::string, Newest> newest_;                    // group -> its newest generation so far
  std::map<CommitKey, Invoke> invoked_;
  std::set<CommitKey> reported_;
};

// Where groups stand on partitions, and the acknowledged records: the state LostCommitChecker
// and UnseenChecker share (each keeps its own copy).
//
// A group's floor on a partition is where its processing legitimately starts: the offset of
// the last seek aimed at the group (an executed reset-offsets moves it either way), else the
// first offset the group processed there. Its committed offset is the last accepted commit or
// admin seek; `moves` keeps each change since the last admin seek, in history order.
class GroupProgress {
 public:
  struct Move {
    std::int64_t offset;
    std::uint64_t event;
    Nanos at;
    std::string process;
    std::int32_t generation;
    bool seek;
  };
  struct Partition {
    std::set<std::int64_t> processed;
    std::optional<std::int64_t> first_processed;
    std::optional<std::int64_t> seek_floor;
    std::optional<std::int64_t> first_committed;
    std::vector<Move> moves;
    std::optional<std::uint64_t> first_assigned;  // event index of the first assignment listing it
    std::string last_assignee;

    std::optional<std::int64_t> floor() const { return seek_floor ? seek_floor : first_processed; }
    std::optional<std::int64_t> committed() const {
      return moves.empty() ? std::nullopt : std::optional<std::int64_t>(moves.back().offset);
    }
  };
  struct Ack {
    std::uint64_t event;
    Nanos at;
    std::string process;
    std::optional<std::string> key;
    std::uint64_t value_id;
  };
  using TopicPartition = std::pair<std::string, std::int32_t>;
  using GroupPartition = std::tuple<std::string, std::string, std::int32_t>;  // group, topic, partition

  void observe(const HistoryEvent& e);

  const std::map<GroupPartition, Partition>& groups() const { return groups_; }
  // Per partition, the first acknowledgement of each offset.
  const std::map<TopicPartition, std::map<std::int64_t, Ack>>& acks() const { return acks_; }
  // The offset of the first record on `tp` acknowledged after event `after`, if any.
  std::optional<std::int64_t> first_acked_after(const TopicPartition& tp, std::uint64_t after) const;

 private:
  std::map<GroupPartition, Partition> groups_;
  std::map<TopicPartition, std::map<std::int64_t, Ack>> acks_;
  std::map<TopicPartition, std::vector<std::pair<std::uint64_t, std::int64_t>>> ack_order_;  // (event, offset)
};

class LostCommitChecker final : public Checker {
 public:
  std::string_view name() const override { return "lost-commits"; }
  void on_event(const HistoryEvent& e, const EventIds& /*ids*/) override { progress_.observe(e); }
  void finish() override;

 private:
  GroupProgress progress_;
};

// Reports `unseen` when the group processed later offsets of the partition (it skipped the
// records: lost to the group), and `liveness` when it never got past them (it did not catch up
// by the end of the run, which the runner gives a quiet period after the faults).
class UnseenChecker final : public Checker {
 public:
  // Records acknowledged at or after `required_before` are not owed.
  explicit UnseenChecker(Nanos required_before) : required_before_(required_before) {}
  std::string_view name() const override { return "unseen"; }
  void on_event(const HistoryEvent& e, const EventIds& /*ids*/) override { progress_.observe(e); }
  void finish() override;

 private:
  struct Owed {
    std::int64_t floor;
    std::optional<std::uint64_t> acked_after;  // only records acknowledged after this event are owed
  };
  std::optional<Owed> owed_from(const GroupProgress::TopicPartition& tp, const GroupProgress::Partition& p) const;
  void check(const std::string& group, const GroupProgress::TopicPartition& tp, const GroupProgress::Partition& p);

  Nanos required_before_;
  GroupProgress progress_;
};

}  // namespace logsim::properties

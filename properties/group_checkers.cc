// The consumer-group checkers: `double-ownership`, `stale-commit-accepted`, `lost-commit`,
// `unseen`.
#include "properties/group_checkers.h"

#include <algorithm>

namespace logsim::properties {
namespace {

std::string where(const std::string& topic, std::int32_t partition) { return topic + "/" + std::to_string(partition); }
std::string event_no(std::uint64_t index) { return "event #" + std::to_string(index); }

}  // namespace

void DoubleOwnershipChecker::on_event(const HistoryEvent& e, const EventIds& /*ids*/) {
  // Generation -1: the member had no generation (it was between generations or fenced); such
  // records are not attributed to any generation's assignment.
  if (e.kind != OpKind::kProcess || e.group.empty() || e.generation < 0) return;
  const Key key{e.group, e.generation, e.topic, e.partition};
  const auto [it, fresh] = owner_.emplace(key, Owner{e.process, e.offset, e.index});
  if (fresh || it->second.process == e.process || reported_.contains(key)) return;
  reported_.insert(key);
  const Owner& first = it->second;
  Violation v = violation_at("double-ownership", e);
  v.members = {first.process, e.process};
  v.explanation = "in generation " + std::to_string(e.generation) + " of group " + e.group + ", " +
                  where(e.topic, e.partition) + " was processed by " + first.process + " (offset " +
                  std::to_string(first.offset) + ", " + event_no(first.event) + ") and by " + e.process + " (offset " +
                  std::to_string(e.offset) + ", " + event_no(e.index) +
                  "): two members owned one partition in one generation";
  report(std::move(v));
}

void StaleCommitChecker::on_event(const HistoryEvent& e, const EventIds& /*ids*/) {
  if (e.group.empty()) return;
  switch (e.kind) {
    case OpKind::kAssign: {
      Newest& n = newest_[e.group];
      if (e.generation > n.generation) n = Newest{e.generation, e.index};
      return;
    }
    case OpKind::kCommitInvoke: {
      const auto it = newest_.find(e.group);
      // One commit is one invoke per partition, all sent together: the first one counts.
      invoked_.emplace(CommitKey{e.process, e.commit_id}, Invoke{it == newest_.end() ? Newest{} : it->second, e.index});
      return;
    }
    case OpKind::kCommitOk:
      break;
    default:
      return;
  }
  // A commit sent without a generation (an admin's, or under manual assignment) is never stale.
  if (e.generation < 0) return;
  const CommitKey key{e.process, e.commit_id};
  const auto sent = invoked_.find(key);
  if (sent == invoked_.end() || e.generation >= sent->second.newest.generation || reported_.contains(key)) return;
  reported_.insert(key);
  Violation v = violation_at("stale-commit-accepted", e);
  v.explanation = "the coordinator of group " + e.group + " accepted " + e.process + "'s commit of " +
                  where(e.topic, e.partition) + " offset " + std::to_string(e.offset) + " from generation " +
                  std::to_string(e.generation) + " (" + event_no(e.index) + ", sent at " + event_no(sent->second.event) +
                  "), although the group had already reached generation " +
                  std::to_string(sent->second.newest.generation) + " (" + event_no(sent->second.newest.event) +
                  ") when it was sent: a fenced member overwrote the offsets of the partition's new owner";
  report(std::move(v));
}

void GroupProgress::observe(const HistoryEvent& e) {
  switch (e.kind) {
    case OpKind::kSendOk:
      if (e.offset < 0) return;
      if (acks_[{e.topic, e.partition}].emplace(e.offset, Ack{e.index, e.at, e.process, e.key, e.value_id}).second) {
        ack_order_[{e.topic, e.partition}].emplace_back(e.index, e.offset);
      }
      return;
    case OpKind::kAssign:
      if (e.group.empty()) return;
      for (const TopicPartitionRef& tp : e.assignment) {
        Partition& p = groups_[{e.group, tp.topic, tp.partition}];
        if (!p.first_assigned) p.first_assigned = e.index;
        p.last_assignee = e.process;
      }
      return;
    default:
      break;
  }
  if (e.group.empty() || e.offset < 0) return;
  Partition& p = groups_[{e.group, e.topic, e.partition}];
  switch (e.kind) {
    case OpKind::kProcess:
      p.processed.insert(e.offset);
      if (!p.first_processed) p.first_processed = e.offset;
      return;
    case OpKind::kCommitOk:
      if (!p.first_committed) p.first_committed = e.offset;
      p.moves.push_back(Move{e.offset, e.index, e.at, e.process, e.generation, false});
      return;
    case OpKind::kSeek:
      // Any seek aimed at the group moves where its processing starts; an admin's seek (an
      // executed reset-offsets) also writes the committed offset, and starts a new history of it.
      p.seek_floor = e.offset;
      if (e.process == "admin") {
        p.moves.clear();
        p.moves.push_back(Move{e.offset, e.index, e.at, e.process, e.generation, true});
      }
      return;
    default:
      return;
  }
}

std::optional<std::int64_t> GroupProgress::first_acked_after(const TopicPartition& tp, std::uint64_t after) const {
  const auto it = ack_order_.find(tp);
  if (it == ack_order_.end()) return std::nullopt;
  const auto& order = it->second;  // ascending by event index
  const auto next = std::upper_bound(order.begin(), order.end(), after,
                                     [](std::uint64_t a, const std::pair<std::uint64_t, std::int64_t>& x) { return a < x.first; });
  if (next == order.end()) return std::nullopt;
  return next->second;
}

// Known limit: a consumer whose position jumped by auto.offset.reset (its committed offset was
// out of range, e.g. retention deleted the records first) skips records without any event in
// the history that says so; the commits after the jump are reported here as `lost-commit`.
void LostCommitChecker::finish() {
  for (const auto& [gp, p] : progress_.groups()) {
    const auto& [group, topic, partition] = gp;
    const auto floor = p.floor();
    const auto committed = p.committed();
    if (!floor || !committed || *committed <= *floor) continue;
    const auto acks = progress_.acks().find({topic, partition});
    if (acks == progress_.acks().end()) continue;
    std::int64_t owed = 0;
    const std::pair<const std::int64_t, GroupProgress::Ack>* first = nullptr;
    for (auto it = acks->second.lower_bound(*floor); it != acks->second.end() && it->first < *committed; ++it) {
      if (p.processed.contains(it->first)) continue;
      ++owed;
      if (first == nullptr) first = &*it;
    }
    if (first == nullptr) continue;
    const std::int64_t hole = first->first;
    const auto passed = std::find_if(p.moves.begin(), p.moves.end(), [hole](const GroupProgress::Move& m) { return m.offset > hole; });
    Violation v;
    v.anomaly = "lost-commit";
    v.first_event = passed->event;
    v.at = passed->at;
    v.process = passed->process;
    v.topic = topic;
    v.partition = partition;
    v.offset = hole;
    v.key = first->second.key;
    v.members = {passed->process};
    const std::string by = passed->seek ? "a seek by " + passed->process
                                        : "a commit by " + passed->process + " in generation " + std::to_string(passed->generation);
    v.explanation = "group " + group + "'s committed offset of " + where(topic, partition) + " passed offset " +
                    std::to_string(hole) + " at " + event_no(passed->event) + " (" + by + ", to offset " +
                    std::to_string(passed->offset) + ") and ended at " + std::to_string(*committed) + ", but the group never processed " +
                    std::to_string(owed) + " acknowledged record(s) between its starting offset " + std::to_string(*floor) +
                    " and its committed offset, the first at offset " + std::to_string(hole) +
                    ": they were committed without being processed, as when offsets are committed before processing";
    report(std::move(v));
  }
}

// Which records of a partition the group owes, or nothing when it cannot be told.
std::optional<UnseenChecker::Owed> UnseenChecker::owed_from(const GroupProgress::TopicPartition& tp,
                                                            const GroupProgress::Partition& p) const {
  if (const auto floor = p.floor()) return Owed{*floor, std::nullopt};
  // Never processed (nor reset): with auto.offset.reset=latest the group starts at the log end
  // as of its first assignment, so only records acknowledged after that are owed, and none below
  // where its commits say it stood. A partition never assigned has no such point: not judged.
  if (!p.first_assigned) return std::nullopt;
  auto floor = progress_.first_acked_after(tp, *p.first_assigned);
  if (!floor) return std::nullopt;
  if (p.first_committed) floor = std::max(*floor, *p.first_committed);
  return Owed{*floor, p.first_assigned};
}

void UnseenChecker::check(const std::string& group, const GroupProgress::TopicPartition& tp, const GroupProgress::Partition& p) {
  const auto owed = owed_from(tp, p);
  if (!owed) return;
  const auto acks = progress_.acks().find(tp);
  if (acks == progress_.acks().end()) return;
  std::int64_t unseen = 0;
  const std::pair<const std::int64_t, GroupProgress::Ack>* first = nullptr;
  for (auto it = acks->second.lower_bound(owed->floor); it != acks->second.end(); ++it) {
    const GroupProgress::Ack& ack = it->second;
    if (ack.at >= required_before_ || (owed->acked_after && ack.event <= *owed->acked_after)) continue;
    if (p.processed.contains(it->first)) continue;
    ++unseen;
    if (first == nullptr) first = &*it;
  }
  if (first == nullptr) return;
  const GroupProgress::Ack& ack = first->second;
  // A group that processed a later offset of the partition skipped the record: it is lost to
  // the group (unseen, a safety violation). One that never got past it did not catch up
  // (liveness): lost and merely delayed look alike, and the quiet period decides.
  const bool skipped = p.processed.upper_bound(first->first) != p.processed.end();
  Violation v;
  v.anomaly = skipped ? "unseen" : "liveness";
  v.first_event = ack.event;
  v.at = ack.at;
  v.process = ack.process;
  v.topic = tp.first;
  v.partition = tp.second;
  v.offset = first->first;
  v.key = ack.key;
  v.members = {ack.process};
  if (!p.last_assignee.empty() && p.last_assignee != ack.process) v.members.push_back(p.last_assignee);
  v.explanation = "group " + group + " never processed " + std::to_string(unseen) + " record(s) of " +
                  where(tp.first, tp.second) + " acknowledged before " + std::to_string(to_millis(required_before_)) +
                  " ms at or after its starting offset " + std::to_string(owed->floor) + ", the first at offset " +
                  std::to_string(first->first) + " (value " + std::to_string(ack.value_id) + ", acknowledged to " +
                  ack.process + " at " + event_no(ack.event) + ")" +
                  (p.last_assignee.empty() ? "" : "; the partition was last assigned to " + p.last_assignee) +
                  (skipped ? ", which processed later offsets: the group skipped them"
                           : "; the group never got past them: it did not catch up after the faults healed");
  report(std::move(v));
}

void UnseenChecker::finish() {
  // The topics each group was ever assigned a partition of.
  std::set<std::pair<std::string, std::string>> subscribed;
  for (const auto& [gp, p] : progress_.groups()) {
    if (p.first_assigned) subscribed.emplace(std::get<0>(gp), std::get<1>(gp));
  }
  for (const auto& [gp, p] : progress_.groups()) {
    const auto& [group, topic, partition] = gp;
    if (subscribed.contains({group, topic})) check(group, {topic, partition}, p);
  }
}

}  // namespace logsim::properties

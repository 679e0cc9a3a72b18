// The consumer-group checkers: `double-ownership`, `stale-commit-accepted`, `lost-commit`,
// `unseen`.
#include "properties/group_checkers.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

namespace logsim::properties {
namespace {

std::string event_no(std::uint64_t index) { return "event #" + std::to_string(index); }

}  // namespace

void DoubleOwnershipChecker::on_event(const HistoryEvent& e, const EventIds& ids) {
  // No generation: the member had none (it was between generations or fenced); such records
  // are not attributed to any generation's assignment.
  if (e.kind != OpKind::kProcess || ids.group == kNoId || !e.generation) return;
  const std::int32_t generation = e.generation->value();
  const Id slot = slots_.slot(ids.group, ids.tp);
  if (slot >= owners_.size()) owners_.resize(std::size_t{slot} + 1);
  std::vector<Owner>& owners = owners_[slot];
  // Generations mostly only grow: the newest is looked at first.
  const Owner fresh{generation, ids.process, History::packed(e.offset), e.index, false};
  if (owners.empty() || owners.back().generation < generation) {
    owners.push_back(fresh);
    return;
  }
  auto it = owners.end() - 1;
  if (it->generation != generation) {
    it = std::lower_bound(owners.begin(), owners.end(), generation,
                          [](const Owner& o, std::int32_t g) { return o.generation < g; });
    if (it->generation != generation) {
      owners.insert(it, fresh);
      return;
    }
  }
  Owner& first = *it;
  if (first.process == ids.process || first.reported) return;
  first.reported = true;
  const std::string& first_process = symbols().process(first.process);
  Violation v = violation_at("double-ownership", e);
  v.members = {first_process, e.process};
  v.explanation = "in generation " + std::to_string(generation) + " of group " + e.group + ", " + symbols().where(ids.tp) +
                  " was processed by " + first_process + " (offset " + std::to_string(first.offset) + ", " +
                  event_no(first.event) + ") and by " + e.process + " (offset " + std::to_string(fresh.offset) + ", " +
                  event_no(e.index) +
                  "): two members owned one partition in one generation";
  report(std::move(v));
}

void StaleCommitChecker::on_event(const HistoryEvent& e, const EventIds& ids) {
  if (e.kind == OpKind::kAssign) process(ids.process).assigned_since = true;
  if (ids.group == kNoId) return;
  switch (e.kind) {
    case OpKind::kAssign: {
      if (ids.group >= newest_.size()) newest_.resize(std::size_t{ids.group} + 1);
      Newest& n = newest_[ids.group];
      if (e.generation && e.generation->value() > n.generation) n = Newest{e.generation->value(), e.index};
      return;
    }
    case OpKind::kCommitInvoke: {
      const Newest newest = ids.group < newest_.size() ? newest_[ids.group] : Newest{};
      Process& p = process(ids.process);
      if (e.commit_id < p.last_id || (e.commit_id == p.last_id && (p.last_ended || p.assigned_since))) {
        p.invoked.clear();  // a new incarnation of the process: its ids start again
      }
      if (e.commit_id != p.last_id || p.invoked.empty()) {
        p.last_id = e.commit_id;
        p.last_ended = false;
        p.assigned_since = false;
      }
      // One commit is one invoke per partition, all sent together: the first one counts.
      ++p.invoked.try_emplace(e.commit_id, Invoke{newest, e.index, 0, false}).first->awaited;
      return;
    }
    case OpKind::kCommitFail: {
      Process& p = process(ids.process);
      if (e.commit_id == p.last_id) p.last_ended = true;
      settle(p, e.commit_id);
      return;
    }
    case OpKind::kCommitOk:
      break;
    default:
      return;
  }
  Process& p = process(ids.process);
  if (e.commit_id == p.last_id) p.last_ended = true;
  // A commit sent without a generation (an admin's, or under manual assignment) is never stale.
  Invoke* const sent = p.invoked.find(e.commit_id);
  if (!e.generation || sent == nullptr || e.generation->value() >= sent->newest.generation || sent->reported) {
    settle(p, e.commit_id);
    return;
  }
  const std::int32_t generation = e.generation->value();
  sent->reported = true;
  Violation v = violation_at("stale-commit-accepted", e);
  v.explanation = "the coordinator of group " + e.group + " accepted " + e.process + "'s commit of " + symbols().where(ids.tp) +
                  " offset " + std::to_string(History::packed(e.offset)) + " from generation " +
                  std::to_string(generation) + " ("+ event_no(e.index) + ", sent at " + event_no(sent->event) +
                  "), although the group had already reached generation " +
                  std::to_string(sent->newest.generation) + " (" + event_no(sent->newest.event) +
                  ") when it was sent: a fenced member overwrote the offsets of the partition's new owner";
  report(std::move(v));
  settle(p, e.commit_id);
}

void StaleCommitChecker::settle(Process& p, std::uint64_t commit_id) {
  Invoke* const sent = p.invoked.find(commit_id);
  if (sent != nullptr && --sent->awaited == 0) p.invoked.erase(commit_id);
}

const GroupProgress::Move* GroupProgress::Partition::first_past(std::int64_t offset) const {
  const auto it = std::partition_point(passes.begin(), passes.end(), [offset](const Move& m) { return m.offset <= offset; });
  return it == passes.end() ? nullptr : &*it;
}

void GroupProgress::observe(const HistoryEvent& e, const EventIds& ids, const Symbols& symbols) {
  compaction_.observe(e, ids, symbols);
  txns_.observe(e, ids);
  switch (e.kind) {
    case OpKind::kAdmin:
      if (ids.group != kNoId && (e.error.empty() || e.error == "NONE") && e.note.starts_with("delete-group ")) {
        if (ids.group >= deleted_.size()) deleted_.resize(std::size_t{ids.group} + 1);
        deleted_[ids.group] = true;
      }
      return;
    case OpKind::kSendOk: {
      if (!e.offset) return;
      const std::int64_t offset = e.offset->value();
      TopicPartition& tp = tp_state(ids.tp);
      const bool fresh = keep_ == Keep::kKeys
                             ? tp.keys.emplace(offset, ids.key).second
                             : tp.acks.emplace(offset, Ack{e.index, e.at, ids.process, ids.key, e.value_id}).second;
      if (!fresh) return;
      if (txns_.excused(e.value_id)) tp.txn_values.emplace(offset, e.value_id);  // in a transaction still open
      if (!tp.waiting.empty()) {
        // The first record acknowledged after a partition's first assignment to a group.
        std::erase_if(tp.waiting, [&](Id slot) {
          Partition& p = partitions_[slot];
          if (!p.first_assigned) return true;  // forgotten by a delete-offsets; a new assignment waits again
          if (*p.first_assigned >= e.index) return false;
          p.first_acked_after_assigned = offset;
          return true;
        });
      }
      return;
    }
    case OpKind::kAssign:
      if (ids.group == kNoId) return;
      for (const Id tp : ids.assignment) {
        Id slot = kNoId;
        Partition& p = slot_state(ids.group, tp, &slot);
        if (!p.first_assigned) {
          p.first_assigned = e.index;
          tp_state(tp).waiting.push_back(slot);
        }
        p.last_assignee = ids.process;
      }
      return;
    case OpKind::kProcess:
    case OpKind::kCommitOk:
    case OpKind::kSeek:
      break;
    default:
      return;
  }
  if (ids.group == kNoId) return;
  if (e.kind == OpKind::kSeek && !e.offset && e.process == "admin") {
    // delete-offsets: the group forgot its committed offset, and its next members start where
    // auto.offset.reset puts them, as a new group would. What it processed stays processed.
    Partition& p = slot_state(ids.group, ids.tp);
    OffsetSet processed = std::move(p.processed);
    const Id last_assignee = p.last_assignee;
    p = Partition{};
    p.processed = std::move(processed);
    p.last_assignee = last_assignee;
    return;
  }
  if (!e.offset) return;
  const std::int64_t offset = e.offset->value();
  const std::int32_t generation = History::packed(e.generation);
  Partition& p = slot_state(ids.group, ids.tp);
  switch (e.kind) {
    case OpKind::kProcess:
      p.processed.insert(offset);
      if (!p.first_processed) p.first_processed = offset;
      return;
    case OpKind::kCommitOk:
      if (!p.first_committed) p.first_committed = offset;
      p.committed = offset;
      if (p.passes.empty() || p.passes.back().offset < offset) {
        p.passes.push_back(Move{offset, e.index, e.at, ids.process, generation, false});
      }
      return;
    case OpKind::kSeek:
      // Any seek aimed at the group moves where its processing starts; an admin's seek (an
      // executed reset-offsets) also writes the committed offset, and starts a new history of it.
      p.seek_floor = offset;
      if (e.process == "admin") {
        p.committed = offset;
        p.passes.clear();
        p.passes.push_back(Move{offset, e.index, e.at, ids.process, generation, true});
      }
      return;
    default:
      return;
  }
}

std::vector<Id> GroupProgress::by_name(const Symbols& symbols) const {
  std::vector<Id> order(slots_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<Id>(i);
  std::sort(order.begin(), order.end(), [&](Id a, Id b) {
    const Id ta = tp_of(a);
    const Id tb = tp_of(b);
    const auto pa = symbols.partition_of(ta);
    const auto pb = symbols.partition_of(tb);
    return std::tie(symbols.group(group_of(a)), symbols.topic_of_tp(ta), pa) <
           std::tie(symbols.group(group_of(b)), symbols.topic_of_tp(tb), pb);
  });
  return order;
}

// Known limit: a consumer whose position jumped by auto.offset.reset (its committed offset was
// out of range, e.g. retention deleted the records first) skips records without any event in
// the history that says so; the commits after the jump are reported here as `lost-commit`.
void LostCommitChecker::finish() {
  for (const Id slot : progress_->by_name(symbols())) {
    const GroupProgress::Partition& p = progress_->partition(slot);
    const auto floor = p.floor();
    const auto committed = p.committed;
    if (!floor || !committed || *committed <= *floor) continue;
    const Id tp = progress_->tp_of(slot);
    std::int64_t owed = 0;
    std::int64_t hole = -1;
    Id key = kNoId;
    progress_->for_each_ack_key(tp, *floor, *committed, [&](std::int64_t offset, Id k) {
      if (p.processed.contains(offset)) return true;
      // Compaction may have removed it before the commit that passed it.
      if (progress_->compacted(tp, k, offset, p.first_past(offset)->event, symbols())) return true;
      if (progress_->txn_excused(tp, offset)) return true;  // its transaction did not (surely) commit
      if (owed++ == 0) {
        hole = offset;
        key = k;
      }
      return true;
    });
    if (owed == 0) continue;
    const GroupProgress::Move* passed = p.first_past(hole);  // the last change, to *committed, is past it
    const std::string& process = symbols().process(passed->process);
    Violation v = violation_of("lost-commit", passed->event, passed->at, passed->process, tp, Offset(hole), key);
    const std::string by = passed->seek ? "a seek by " + process
                                        : "a commit by " + process + " in generation " + std::to_string(passed->generation);
    v.explanation = "group " + symbols().group(progress_->group_of(slot)) + "'s committed offset of " + symbols().where(tp) +
                    " passed offset " + std::to_string(hole) + " at " + event_no(passed->event) + " (" + by +
                    ", to offset " + std::to_string(passed->offset) + ") and ended at " + std::to_string(*committed) +
                    ", but the group never processed " + std::to_string(owed) +
                    " acknowledged record(s) between its starting offset " + std::to_string(*floor) +
                    " and its committed offset, the first at offset " + std::to_string(hole) +
                    ": they were committed without being processed, as when offsets are committed before processing";
    report(std::move(v));
  }
}

// Which records of a partition the group owes, or nothing when it cannot be told.
std::optional<UnseenChecker::Owed> UnseenChecker::owed_from(const GroupProgress::Partition& p) {
  if (const auto floor = p.floor()) return Owed{*floor, std::nullopt};
  // Never processed (nor reset): with auto.offset.reset=latest the group starts at the log end
  // as of its first assignment, so only records acknowledged after that are owed, and none below
  // where its commits say it stood. A partition never assigned has no such point: not judged.
  if (!p.first_assigned) return std::nullopt;
  auto floor = p.first_acked_after_assigned;
  if (!floor) return std::nullopt;
  if (p.first_committed) floor = std::max(*floor, *p.first_committed);
  return Owed{*floor, p.first_assigned};
}

void UnseenChecker::check(Id slot) {
  const GroupProgress::Partition& p = progress_->partition(slot);
  const auto owed = owed_from(p);
  if (!owed) return;
  const Id tp = progress_->tp_of(slot);
  const OffsetTable<GroupProgress::Ack>* acks = progress_->acks(tp);
  if (acks == nullptr) return;
  std::int64_t unseen = 0;
  std::int64_t offset = -1;
  const GroupProgress::Ack* first = nullptr;
  acks->for_each_from(owed->floor, [&](std::int64_t o, const GroupProgress::Ack& ack) {
    if (ack.at >= required_before_ || (owed->acked_after && ack.event <= *owed->acked_after)) return true;
    if (p.processed.contains(o)) return true;
    if (progress_->compacted(tp, ack.key, o, UINT64_MAX, symbols())) return true;  // compaction removed it
    if (progress_->txn_excused(tp, o)) return true;  // its transaction did not (surely) commit
    ++unseen;
    if (first == nullptr) {
      first = &ack;
      offset = o;
    }
    return true;
  });
  if (first == nullptr) return;
  const GroupProgress::Ack& ack = *first;
  const std::string& acked_to = symbols().process(ack.process);
  const std::string last_assignee = p.last_assignee == kNoId ? std::string() : symbols().process(p.last_assignee);
  // A group that processed a later offset of the partition skipped the record: it is lost to
  // the group (unseen, a safety violation). One that never got past it did not catch up
  // (liveness): lost and merely delayed look alike, and the quiet period decides.
  const bool skipped = p.processed.next_above(offset).has_value();
  if (!skipped && progress_->deleted(progress_->group_of(slot))) return;  // deleted before it caught up: owes nothing more
  Violation v = violation_of(skipped ? "unseen" : "liveness", ack.event, ack.at, ack.process, tp, Offset(offset), ack.key);
  if (!last_assignee.empty() && last_assignee != acked_to) v.members.push_back(last_assignee);
  v.explanation = "group " + symbols().group(progress_->group_of(slot)) + " never processed " + std::to_string(unseen) +
                  " record(s) of " + symbols().where(tp) + " acknowledged before " +
                  std::to_string(to_millis(required_before_)) + " ms at or after its starting offset " +
                  std::to_string(owed->floor) + ", the first at offset " + std::to_string(offset) + " (value " +
                  std::to_string(ack.value_id) + ", acknowledged to " + acked_to + " at " + event_no(ack.event) + ")" +
                  (last_assignee.empty() ? "" : "; the partition was last assigned to " + last_assignee) +
                  (skipped ? ", which processed later offsets: the group skipped them"
                           : "; the group never got past them: it did not catch up after the faults healed");
  report(std::move(v));
}

// A partition of a subscribed topic the group never touched: every assignor hands out every
// partition of the topics a group subscribes to, so one that existed at the group's first
// assignment of its topic (it held an acknowledged record by then) should have been read.
void UnseenChecker::check_never_assigned(Id group, Id topic, std::uint64_t first_assigned) {
  for (Id tp = 0; tp < symbols().tps(); ++tp) {
    if (symbols().topic_of(tp) != topic || progress_->find(group, tp) != kNoId) continue;
    const OffsetTable<GroupProgress::Ack>* acks = progress_->acks(tp);
    if (acks == nullptr) continue;
    // Did it exist at the group's first assignment of the topic? Else when did it show itself?
    bool existed = false;
    Nanos appeared = INT64_MAX;
    acks->for_each_from(INT64_MIN, [&](std::int64_t, const GroupProgress::Ack& ack) {
      existed = existed || ack.event < first_assigned;
      appeared = std::min(appeared, ack.at);
      return true;
    });
    // A partition added later is owed once the members' metadata must have shown it.
    const Nanos owed_from = existed ? 0 : appeared + kNewPartitionGrace;
    std::int64_t owed = 0;
    std::int64_t offset = -1;
    const GroupProgress::Ack* first = nullptr;
    acks->for_each_from(INT64_MIN, [&](std::int64_t o, const GroupProgress::Ack& ack) {
      if (existed ? ack.event < first_assigned : ack.at < owed_from) return true;
      if (ack.at >= required_before_) return true;
      ++owed;
      if (first == nullptr) {
        first = &ack;
        offset = o;
      }
      return true;
    });
    if (first == nullptr) continue;
    const std::string& acked_to = symbols().process(first->process);
    Violation v = violation_of("liveness", first->event, first->at, first->process, tp, Offset(offset), first->key);
    const std::string why = existed
        ? ", which already held records then: it never processed " + std::to_string(owed) + " record(s) acknowledged there after that"
        : ", a partition that appeared later (its first record acknowledged at " + std::to_string(to_millis(appeared)) +
              " ms): it never processed " + std::to_string(owed) + " record(s) acknowledged there from " +
              std::to_string(to_millis(owed_from)) + " ms (metadata.max.age.ms's 5 minutes and a rebalance later)";
    v.explanation = "group " + symbols().group(group) + " was assigned partitions of " + symbols().topic(topic) +
                    " from event #" + std::to_string(first_assigned) + " but never " + symbols().where(tp) + why +
                    " and before " + std::to_string(to_millis(required_before_)) + " ms, the first at offset " +
                    std::to_string(offset) + " (value " + std::to_string(first->value_id) + ", acknowledged to " + acked_to +
                    " at event #" + std::to_string(first->event) + "): no member was ever given the partition";
    report(std::move(v));
  }
}

void UnseenChecker::finish() {
  // The topics each group was ever assigned a partition of, as (group, topic) ids, with the
  // group's first assignment of the topic.
  std::map<std::uint64_t, std::uint64_t> subscribed;
  for (Id slot = 0; slot < progress_->partitions(); ++slot) {
    if (const auto assigned = progress_->partition(slot).first_assigned) {
      const auto [it, fresh] =
          subscribed.emplace(pack(progress_->group_of(slot), symbols().topic_of(progress_->tp_of(slot))), *assigned);
      if (!fresh) it->second = std::min(it->second, *assigned);
    }
  }
  for (const Id slot : progress_->by_name(symbols())) {
    if (subscribed.contains(pack(progress_->group_of(slot), symbols().topic_of(progress_->tp_of(slot))))) check(slot);
  }
  for (const auto& [group_topic, first_assigned] : subscribed) {
    if (progress_->deleted(static_cast<Id>(group_topic >> 32))) continue;
    check_never_assigned(static_cast<Id>(group_topic >> 32), static_cast<Id>(group_topic & 0xffffffffU), first_assigned);
  }
}

}  // namespace logsim::properties

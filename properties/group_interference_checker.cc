// The group-interference checker: a newly assigned partition's start, against the offsets the
// group itself committed or was reset to.
#include "properties/group_interference_checker.h"

#include <algorithm>

namespace logsim::properties {

GroupInterferenceChecker::GroupPartition& GroupInterferenceChecker::group_partition(Id group, Id tp) {
  const auto [index, added] = gp_index_.try_emplace(pack(group, tp), static_cast<std::uint32_t>(gps_.size()));
  if (added) {
    gps_.emplace_back().group = group;
    if (tp >= by_tp_.size()) by_tp_.resize(tp + 1);
    by_tp_[tp].push_back(*index);
  }
  return gps_[*index];
}

bool GroupInterferenceChecker::owns(GroupPartition& gp, std::int64_t offset) {
  auto& own = gp.own;
  if (gp.own_sorted < own.size()) {
    const auto mid = own.begin() + static_cast<std::ptrdiff_t>(gp.own_sorted);
    std::sort(mid, own.end());
    std::inplace_merge(own.begin(), mid, own.end());
    own.erase(std::unique(own.begin(), own.end()), own.end());
    gp.own_sorted = own.size();
  }
  return std::binary_search(own.begin(), own.end(), offset);
}

const GroupInterferenceChecker::Set* GroupInterferenceChecker::first_set(GroupPartition& gp, std::int64_t offset) {
  auto& sets = gp.sets;
  if (gp.sets_sorted < sets.size()) {
    // By offset, then by event: the first setting of an offset comes first and is the one kept.
    const auto before = [](const Set& a, const Set& b) { return a.offset != b.offset ? a.offset < b.offset : a.event < b.event; };
    const auto mid = sets.begin() + static_cast<std::ptrdiff_t>(gp.sets_sorted);
    std::sort(mid, sets.end(), before);
    std::inplace_merge(sets.begin(), mid, sets.end(), before);
    sets.erase(std::unique(sets.begin(), sets.end(), [](const Set& a, const Set& b) { return a.offset == b.offset; }),
               sets.end());
    gp.sets_sorted = sets.size();
  }
  const auto it = std::lower_bound(sets.begin(), sets.end(), offset,
                                   [](const Set& s, std::int64_t o) { return s.offset < o; });
  return it != sets.end() && it->offset == offset ? &*it : nullptr;
}

void GroupInterferenceChecker::on_event(const HistoryEvent& e, const EventIds& ids) {
  if (e.kind == OpKind::kSeek && e.process != "admin") {
    on_reset(ids);  // whatever the event's group: the member's pending partitions say which
    return;
  }
  if (ids.group == kNoId) return;
  switch (e.kind) {
    case OpKind::kAssign:
      on_assign(e, ids);
      return;
    case OpKind::kSeek:
      if (!e.offset) {
        group_partition(ids.group, ids.tp).settled = kNever;  // delete-offsets: none until it commits again
      } else {
        add_own(group_partition(ids.group, ids.tp), e.offset->value());
        on_set(e, ids, /*reset=*/true);
      }
      return;
    case OpKind::kCommitInvoke:
      if (e.offset) add_own(group_partition(ids.group, ids.tp), e.offset->value());
      return;
    case OpKind::kCommitOk:
      if (e.offset) on_set(e, ids, /*reset=*/false);
      return;
    case OpKind::kProcess:
      if (e.offset) on_process(e, ids);
      return;
    default:
      return;
  }
}

void GroupInterferenceChecker::on_assign(const HistoryEvent& e, const EventIds& ids) {
  if (ids.process >= members_.size()) members_.resize(ids.process + 1);
  Member& m = members_[ids.process];
  now_.assign(ids.assignment.begin(), ids.assignment.end());
  std::sort(now_.begin(), now_.end());
  now_.erase(std::unique(now_.begin(), now_.end()), now_.end());
  // A partition kept keeps its state (waiting or not); one newly assigned waits for its start.
  now_pending_.clear();
  m.waiting = 0;
  std::size_t b = 0;
  for (const Id tp : now_) {
    while (b < m.tps.size() && m.tps[b] < tp) ++b;
    const Pending p = b < m.tps.size() && m.tps[b] == tp ? m.pending[b] : Pending{ids.group, e.index};
    if (p.group != kNoId) ++m.waiting;
    now_pending_.push_back(p);
  }
  m.tps.swap(now_);
  m.pending.swap(now_pending_);
}

GroupInterferenceChecker::Pending* GroupInterferenceChecker::pending_of(const EventIds& ids) {
  if (ids.process >= members_.size()) return nullptr;
  Member& m = members_[ids.process];
  if (m.waiting == 0) return nullptr;
  const auto it = std::lower_bound(m.tps.begin(), m.tps.end(), ids.tp);
  if (it == m.tps.end() || *it != ids.tp) return nullptr;
  Pending& p = m.pending[static_cast<std::size_t>(it - m.tps.begin())];
  return p.group == kNoId ? nullptr : &p;
}

void GroupInterferenceChecker::on_reset(const EventIds& ids) {
  // auto.offset.reset chose the start: it is not the committed offset's to explain.
  if (Pending* p = pending_of(ids)) {
    p->group = kNoId;
    --members_[ids.process].waiting;
  }
}

void GroupInterferenceChecker::on_set(const HistoryEvent& e, const EventIds& ids, bool reset) {
  GroupPartition& gp = group_partition(ids.group, ids.tp);
  if (gp.settled == kNever) gp.settled = e.index;
  const std::int64_t offset = e.offset->value();
  if (!gp.sets.empty() && gp.sets.back().offset == offset) return;  // set again: the first setting stays
  gp.sets.push_back(Set{offset, e.index, ids.process, reset});
}

void GroupInterferenceChecker::on_process(const HistoryEvent& e, const EventIds& ids) {
  Pending* const slot = pending_of(ids);
  if (slot == nullptr) return;
  const Pending pending = *slot;
  slot->group = kNoId;
  --members_[ids.process].waiting;
  const std::int64_t offset = e.offset->value();
  const std::uint32_t* own = gp_index_.find(pack(pending.group, ids.tp));
  if (own == nullptr) return;  // it never had a committed offset there
  GroupPartition& gp = gps_[*own];
  if (owns(gp, offset)) return;
  if (gp.settled == kNever || gp.settled >= pending.assigned) return;
  // The setter of another group whose name comes first (as a map by group name would give).
  const Set* setter = nullptr;
  Id setter_group = kNoId;
  for (const std::uint32_t other : by_tp_[ids.tp]) {
    GroupPartition& candidate = gps_[other];
    if (candidate.group == pending.group) continue;
    const Set* set = first_set(candidate, offset);
    if (set == nullptr) continue;
    // Of two incarnations of one name (a group deleted and used again), the later setting, as
    // a list of setters newest first would give.
    const auto& name = symbols().group(candidate.group);
    if (setter == nullptr || name < symbols().group(setter_group) ||
        (name == symbols().group(setter_group) && set->event > setter->event)) {
      setter = set;
      setter_group = candidate.group;
    }
  }
  if (setter == nullptr) return;
  if (!reported_.emplace(pending.group, ids.process, ids.tp).second) return;
  const std::string& group = symbols().group(pending.group);
  const std::string& other = symbols().group(setter_group);
  const std::string& setter_process = symbols().process(setter->process);
  Violation v = violation_at("group-interference", e);
  v.members = {e.process, setter_process};
  v.explanation = e.process + " of group " + group + " started " + symbols().where(ids.tp) + " at offset " +
                  std::to_string(offset) + " (event #" + std::to_string(e.index) + ") after its assignment (event #" +
                  std::to_string(pending.assigned) + "), an offset group " + group +
                  " never committed nor was reset to, but which " +
                  (setter->reset ? "a reset aimed at group " + other : setter_process + " of group " + other + " committed") +
                  " at event #" + std::to_string(setter->event) + ": another group's offset became this group's";
  report(std::move(v));
}

}  // namespace logsim::properties

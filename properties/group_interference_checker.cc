// The group-interference checker: a newly assigned partition's start, against the offsets the
// group itself committed or was reset to.
#include "properties/group_interference_checker.h"

#include <algorithm>

namespace logsim::properties {

std::size_t GroupInterferenceChecker::AtHash::operator()(const At& a) const noexcept {
  std::uint64_t x = a.id * 0x9e3779b97f4a7c15ULL ^ static_cast<std::uint64_t>(a.offset);
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return static_cast<std::size_t>(x);
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
        settled_.erase(pack(ids.group, ids.tp));  // delete-offsets: no committed offset until it commits again
      } else {
        own_.try_emplace(At{pack(ids.group, ids.tp), e.offset->value()}, true);
        on_set(e, ids, /*reset=*/true);
      }
      return;
    case OpKind::kCommitInvoke:
      if (e.offset) own_.try_emplace(At{pack(ids.group, ids.tp), e.offset->value()}, true);
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
  settled_.try_emplace(pack(ids.group, ids.tp), e.index);
  std::uint32_t* head = set_by_.try_emplace(At{ids.tp, e.offset->value()}, UINT32_MAX).first;
  for (std::uint32_t s = *head; s != UINT32_MAX; s = setters_[s].next) {
    if (setters_[s].group == ids.group) return;
  }
  setters_.push_back(Setter{ids.group, ids.process, reset, *head, e.index});
  *head = static_cast<std::uint32_t>(setters_.size() - 1);
}

void GroupInterferenceChecker::on_process(const HistoryEvent& e, const EventIds& ids) {
  Pending* const slot = pending_of(ids);
  if (slot == nullptr) return;
  const Pending pending = *slot;
  slot->group = kNoId;
  --members_[ids.process].waiting;
  const std::int64_t offset = e.offset->value();
  const std::uint64_t gp = pack(pending.group, ids.tp);
  if (own_.contains(At{gp, offset})) return;
  const std::uint64_t* settled = settled_.find(gp);
  if (settled == nullptr || *settled >= pending.assigned) return;
  const std::uint32_t* setters = set_by_.find(At{ids.tp, offset});
  if (setters == nullptr) return;
  // The setter of another group whose name comes first (as a map by group name would give).
  const Setter* setter = nullptr;
  for (std::uint32_t s = *setters; s != UINT32_MAX; s = setters_[s].next) {
    const Setter& candidate = setters_[s];
    if (candidate.group == pending.group) continue;
    if (setter == nullptr || symbols().group(candidate.group) < symbols().group(setter->group)) setter = &candidate;
  }
  if (setter == nullptr) return;
  if (!reported_.emplace(pending.group, ids.process, ids.tp).second) return;
  const std::string& group = symbols().group(pending.group);
  const std::string& other = symbols().group(setter->group);
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

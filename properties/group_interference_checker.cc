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
  switch (e.kind) {
    case OpKind::kAssign: {
      if (ids.group == kNoId) return;
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
      return;
    }
    case OpKind::kSeek:
      if (e.process == "admin") {
        if (ids.group == kNoId) return;
        const std::uint64_t gp = pack(ids.group, ids.tp);
        if (e.offset < 0) {  // delete-offsets: until it commits again, the group has no committed offset
          settled_.erase(gp);
          return;
        }
        own_.try_emplace(At{gp, e.offset}, true);
        settled_.try_emplace(gp, e.index);
        std::uint32_t* head = set_by_.try_emplace(At{ids.tp, e.offset}, UINT32_MAX).first;
        for (std::uint32_t s = *head; s != UINT32_MAX; s = setters_[s].next) {
          if (setters_[s].group == ids.group) return;
        }
        setters_.push_back(Setter{ids.group, ids.process, true, *head, e.index});
        *head = static_cast<std::uint32_t>(setters_.size() - 1);
      } else if (ids.process < members_.size()) {
        // auto.offset.reset chose the start
        Member& m = members_[ids.process];
        if (m.waiting == 0) return;
        const auto it = std::lower_bound(m.tps.begin(), m.tps.end(), ids.tp);
        if (it == m.tps.end() || *it != ids.tp) return;
        Pending& p = m.pending[static_cast<std::size_t>(it - m.tps.begin())];
        if (p.group != kNoId) {
          p.group = kNoId;
          --m.waiting;
        }
      }
      return;
    case OpKind::kCommitInvoke:
      if (ids.group != kNoId && e.offset >= 0) own_.try_emplace(At{pack(ids.group, ids.tp), e.offset}, true);
      return;
    case OpKind::kCommitOk: {
      if (ids.group == kNoId || e.offset < 0) return;
      settled_.try_emplace(pack(ids.group, ids.tp), e.index);
      std::uint32_t* head = set_by_.try_emplace(At{ids.tp, e.offset}, UINT32_MAX).first;
      for (std::uint32_t s = *head; s != UINT32_MAX; s = setters_[s].next) {
        if (setters_[s].group == ids.group) return;
      }
      setters_.push_back(Setter{ids.group, ids.process, false, *head, e.index});
      *head = static_cast<std::uint32_t>(setters_.size() - 1);
      return;
    }
    case OpKind::kProcess:
      break;
    default:
      return;
  }
  if (ids.group == kNoId || ids.process >= members_.size()) return;
  Member& m = members_[ids.process];
  if (m.waiting == 0) return;
  const auto it = std::lower_bound(m.tps.begin(), m.tps.end(), ids.tp);
  if (it == m.tps.end() || *it != ids.tp) return;
  Pending& slot = m.pending[static_cast<std::size_t>(it - m.tps.begin())];
  if (slot.group == kNoId) return;
  const Pending pending = slot;
  slot.group = kNoId;
  --m.waiting;
  const std::uint64_t gp = pack(pending.group, ids.tp);
  if (own_.contains(At{gp, e.offset})) return;
  const std::uint64_t* settled = settled_.find(gp);
  if (settled == nullptr || *settled >= pending.assigned) return;
  const std::uint32_t* setters = set_by_.find(At{ids.tp, e.offset});
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
                  std::to_string(e.offset) + " (event #" + std::to_string(e.index) + ") after its assignment (event #" +
                  std::to_string(pending.assigned) + "), an offset group " + group +
                  " never committed nor was reset to, but which " +
                  (setter->reset ? "a reset aimed at group " + other : setter_process + " of group " + other + " committed") +
                  " at event #" + std::to_string(setter->event) + ": another group's offset became this group's";
  report(std::move(v));
}

}  // namespace logsim::properties

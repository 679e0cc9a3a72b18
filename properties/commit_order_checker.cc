// The commit-order checker (`nonmonotonic-commit`).
#include "properties/commit_order_checker.h"

#include <string>

namespace logsim::properties {

void CommitOrderChecker::on_event(const HistoryEvent& e, const EventIds& ids) {
  if (ids.group == kNoId) return;
  const std::uint64_t key = pack(ids.group, ids.tp);
  if (e.kind == OpKind::kSeek) {
    last_.erase(key);  // a seek or reset moves the position either way: commits start afresh
    return;
  }
  if (e.kind != OpKind::kCommitOk || !e.offset || !e.generation) return;
  const Accepted now{e.offset->value(), e.generation->value(), e.index, ids.process, false};
  const auto [last, fresh] = last_.try_emplace(key, now);
  if (fresh) return;
  if (last->generation != now.generation || now.offset >= last->offset) {
    const bool reported = last->generation == now.generation && last->reported;
    *last = now;
    last->reported = reported;
    return;
  }
  if (last->reported) return;
  const Accepted before = *last;
  *last = now;
  last->reported = true;
  Violation v = violation_at("nonmonotonic-commit", e);
  if (before.process != ids.process) v.members.push_back(symbols().process(before.process));
  v.explanation = "in generation " + std::to_string(now.generation) + " of group " + e.group + ", the coordinator accepted " +
                  e.process + "'s commit of " + symbols().where(ids.tp) + " at offset " + std::to_string(now.offset) +
                  " after it had accepted offset " + std::to_string(before.offset) + " (event #" +
                  std::to_string(before.event) + (before.process != ids.process ? ", from " + symbols().process(before.process) : "") +
                  "), with no seek in between: the group's committed offset went backwards, so its next member "
                  "re-reads what was already processed";
  report(std::move(v));
}

}  // namespace logsim::properties

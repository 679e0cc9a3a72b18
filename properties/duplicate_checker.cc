// The duplicate checker (`duplicate`).
#include "properties/duplicate_checker.h"

namespace logsim::properties {

void DuplicateChecker::on_event(const HistoryEvent& e, const EventIds& /*ids*/) {
  if (e.value_id == 0) return;
  if (e.kind == OpKind::kSendInvoke) {
    if (e.idempotent) idempotent_.emplace(e.value_id, e.process);
    return;
  }
  if (e.kind != OpKind::kProcess || e.offset < 0) return;
  const auto producer = idempotent_.find(e.value_id);
  if (producer == idempotent_.end()) return;
  const Where where{e.topic, e.partition, e.offset};
  const auto [it, fresh] = first_.emplace(e.value_id, First{where, e.index, e.process});
  if (fresh || it->second.where == where || reported_.contains(e.value_id)) return;
  reported_.insert(e.value_id);
  const auto& [topic, partition, offset] = it->second.where;
  Violation v = violation_at("duplicate", e);
  v.members = {producer->second, it->second.process};
  if (e.process != it->second.process) v.members.push_back(e.process);
  v.explanation = "value " + std::to_string(e.value_id) + ", sent by the idempotent producer " + producer->second +
                  ", was processed at " + topic + "/" + std::to_string(partition) + " offset " + std::to_string(offset) +
                  " (event #" + std::to_string(it->second.event) + ") and again at " + e.topic + "/" +
                  std::to_string(e.partition) + " offset " + std::to_string(e.offset) +
                  ": it was written twice, which idempotence exists to prevent";
  report(std::move(v));
}

}  // namespace logsim::properties

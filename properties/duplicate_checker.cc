// The duplicate checker (`duplicate`).
#include "properties/duplicate_checker.h"

namespace logsim::properties {

void DuplicateChecker::on_event(const HistoryEvent& e, const EventIds& ids) {
  if (e.value_id == 0) return;
  if (e.kind == OpKind::kSendInvoke) {
    if (e.idempotent) values_.emplace(value_key(e.value_id), Value{.producer = ids.process});
    return;
  }
  if (e.kind != OpKind::kProcess || !e.offset) return;
  const std::int64_t offset = e.offset->value();
  Value* const found = values_.find(value_key(e.value_id));
  if (found == nullptr || found->producer == kNoId) return;
  Value& value = *found;
  if (value.first_tp == kNoId) {
    value.first_tp = ids.tp;
    value.first_offset = offset;
    value.first_event = e.index;
    value.first_process = ids.process;
    return;
  }
  if ((value.first_tp == ids.tp && value.first_offset == offset) || value.reported) return;
  value.reported = true;
  const Symbols& s = symbols();
  Violation v = violation_at("duplicate", e);
  v.members = {s.process(value.producer), s.process(value.first_process)};
  if (ids.process != value.first_process) v.members.push_back(e.process);
  v.explanation = "value " + std::to_string(e.value_id) + ", sent by the idempotent producer " + s.process(value.producer) +
                  ", was processed at " + s.where(value.first_tp) + " offset " + std::to_string(value.first_offset) +
                  " (event #" + std::to_string(value.first_event) + ") and again at " + s.where(ids.tp) +
                  " offset " + std::to_string(offset) +
                  ": it was written twice, which idempotence exists to prevent";
  report(std::move(v));
}

}  // namespace logsim::properties

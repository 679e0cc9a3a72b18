// The per-partition order checker.
#include "properties/order_checker.h"

namespace logsim::properties {

void OrderChecker::on_event(const HistoryEvent& e, const EventIds& ids) {
  if (e.kind != OpKind::kAssign && e.kind != OpKind::kSeek && e.kind != OpKind::kProcess) return;
  if (ids.process >= last_.size()) last_.resize(ids.process + std::size_t{1});
  auto& runs = last_[ids.process];
  switch (e.kind) {
    case OpKind::kAssign:
      runs.clear();  // a new assignment starts a new run of offsets for every partition of the process
      return;
    case OpKind::kSeek:
      runs.erase(ids.tp);
      return;
    default:
      break;
  }
  if (!e.offset) return;
  const std::int64_t offset = e.offset->value();
  const auto [last, fresh] = runs.try_emplace(ids.tp, Last{offset, e.index});
  if (fresh) return;
  if (offset <= last->offset) {
    Violation v = violation_at("nonmonotonic-poll", e);
    v.explanation = e.process + " processed " + symbols().where(ids.tp) + " offset " +
                    std::to_string(offset) + " after offset " +
                    std::to_string(last->offset) + " (event #" + std::to_string(last->event) +
                    ") within one assignment, with no seek in between";
    report(std::move(v));
  }
  *last = Last{offset, e.index};
}

}  // namespace logsim::properties

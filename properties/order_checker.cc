// The per-partition order checker.
#include "properties/order_checker.h"

namespace logsim::properties {

void OrderChecker::on_event(const HistoryEvent& e, const EventIds& ids) {
  if (e.kind != OpKind::kAssign && e.kind != OpKind::kSeek && e.kind != OpKind::kProcess && e.kind != OpKind::kPoll) return;
  if (ids.process >= last_.size()) {
    last_.resize(ids.process + std::size_t{1});
    polls_.resize(ids.process + std::size_t{1});
  }
  auto& runs = last_[ids.process];
  switch (e.kind) {
    case OpKind::kPoll:
      ++polls_[ids.process];
      return;
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
  const std::uint32_t poll = polls_[ids.process];
  const auto [last, fresh] = runs.try_emplace(ids.tp, Last{offset, e.index, poll});
  if (fresh) return;
  if (offset <= last->offset) {
    const bool one_poll = poll > 0 && last->poll == poll;
    Violation v = violation_at(one_poll ? "int-nonmonotonic-poll" : "nonmonotonic-poll", e);
    v.explanation = e.process + " processed " + symbols().where(ids.tp) + " offset " +
                    std::to_string(offset) + " after offset " +
                    std::to_string(last->offset) + " (event #" + std::to_string(last->event) + ") " +
                    (one_poll ? "in the same poll" : "within one assignment") + ", with no seek in between";
    report(std::move(v));
  }
  *last = Last{offset, e.index, poll};
}

}  // namespace logsim::properties

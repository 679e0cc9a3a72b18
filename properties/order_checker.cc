// The per-partition order checker.
#include "properties/order_checker.h"

namespace logsim::properties {

void OrderChecker::on_event(const HistoryEvent& e, const EventIds& /*ids*/) {
  switch (e.kind) {
    case OpKind::kAssign: {
      // A new assignment starts a new run of offsets for every partition of the process.
      auto it = last_.lower_bound(Key{e.process, "", INT32_MIN});
      while (it != last_.end() && std::get<0>(it->first) == e.process) it = last_.erase(it);
      return;
    }
    case OpKind::kSeek:
      last_.erase(Key{e.process, e.topic, e.partition});
      return;
    case OpKind::kProcess:
      break;
    default:
      return;
  }
  const Key key{e.process, e.topic, e.partition};
  auto it = last_.find(key);
  if (it != last_.end() && e.offset <= it->second.offset) {
    Violation v = violation_at("nonmonotonic-poll", e);
    v.explanation = e.process + " processed " + e.topic + "/" + std::to_string(e.partition) +
                    " offset " + std::to_string(e.offset) + " after offset " +
                    std::to_string(it->second.offset) + " (event #" + std::to_string(it->second.event) +
                    ") within one assignment, with no seek in between";
    report(std::move(v));
  }
  last_[key] = Last{e.offset, e.index};
}

}  // namespace logsim::properties

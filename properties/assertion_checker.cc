#include "properties/assertion_checker.h"

namespace logsim::properties {

void AssertionChecker::on_event(const HistoryEvent& e, const EventIds&) {
  if (e.kind != OpKind::kAssert) return;
  if (e.error == kSometimesReached) ++reached_;
  if (e.error == kSometimesHeld) ++held_;
  if (e.error != kAlwaysFailed) return;
  ++failed_;
  Violation v = violation_at("assertion-failed", e);
  v.explanation = e.process + "'s assertion always(\"" + e.note + "\") did not hold";
  report(std::move(v));
}

void AssertionChecker::figures(std::map<std::string, std::int64_t>& out) const {
  if (failed_ > 0) out["assertions.always.failed"] = failed_;
  if (reached_ > 0) out["assertions.sometimes.reached"] = reached_;
  if (held_ > 0) out["assertions.sometimes.held"] = held_;
}

}  // namespace logsim::properties

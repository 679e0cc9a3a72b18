// The exactly-once pipeline checker (eos_checker.h).
#include "properties/eos_checker.h"

#include <string>

namespace logsim::properties {

void EosChecker::on_event(const HistoryEvent& e, const EventIds& ids) {
  if (e.kind == OpKind::kTxnCommit) {
    for (const std::uint64_t v : txns_.open_values(ids.process)) committed(v, e);
  }
  txns_.observe(e, ids);
  if (e.kind == OpKind::kSendInvoke && e.source_value_id != 0 && e.value_id != 0) {
    *source_.emplace(value_key(e.value_id), 0).first = e.source_value_id;
  } else if (e.kind == OpKind::kProcess && e.read_committed && e.value_id != 0) {
    committed(e.value_id, e);
  }
}

void EosChecker::committed(std::uint64_t output, const HistoryEvent& e) {
  const std::uint64_t* source = source_.find(value_key(output));
  if (source == nullptr) return;  // not a pipeline's output
  const std::uint64_t input = *source;
  std::uint64_t& first = *first_out_.emplace(value_key(input), 0).first;
  if (first == 0) {
    first = output;
    return;
  }
  if (first == output || !reported_.insert(value_key(input))) return;
  Violation v = violation_at("eos-duplicate", e);
  v.explanation = "input value " + std::to_string(input) + " was copied into value " + std::to_string(first) +
                  " and into value " + std::to_string(output) + " (event #" + std::to_string(e.index) +
                  "), and both committed: an exactly-once pipeline processed it twice";
  report(std::move(v));
}

}  // namespace logsim::properties

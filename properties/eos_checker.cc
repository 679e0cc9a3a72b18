// The exactly-once pipeline checker (eos_checker.h).
#include "properties/eos_checker.h"

#include <algorithm>
#include <string>

namespace logsim::properties {

void EosChecker::on_event(const HistoryEvent& e, const EventIds& ids) {
  if (e.kind == OpKind::kTxnCommit) {
    for (const std::uint64_t v : txns_.open_values(ids.process)) committed(v, e, ids);
  }
  txns_.observe(e, ids);
  switch (e.kind) {
    case OpKind::kSendInvoke:
      if (e.source_value_id != 0 && e.value_id != 0) copied(e, ids);
      return;
    case OpKind::kProcess:
      if (e.read_committed && e.value_id != 0) committed(e.value_id, e, ids);
      if (ids.group != kNoId && e.value_id != 0 && e.offset) {
        if (ids.process >= last_processed_.size()) last_processed_.resize(std::size_t{ids.process} + 1);
        last_processed_[ids.process] = Input{e.value_id, ids.group, ids.tp, e.offset->value(), ids.key};
      }
      return;
    case OpKind::kSeek:
      // A seek to the committed offset (none given, by a member) skips nothing.
      if (ids.group != kNoId && (e.offset || e.process == "admin")) {
        excuse_below(ids.group, ids.tp, e.offset ? std::optional(e.offset->value()) : std::nullopt);
      }
      return;
    default:
      return;
  }
}

void EosChecker::copied(const HistoryEvent& e, const EventIds& ids) {
  Input in{e.source_value_id};
  if (ids.process < last_processed_.size() && last_processed_[ids.process].value == e.source_value_id) {
    in = last_processed_[ids.process];
  }
  *source_.emplace(value_key(e.value_id), Input{}).first = in;
  if (!in.located()) return;
  const std::uint64_t* first = first_out_.find(value_key(in.value));
  if (first != nullptr && *first != 0 && source_.find(value_key(*first))->same_record(in)) return;  // committed already
  Pending& p = pending_[Where{in.group, in.tp, in.offset}];
  p.input = in;
  p.copies.push_back(e.value_id);
}

void EosChecker::committed(std::uint64_t output, const HistoryEvent& e, const EventIds& ids) {
  const Input* found = source_.find(value_key(output));
  if (found == nullptr) return;  // not a pipeline's output
  const Input in = *found;
  if (in.located()) {
    pending_.erase(Where{in.group, in.tp, in.offset});
    // Every input of the partition before this one with no committed copy yet: the group's
    // offsets have passed it.
    for (auto it = pending_.lower_bound(Where{in.group, in.tp, INT64_MIN});
         it != pending_.end() && std::get<0>(it->first) == in.group && std::get<1>(it->first) == in.tp &&
         std::get<2>(it->first) < in.offset;
         ++it) {
      if (!it->second.passed) it->second.passed = Mark{e.index, e.at, ids.process};
    }
  }
  std::uint64_t& first = *first_out_.emplace(value_key(in.value), 0).first;
  if (first == 0) {
    first = output;
    return;
  }
  if (first == output || !source_.find(value_key(first))->same_record(in) || !reported_.insert(value_key(in.value))) return;
  Violation v = violation_at("eos-duplicate", e);
  v.explanation = "input value " + std::to_string(in.value) +
                  (in.located() ? " (" + symbols().where(in.tp) + " offset " + std::to_string(in.offset) + ")" : "") +
                  " was copied into value " + std::to_string(first) + " and into value " + std::to_string(output) +
                  " (event #" + std::to_string(e.index) + "), and both committed: an exactly-once pipeline processed it twice";
  report(std::move(v));
}

// A seek or reset of the group's position on the partition: the inputs it skips need no copy.
void EosChecker::excuse_below(Id group, Id tp, std::optional<std::int64_t> offset) {
  for (auto it = pending_.lower_bound(Where{group, tp, INT64_MIN});
       it != pending_.end() && std::get<0>(it->first) == group && std::get<1>(it->first) == tp;) {
    if (offset && std::get<2>(it->first) >= *offset) break;
    it = pending_.erase(it);
  }
}

void EosChecker::finish() {
  for (const auto& [where, p] : pending_) {
    if (!p.passed) continue;  // not passed: not lost (maybe not done yet)
    const bool all_aborted = std::all_of(p.copies.begin(), p.copies.end(), [&](std::uint64_t c) { return txns_.aborted(c); });
    if (!all_aborted) continue;  // a copy may have committed
    const Input& in = p.input;
    Violation v = violation_of("eos-lost", p.passed->event, p.passed->at, p.passed->process, in.tp, Offset(in.offset), in.key);
    std::string copies;
    for (const std::uint64_t c : p.copies) copies += (copies.empty() ? "" : ", ") + std::to_string(c);
    v.explanation = "input value " + std::to_string(in.value) + " (" + symbols().where(in.tp) + " offset " +
                    std::to_string(in.offset) + ") was copied by group " + symbols().group(in.group) +
                    " only in transactions that aborted (value" + (p.copies.size() > 1 ? "s " : " ") + copies +
                    "), yet the group committed a copy of a later record of the partition (event #" +
                    std::to_string(p.passed->event) + "): its offsets passed the input, which never reached the output";
    report(std::move(v));
  }
}

}  // namespace logsim::properties

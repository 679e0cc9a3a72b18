// The log-integrity checker: inconsistent offsets online, lost writes at the end.
#include "properties/log_checker.h"

#include <algorithm>

namespace logsim::properties {

void LogChecker::note(const Where& where, const HistoryEvent& e) {
  auto [it, fresh] = at_.emplace(where, Seen{e.value_id, e.index, e.process});
  if (fresh || it->second.value == e.value_id || conflicted_.contains(where)) return;
  conflicted_.insert(where);
  const auto& [topic, partition, offset] = where;
  Violation v;
  v.anomaly = "inconsistent-offsets";
  v.first_event = e.index;
  v.at = e.at;
  v.process = e.process;
  v.topic = topic;
  v.partition = partition;
  v.offset = offset;
  v.key = e.key;
  v.members = {it->second.process, e.process};
  v.explanation = topic + "/" + std::to_string(partition) + " offset " + std::to_string(offset) + " held value " +
                  std::to_string(it->second.value) + " (event #" + std::to_string(it->second.event) +
                  ") and then value " + std::to_string(e.value_id) +
                  ": one offset was given to two records, as when a new leader lacked records the old one "
                  "had acknowledged";
  report(std::move(v));
}

void LogChecker::on_event(const HistoryEvent& e, const EventIds& /*ids*/) {
  if (e.kind == OpKind::kAssign) {
    read_from_.erase(e.process);
    return;
  }
  if (e.kind == OpKind::kSeek) {
    if (e.offset >= 0) read_from_[e.process][{e.topic, e.partition}] = e.offset;
    else read_from_[e.process].erase({e.topic, e.partition});
    return;
  }
  if (e.kind == OpKind::kCommitOk && e.offset >= 0) {
    auto& c = group_committed_[{e.topic, e.partition}];
    c = std::max(c, e.offset);
    return;
  }
  if (e.value_id == 0 || e.offset < 0) return;
  const Where where{e.topic, e.partition, e.offset};
  if (e.kind == OpKind::kSendOk) {
    acked_[e.value_id] = Ack{where, e.index, e.key, e.process};
    note(where, e);
  } else if (e.kind == OpKind::kProcess) {
    processed_.insert(e.value_id);
    const std::int64_t from = read_from_[e.process].emplace(std::make_pair(e.topic, e.partition), e.offset).first->second;
    processings_[{e.topic, e.partition}].push_back(Processing{e.offset, from, e.index, e.at, e.process});
    processed_at_.insert(where);
    note(where, e);
  }
}

void LogChecker::finish() {
  for (const auto& [value, ack] : acked_) {
    if (processed_.contains(value)) continue;
    const auto& [topic, partition, offset] = ack.where;
    auto it = processings_.find({topic, partition});
    if (it == processings_.end()) continue;
    // Nobody processed anything at that offset, and a group committed past it: the group
    // skipped the record (lost-commit explains it), which says nothing about the log.
    auto committed = group_committed_.find({topic, partition});
    if (!processed_at_.contains(ack.where) && committed != group_committed_.end() && committed->second > offset) continue;
    // The first processing at or past the offset, after the acknowledgement, shows the loss.
    const Processing* shown = nullptr;
    for (const Processing& p : it->second) {
      if (p.event > ack.event && p.offset >= offset && p.read_from <= offset) {
        shown = &p;
        break;
      }
    }
    if (shown == nullptr) continue;  // not read through that far: unseen, not lost
    Violation v;
    v.anomaly = "lost-write";
    v.first_event = shown->event;
    v.at = shown->at;
    v.process = shown->process;
    v.topic = topic;
    v.partition = partition;
    v.offset = offset;
    v.key = ack.key;
    v.members = {ack.process, shown->process};
    v.explanation = "value " + std::to_string(value) + " was acknowledged to " + ack.process + " at " + topic + "/" +
                    std::to_string(partition) + " offset " + std::to_string(offset) + " (event #" +
                    std::to_string(ack.event) + "), but no consumer ever processed it, although " + shown->process +
                    " read that partition from offset " + std::to_string(shown->read_from) + " to offset " +
                    std::to_string(shown->offset) + " after the acknowledgement";
    report(std::move(v));
  }
}

}  // namespace logsim::properties

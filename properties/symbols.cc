// Interning of a history's repeated strings.
#include "properties/symbols.h"

namespace logsim::properties {

Id Interner::intern(std::string_view name) {
  if (last_ != kNoId && names_[last_] == name) return last_;
  auto it = ids_.find(name);
  if (it == ids_.end()) {
    const Id id = static_cast<Id>(names_.size());
    names_.emplace_back(name);
    it = ids_.emplace(std::string(name), id).first;
  }
  last_ = it->second;
  return last_;
}

Id Symbols::tp(Id topic, std::int32_t partition) {
  const std::uint64_t k = pack(topic, static_cast<std::uint32_t>(partition));
  const auto [it, fresh] = tp_ids_.emplace(k, static_cast<Id>(tps_.size()));
  if (fresh) tps_.emplace_back(topic, partition);
  return it->second;
}

EventIds Symbols::ids_of(const HistoryEvent& e) {
  EventIds ids;
  ids.process = processes_.intern(e.process);
  if (!e.group.empty()) ids.group = groups_.intern(e.group);
  ids.topic = topics_.intern(e.topic);
  // Only the checkers of sends keep keys; a processed record's key is read from the event when
  // a violation names it. Interning every consumer event's key cost about 5 % of checking.
  const bool send = e.kind == OpKind::kSendInvoke || e.kind == OpKind::kSendOk || e.kind == OpKind::kSendFail ||
                    e.kind == OpKind::kSendInfo;
  if (e.key && send) ids.key = keys_.intern(*e.key);
  ids.tp = tp(ids.topic, e.partition);
  if (!e.assignment.empty()) {
    assignment_.clear();
    for (const TopicPartitionRef& r : e.assignment) assignment_.push_back(tp(topics_.intern(r.topic), r.partition));
    ids.assignment = assignment_;
  }
  return ids;
}

}  // namespace logsim::properties

// Interning of a history's repeated strings.
#include "properties/symbols.h"

#include <algorithm>
#include <cstring>

namespace logsim::properties {

Id Symbols::tp_of(Id topic, std::int32_t partition) {
  // Partitions are small non-negative numbers, or -1 (no partition); anything else is rare
  // enough (a hand-written history) to look up linearly among the topic's extras.
  if (topic >= tp_ids_.size()) tp_ids_.resize(topic + std::size_t{1});
  std::vector<Id>& ids = tp_ids_[topic];
  if (partition >= -1 && partition < (1 << 20)) {
    const auto slot = static_cast<std::size_t>(partition + 1);
    if (slot >= ids.size()) ids.resize(slot + 1, kNoId);
    if (ids[slot] == kNoId) {
      ids[slot] = static_cast<Id>(tps_.size());
      tps_.emplace_back(topic, partition);
    }
    return ids[slot];
  }
  for (Id id = 0; id < tps_.size(); ++id) {
    if (tps_[id].first == topic && tps_[id].second == partition) return id;
  }
  tps_.emplace_back(topic, partition);
  return static_cast<Id>(tps_.size() - 1);
}

Id Symbols::group_incarnation(Id name) {
  if (name >= group_current_.size()) group_current_.resize(name + std::size_t{1}, kNoId);
  Id& current = group_current_[name];
  if (current == kNoId) {
    current = static_cast<Id>(group_name_.size());
    group_name_.push_back(name);
  }
  return current;
}

EventIds Symbols::ids_of(const HistoryEvent& e) {
  return ids_of(e, History::TextIds{});  // every text id kNoId: each string is interned itself
}

Id Symbols::via_text(std::vector<Id>& by_text, Id text, Interner& kind, std::string_view name) {
  if (text == kNoId) return kind.intern(name);
  if (text >= by_text.size()) by_text.resize(text + std::size_t{1}, kNoId);
  Id& id = by_text[text];
  if (id == kNoId) id = kind.intern(name);
  return id;
}

EventIds Symbols::ids_of(const HistoryEvent& e, const History::TextIds& entry) {
  // The ids are the strings' own: a text id maps to an id only once its string was interned.
  EventIds ids;
  ids.process = via_text(process_by_text_, entry.process, processes_, e.process);
  if (!e.group.empty()) {
    const Id name = via_text(group_by_text_, entry.group, groups_, e.group);
    ids.group = group_incarnation(name);
    // A deleted group used again is a new one: the next events get a new incarnation.
    if (e.kind == OpKind::kAdmin && (e.error.empty() || e.error == "NONE") && e.note.starts_with("delete-group ")) {
      group_current_[name] = kNoId;
    }
  }
  ids.topic = via_text(topic_by_text_, entry.topic, topics_, e.topic);
  // Only the checkers of sends keep keys; a processed record's key is read from the event when
  // a violation names it. Interning every consumer event's key cost about 5 % of checking.
  if (e.key && is_send(e.kind)) ids.key = via_text(key_by_text_, entry.key, keys_, *e.key);
  ids.tp = tp(ids.topic, e.partition);
  if (!e.assignment.empty()) {
    assignment_.clear();
    for (const TopicPartition& r : e.assignment) assignment_.push_back(tp_of(topics_.intern(r.topic), r.partition.value()));
    ids.assignment = assignment_;
  }
  return ids;
}

}  // namespace logsim::properties

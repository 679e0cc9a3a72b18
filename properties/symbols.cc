// Interning of a history's repeated strings.
#include "properties/symbols.h"

#include <cstring>

#include "properties/flat_map.h"

namespace logsim::properties {

// Eight bytes at a time, each folded in with a multiply; names are short (tens of bytes).
std::uint64_t Interner::hash(std::string_view name) {
  std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ name.size();
  std::size_t i = 0;
  for (; i + 8 <= name.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, name.data() + i, 8);
    h = (h ^ word) * 0xff51afd7ed558ccdULL;
    h ^= h >> 29;
  }
  if (i < name.size()) {
    std::uint64_t word = 0;
    std::memcpy(&word, name.data() + i, name.size() - i);
    h = (h ^ word) * 0xff51afd7ed558ccdULL;
    h ^= h >> 29;
  }
  return mix64(h);
}

void Interner::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 16 : old.size() * 2, Slot{});
  const std::size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.id == kNoId) continue;
    std::size_t i = static_cast<std::size_t>(s.hash) & mask;
    while (slots_[i].id != kNoId) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

Id Interner::intern(std::string_view name) {
  if (last_ != kNoId && names_[last_] == name) return last_;
  if (2 * (names_.size() + 1) > slots_.size()) grow();
  const std::uint64_t h = hash(name);
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = static_cast<std::size_t>(h) & mask;
  for (; slots_[i].id != kNoId; i = (i + 1) & mask) {
    if (slots_[i].hash == h && names_[slots_[i].id] == name) return last_ = slots_[i].id;
  }
  const Id id = static_cast<Id>(names_.size());
  names_.emplace_back(name);
  slots_[i] = Slot{h, id};
  return last_ = id;
}

Id Symbols::tp(Id topic, std::int32_t partition) {
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

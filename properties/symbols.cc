// Interning of a history's repeated strings.
#include "properties/symbols.h"

#include <algorithm>
#include <cstring>

namespace logsim::properties {

// The probe of a name. Names of up to 16 bytes are held whole in `head`: from 8 bytes on, its
// first and its last 8 bytes (overlapping below 16); below 8, its first and last 4 bytes, or
// its first, middle and last byte (which cover every byte of such a name). The hash folds in
// the head and every further 8 bytes with one multiply each, then folds its high half into the
// low bits the table indexes by.
Interner::Probe Interner::probe(std::string_view name) {
  constexpr std::uint64_t kMul = 0x9e3779b97f4a7c15ULL;
  const char* d = name.data();
  const std::size_t n = name.size();
  const auto load8 = [](const char* at) {
    std::uint64_t w;
    std::memcpy(&w, at, 8);
    return w;
  };
  const auto load4 = [](const char* at) {
    std::uint32_t w;
    std::memcpy(&w, at, 4);
    return std::uint64_t{w};
  };
  Probe p;
  p.size = static_cast<std::uint32_t>(n);
  if (n >= 8) {
    p.head[0] = load8(d);
    p.head[1] = load8(d + (n <= 16 ? n - 8 : 8));
  } else if (n >= 4) {
    p.head[0] = load4(d) | (load4(d + n - 4) << 32);
  } else if (n > 0) {
    const auto byte = [&](std::size_t i) { return std::uint64_t{static_cast<unsigned char>(d[i])}; };
    p.head[0] = byte(0) | (byte(n / 2) << 8) | (byte(n - 1) << 16);
  }
  std::uint64_t h = ((p.head[0] ^ (n * kMul)) * kMul) ^ p.head[1];
  h *= kMul;
  for (std::size_t i = 16; i < n; i += 8) {
    h = (h ^ (i + 8 <= n ? load8(d + i) : load8(d + n - 8))) * kMul;
  }
  h ^= h >> 32;
  h *= 0xff51afd7ed558ccdULL;
  p.hash = h ^ (h >> 29);
  return p;
}

void Interner::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 16 : old.size() * 2, Slot{});
  const std::size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.id == kNoId) continue;
    std::size_t i = static_cast<std::size_t>(s.probe.hash) & mask;
    while (slots_[i].id != kNoId) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

Id Interner::intern(std::string_view name) {
  if (2 * (names_.size() + 1) > slots_.size()) grow();
  const Probe p = probe(name);
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = static_cast<std::size_t>(p.hash) & mask;
  for (; slots_[i].id != kNoId; i = (i + 1) & mask) {
    const Probe& q = slots_[i].probe;
    if (q.hash == p.hash && q.size == p.size && q.head[0] == p.head[0] && q.head[1] == p.head[1] &&
        (p.size <= 16 || names_[slots_[i].id] == name)) {
      return slots_[i].id;
    }
  }
  const Id id = static_cast<Id>(names_.size());
  names_.emplace_back(name);
  slots_[i] = Slot{p, id};
  return id;
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

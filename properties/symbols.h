// Small integer ids for the strings a history repeats (processes, groups, topics, keys) and for
// topic-partitions, so that checkers key their state on integers instead of strings.
//
// A group deleted by a successful `admin` delete-group (its note "delete-group NAME: ...") and
// used again gets a new id from the next event on: its generations start again at 1, so
// checkers keyed by group id keep the two incarnations apart.
//
// Ids are handed out in order of first appearance, per `Symbols` (one per checker set, never
// global: DESIGN.md's rule 1), so the same history gives the same ids on every run. Ids are
// dense from 0 within each kind, so a checker can index a vector by them. Iteration in id order
// is first-appearance order, which is deterministic; it is not alphabetical.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "properties/history.h"
#include "properties/interner.h"

namespace logsim::properties {

// The ids of one event's strings. `assignment` (kAssign) lists the topic-partition ids of the
// new assignment, in the event's order; it is valid until the next call to `Symbols::ids_of`.
struct EventIds {
  Id process = kNoId;
  Id group = kNoId;  // kNoId when the event's group is empty
  Id topic = kNoId;
  Id key = kNoId;    // sends only (invoke and outcomes); kNoId when the event has no key or is not a send
  Id tp = kNoId;     // the (topic, partition) pair
  std::span<const Id> assignment;
};

class Symbols {
 public:
  EventIds ids_of(const HistoryEvent& e);
  // The same, for an event of a history given its packed entry: the entry's text ids lead to
  // these ids through tables, so each string is interned once per history, not once per event.
  // Every entry passed must come from the same history (its text ids mean nothing elsewhere).
  EventIds ids_of(const HistoryEvent& e, const History::TextIds& text);
  // The id of (topic, partition); an event without a partition has one of its own per topic.
  Id tp(Id topic, std::optional<PartitionId> partition) { return tp_of(topic, History::packed(partition)); }

  const std::string& process(Id id) const { return processes_.name(id); }
  // A group's name. A group deleted by an admin's delete-group and used again is a new group
  // (its generations start again at 1): each incarnation has its own id, the same name.
  const std::string& group(Id id) const { return groups_.name(group_name_[id]); }
  const std::string& topic(Id id) const { return topics_.name(id); }
  const std::string& key(Id id) const { return keys_.name(id); }
  std::optional<std::string> key_or_null(Id id) const {
    return id == kNoId ? std::nullopt : std::optional<std::string>(keys_.name(id));
  }
  Id topic_of(Id tp) const { return tps_[tp].first; }
  std::optional<PartitionId> partition_of(Id tp) const { return History::unpacked<PartitionId>(tps_[tp].second); }
  const std::string& topic_of_tp(Id tp) const { return topics_.name(tps_[tp].first); }
  // "topic/partition"
  std::string where(Id tp) const { return topic_of_tp(tp) + "/" + std::to_string(tps_[tp].second); }

  std::size_t processes() const { return processes_.size(); }
  std::size_t groups() const { return group_name_.size(); }
  std::size_t tps() const { return tps_.size(); }

 private:
  // The id of `name` among `kind`'s, found by its history text id where that was seen before
  // (text kNoId: by the name alone).
  static Id via_text(std::vector<Id>& by_text, Id text, Interner& kind, std::string_view name);
  static bool is_send(OpKind k) {
    return k == OpKind::kSendInvoke || k == OpKind::kSendOk || k == OpKind::kSendFail || k == OpKind::kSendInfo;
  }

  Id tp_of(Id topic, std::int32_t partition);  // partition: History's packed form (-1: none)

  // The id of the group named `name` (groups_ id), in its current incarnation.
  Id group_incarnation(Id name);

  Interner processes_, groups_, topics_, keys_;
  std::vector<Id> group_current_;  // groups_ id -> the group id of its current incarnation (kNoId: none yet)
  std::vector<Id> group_name_;     // group id -> groups_ id
  std::vector<Id> process_by_text_, group_by_text_, topic_by_text_, key_by_text_;  // kNoId: not seen
  std::vector<std::vector<Id>> tp_ids_;  // [topic id][partition + 1] -> id (kNoId: none yet)
  std::vector<std::pair<Id, std::int32_t>> tps_;  // (topic, packed partition)
  std::vector<Id> assignment_;
};

// Packs two ids into one integer key (for hash maps keyed on pairs).
inline std::uint64_t pack(Id a, Id b) { return (std::uint64_t{a} << 32) | b; }

}  // namespace logsim::properties

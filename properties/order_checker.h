// Per-partition order: within one assignment, with no seek or reset in between, the offsets
// one consumer processes from one partition only go up. A record processed at or below an
// offset the same consumer already processed is `nonmonotonic-poll` (Jepsen's name), or
// `int-nonmonotonic-poll` when both records came from one poll (the history's `poll` events
// say where each poll's records begin; a history without them has no int- anomalies).
//
// State: per process (indexed by its id), the last offset per topic-partition, cleared for a
// process when its assignment changes and for a partition when the process seeks. O(1) per
// event.
#pragma once

#include <vector>

#include "properties/checker.h"
#include "engine/base/flat_map.h"

namespace logsim::properties {

class OrderChecker final : public Checker {
 public:
  std::string_view name() const override { return "per-partition-order"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;
  KindSet kinds() const override { return kinds_of({OpKind::kAssign, OpKind::kSeek, OpKind::kProcess, OpKind::kPoll}); }

 private:
  struct Last {
    std::int64_t offset = -1;
    std::uint64_t event = 0;
    std::uint32_t poll = 0;  // the process's poll count when it processed it
  };
  // process -> tp -> last processed (hash maps: looked up and cleared, never iterated)
  std::vector<FlatMap<Id, Last>> last_;
  std::vector<std::uint32_t> polls_;  // process -> how many polls it has recorded
};

}  // namespace logsim::properties

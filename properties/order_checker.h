// Per-partition order: within one assignment, with no seek or reset in between, the offsets
// one consumer processes from one partition only go up. A record processed at or below an
// offset the same consumer already processed is `nonmonotonic-poll` (Jepsen's name).
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
  KindSet kinds() const override { return kinds_of({OpKind::kAssign, OpKind::kSeek, OpKind::kProcess}); }

 private:
  struct Last {
    std::int64_t offset = -1;
    std::uint64_t event = 0;
  };
  // process -> tp -> last processed (hash maps: looked up and cleared, never iterated)
  std::vector<FlatMap<Id, Last>> last_;
};

}  // namespace logsim::properties

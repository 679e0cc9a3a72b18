// Per-partition order: within one assignment, with no seek or reset in between, the offsets
// one consumer processes from one partition only go up. A record processed at or below an
// offset the same consumer already processed is `nonmonotonic-poll` (Jepsen's name).
//
// State: the last offset per (process, topic, partition), cleared for a process when its
// assignment changes and for a partition when the process seeks. O(1) per event.
#pragma once

#include <map>
#include <string>
#include <tuple>

#include "properties/checker.h"

namespace logsim::properties {

class OrderChecker final : public Checker {
 public:
  std::string_view name() const override { return "per-partition-order"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;

 private:
  struct Last {
    std::int64_t offset;
    std::uint64_t event;
  };
  using Key = std::tuple<std::string, std::string, std::int32_t>;  // process, topic, partition
  std::map<Key, Last> last_;
};

}  // namespace logsim::properties

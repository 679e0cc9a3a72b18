// `realtime-lag` (Jepsen's name), a figure and optionally a bound: how long an acknowledged
// record waited before a group that reads its partition first processed it. Per group (or per
// consumer, for a consumer without a group), the largest wait over every record it processed (its first processing of each offset,
// minus the record's first acknowledgement; a record processed before its acknowledgement
// arrived waited 0). Records a group never processed are not lag but `unseen`/`liveness`.
// Figures (Verdict::figures): `realtime-lag.max_ms` over all groups and
// `realtime-lag.max_ms.NAME` per group or group-less consumer. With a bound (a scenario's "properties":
// {"max_realtime_lag": "10s"}, `logsim check --max-lag 10s`), a group's first processing that
// waited longer is a `realtime-lag` violation, one per group; it counts as a liveness failure
// (exit 4), not a safety one.
//
// State: per topic-partition, the first acknowledgement time of each offset (paged table); per
// (group, topic-partition), the offsets the group processed (paged bit set); per group, its
// largest wait. O(1) per event.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "properties/checker.h"
#include "properties/group_checkers.h"
#include "properties/offset_table.h"

namespace logsim::properties {

class RealtimeLagChecker final : public Checker {
 public:
  explicit RealtimeLagChecker(std::optional<Nanos> bound = std::nullopt) : bound_(bound) {}
  std::string_view name() const override { return "realtime-lag"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;
  KindSet kinds() const override { return kinds_of({OpKind::kSendOk, OpKind::kProcess}); }
  void figures(std::map<std::string, std::int64_t>& out) const override;

 private:
  struct Worst {
    Nanos lag = -1;  // -1: nothing processed yet
    bool reported = false;
  };
  std::optional<Nanos> bound_;
  std::vector<OffsetTable<Nanos>> acked_at_;  // by topic-partition id
  GroupPartitionSlots slots_, alone_slots_;   // (group, tp); (process, tp) for consumers without a group
  std::vector<OffsetSet> processed_, alone_processed_;  // by slot
  std::vector<Worst> worst_;                  // by group id
  std::vector<Worst> worst_alone_;            // by process id: consumers without a group
};

}  // namespace logsim::properties

// Duplicates, after Jepsen's `duplicate`: a value sent by an idempotent producer is written to
// the log once, so consumers find it at one offset only. The same value processed at two
// different offsets is the violation — a retry got past the broker's deduplication and the
// record was written twice. Values from producers without idempotence are not judged: Kafka
// promises nothing there (a retry after a lost response writes the record again). Found online,
// at the first processing of a value at a second offset; one report per value.
//
// State: per value sent idempotently (a paged table by value id), who sent it and where it was
// first processed. O(1) per event, linear memory.
#pragma once

#include <cstdint>
#include "properties/checker.h"
#include "properties/offset_table.h"

namespace logsim::properties {

class DuplicateChecker final : public Checker {
 public:
  std::string_view name() const override { return "duplicates"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;
  KindSet kinds() const override { return kinds_of({OpKind::kSendInvoke, OpKind::kProcess}); }

 private:
  struct Value {
    Id producer = kNoId;
    Id first_tp = kNoId;  // kNoId: not processed yet
    Id first_process = kNoId;
    bool reported = false;
    std::int64_t first_offset = -1;
    std::uint64_t first_event = 0;
  };
  OffsetTable<Value> values_;  // value id -> what is known of it (a run's ids are dense)
};

}  // namespace logsim::properties

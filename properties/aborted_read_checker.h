// `aborted-read` (Jepsen's G1a): a consumer processed a value whose send definitely failed
// (`send-fail`: the client was told nothing was written). A failed send must leave no trace in
// the log; a read of it means the broker wrote a record while answering an error, as in
// KAFKA-13574 (NOT_LEADER_OR_FOLLOWER returned for a produce that succeeded).
//
// A send's last word counts: a send-invoke, send-ok or send-info of the same value after its
// send-fail (a client retrying it under the same id, as an idempotent producer's retry is the
// same record) takes the failure back. Found online, at whichever of the failure and the
// processing comes second; one report per value.
//
// State: per value id (a paged table: a run's ids are dense), the history index of its first
// processing, and per value whose send failed, that failure. O(1) per event.
#pragma once

#include <cstdint>

#include "properties/checker.h"
#include "properties/offset_table.h"

namespace logsim::properties {

class AbortedReadChecker final : public Checker {
 public:
  std::string_view name() const override { return "aborted-reads"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;
  KindSet kinds() const override {
    return kinds_of({OpKind::kSendInvoke, OpKind::kSendOk, OpKind::kSendFail, OpKind::kSendInfo, OpKind::kProcess});
  }

 private:
  struct Failure {
    std::uint64_t event = 0;
    Id process = kNoId;
    bool reported = false;
  };
  void report_read(const HistoryEvent& e, Failure& failed, std::uint64_t read_event, bool read_first);

  OffsetTable<Failure> failed_;          // value id -> its send's failure, while it stands
  OffsetTable<std::uint64_t> first_read_;  // value id -> the index of its first processing
};

}  // namespace logsim::properties

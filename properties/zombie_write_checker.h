// `zombie-write`: a producer fenced by a newer incarnation of its transactional.id still had a
// write acknowledged. Kafka's InitProducerId bumps the id's epoch and aborts (with markers at
// the new epoch) whatever transaction the older incarnation left open, before it answers; from
// then on every partition and the coordinator refuse the older epoch (PRODUCER_FENCED,
// INVALID_PRODUCER_EPOCH). So a send the older incarnation makes after the newer one's
// initTransactions() completed must fail. One acknowledged is a zombie's write in the log, which
// the newer incarnation's next commit may even make visible (KAFKA-17754's class).
//
// What the history must show: a `txn-begin` with a `key`, the producer's transactional.id,
// recorded on the first transaction after initTransactions() completed (logsim's producers
// record it so). Such an event fences every other process whose last such event named the same
// id; a later one of the fenced process (its own new initTransactions) lifts it. A send-invoke
// by a fenced process and that value's send-ok later is a zombie-write, reported at the send-ok.
// Sends invoked before the fencing may still be acknowledged (they were in flight).
//
// State: per transactional.id, its current process; per process, the event that fenced it; per
// value sent while fenced, that event (only while its outcome is pending). O(log n) per event.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "properties/checker.h"

namespace logsim::properties {

class ZombieWriteChecker final : public Checker {
 public:
  std::string_view name() const override { return "zombie-writes"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;
  KindSet kinds() const override {
    return kinds_of({OpKind::kTxnBegin, OpKind::kSendInvoke, OpKind::kSendOk, OpKind::kSendFail});
  }

 private:
  struct Fence {
    std::uint64_t event = 0;    // the newer incarnation's txn-begin
    std::string by;             // its process
    std::string transactional_id;
  };
  std::map<std::string, std::pair<Id, std::string>, std::less<>> holder_;  // transactional.id -> process (id, name)
  std::vector<std::int64_t> fenced_;  // by process id: index into fences_, or -1
  std::vector<Fence> fences_;
  std::map<std::uint64_t, std::size_t> pending_;  // value id -> index into fences_, sent while fenced
};

}  // namespace logsim::properties

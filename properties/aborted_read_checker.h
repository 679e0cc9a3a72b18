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
// Also an `aborted-read`: a consumer reading with isolation.level=read_committed (its `process`
// events say `read_committed`) processed a value sent in a transaction that aborted
// (`txn-abort`), before or after the abort (Kafka's LSO and aborted-transaction list must hide
// it; a read_uncommitted consumer may read it). See txn_witness.h for which sends belong to a
// transaction.
//
// `precommitted-read`: a read_committed consumer processed a value of a transaction before its
// producer asked to commit it (`txn-commit-invoke`): the broker served a record past the last
// stable offset, which an undecided transaction holds back (the transaction may still commit,
// so aborted-read would never see it). Found at the transaction's txn-commit-invoke; one report
// per transaction. A history without txn-commit-invoke events is not judged for it.
//
// State: per value id (a paged table: a run's ids are dense), the history index of its first
// processing and of its first processing under read_committed, and per value whose send failed,
// that failure; the transactions' values (txn_witness.h). O(1) per event, O(size) per abort.
#pragma once

#include <cstdint>

#include "properties/checker.h"
#include "properties/offset_table.h"
#include "properties/txn_witness.h"

namespace logsim::properties {

class AbortedReadChecker final : public Checker {
 public:
  std::string_view name() const override { return "aborted-reads"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;
  KindSet kinds() const override {
    return kinds_of({OpKind::kSendInvoke, OpKind::kSendOk, OpKind::kSendFail, OpKind::kSendInfo, OpKind::kProcess,
                     OpKind::kTxnCommitInvoke}) |
           TxnWitness::kKinds;
  }

 private:
  struct Failure {
    std::uint64_t event = 0;
    Id process = kNoId;
    bool reported = false;
  };
  void report_read(const HistoryEvent& e, Failure& failed, std::uint64_t read_event, bool read_first);
  // A read_committed processing of a value of an aborted transaction; `e` is the later of the
  // processing and the txn-abort.
  void report_txn_read(const HistoryEvent& e, std::uint64_t value, std::uint64_t read_event, std::uint64_t abort_event,
                       bool read_first);

  OffsetTable<Failure> failed_;          // value id -> its send's failure, while it stands
  OffsetTable<std::uint64_t> first_read_;  // value id -> the index of its first processing
  OffsetTable<std::uint64_t> first_rc_read_;  // value id -> its first processing under read_committed
  OffsetSet txn_reported_;                 // values reported as read from an aborted transaction
  void report_precommitted(const HistoryEvent& invoke, Id process);
  TxnWitness txns_;
};

}  // namespace logsim::properties

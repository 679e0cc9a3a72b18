// What a history says of transactions, for the checkers that judge reads: which sent values
// belong to a transaction that definitely aborted, and which to one whose outcome is unknown.
//
// A process's sends between its `txn-begin` and the next `txn-commit`, `txn-abort`, `txn-info`
// or `txn-begin` of the same process belong to one transaction (a producer runs one at a time).
// A value of an aborted transaction must not be read under read_committed (`aborted-read`) and
// need not be read by anyone (a read_committed reader skips it, a read_uncommitted one may have
// passed it before the abort marker): it is excused where the checkers require reads
// (lost-write, poll-skip, lost-commit, unseen). So is a value of a transaction whose outcome is
// unknown: `txn-info`, a `txn-begin` while one was open (the process restarted), or one still
// open at the end, until a read_committed reader processes one of its values: Kafka shows a
// transaction's records under read_committed only once it committed, so then all of them are
// owed (a partly visible transaction is found as a loss). A committed transaction's values are
// required like any acknowledged send.
//
// State: per process, the values of its open transaction; per value sent in a transaction that
// did not commit, its state (a paged table by value id). O(1) per send, O(size) per transaction.
#pragma once

#include <cstdint>
#include <vector>

#include "properties/checker.h"
#include "properties/offset_table.h"

namespace logsim::properties {

class TxnWitness {
 public:
  static constexpr KindSet kKinds = kinds_of(
      {OpKind::kSendInvoke, OpKind::kProcess, OpKind::kTxnBegin, OpKind::kTxnCommit, OpKind::kTxnAbort, OpKind::kTxnInfo});
  void observe(const HistoryEvent& e, const EventIds& ids);
  // The value was sent in a transaction that aborted (so far: a later send of the same value
  // outside it does not take that back; values are unique per send in logsim's runs).
  bool aborted(std::uint64_t value_id) const { return state(value_id) == State::kAborted; }
  // Nobody need read the value: its transaction aborted, or its outcome is unknown or still open
  // and no read_committed reader has (yet) processed a value of it.
  bool excused(std::uint64_t value_id) const;
  // Whether the history had any transaction at all (the checkers skip lookups otherwise).
  bool any() const { return any_; }
  // The txn-abort event that aborted the value's transaction (when aborted()).
  std::uint64_t abort_event(std::uint64_t value_id) const;
  // The values of the process's open transaction (before observe() shows it the event that ends it).
  const std::vector<std::uint64_t>& open_values(Id process) const;

 private:
  enum class State : std::uint8_t { kNone, kOpen, kAborted };
  struct Outcome {
    State state = State::kNone;
    std::uint64_t event = 0;  // kAborted: the txn-abort; kOpen: the transaction's txn-begin
  };
  State state(std::uint64_t value_id) const;
  void end(Id process, State to, std::uint64_t event);

  std::vector<std::vector<std::uint64_t>> open_;  // by process id: its open transaction's values
  std::vector<bool> in_txn_;                      // by process id: a transaction is open
  std::vector<std::uint64_t> begun_;              // by process id: its open transaction's txn-begin
  OffsetSet committed_;  // txn-begins of unknown transactions a read_committed reader saw a value of
  OffsetTable<Outcome> states_;                   // value id -> kOpen or kAborted
  bool any_ = false;
};

}  // namespace logsim::properties

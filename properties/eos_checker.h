// `eos-duplicate`: an exactly-once pipeline (consume, transform, produce, with the input's offsets
// committed in the same transaction: sendOffsetsToTransaction) copied one input value into two
// outputs that both committed. Each output's send-invoke names its input (`source_value_id`); an
// output is committed when its transaction's `txn-commit` comes, or when a read_committed reader
// processes it (Kafka shows nothing else under read_committed). Two different committed outputs
// of one input mean it was processed twice: its offsets were not committed with the first copy
// (TxnOffsetCommit lost or applied late), or an aborted copy's input was read again and the abort
// did not hide the copy. Found online, at the event that commits the second output; one report per
// input value.
//
// State: per output value, its input; per input value, its first committed output (paged tables
// by value id). O(1) per event, O(size) per commit.
#pragma once

#include <cstdint>

#include "properties/checker.h"
#include "properties/offset_table.h"
#include "properties/txn_witness.h"

namespace logsim::properties {

class EosChecker final : public Checker {
 public:
  std::string_view name() const override { return "exactly-once"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;
  KindSet kinds() const override { return kinds_of({OpKind::kSendInvoke, OpKind::kProcess}) | TxnWitness::kKinds; }

 private:
  void committed(std::uint64_t output, const HistoryEvent& e);

  OffsetTable<std::uint64_t> source_;     // output value id -> its input's value id
  OffsetTable<std::uint64_t> first_out_;  // input value id -> its first committed output
  OffsetSet reported_;                    // inputs reported
  TxnWitness txns_;
};

}  // namespace logsim::properties

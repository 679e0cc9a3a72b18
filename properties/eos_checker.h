// The exactly-once pipeline checker: each input record a pipeline processes appears once in its
// output under read_committed. A pipeline (consume, transform, produce, with the input's offsets
// committed in the same transaction: sendOffsetsToTransaction) names each copy's input on the
// copy's send-invoke (`source_value_id`); the copy's input record is the one its process last
// processed (a `process` event of a group with that value: its partition and offset). A copy is
// committed when its transaction's `txn-commit` comes, or when a read_committed reader processes
// it (Kafka shows nothing else under read_committed).
// - `eos-duplicate`: two different committed copies of one input record: it was processed
//   twice (its offsets were not committed with the first copy, TxnOffsetCommit lost or applied
//   late, or an aborted copy's input was read again and the abort did not hide the copy). Found
//   online, at the event that commits the second copy; one report per input value.
// - `eos-lost`: every copy of an input record aborted, yet the group committed a copy of a later
//   record of the same partition: the pipeline's committed offsets passed the input without its
//   copy (TxnOffsetCommit applied although its transaction aborted, a member starting past an
//   uncommitted position). A copy whose transaction's outcome is unknown excuses it (it may have
//   committed); a seek or reset of the group on the partition past it excuses it (skipped on
//   purpose). Judged at the end of the history, named by the event that committed past it.
//
// State: per output value, its input (a paged table by value id); per input value, its first
// committed copy; the inputs copied with no committed copy yet (in flight, normally a poll's
// worth per member). O(1) per event but the commits, O(copies) per commit.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "properties/checker.h"
#include "properties/offset_table.h"
#include "properties/txn_witness.h"

namespace logsim::properties {

class EosChecker final : public Checker {
 public:
  std::string_view name() const override { return "exactly-once"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;
  void finish() override;
  KindSet kinds() const override {
    return kinds_of({OpKind::kSendInvoke, OpKind::kProcess, OpKind::kSeek}) | TxnWitness::kKinds;
  }

 private:
  // A copy's input record: its value, and where the pipeline read it (group, partition, offset;
  // group kNoId when the process had not just processed it).
  struct Input {
    std::uint64_t value = 0;
    Id group = kNoId;
    Id tp = kNoId;
    std::int64_t offset = -1;
    Id key = kNoId;
    bool located() const { return group != kNoId; }
    bool same_record(const Input& o) const {
      return !located() || !o.located() || (tp == o.tp && offset == o.offset);
    }
  };
  // The event that committed a copy of a later record of the partition.
  struct Mark {
    std::uint64_t event = 0;
    Nanos at = 0;
    Id process = kNoId;
  };
  struct Pending {
    Input input;
    std::vector<std::uint64_t> copies;  // output value ids
    std::optional<Mark> passed;
  };
  using Where = std::tuple<Id, Id, std::int64_t>;  // group, topic-partition, offset

  void copied(const HistoryEvent& e, const EventIds& ids);
  void committed(std::uint64_t output, const HistoryEvent& e, const EventIds& ids);
  void excuse_below(Id group, Id tp, std::optional<std::int64_t> offset);

  OffsetTable<Input> source_;             // output value id -> its input
  OffsetTable<std::uint64_t> first_out_;  // input value id -> its first committed copy
  OffsetSet reported_;                    // inputs reported as duplicates
  std::vector<Input> last_processed_;     // by process id: the record it last processed
  std::map<Where, Pending> pending_;      // input records copied, with no committed copy yet
  TxnWitness txns_;
};

}  // namespace logsim::properties

// `int-send-skip` (Jepsen's name): within one transaction, two successive sends of a producer to
// the same partition were stored with another producer's record between them. Kafka does not
// isolate transactions' writes from each other (Jepsen calls it normal Kafka behaviour, a G0
// sign), so by default it is only measured: the figure `int-send-skip.count` counts such pairs.
// With write isolation asked for (a scenario's "properties": {"write_isolation": true},
// `logsim check --write-isolation`), for a system that promises it, the first pair of each
// transaction is an `int-send-skip` violation.
//
// What is known: each send's offset from its send-ok; a transaction is the sends its process
// invoked between a txn-begin and its end (txn-commit, txn-abort, txn-info, or the next
// txn-begin). Records known to lie between two of a transaction's sends are other sends'
// acknowledged offsets (markers hold no value and are not counted). Acknowledgements before the
// first txn-begin of the history are not kept: they were stored before any transaction's send.
// Judged at the end of the history, since another record's acknowledgement may come last.
//
// State: per partition, the acknowledged offsets since the first txn-begin and their values, in
// a paged table (offset_table.h: a few bytes per offset); per transaction, its acknowledged
// sends. O(1) per acknowledgement; at the end, each gap between two of a transaction's sends is
// scanned once.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "properties/checker.h"
#include "properties/offset_table.h"

namespace logsim::properties {

class SendSkipChecker final : public Checker {
 public:
  explicit SendSkipChecker(bool write_isolation = false) : write_isolation_(write_isolation) {}
  std::string_view name() const override { return "int-send-skip"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;
  KindSet kinds() const override {
    return kinds_of({OpKind::kTxnBegin, OpKind::kTxnCommit, OpKind::kTxnAbort, OpKind::kTxnInfo, OpKind::kSendInvoke,
                     OpKind::kSendOk});
  }
  void finish() override;
  void figures(std::map<std::string, std::int64_t>& out) const override;

 private:
  struct Sent {  // one acknowledged send of a transaction
    std::uint64_t order = 0;  // its invoke's place in the transaction
    std::int64_t offset = 0;
    std::uint64_t value_id = 0;
    std::uint64_t event = 0;  // its send-ok
    Nanos at = 0;
    Id key = kNoId;
  };
  struct Txn {
    Id process = kNoId;
    std::map<Id, std::vector<Sent>> sends;  // by topic-partition
  };
  bool write_isolation_;
  bool any_txn_ = false;
  std::vector<Txn> txns_;
  std::vector<std::int64_t> open_;  // by process id: its open transaction's index, or -1
  // value id -> (transaction index, invoke order), for sends invoked inside a transaction.
  std::unordered_map<std::uint64_t, std::pair<std::size_t, std::uint64_t>> in_txn_;
  std::uint64_t invokes_ = 0;
  std::vector<OffsetTable<std::uint64_t>> stored_;  // by topic-partition: offset -> value id
  std::int64_t count_ = 0;
};

}  // namespace logsim::properties

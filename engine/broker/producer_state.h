// The idempotent producers a partition has seen: for each producer id, its epoch, the last
// sequence written, and where recent sequences landed (Kafka's ProducerStateManager).
//
// Rules for a batch (producer id, epoch, sequences base .. base + count - 1):
// - no producer id: append (not idempotent);
// - an epoch below the producer's: INVALID_PRODUCER_EPOCH (a newer incarnation fenced it);
// - a producer not seen (its records were truncated or never replicated here): append at any
//   sequence — Kafka, since KIP-360, lets such a producer continue;
// - a new epoch of a known producer: append if it starts at sequence 0 (the producer bumped its
//   epoch and numbers every partition from 0 again, KIP-360), else OUT_OF_ORDER_SEQUENCE_NUMBER;
// - sequences already written: a duplicate, answered with the offsets it got the first time;
//   sequences at or below the last that the recent window does not hold (never written to
//   this log, or too long ago): OUT_OF_ORDER_SEQUENCE_NUMBER, as Kafka's broker answers a
//   batch that is neither a cached duplicate nor next in sequence;
// - base == last + 1: append; anything else: OUT_OF_ORDER_SEQUENCE_NUMBER.
// The table is rebuilt from the log after recovery and truncation, so leaders and followers
// agree on it: what the records say is the state.
#pragma once

#include <cstdint>
#include <deque>
#include <map>

#include "engine/env/errors.h"
#include "engine/env/messages.h"
#include "engine/env/plants.h"
#include "engine/log/partition_log.h"

namespace logsim::engine {

class ProducerStateTable {
 public:
  struct Check {
    ErrorCode error = ErrorCode::NONE;  // NONE: append (unless duplicate)
    bool duplicate = false;
    Offset duplicate_base{-1};          // where the duplicate's first record is, if known
  };

  // `plants`: the skip-idempotent-dedup planted bug takes a retried batch for a new one.
  Check check(const ProducerBatchInfo& batch, std::int32_t count, Plants plants = {}) const;
  // Takes note of a record the log now holds (leader append or replication). A sequence at or
  // below the producer's last one in the same epoch (a duplicate written again, which only
  // the skip-idempotent-dedup planted bug does) leaves the table as the first write left it.
  void record(ProducerId id, ProducerEpoch epoch, Sequence sequence, Offset offset);
  void record(const StoredRecord& r) { record(r.producer_id, r.producer_epoch, r.sequence, r.offset); }
  void record(const FrameInfo& f) { record(f.producer_id, f.producer_epoch, f.sequence, f.offset); }
  void rebuild(const PartitionLog& log);
  std::size_t size() const { return producers_.size(); }

  static constexpr std::size_t kWindow = 5000;  // recent sequences remembered per producer

 private:
  struct Entry {
    ProducerEpoch epoch{-1};
    Sequence last{-1};
    std::deque<std::pair<Sequence, Offset>> recent;  // increasing sequences
  };
  std::map<ProducerId, Entry> producers_;
};

}  // namespace logsim::engine

// Idempotence checks against the producer state table, and its maintenance.
#include "engine/broker/producer_state.h"

#include <algorithm>

namespace logsim::engine {

ProducerStateTable::Check ProducerStateTable::check(const ProducerBatchInfo& batch, std::int32_t count,
                                                    Plants plants) const {
  Check c;
  if (batch.producer_id.value() < 0) return c;
  auto it = producers_.find(batch.producer_id);
  if (it == producers_.end()) return c;
  const Entry& e = it->second;
  if (batch.producer_epoch < e.epoch) {
    c.error = ErrorCode::INVALID_PRODUCER_EPOCH;
    return c;
  }
  if (batch.producer_epoch > e.epoch) {
    // A producer that bumped its epoch numbers every partition from 0 again (KIP-360); any
    // other first sequence would hide a gap in the new epoch's records.
    if (batch.base_sequence != Sequence(0)) c.error = ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER;
    return c;
  }
  const Sequence base = batch.base_sequence;
  const Sequence last = base + (count - 1);
  if (last <= e.last) {
    if (base.value() < 0) return c;
    // PLANTED BUG (skip-idempotent-dedup): a retried batch is not recognised as written; it
    // is appended again (at new offsets) and answered as if new.
    if (plants.has(Plant::kSkipIdempotentDedup)) return c;
    c.duplicate = true;
    auto found = std::lower_bound(e.recent.begin(), e.recent.end(), base,
                                  [](const auto& entry, Sequence s) { return entry.first < s; });
    if (found != e.recent.end() && found->first == base) {
      c.duplicate_base = found->second;
    } else {
      // Not a batch this log holds: never written here (this replica took the producer up
      // mid-sequence, as an unknown producer may be), or written too long ago to tell. Either
      // way it is not in sequence, which is what Kafka's broker answers; the producer then
      // starts a new epoch and writes it. (Answering DUPLICATE_SEQUENCE_NUMBER, which a
      // producer takes for success, lost acknowledged records: found by the replication
      // property test.)
      c.duplicate = false;
      c.error = ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER;
    }
    return c;
  }
  if (base != e.last + 1) c.error = ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER;
  return c;
}

void ProducerStateTable::record(ProducerId id, ProducerEpoch epoch, Sequence sequence, Offset offset) {
  if (id.value() < 0) return;
  Entry& e = producers_[id];
  if (epoch > e.epoch) {
    e = Entry{};
    e.epoch = epoch;
  } else if (epoch == e.epoch && sequence.value() >= 0 && sequence <= e.last) {
    return;  // written again (skip-idempotent-dedup): the first write's offsets stand
  }
  e.last = sequence;
  e.recent.emplace_back(sequence, offset);
  if (e.recent.size() > kWindow) e.recent.pop_front();
}

void ProducerStateTable::rebuild(const PartitionLog& log) {
  producers_.clear();
  for (const StoredRecord& r : log.read(log.log_start_offset(), INT32_MAX, log.log_end_offset())) record(r);
}

}  // namespace logsim::engine

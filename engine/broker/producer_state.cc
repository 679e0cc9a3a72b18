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
  const Sequence last = sequence_after(base, count - 1);
  if (last <= e.last) {
    if (base.value() < 0) return c;
    // PLANTED BUG (skip-idempotent-dedup): a retried batch is not recognised as written; it
    // is appended again (at new offsets) and answered as if new.
    if (plants.has(Plant::kSkipIdempotentDedup)) return c;
    c.duplicate = true;
    const auto found = std::find_if(e.recent.begin(), e.recent.end(),
                                    [&](const RecentBatch& r) { return r.first == base && r.last == last; });
    if (found != e.recent.end()) {
      c.duplicate_base = found->base_offset;
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

void ProducerStateTable::record(const BatchHeader& batch) {
  if (!batch.idempotent()) return;
  Entry& e = producers_[batch.producer_id];
  const Sequence last = batch.last_sequence();
  if (batch.producer_epoch > e.epoch) {
    e = Entry{};
    e.epoch = batch.producer_epoch;
  } else if (batch.producer_epoch == e.epoch && batch.base_sequence.value() >= 0 && last <= e.last) {
    return;  // written again (skip-idempotent-dedup): the first write's offsets stand
  }
  e.last = last;
  e.recent.push_back(RecentBatch{batch.base_sequence, last, batch.base_offset});
  while (e.recent.size() > kBatchesRetained &&
         (only_five_ || static_cast<std::int64_t>(e.recent.front().last.value()) + kSequencesRetained < last.value())) {
    e.recent.pop_front();
  }
}

void ProducerStateTable::rebuild(const PartitionLog& log) {
  producers_.clear();
  for (const BatchHeader& h : log.batch_headers()) record(h);
}

}  // namespace logsim::engine

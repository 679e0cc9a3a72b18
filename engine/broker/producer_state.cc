// Idempotence checks against the producer state table, and its maintenance.
#include "engine/broker/producer_state.h"

#include <algorithm>

namespace logsim::engine {

ProducerStateTable::Check ProducerStateTable::check(const ProducerBatchInfo& batch, std::int32_t count,
                                                    Plants plants, bool transactional) const {
  Check c;
  if (batch.producer_id.value() < 0) return c;
  auto it = producers_.find(batch.producer_id);
  if (it == producers_.end()) return c;
  const Entry& e = it->second;
  if (batch.producer_epoch < e.epoch) {
    // PLANTED BUG (fenced-write-accepted): a fenced incarnation's write is appended.
    if (plants.has(Plant::kFencedWriteAccepted)) return c;
    c.error = ErrorCode::INVALID_PRODUCER_EPOCH;
    return c;
  }
  if (!transactional && e.txn_first) {
    c.error = ErrorCode::INVALID_TXN_STATE;
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

ErrorCode ProducerStateTable::check_marker(const TxnMarker& marker) const {
  auto it = producers_.find(marker.producer_id);
  if (it == producers_.end()) return ErrorCode::NONE;
  if (marker.producer_epoch < it->second.epoch) return ErrorCode::INVALID_PRODUCER_EPOCH;
  if (marker.coordinator_epoch < it->second.coordinator_epoch) return ErrorCode::TRANSACTION_COORDINATOR_FENCED;
  return ErrorCode::NONE;
}

void ProducerStateTable::bump(Entry& e, ProducerEpoch epoch) {
  e.epoch = epoch;
  e.last = Sequence(-1);
  e.recent.clear();
}

void ProducerStateTable::record_marker(const BatchHeader& batch, const TxnMarker& marker) {
  Entry& e = producers_[marker.producer_id];
  if (marker.producer_epoch > e.epoch) bump(e, marker.producer_epoch);
  e.coordinator_epoch = marker.coordinator_epoch;
  if (!e.txn_first) return;  // no transaction open here: nothing completes
  const Offset first = *e.txn_first;
  const Offset at = batch.base_offset;
  open_.erase({first, marker.producer_id});
  e.txn_first.reset();
  unreplicated_.emplace_back(first, at);
  if (marker.type == ControlType::kAbort) aborted_.push_back(AbortedTxn{marker.producer_id, first, at});
}

void ProducerStateTable::record(const BatchHeader& batch, const std::optional<TxnMarker>& marker) {
  if (marker) return record_marker(batch, *marker);
  if (!batch.idempotent()) return;
  Entry& e = producers_[batch.producer_id];
  const Sequence last = batch.last_sequence();
  if (batch.transactional() && !e.txn_first) {
    e.txn_first = batch.base_offset;
    open_.emplace(batch.base_offset, batch.producer_id);
  }
  if (batch.producer_epoch < e.epoch) return;  // a fenced write (fenced-write-accepted): no sequence of its own
  if (batch.producer_epoch > e.epoch) {
    bump(e, batch.producer_epoch);
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
  open_.clear();
  unreplicated_.clear();
  aborted_.clear();
  std::string scratch;
  for (const BatchHeader& h : log.batch_headers()) {
    std::optional<TxnMarker> marker;
    if (h.control()) {
      std::size_t count = 0;
      const SharedBytes bytes = log.read_batches(h.base_offset, 1, h.last_offset() + 1, count);
      marker = parse_control_batch(bytes.contiguous(scratch));
      if (!marker) continue;  // a control batch of another kind: no transaction ends
    }
    record(h, marker);
  }
}

Offset ProducerStateTable::last_stable_offset(Offset high_watermark) const {
  Offset lso = high_watermark;
  // PLANTED BUG (lso-past-open-transaction): undecided transactions do not hold it back.
  if (lso_ignores_open_) return lso;
  if (!open_.empty()) lso = std::min(lso, open_.begin()->first);
  for (const auto& [first, marker] : unreplicated_) {
    if (marker >= high_watermark) lso = std::min(lso, first);
  }
  return lso;
}

void ProducerStateTable::forget_replicated(Offset high_watermark) {
  while (!unreplicated_.empty() && unreplicated_.front().second < high_watermark) unreplicated_.pop_front();
}

void ProducerStateTable::forget_aborted_below(Offset log_start) {
  const auto kept = std::lower_bound(aborted_.begin(), aborted_.end(), log_start,
                                     [](const AbortedTxn& a, Offset o) { return a.last_offset < o; });
  aborted_.erase(aborted_.begin(), kept);
}

std::vector<ProducerStateTable::AbortedTxn> ProducerStateTable::aborted_between(Offset from, Offset upto) const {
  std::vector<AbortedTxn> out;
  auto it = std::lower_bound(aborted_.begin(), aborted_.end(), from,
                             [](const AbortedTxn& a, Offset o) { return a.last_offset < o; });
  for (; it != aborted_.end(); ++it) {
    if (it->first_offset < upto) out.push_back(*it);
  }
  return out;
}

std::vector<std::pair<ProducerId, Offset>> ProducerStateTable::open_transactions() const {
  std::vector<std::pair<ProducerId, Offset>> out;
  for (const auto& [id, e] : producers_) {
    if (e.txn_first) out.emplace_back(id, *e.txn_first);
  }
  return out;
}

}  // namespace logsim::engine

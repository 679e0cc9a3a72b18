// The transaction coordinator's state transitions and __transaction_state records (see
// txn_metadata.h).
#include "engine/coordinator/txn_metadata.h"

#include <algorithm>
#include <limits>

#include "engine/coordinator/record_codec.h"

namespace logsim::engine {
namespace {

constexpr std::int16_t kKeyVersion = 0;
constexpr std::int16_t kValueVersion = 0;
// Kafka's last usable epoch (Short.MAX_VALUE - 1): past it a producer gets a new id.
constexpr std::int16_t kMaxEpoch = 32766;

TxnTransition refuse(const TxnMetadata& current, ErrorCode error) { return TxnTransition{error, current, false}; }

// The metadata moved to `state` at now_ms.
TxnMetadata moved(const TxnMetadata& current, TxnState state, std::int64_t now_ms) {
  TxnMetadata next = current;
  next.state = state;
  next.last_update_ms = now_ms;
  next.pending.reset();
  return next;
}

// The producer's next epoch, up to `limit`. InitProducerId hands out epochs up to kMaxEpoch
// (then a new producer id); a fence may go one further, to Short.MAX_VALUE, so that even a
// producer at kMaxEpoch is fenced (Kafka's prepareFenceProducerEpoch).
ProducerEpoch next_epoch(ProducerEpoch e, std::int16_t limit = kMaxEpoch) {
  return e.value() >= limit ? e : ProducerEpoch(static_cast<std::int16_t>(e.value() + 1));
}

bool deciding(TxnState s) { return s == TxnState::kPrepareCommit || s == TxnState::kPrepareAbort; }
bool idle(TxnState s) {
  return s == TxnState::kEmpty || s == TxnState::kCompleteCommit || s == TxnState::kCompleteAbort;
}

// The checks every producer request makes first: its id and epoch, and no change in flight.
std::optional<ErrorCode> producer_mismatch(const TxnMetadata& current, ProducerId producer_id, ProducerEpoch epoch) {
  if (producer_id != current.producer_id) return ErrorCode::INVALID_PRODUCER_ID_MAPPING;
  if (epoch != current.producer_epoch) return ErrorCode::PRODUCER_FENCED;
  if (current.pending) return ErrorCode::CONCURRENT_TRANSACTIONS;
  return std::nullopt;
}

}  // namespace

std::string_view txn_state_name(TxnState state) {
  switch (state) {
    case TxnState::kEmpty: return "Empty";
    case TxnState::kOngoing: return "Ongoing";
    case TxnState::kPrepareCommit: return "PrepareCommit";
    case TxnState::kPrepareAbort: return "PrepareAbort";
    case TxnState::kCompleteCommit: return "CompleteCommit";
    case TxnState::kCompleteAbort: return "CompleteAbort";
    case TxnState::kDead: return "Dead";
    case TxnState::kPrepareEpochFence: return "PrepareEpochFence";
  }
  return "Unknown";
}

bool txn_transition_valid(TxnState from, TxnState to) {
  switch (to) {
    case TxnState::kEmpty:
    case TxnState::kDead:
      return idle(from);
    case TxnState::kOngoing:
      return from == TxnState::kOngoing || idle(from);
    case TxnState::kPrepareCommit:
    case TxnState::kPrepareEpochFence:
      return from == TxnState::kOngoing;
    case TxnState::kPrepareAbort:
      return from == TxnState::kOngoing || from == TxnState::kPrepareEpochFence;
    case TxnState::kCompleteCommit:
      return from == TxnState::kPrepareCommit;
    case TxnState::kCompleteAbort:
      return from == TxnState::kPrepareAbort;
  }
  return false;
}

TxnTransition prepare_init_producer_id(const std::optional<TxnMetadata>& current, std::string_view transactional_id,
                                       std::int32_t txn_timeout_ms, ProducerId new_producer_id, std::int64_t now_ms) {
  if (!current) {
    TxnMetadata next;
    next.transactional_id = std::string(transactional_id);
    next.producer_id = new_producer_id;
    next.producer_epoch = ProducerEpoch(0);
    next.txn_timeout_ms = txn_timeout_ms;
    next.last_update_ms = now_ms;
    return TxnTransition{ErrorCode::NONE, next, true};
  }
  if (current->pending || deciding(current->state) || current->state == TxnState::kDead ||
      current->state == TxnState::kPrepareEpochFence) {
    return refuse(*current, ErrorCode::CONCURRENT_TRANSACTIONS);
  }
  if (current->state == TxnState::kOngoing) {
    // Fence the old incarnation: abort its transaction at the next epoch; the client asks again.
    TxnTransition abort = prepare_abort_by_coordinator(*current, now_ms);
    abort.error = ErrorCode::CONCURRENT_TRANSACTIONS;
    return abort;
  }
  TxnMetadata next = moved(*current, TxnState::kEmpty, now_ms);
  if (current->producer_epoch.value() >= kMaxEpoch) {
    next.producer_id = new_producer_id;
    next.producer_epoch = ProducerEpoch(0);
  } else {
    next.producer_epoch = next_epoch(current->producer_epoch);
  }
  next.txn_timeout_ms = txn_timeout_ms;
  next.partitions.clear();
  next.txn_start_ms = -1;
  return TxnTransition{ErrorCode::NONE, next, true};
}

TxnTransition prepare_add_partitions(const TxnMetadata& current, ProducerId producer_id, ProducerEpoch epoch,
                                     std::span<const TopicPartition> partitions, std::int64_t now_ms) {
  if (const auto error = producer_mismatch(current, producer_id, epoch)) return refuse(current, *error);
  if (deciding(current.state)) return refuse(current, ErrorCode::CONCURRENT_TRANSACTIONS);
  if (current.state != TxnState::kOngoing && !idle(current.state)) return refuse(current, ErrorCode::INVALID_TXN_STATE);
  const bool all_in = std::all_of(partitions.begin(), partitions.end(),
                                  [&](const TopicPartition& tp) { return current.partitions.count(tp) != 0; });
  if (current.state == TxnState::kOngoing && all_in) return refuse(current, ErrorCode::NONE);
  TxnMetadata next = moved(current, TxnState::kOngoing, now_ms);
  if (idle(current.state)) {
    next.txn_start_ms = now_ms;
    next.partitions.clear();
  }
  next.partitions.insert(partitions.begin(), partitions.end());
  return TxnTransition{ErrorCode::NONE, next, true};
}

TxnTransition prepare_end_txn(const TxnMetadata& current, ProducerId producer_id, ProducerEpoch epoch, bool commit,
                              std::int64_t now_ms) {
  if (const auto error = producer_mismatch(current, producer_id, epoch)) return refuse(current, *error);
  switch (current.state) {
    case TxnState::kOngoing:
      return TxnTransition{ErrorCode::NONE,
                           moved(current, commit ? TxnState::kPrepareCommit : TxnState::kPrepareAbort, now_ms), true};
    case TxnState::kCompleteCommit:  // a retry of a decided end: answered as it was decided
      return refuse(current, commit ? ErrorCode::NONE : ErrorCode::INVALID_TXN_STATE);
    case TxnState::kCompleteAbort:
      return refuse(current, commit ? ErrorCode::INVALID_TXN_STATE : ErrorCode::NONE);
    case TxnState::kPrepareCommit:  // still writing markers: the producer retries
      return refuse(current, commit ? ErrorCode::CONCURRENT_TRANSACTIONS : ErrorCode::INVALID_TXN_STATE);
    case TxnState::kPrepareAbort:
      return refuse(current, commit ? ErrorCode::INVALID_TXN_STATE : ErrorCode::CONCURRENT_TRANSACTIONS);
    default:
      return refuse(current, ErrorCode::INVALID_TXN_STATE);
  }
}

TxnTransition prepare_abort_by_coordinator(const TxnMetadata& current, std::int64_t now_ms) {
  if (current.pending) return refuse(current, ErrorCode::CONCURRENT_TRANSACTIONS);
  if (current.state != TxnState::kOngoing && current.state != TxnState::kPrepareEpochFence) {
    return refuse(current, ErrorCode::INVALID_TXN_STATE);
  }
  TxnMetadata next = moved(current, TxnState::kPrepareAbort, now_ms);
  if (current.state == TxnState::kOngoing) {
    next.producer_epoch = next_epoch(current.producer_epoch, std::numeric_limits<std::int16_t>::max());
  }
  return TxnTransition{ErrorCode::NONE, next, true};
}

TxnTransition prepare_complete(const TxnMetadata& current, std::int64_t now_ms) {
  if (!deciding(current.state)) return refuse(current, ErrorCode::INVALID_TXN_STATE);
  TxnMetadata next = moved(
      current, current.state == TxnState::kPrepareCommit ? TxnState::kCompleteCommit : TxnState::kCompleteAbort, now_ms);
  next.partitions.clear();
  return TxnTransition{ErrorCode::NONE, next, true};
}

bool txn_timed_out(const TxnMetadata& m, std::int64_t now_ms) {
  return m.state == TxnState::kOngoing && m.txn_start_ms + m.txn_timeout_ms < now_ms;
}

std::string encode_txn_key(std::string_view transactional_id) {
  return codec::Writer().i16(kKeyVersion).str(transactional_id).take();
}

std::optional<std::string> decode_txn_key(std::string_view bytes) {
  codec::Reader r(bytes);
  if (r.i16() != kKeyVersion) return std::nullopt;
  std::string id = r.str();
  if (!r.done()) return std::nullopt;
  return id;
}

std::string encode_txn_value(const TxnMetadata& m) {
  codec::Writer w;
  w.i16(kValueVersion).i64(m.producer_id.value()).i16(m.producer_epoch.value()).i32(m.txn_timeout_ms);
  w.u8(static_cast<std::uint8_t>(m.state)).u64(m.partitions.size(), 4);
  for (const TopicPartition& tp : m.partitions) w.str(tp.topic).i32(tp.partition.value());
  w.i64(m.txn_start_ms).i64(m.last_update_ms);
  return w.take();
}

std::optional<TxnMetadata> decode_txn_value(std::string_view transactional_id, std::string_view bytes) {
  codec::Reader r(bytes);
  if (r.i16() != kValueVersion) return std::nullopt;
  TxnMetadata m;
  m.transactional_id = std::string(transactional_id);
  m.producer_id = ProducerId(r.i64());
  m.producer_epoch = ProducerEpoch(r.i16());
  m.txn_timeout_ms = r.i32();
  const std::uint8_t state = r.u8();
  if (state > static_cast<std::uint8_t>(TxnState::kPrepareEpochFence)) return std::nullopt;
  m.state = static_cast<TxnState>(state);
  const std::uint64_t count = r.u64(4);
  // Each partition takes at least 8 bytes: a larger count is malformed (and bounds the loop).
  if (!r.ok() || count > bytes.size() / 8) return std::nullopt;
  for (std::uint64_t i = 0; i < count && r.ok(); ++i) {
    std::string topic = r.str();
    m.partitions.insert(TopicPartition{std::move(topic), PartitionId(r.i32())});
  }
  m.txn_start_ms = r.i64();
  m.last_update_ms = r.i64();
  if (!r.done()) return std::nullopt;
  return m;
}

Record txn_log_record(const TxnMetadata& m, std::int64_t now_ms) {
  return Record{encode_txn_key(m.transactional_id), encode_txn_value(m), now_ms};
}

}  // namespace logsim::engine

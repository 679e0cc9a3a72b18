// Produce: append to the leader's log; answer at once for acks=0/1, or when the high watermark
// passes the records for acks=all (with min.insync.replicas checked before and after).
#include "engine/broker/broker.h"
#include "engine/coordinator/group_coordinator.h"
#include "engine/coordinator/txn_metadata.h"
#include "engine/protocol/record_batch.h"

namespace logsim::engine {
namespace {

// Kafka's LogValidator for what a producer sent: one whole batch whose CRC holds
// (CORRUPT_MESSAGE otherwise), with well-formed records at offset deltas 0 .. n-1, not a
// control batch (only leaders write those) and, if transactional, of an idempotent producer
// (INVALID_RECORD otherwise). `max_ts`: the records' largest timestamp (CreateTime).
ErrorCode validate(std::string_view batch, const std::optional<BatchHeader>& h, std::optional<std::int64_t>& max_ts) {
  if (!h || h->size_bytes() != batch.size() || batch_crc(batch) != h->crc) return ErrorCode::CORRUPT_MESSAGE;
  if (h->record_count != static_cast<std::int64_t>(h->last_offset_delta) + 1 || h->control() ||
      (h->transactional() && !h->idempotent()) || !batch_records_valid(batch, max_ts)) {
    return ErrorCode::INVALID_RECORD;
  }
  return ErrorCode::NONE;
}

}  // namespace

void handle_produce(BrokerState& b, NodeId from, const ProduceRequest& req) {
  ProduceResponse resp{req.correlation_id, req.topic, req.partition, ErrorCode::NONE, Offset(-1)};
  const auto answer = [&](ErrorCode error) {
    resp.error = error;
    if (req.acks != 0) b.env.send(from, resp);
  };
  if (req.acks != 0 && req.acks != 1 && req.acks != -1) return answer(ErrorCode::INVALID_REQUIRED_ACKS);
  // Only the coordinators write to the internal topics, and not through Produce (Kafka's
  // ReplicaManager refuses a client's append there).
  if (req.topic == kConsumerOffsetsTopic || req.topic == kTransactionStateTopic) return answer(ErrorCode::INVALID_TOPIC_EXCEPTION);
  if (b.find(req.topic, req.partition) == nullptr && b.cluster.count(TopicPartitionView{req.topic, req.partition}) == 0) {
    return answer(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  }
  Partition* p = b.find_leader(req.topic, req.partition);
  if (p == nullptr) return answer(ErrorCode::NOT_LEADER_OR_FOLLOWER);
  std::string scratch;
  std::string_view batch = req.records.contiguous(scratch);
  std::optional<BatchHeader> header = parse_batch_header(batch);
  std::optional<std::int64_t> max_ts;
  if (const ErrorCode invalid = validate(batch, header, max_ts); invalid != ErrorCode::NONE) return answer(invalid);
  std::string fixed;
  if (max_ts && *max_ts != header->max_timestamp_ms) {
    // Kafka's LogValidator sets a CreateTime batch's max timestamp to its records' largest, and
    // the CRC with it (Sarama 1.22 sends none): the log holds the batch as Kafka would.
    fixed.assign(batch);
    header->max_timestamp_ms = *max_ts;
    header->crc = batch_crc(*header, batch.substr(kBatchHeaderBytes));
    write_batch_header(*header, fixed.data());
    batch = fixed;
  }
  // acks=all refuses to write at all when the ISR is too small to be safe.
  if (req.acks == -1 && static_cast<std::int32_t>(p->state.isr.size()) < p->state.min_insync_replicas) {
    return answer(ErrorCode::NOT_ENOUGH_REPLICAS);
  }
  BatchHeader& h = *header;
  const ProducerBatchInfo producer{h.producer_id, h.producer_epoch, h.base_sequence};
  const ProducerStateTable::Check idem = p->producers.check(producer, h.record_count, b.config.plants, h.transactional());
  if (idem.error != ErrorCode::NONE) return answer(idem.error);
  Offset required;
  if (idem.duplicate) {
    // Already written: answer with the first write's offsets, once they are committed.
    resp.base_offset = idem.duplicate_base;
    required = idem.duplicate_base + h.record_count;
  } else {
    // The records as the producer sent them, unless the max timestamp had to be fixed.
    const std::int64_t now_ms = to_millis(b.env.now());
    resp.base_offset = fixed.empty() ? p->log->append_as_leader(req.records, p->state.leader_epoch, now_ms)
                                     : p->log->append_as_leader(batch, p->state.leader_epoch, now_ms);
    h.base_offset = resp.base_offset;
    p->producers.record(h);
    required = p->log->log_end_offset();
    flush_if_due(b, *p);
  }
  const TopicPartitionView key{req.topic, req.partition};
  maybe_advance_high_watermark(b, *p);  // a lone ISR commits at once
  if (req.acks == -1 && p->high_watermark < required) {
    const TimerId timer = b.timers.set(millis(req.timeout_ms), BrokerTimer::kProduceTimeout);
    auto pending = b.pending_produces.find(key);
    if (pending == b.pending_produces.end()) {
      pending = b.pending_produces.emplace(TopicPartition{req.topic, req.partition}, std::vector<PendingProduce>{}).first;
    }
    pending->second.push_back(PendingProduce{from, resp, required, timer});
  } else {
    answer(ErrorCode::NONE);
  }
  wake_fetches(b, key);  // followers waiting for new records
}

}  // namespace logsim::engine

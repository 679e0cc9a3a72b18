// Produce: append to the leader's log; answer at once for acks=0/1, or when the high watermark
// passes the records for acks=all (with min.insync.replicas checked before and after).
#include "engine/broker/broker.h"

namespace logsim::engine {
namespace {

// Tells the producer-state table about a batch the leader just appended at `base`, from what
// the request says (the sequences PartitionLog::append gave the records), rather than by
// reading the records back from the log.
void record_producer_state(Partition& p, Offset base, std::int32_t count, const ProducerBatchInfo& producer) {
  if (producer.producer_id.value() < 0) return;
  StoredRecord r;
  r.producer_id = producer.producer_id;
  r.producer_epoch = producer.producer_epoch;
  for (std::int32_t i = 0; i < count; ++i) {
    r.offset = base + static_cast<std::int64_t>(i);
    r.leader_epoch = p.state.leader_epoch;
    r.sequence = producer.base_sequence.value() >= 0 ? producer.base_sequence + i : Sequence(-1);
    p.producers.record(r);
  }
}

}  // namespace

void handle_produce(BrokerState& b, NodeId from, const ProduceRequest& req) {
  ProduceResponse resp{req.correlation_id, req.topic, req.partition, ErrorCode::NONE, Offset(-1)};
  const auto answer = [&](ErrorCode error) {
    resp.error = error;
    if (req.acks != 0) b.env.send(from, resp);
  };
  if (req.acks != 0 && req.acks != 1 && req.acks != -1) return answer(ErrorCode::INVALID_REQUIRED_ACKS);
  if (b.find(req.topic, req.partition) == nullptr && b.cluster.count({req.topic, req.partition.value()}) == 0) {
    return answer(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  }
  Partition* p = b.find_leader(req.topic, req.partition);
  if (p == nullptr) return answer(ErrorCode::NOT_LEADER_OR_FOLLOWER);
  // acks=all refuses to write at all when the ISR is too small to be safe.
  if (req.acks == -1 && static_cast<std::int32_t>(p->state.isr.size()) < p->state.min_insync_replicas) {
    return answer(ErrorCode::NOT_ENOUGH_REPLICAS);
  }
  const ProducerBatchInfo producer{req.producer_id, req.producer_epoch, req.base_sequence};
  const auto count = static_cast<std::int32_t>(req.records.size());
  const ProducerStateTable::Check idem = p->producers.check(producer, count, b.config.plants);
  if (idem.error != ErrorCode::NONE) return answer(idem.error);
  Offset required;
  if (idem.duplicate) {
    // Already written: answer with the first write's offsets, once they are committed.
    resp.base_offset = idem.duplicate_base;
    required = idem.duplicate_base + count;
  } else {
    resp.base_offset = p->log->append(req.records, p->state.leader_epoch, to_millis(b.env.now()), producer);
    record_producer_state(*p, resp.base_offset, count, producer);
    required = p->log->log_end_offset();
    flush_if_due(b, *p);
  }
  const PartitionKey key{req.topic, req.partition.value()};
  maybe_advance_high_watermark(b, *p);  // a lone ISR commits at once
  if (req.acks == -1 && p->high_watermark < required) {
    const TimerId timer = b.env.set_timer(millis(req.timeout_ms), kProduceTimeoutTag);
    b.pending_produces[key].push_back(PendingProduce{from, resp, required, timer});
  } else {
    answer(ErrorCode::NONE);
  }
  wake_fetches(b, key);  // followers waiting for new records
}

}  // namespace logsim::engine

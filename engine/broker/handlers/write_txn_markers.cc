// WriteTxnMarkers: the transaction coordinator has the leader of each partition a transaction
// touched write the control batch that ends it there. Each marker is checked against the
// producer state (a producer's older epoch, or an older coordinator's, is refused), appended,
// and answered once the high watermark passes it, as acks=all (Kafka's markers are appended
// with acks=-1 and the coordinator retries each partition until it is written). A marker in
// __consumer_offsets also commits or drops the transaction's offsets there.
#include <memory>

#include "engine/broker/broker.h"
#include "engine/protocol/record_batch.h"

namespace logsim::engine {
namespace {

// Appends the marker to the partition `tp` this broker leads, or says why not.
ErrorCode append_marker(BrokerState& b, const TopicPartition& tp, const TxnMarker& marker, const std::string& batch,
                        Offset& required) {
  Partition* p = b.find_leader(tp.topic, tp.partition);
  if (p == nullptr) {
    return b.cluster.count(tp) != 0 ? ErrorCode::NOT_LEADER_OR_FOLLOWER : ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
  }
  if (static_cast<std::int32_t>(p->state.isr.size()) < p->state.min_insync_replicas) {
    return ErrorCode::NOT_ENOUGH_REPLICAS;
  }
  if (const ErrorCode refused = p->producers.check_marker(marker); refused != ErrorCode::NONE) return refused;
  BatchHeader h = *parse_batch_header(batch);
  h.base_offset = p->log->append_as_leader(batch, p->state.leader_epoch, to_millis(b.env.now()));
  p->producers.record(h, marker);
  required = p->log->log_end_offset();
  flush_if_due(b, *p);
  return ErrorCode::NONE;
}

}  // namespace

void handle_write_txn_markers(BrokerState& b, NodeId from, const WriteTxnMarkersRequest& req) {
  struct Answer {
    WriteTxnMarkersResponse response;
    std::size_t waiting = 1;  // one for the handler itself, until every append is placed
  };
  auto answer = std::make_shared<Answer>();
  answer->response.correlation_id = req.correlation_id;
  answer->response.producer_id = req.producer_id;
  Env& env = b.env;
  const auto settle = [answer, &env, from] {
    if (--answer->waiting == 0) env.send(from, answer->response);
  };
  const TxnMarker marker{req.producer_id, req.producer_epoch, req.committed ? ControlType::kCommit : ControlType::kAbort,
                         req.coordinator_epoch};
  const std::string batch = encode_control_batch(marker, to_millis(b.env.now()));
  std::vector<const TopicPartition*> written;
  for (std::size_t i = 0; i < req.partitions.size(); ++i) {
    const TopicPartition& tp = req.partitions[i];
    Offset required{-1};
    const ErrorCode error = append_marker(b, tp, marker, batch, required);
    answer->response.partitions.push_back({tp, error});
    if (error != ErrorCode::NONE) continue;
    ++answer->waiting;
    // A marker in __consumer_offsets also ends the transaction's offsets there: the group
    // coordinator takes them before the coordinator hears the marker is written (KAFKA-17507).
    const bool offsets = tp.topic == kConsumerOffsetsTopic;
    const auto done = [&b, answer, i, settle, offsets, marker, partition = tp.partition](ErrorCode e) {
      if (e == ErrorCode::NONE && offsets) {
        b.coordinator->on_txn_completed(marker.producer_id, partition, marker.type == ControlType::kCommit);
      }
      answer->response.partitions[i].error = e;
      settle();
    };
    const TimerId timer = b.timers.set(millis(b.config.request_timeout_ms), BrokerTimer::kProduceTimeout);
    b.pending_produces[tp].push_back(PendingProduce{NodeId(-1), {}, required, timer, done});
    written.push_back(&tp);
  }
  for (const TopicPartition* tp : written) {
    if (Partition* p = b.find_leader(tp->topic, tp->partition)) maybe_advance_high_watermark(b, *p);
    wake_fetches(b, *tp);
  }
  settle();
}

}  // namespace logsim::engine

// ListOffsets: the earliest offset (log start), the latest (the high watermark, or the last
// stable offset for read_committed), or the first
// offset at or after a timestamp, of a partition this broker leads.
#include "engine/broker/broker.h"

namespace logsim::engine {

void handle_list_offsets(BrokerState& b, NodeId from, const ListOffsetsRequest& req) {
  ListOffsetsResponse resp{req.correlation_id, req.topic, req.partition, ErrorCode::NONE, Offset(-1)};
  Partition* p = b.find_leader(req.topic, req.partition);
  if (p == nullptr) {
    resp.error = b.cluster.count(TopicPartitionView{req.topic, req.partition}) ? ErrorCode::NOT_LEADER_OR_FOLLOWER
                                                                     : ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
    b.env.send(from, resp);
    return;
  }
  // Consumers see up to the high watermark, read_committed ones up to the last stable offset.
  const Offset visible =
      req.isolation_level == IsolationLevel::kReadCommitted ? p->last_stable_offset() : p->high_watermark;
  if (req.timestamp_ms == kListOffsetsEarliest) {
    resp.offset = p->log->log_start_offset();
  } else if (req.timestamp_ms == kListOffsetsLatest) {
    resp.offset = visible;
  } else {
    // The first offset whose timestamp is at or after the one asked for, among the records
    // the consumer may read; -1 when there is none (Kafka's answer; a reset to a datetime then
    // uses latest).
    const auto found = p->log->offset_for_timestamp(req.timestamp_ms);
    resp.offset = found && *found < visible ? *found : Offset(-1);
  }
  b.env.send(from, resp);
}

}  // namespace logsim::engine

// ListOffsets: the earliest offset (log start) or the latest (the high watermark) of a
// partition this broker leads.
#include "engine/broker/broker.h"

namespace logsim::engine {

void handle_list_offsets(BrokerState& b, NodeId from, const ListOffsetsRequest& req) {
  ListOffsetsResponse resp{req.correlation_id, req.topic, req.partition, ErrorCode::NONE, Offset(-1)};
  Partition* p = b.find_leader(req.topic, req.partition);
  if (p == nullptr) {
    resp.error = b.cluster.count({req.topic, req.partition.value()}) ? ErrorCode::NOT_LEADER_OR_FOLLOWER
                                                                     : ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
  } else if (req.timestamp_ms == kListOffsetsEarliest) {
    resp.offset = p->log->log_start_offset();
  } else {
    // Lookup by timestamp needs the time index of the segmented log; until then any other
    // timestamp answers with the latest offset, which for consumers is the high watermark.
    resp.offset = p->high_watermark;
  }
  b.env.send(from, resp);
}

}  // namespace logsim::engine

// ListOffsets: the earliest or latest offset of a partition.
#include "engine/broker/broker.h"

namespace logsim::engine {

ListOffsetsResponse handle_list_offsets(BrokerState& b, const ListOffsetsRequest& req) {
  ListOffsetsResponse resp{req.correlation_id, req.topic, req.partition, ErrorCode::NONE, Offset(-1)};
  PartitionLog* log = b.find(req.topic, req.partition);
  if (log == nullptr) {
    resp.error = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
    return resp;
  }
  // Lookup by timestamp needs the time index of the broker-engine work; until then any
  // other timestamp answers with the latest offset.
  resp.offset = req.timestamp_ms == kListOffsetsEarliest ? log->log_start_offset() : log->log_end_offset();
  return resp;
}

}  // namespace logsim::engine

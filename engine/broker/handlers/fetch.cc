// Fetch: records from the fetch offset up to the high watermark.
#include "engine/broker/broker.h"

namespace logsim::engine {

FetchResponse handle_fetch(BrokerState& b, const FetchRequest& req) {
  FetchResponse resp{req.correlation_id, req.topic, req.partition, ErrorCode::NONE, Offset(-1), Offset(-1), {}};
  PartitionLog* log = b.find(req.topic, req.partition);
  if (log == nullptr) {
    resp.error = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
    return resp;
  }
  // A single replica's high watermark is its log end offset.
  const Offset hw = log->log_end_offset();
  resp.high_watermark = hw;
  resp.log_start_offset = log->log_start_offset();
  if (req.fetch_offset < log->log_start_offset() || req.fetch_offset > log->log_end_offset()) {
    resp.error = ErrorCode::OFFSET_OUT_OF_RANGE;
    return resp;
  }
  resp.records = log->read(req.fetch_offset, req.max_records, hw);
  return resp;
}

}  // namespace logsim::engine

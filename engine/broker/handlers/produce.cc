// Produce: append the request's records to the partition's log.
#include "engine/broker/broker.h"

namespace logsim::engine {

ProduceResponse handle_produce(BrokerState& b, const ProduceRequest& req) {
  ProduceResponse resp{req.correlation_id, req.topic, req.partition, ErrorCode::NONE, Offset(-1)};
  if (req.acks != 0 && req.acks != 1 && req.acks != -1) {
    resp.error = ErrorCode::INVALID_REQUIRED_ACKS;
    return resp;
  }
  PartitionLog* log = b.find(req.topic, req.partition);
  if (log == nullptr) {
    resp.error = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
    return resp;
  }
  resp.base_offset = log->append(req.records);
  return resp;
}

}  // namespace logsim::engine

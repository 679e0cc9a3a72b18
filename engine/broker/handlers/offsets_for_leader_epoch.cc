// OffsetsForLeaderEpoch (KIP-101, KIP-279): a follower asks where an epoch ends in the leader's
// log, to truncate a divergent tail before it fetches.
#include "engine/broker/broker.h"

namespace logsim::engine {

void handle_offsets_for_leader_epoch(BrokerState& b, NodeId from, const OffsetsForLeaderEpochRequest& req) {
  OffsetsForLeaderEpochResponse resp{req.correlation_id, req.topic, req.partition, ErrorCode::NONE, LeaderEpoch(-1), Offset(-1)};
  Partition* p = b.find_leader(req.topic, req.partition);
  if (p == nullptr) {
    resp.error = ErrorCode::NOT_LEADER_OR_FOLLOWER;
  } else if (req.current_leader_epoch != p->state.leader_epoch) {
    resp.error = req.current_leader_epoch < p->state.leader_epoch ? ErrorCode::FENCED_LEADER_EPOCH
                                                                   : ErrorCode::UNKNOWN_LEADER_EPOCH;
  } else if (auto end = p->log->end_offset_for_epoch(req.leader_epoch)) {
    resp.leader_epoch = end->first;
    resp.end_offset = end->second;
  }
  b.env.send(from, resp);
}

}  // namespace logsim::engine

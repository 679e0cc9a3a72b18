// InitProducerId: a new idempotent producer gets its id and epoch 0.
//
// Kafka allocates ids in blocks from the controller; here a broker draws a random 62-bit id
// from its own stream, unique in practice across brokers and restarts, and deterministic.
#include "engine/broker/broker.h"

namespace logsim::engine {

void handle_init_producer_id(BrokerState& b, NodeId from, const InitProducerIdRequest& req) {
  const ProducerId id(static_cast<std::int64_t>(b.env.rng().next_u64() >> 2));
  b.env.send(from, InitProducerIdResponse{req.correlation_id, ErrorCode::NONE, id, ProducerEpoch(0)});
}

}  // namespace logsim::engine

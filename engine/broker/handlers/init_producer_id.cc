// InitProducerId: a new idempotent producer gets its id and epoch 0; a producer that names its
// id and current epoch gets the next epoch of that id (KIP-360).
//
// Kafka allocates ids in blocks from the controller; here a broker draws a random 62-bit id
// from its own stream, unique in practice across brokers and restarts, and deterministic.
// An epoch bump needs no shared state: the next epoch follows from the one the producer names,
// so any broker answers it, and a retried bump gets the same answer. A producer at the last
// epoch gets a new id instead, as Kafka's producer does when the epoch would overflow.
#include <limits>

#include "engine/broker/broker.h"

namespace logsim::engine {

void handle_init_producer_id(BrokerState& b, NodeId from, const InitProducerIdRequest& req) {
  const bool bump = req.producer_id.value() >= 0 && req.producer_epoch.value() >= 0 &&
                    req.producer_epoch.value() < std::numeric_limits<std::int16_t>::max();
  if (bump) {
    b.env.send(from, InitProducerIdResponse{req.correlation_id, ErrorCode::NONE, req.producer_id, req.producer_epoch + 1});
    return;
  }
  const ProducerId id(static_cast<std::int64_t>(b.env.rng().next_u64() >> 2));
  b.env.send(from, InitProducerIdResponse{req.correlation_id, ErrorCode::NONE, id, ProducerEpoch(0)});
}

}  // namespace logsim::engine

// The correlation id: a client numbers its requests, and each response echoes the number of
// the request it answers (Kafka's int32 correlationId), so that the client can tell which of
// its requests in flight an answer belongs to, and drop answers it no longer waits for.
// Which numbers a client uses is its own affair (engine/client/client_channel.h's
// fresh_correlation_base); every message's digest folds its correlation id.
#pragma once

#include <cstdint>

namespace logsim {

using CorrelationId = std::int32_t;

}  // namespace logsim

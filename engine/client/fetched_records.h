// What a consumer takes from a fetch's batches (Kafka's CompletedFetch): the records at or
// above its fetch offset, never a control batch's, and under read_committed none of an
// aborted transaction.
//
// read_committed, as Kafka's consumer does it: the fetch names the aborted transactions among
// the batches (producer, first offset), and the batches they make aborted
// (engine/protocol/aborted_batches.h) are dropped. Control batches are never handed out, under
// either isolation level.
#pragma once

#include <span>
#include <vector>

#include "engine/base/shared_bytes.h"
#include "engine/protocol/messages.h"

namespace logsim::engine {

// Appends to `out` the records of `batches` (whole, valid) with offsets >= `from` that a
// consumer of `isolation` hands out, given the fetch's `aborted` transactions.
void decode_fetched(const SharedBytes& batches, Offset from, IsolationLevel isolation,
                    std::span<const AbortedTransaction> aborted, std::vector<StoredRecord>& out);

}  // namespace logsim::engine

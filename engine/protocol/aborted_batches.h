// Which batches hold records of aborted transactions, as Kafka's read_committed consumer
// (CompletedFetch) and its log cleaner (CleanedTransactionMetadata) tell them: given the
// aborted transactions among some batches (producer, first offset), walk the batches in offset
// order; each aborted transaction whose first offset is at or below a batch's last offset makes
// its producer "aborting", and that producer's transactional batches are aborted records until
// its abort marker, which ends it.
#pragma once

#include <optional>
#include <set>
#include <span>
#include <vector>

#include "engine/protocol/messages.h"
#include "engine/protocol/record_batch.h"

namespace logsim {

class AbortedBatches {
 public:
  explicit AbortedBatches(std::span<const AbortedTransaction> aborted);
  // Whether the batch `h` (whose marker is `marker`, for a control batch) holds records of an
  // aborted transaction. Call it for every batch, in offset order.
  bool aborted(const BatchHeader& h, const std::optional<TxnMarker>& marker);

 private:
  std::vector<AbortedTransaction> pending_;  // by first offset
  std::size_t next_ = 0;
  std::set<ProducerId> aborting_;
};

}  // namespace logsim

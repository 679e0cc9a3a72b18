#include "engine/protocol/aborted_batches.h"

#include <algorithm>

namespace logsim {

AbortedBatches::AbortedBatches(std::span<const AbortedTransaction> aborted) : pending_(aborted.begin(), aborted.end()) {
  std::stable_sort(pending_.begin(), pending_.end(),
                   [](const AbortedTransaction& a, const AbortedTransaction& b) { return a.first_offset < b.first_offset; });
}

bool AbortedBatches::aborted(const BatchHeader& h, const std::optional<TxnMarker>& marker) {
  if (h.idempotent()) {
    for (; next_ < pending_.size() && pending_[next_].first_offset <= h.last_offset(); ++next_) {
      aborting_.insert(pending_[next_].producer_id);
    }
  }
  if (h.control()) {
    if (marker && marker->type == ControlType::kAbort) aborting_.erase(h.producer_id);
    return false;
  }
  return h.transactional() && aborting_.count(h.producer_id) != 0;
}

}  // namespace logsim

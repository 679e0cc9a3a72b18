#include "engine/client/fetched_records.h"

#include <algorithm>
#include <set>

#include "engine/base/assert.h"
#include "engine/protocol/record_batch.h"

namespace logsim::engine {

void decode_fetched(const SharedBytes& batches, Offset from, IsolationLevel isolation,
                    std::span<const AbortedTransaction> aborted, std::vector<StoredRecord>& out) {
  if (isolation == IsolationLevel::kReadUncommitted) return decode_batches(batches, from, out);
  std::vector<AbortedTransaction> pending(aborted.begin(), aborted.end());  // by first offset
  std::stable_sort(pending.begin(), pending.end(),
                   [](const AbortedTransaction& a, const AbortedTransaction& b) { return a.first_offset < b.first_offset; });
  std::size_t next = 0;
  std::set<ProducerId> aborting;
  std::string scratch;
  const std::string_view bytes = batches.contiguous(scratch);
  for (std::size_t pos = 0; pos < bytes.size();) {
    const std::optional<BatchHeader> h = parse_batch_header(bytes.substr(pos));
    LOGSIM_ASSERT(h && h->size_bytes() <= bytes.size() - pos, "malformed record batches taken for valid");
    const std::string_view batch = bytes.substr(pos, static_cast<std::size_t>(h->size_bytes()));
    pos += batch.size();
    if (h->idempotent()) {
      for (; next < pending.size() && pending[next].first_offset <= h->last_offset(); ++next) {
        aborting.insert(pending[next].producer_id);
      }
    }
    if (h->control()) {
      const std::optional<TxnMarker> marker = parse_control_batch(batch);
      if (marker && marker->type == ControlType::kAbort) aborting.erase(h->producer_id);
      continue;
    }
    if (h->transactional() && aborting.count(h->producer_id) != 0) continue;
    decode_batch(batch, out, from);
  }
}

}  // namespace logsim::engine

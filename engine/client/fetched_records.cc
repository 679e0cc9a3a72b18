#include "engine/client/fetched_records.h"

#include "engine/base/assert.h"
#include "engine/protocol/aborted_batches.h"
#include "engine/protocol/record_batch.h"

namespace logsim::engine {

void decode_fetched(const SharedBytes& batches, Offset from, IsolationLevel isolation,
                    std::span<const AbortedTransaction> aborted, std::vector<StoredRecord>& out) {
  if (isolation == IsolationLevel::kReadUncommitted) return decode_batches(batches, from, out);
  AbortedBatches filter(aborted);
  std::string scratch;
  const std::string_view bytes = batches.contiguous(scratch);
  for (std::size_t pos = 0; pos < bytes.size();) {
    const std::optional<BatchHeader> h = parse_batch_header(bytes.substr(pos));
    LOGSIM_ASSERT(h && h->size_bytes() <= bytes.size() - pos, "malformed record batches taken for valid");
    const std::string_view batch = bytes.substr(pos, static_cast<std::size_t>(h->size_bytes()));
    pos += batch.size();
    const std::optional<TxnMarker> marker = h->control() ? parse_control_batch(batch) : std::nullopt;
    if (!filter.aborted(*h, marker)) decode_batch(batch, out, from);  // a control batch decodes to nothing
  }
}

}  // namespace logsim::engine

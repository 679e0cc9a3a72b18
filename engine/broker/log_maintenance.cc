// Log maintenance on a broker: every log.retention.check.interval.ms each hosted partition's
// log applies retention and compaction below its high watermark (leaders and followers alike,
// as in Kafka), and logs whose flush policy is due are fsynced.
#include "engine/broker/broker.h"

namespace logsim::engine {

void flush_if_due(BrokerState& b, Partition& p) {
  const std::int64_t now_ms = to_millis(b.env.now());
  if (p.log->flush_due(now_ms)) p.log->flush(0, now_ms);
}

void run_log_maintenance(BrokerState& b) {
  const std::int64_t now_ms = to_millis(b.env.now());
  for (auto& [key, p] : b.partitions) {
    PartitionLog& log = *p.log;
    if (log.config().deletes()) {
      // PLANTED BUG (delete-segment-above-hw): retention is bounded by the log end, not the
      // high watermark, so uncommitted segments can go.
      const bool to_log_end = b.config.plants.has(Plant::kDeleteSegmentAboveHighWatermark);
      log.apply_retention(now_ms, to_log_end ? log.log_end_offset() : p.high_watermark);
    }
    p.producers.forget_aborted_below(log.log_start_offset());
    // Kafka's first uncleanable offset: nothing of an undecided transaction is cleaned; the
    // records of aborted ones go.
    if (log.config().compacts()) {
      const Offset lso = p.last_stable_offset();
      log.compact(now_ms, lso, 0, p.aborted_transactions(log.log_start_offset(), lso));
    }
    flush_if_due(b, p);
  }
}

}  // namespace logsim::engine

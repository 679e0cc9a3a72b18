// What a coordinator hosted on a broker needs of it: the partitions of its internal topic
// (__consumer_offsets for the group coordinator, __transaction_state for the transaction
// coordinator) that this broker leads.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "engine/base/types.h"
#include "engine/protocol/messages.h"

namespace logsim::engine {

// The producer whose transaction an append belongs to (a TxnOffsetCommit's offsets).
struct TxnWriter {
  ProducerId producer_id{-1};
  ProducerEpoch producer_epoch{-1};
};

// The end of a transaction in an internal topic's log: its control batch's offset and what
// it decided.
struct LoggedMarker {
  Offset offset{-1};
  ProducerId producer_id{-1};
  bool commit = false;
};

class InternalTopicHost {
 public:
  // How an append ends: NONE and the offset its first record was given, or the error that
  // stopped it (and offset -1).
  using AppendDone = std::function<void(ErrorCode, Offset)>;

  virtual ~InternalTopicHost() = default;
  // Appends records to a partition of the internal topic that this broker leads. `done` runs
  // exactly once, later (never inside append): NONE once the high watermark passes every
  // record, or the error that stopped it (NOT_LEADER_OR_FOLLOWER: leadership lost;
  // REQUEST_TIMED_OUT after `timeout_ms`; NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND).
  virtual void append(PartitionId partition, std::vector<Record> records, std::int32_t timeout_ms,
                      AppendDone done) = 0;
  // The same, as one transactional batch of `writer`: it stays pending until the marker that
  // ends the transaction (Kafka's coordinator-origin append). A writer whose epoch the
  // partition has seen superseded is refused (INVALID_PRODUCER_EPOCH).
  virtual void append_transactional(PartitionId partition, std::vector<Record> records, TxnWriter writer,
                                    std::int32_t timeout_ms, AppendDone done) = 0;
  // Every record of a partition this broker leads, from its log start to its log end (those
  // of transactional batches carry their producer id), without the transactions' markers.
  virtual std::vector<StoredRecord> read_all(PartitionId partition) = 0;
  // The markers of that log, in offset order.
  virtual std::vector<LoggedMarker> read_markers(PartitionId partition) = 0;
};

}  // namespace logsim::engine

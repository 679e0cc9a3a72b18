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

class InternalTopicHost {
 public:
  virtual ~InternalTopicHost() = default;
  // Appends records to a partition of the internal topic that this broker leads. `done` runs
  // exactly once, later (never inside append): NONE once the high watermark passes every
  // record, or the error that stopped it (NOT_LEADER_OR_FOLLOWER: leadership lost;
  // REQUEST_TIMED_OUT after `timeout_ms`; NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND).
  virtual void append(PartitionId partition, std::vector<Record> records, std::int32_t timeout_ms,
                      std::function<void(ErrorCode)> done) = 0;
  // Every record of a partition this broker leads, from its log start to its log end.
  virtual std::vector<StoredRecord> read_all(PartitionId partition) = 0;
};

}  // namespace logsim::engine

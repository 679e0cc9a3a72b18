// One partition replica on a broker: its log, its high watermark, and what its role needs.
//
// Leader side (the high-watermark rule): the leader tracks each follower's log end offset as
// reported by its fetches. The high watermark is the smallest log end offset among the ISR
// (the leader's own included); it only ever moves forward, and it does not move while the ISR
// is smaller than min.insync.replicas. A follower is caught up when it fetched from the
// leader's log end offset; one not caught up for replica.lag.time.max.ms leaves the ISR, and
// one that reaches the high watermark rejoins it (both through the controller).
//
// Follower side: on becoming a follower of a new leader epoch, the replica asks the leader
// where its latest epoch ends (OffsetsForLeaderEpoch, KIP-101/KIP-279), truncates its log
// there, then fetches from its log end offset. Its high watermark is min(leader's, own LEO).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>

#include "engine/env/env.h"
#include "engine/protocol/messages.h"
#include "engine/broker/producer_state.h"
#include "engine/log/partition_log.h"

namespace logsim::engine {

struct FollowerProgress {
  Offset log_end_offset{-1};    // as of its last fetch; -1 unknown
  Nanos last_caught_up = 0;     // when it last fetched from the leader's log end offset
};

enum class FollowerPhase : std::uint8_t { kIdle, kTruncating, kFetching };

struct Partition {
  PartitionState state;  // as the controller last said
  std::unique_ptr<PartitionLog> log;
  // The topic id the log belongs to, from its "partition.metadata" file (0: not yet known).
  // A log whose topic was deleted and created again under a new id is deleted, not reused.
  std::int64_t topic_id = 0;
  Offset high_watermark{0};
  ProducerStateTable producers;  // idempotent producers, as the log records them

  // Leader side.
  std::map<NodeId, FollowerProgress> followers;
  bool isr_change_in_flight = false;
  Nanos isr_change_sent = 0;  // when the AlterPartition in flight was sent

  // Follower side.
  FollowerPhase phase = FollowerPhase::kIdle;
  CorrelationId in_flight = 0;  // OffsetsForLeaderEpoch or Fetch awaiting an answer
  TimerId timer = 0;            // its timeout, or a backoff before the next one
  Offset fetch_floor{0};        // the leader's log start, when retention moved it past our end

  bool led_by(NodeId self) const { return state.leader == self; }
  // min(high watermark, first offset of every undecided transaction), never below the log
  // start (retention may delete an open transaction's first records, as in Kafka).
  Offset last_stable_offset() const {
    return std::max(producers.last_stable_offset(high_watermark), log->log_start_offset());
  }
  // The aborted transactions among the records [from, upto), as a fetch is told of them.
  std::vector<AbortedTransaction> aborted_transactions(Offset from, Offset upto) const {
    std::vector<AbortedTransaction> out;
    for (const auto& a : producers.aborted_between(from, upto)) out.push_back(AbortedTransaction{a.producer_id, a.first_offset});
    return out;
  }
};

}  // namespace logsim::engine

// The consumer client's fetch path: manual assignment, positions, seeks, and fetching from
// each partition's leader up to its high watermark.
//
// Kafka's semantics kept here: the position is the offset of the next record to hand out;
// poll() hands out at most max.poll.records buffered records and advances positions past
// them; a partition without a position is reset by auto.offset.reset (earliest, latest, or
// none: the partition reports OFFSET_OUT_OF_RANGE and stays idle); OFFSET_OUT_OF_RANGE from
// the broker is handled the same way. The broker holds an empty fetch up to fetch.max.wait.ms
// (the long poll), so an empty answer is followed by the next fetch at once.
//
// Group membership (subscribe, rebalances, commits) arrives with the consumer-group work;
// the assignment here is what KafkaConsumer#assign gives. One client per application node.
#pragma once

#include <compare>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/client/metadata.h"
#include "engine/client/topic_partition.h"
#include "engine/env/env.h"

namespace logsim::engine {

enum class OffsetReset : std::uint8_t { kEarliest, kLatest, kNone };

struct ConsumerConfig {
  std::vector<NodeId> bootstrap_servers;           // bootstrap.servers
  std::int32_t max_poll_records = 500;             // max.poll.records
  OffsetReset auto_offset_reset = OffsetReset::kLatest;  // auto.offset.reset
  std::int32_t fetch_max_wait_ms = 500;            // fetch.max.wait.ms
  std::int32_t request_timeout_ms = 30000;         // request.timeout.ms
  std::int32_t retry_backoff_ms = 100;             // retry.backoff.ms
};

struct ConsumerRecord {
  TopicPartition tp;
  StoredRecord record;
};

class Consumer {
 public:
  Consumer(Env& env, ConsumerConfig config);

  // Replaces the assignment. Partitions kept keep their positions; new ones start without.
  void assign(const std::vector<TopicPartition>& partitions);
  const std::vector<TopicPartition>& assignment() const { return assignment_; }
  // Sets the next offset poll() hands out for an assigned partition; drops what is buffered.
  void seek(const TopicPartition& tp, Offset offset);
  std::optional<Offset> position(const TopicPartition& tp) const;
  // The error that stopped a partition (auto.offset.reset=none), if any.
  std::optional<ErrorCode> partition_error(const TopicPartition& tp) const;

  // Up to max.poll.records buffered records, in offset order per partition.
  std::vector<ConsumerRecord> poll();

  bool on_message(NodeId from, const Message& msg);
  bool on_timer(TimerId id, std::uint64_t tag);
  // The connection to a broker broke: requests in flight to it are retried after a backoff.
  void on_disconnect(NodeId peer);

 private:
  struct PartitionState {
    std::optional<Offset> position;  // next offset to hand out
    std::deque<StoredRecord> buffer; // fetched, not yet handed out
    CorrelationId in_flight = 0;     // Fetch or ListOffsets awaiting a response
    Offset fetch_offset{-1};         // what the Fetch in flight asked for
    NodeId target{-1};               // where the request in flight went
    TimerId timer = 0;               // request timeout or next-fetch delay
    bool waiting = false;            // timer is a delay, not a request timeout
    std::optional<ErrorCode> error;
  };

  void request_metadata();
  void pump(const TopicPartition& tp);
  void send_request(const TopicPartition& tp, PartitionState& st, NodeId leader, bool list_offsets);
  void delay(PartitionState& st, const TopicPartition& tp, Nanos after);
  void reset_position(const TopicPartition& tp, PartitionState& st);
  void on_fetch(const FetchResponse& resp);
  void on_list_offsets(const ListOffsetsResponse& resp);
  PartitionState* state_for(CorrelationId id, TopicPartition& tp);

  Env& env_;
  ConsumerConfig config_;
  MetadataCache metadata_;
  std::vector<TopicPartition> assignment_;
  std::map<TopicPartition, PartitionState> partitions_;
  std::map<CorrelationId, TopicPartition> by_correlation_;
  std::map<TimerId, TopicPartition> by_timer_;
  CorrelationId next_correlation_ = 0;
  CorrelationId metadata_correlation_ = 0;
  NodeId metadata_target_{-1};
  TimerId metadata_timer_ = 0;
  Nanos last_metadata_request_ = -1;
  std::size_t next_poll_partition_ = 0;  // round-robin start of poll()
};

}  // namespace logsim::engine

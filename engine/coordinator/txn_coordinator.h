// The transaction coordinator: Kafka's TransactionCoordinator, on the brokers (KIP-98).
//
// A transactional id lives in one partition of the internal, compacted, replicated topic
// __transaction_state (partition_for, Kafka's hash as for groups); the broker leading that
// partition coordinates it. Every change of a transaction's state (txn_metadata.h) is a record
// in that partition, appended through the broker's log and taken as current only once the high
// watermark passes it, so a new leader rebuilds the same transactions by replaying the log and
// finishes any decided one.
//
// Ending a transaction is two phases, as in Kafka: EndTxn writes the decision (PrepareCommit
// or PrepareAbort) and is answered once it is durable; the coordinator then sends WriteTxnMarkers
// to every partition's leader, retrying until each marker is written, and writes the completion
// (CompleteCommit or CompleteAbort). An Ongoing transaction older than its
// transaction.timeout.ms is aborted by the coordinator at a bumped epoch, which fences the
// producer. The coordinator epoch stamped on markers is the leader epoch of the id's
// __transaction_state partition, so a deposed coordinator's late markers are fenced.
//
// Like the group coordinator it is sans-I/O: it answers through Env::send, arms timers on its
// broker's TimerMux (TxnCoordinatorTimer), and reaches the log and the cluster's metadata only
// through the TxnCoordinatorHost its broker gives it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "engine/coordinator/internal_topic_host.h"
#include "engine/coordinator/txn_metadata.h"
#include "engine/env/env.h"
#include "engine/plants.h"
#include "engine/timer_mux.h"

namespace logsim::engine {

struct TxnCoordinatorConfig {
  std::int32_t transaction_max_timeout_ms = 900000;  // transaction.max.timeout.ms
  // transaction.abort.timed.out.transaction.cleanup.interval.ms
  std::int32_t transaction_abort_timed_out_transaction_cleanup_interval_ms = 10000;
  std::int32_t request_timeout_ms = 30000;  // __transaction_state appends and marker requests
  std::int32_t retry_backoff_ms = 100;      // before a marker or a completion is tried again
  // offsets.topic.num.partitions: where AddOffsetsToTxn finds a group before __consumer_offsets
  // exists (Kafka's coordinator computes it from the setting, not the topic).
  std::int32_t offsets_topic_num_partitions = 50;
  Plants plants;                            // planted bugs (none by default)
};

// What the transaction coordinator needs of its broker: the __transaction_state partitions it
// leads, and the cluster's metadata as the broker knows it.
class TxnCoordinatorHost : public InternalTopicHost {
 public:
  // The live leader of a partition; -1 when it is offline or the partition is unknown.
  virtual NodeId leader_of(const TopicPartition& tp) = 0;
  // How many partitions the topic has; 0 when it does not exist.
  virtual std::int32_t partition_count(std::string_view topic) = 0;
};

class TransactionCoordinator {
 public:
  TransactionCoordinator(Env& env, TimerMux& timers, TxnCoordinatorConfig config, TxnCoordinatorHost& host);
  ~TransactionCoordinator();
  TransactionCoordinator(const TransactionCoordinator&) = delete;
  TransactionCoordinator& operator=(const TransactionCoordinator&) = delete;

  // The __transaction_state partitions this broker leads changed: partition -> its leader
  // epoch, which is the coordinator epoch of the ids in it (the broker calls this after every
  // LeaderAndIsr, with the topic's partition count). A partition newly led, or led at a new
  // epoch, is loaded by replaying its log, and its decided transactions are completed; the ids
  // of a partition no longer led are unloaded and their requests answered NOT_COORDINATOR.
  void on_leadership(const std::map<std::int32_t, std::int32_t>& led, std::int32_t num_partitions);

  // The APIs. Each answers `from` (now or later). An id whose partition this broker does not
  // lead is answered NOT_COORDINATOR. InitProducerId here is always a transactional one.
  void handle(NodeId from, const InitProducerIdRequest& req);
  void handle(NodeId from, const AddPartitionsToTxnRequest& req);
  void handle(NodeId from, const AddOffsetsToTxnRequest& req);
  void handle(NodeId from, const EndTxnRequest& req);
  // A partition leader's answer to the coordinator's markers.
  void handle(NodeId from, const WriteTxnMarkersResponse& resp);
  // The connection to a broker broke: the markers sent to it are sent again.
  void on_disconnect(NodeId peer);

  // For tests and the harness: a transactional id's metadata, if it is loaded here.
  std::optional<TxnMetadata> transaction(std::string_view transactional_id) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace logsim::engine

// A broker node: hosts partition replicas and answers Kafka's APIs.
//
// In a cluster the broker registers with the controller, heartbeats, and takes its partitions'
// roles (leader or follower, ISR, epochs) from the controller's LeaderAndIsr. Standalone (no
// controller configured) it leads the configured topics alone: one replica, ISR of one.
//
// Each API has its own handler file in handlers/; on_message in broker.cc is the registry.
// Replication (leader and follower sides) lives in replication.cc.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/broker/partition.h"
#include "engine/coordinator/group_coordinator.h"
#include "engine/coordinator/txn_coordinator.h"
#include "engine/base/flat_map.h"
#include "engine/base/topic_partition.h"
#include "engine/env/env.h"
#include "engine/plants.h"
#include "engine/timer_mux.h"
#include "engine/timer_tags.h"

namespace logsim::engine {

struct TopicSpec {
  std::string name;
  std::int32_t partitions = 1;
};

struct BrokerConfig {
  std::vector<TopicSpec> topics;          // standalone only: topics this broker leads alone
  std::optional<NodeId> controller;       // the controller node; none = standalone
  std::int32_t replica_lag_time_max_ms = 30000;    // replica.lag.time.max.ms
  std::int32_t replica_fetch_wait_max_ms = 500;    // replica.fetch.wait.max.ms
  std::int32_t replica_fetch_max_records = 1000;   // (replica.fetch.max.bytes, in records)
  std::int32_t replica_fetch_backoff_ms = 1000;    // replica.fetch.backoff.ms
  std::int32_t broker_heartbeat_interval_ms = 2000;  // broker.heartbeat.interval.ms
  std::int32_t request_timeout_ms = 30000;         // for requests to the controller and leaders
  std::int32_t replica_high_watermark_checkpoint_interval_ms = 5000;  // replica.high.watermark.checkpoint.interval.ms
  std::int32_t log_retention_check_interval_ms = 300000;  // log.retention.check.interval.ms
  // The internal topic of the group coordinator, created on the first FindCoordinator.
  std::int32_t offsets_topic_num_partitions = 50;    // offsets.topic.num.partitions
  std::int32_t offsets_topic_replication_factor = 3; // offsets.topic.replication.factor
  std::int32_t offsets_topic_segment_bytes = 104857600;  // offsets.topic.segment.bytes
  GroupCoordinatorConfig group;                      // group.* and offsets.commit.timeout.ms
  // The internal topic of the transaction coordinator, created on the first FindCoordinator
  // for a transactional id.
  std::int32_t transaction_state_log_num_partitions = 50;       // transaction.state.log.num.partitions
  std::int32_t transaction_state_log_replication_factor = 3;    // transaction.state.log.replication.factor
  std::int32_t transaction_state_log_min_isr = 2;               // transaction.state.log.min.isr
  std::int32_t transaction_state_log_segment_bytes = 104857600; // transaction.state.log.segment.bytes
  TxnCoordinatorConfig transaction;                             // transaction.* of the coordinator
  Plants plants;                                     // planted bugs of the broker (none by default)
};

// A Fetch the broker holds until records arrive or its max wait ends (Kafka's long poll).
struct ParkedFetch {
  NodeId from;
  FetchRequest request;
  TimerId timer = 0;
};

// An acks=all Produce waiting for the high watermark to pass its records: a client's request,
// or the group coordinator's own append (then `done` is called instead of answering).
struct PendingProduce {
  NodeId from;
  ProduceResponse response;  // filled but for the error
  Offset required;           // the high watermark that completes it
  TimerId timer = 0;         // request.timeout.ms
  std::function<void(ErrorCode)> done{};
};

// The broker's tables by partition, in TopicPartition's order; a TopicPartitionView finds an
// entry without a copy of its topic.
template <typename V>
using PartitionMap = std::map<TopicPartition, V, TopicPartitionLess>;

// What the handlers work on.
struct BrokerState {
  Env& env;
  Timers<BrokerTimer>& timers;  // the broker's own timers (its coordinator has its own)
  BrokerConfig config;
  PartitionMap<Partition> partitions;      // replicas hosted here
  PartitionMap<PartitionState> cluster;    // every partition, for Metadata
  std::map<std::string, LogConfig> topic_configs;    // as the controller last said
  std::vector<NodeId> live_brokers;
  std::int32_t controller_epoch = -1;
  std::int64_t metadata_version = -1;
  PartitionMap<std::vector<ParkedFetch>> parked;
  PartitionMap<std::vector<PendingProduce>> pending_produces;
  // The follower side's work in flight: each entry names a hosted replica whose `in_flight`
  // (or `timer`) is that id. Whoever changes either keeps these in step, and remove() drops
  // both before the replica goes, so an entry never outlives its partition.
  FlatMap<CorrelationId, Partition*> follower_requests;
  FlatMap<TimerId, Partition*> follower_timers;
  CorrelationId next_correlation = 0;
  GroupCoordinator* coordinator = nullptr;  // the group coordinator this broker hosts
  TransactionCoordinator* txn_coordinator = nullptr;  // and the transaction coordinator
  std::map<TimerId, std::function<void()>> deferred;  // callbacks run on the next turn (kDeferred)
  // When this broker last asked for an internal topic (__consumer_offsets, __transaction_state).
  std::map<std::string, Nanos> internal_topic_requested;

  // Runs `fn` on a timer of zero delay: after the current handler returns.
  void defer(std::function<void()> fn);

  Partition* find(const std::string& topic, PartitionId p);
  Partition* find_leader(const std::string& topic, PartitionId p);  // led by this broker
  Partition& open(const std::string& topic, PartitionId p);          // creates if absent
  // Stops hosting a replica and deletes its log (topic deleted, or re-created under a new id).
  void remove(const TopicPartition& key);
  // Records the replica's topic id in its "partition.metadata" file (as Kafka does).
  void write_topic_id(Partition& p, std::int64_t topic_id);
};

// A partition's log directory, as Kafka names it: "<topic>-<partition>".
std::string partition_dir(const std::string& topic, PartitionId p);

class Broker final : public Node {
 public:
  Broker(Env& env, BrokerConfig config);
  void on_start() override;
  void on_message(NodeId from, const Message& msg) override;
  void on_timer(TimerId id, std::uint64_t tag) override;
  void on_disconnect(NodeId peer) override;

  const BrokerState& state() const { return state_; }
  const GroupCoordinator& coordinator() const { return *coordinator_; }
  const TransactionCoordinator& txn_coordinator() const { return *txn_coordinator_; }

 private:
  void register_with_controller();
  void heartbeat();
  void checkpoint_high_watermarks();
  void recover_logs();
  void on_own_timer(TimerId id, BrokerTimer tag);

  TimerMux timers_;  // this node's: the broker's own and its group coordinator's
  Timers<BrokerTimer> own_timers_;
  BrokerState state_;
  std::unique_ptr<TxnCoordinatorHost> offsets_host_;
  std::unique_ptr<GroupCoordinator> coordinator_;
  std::unique_ptr<TxnCoordinatorHost> txn_host_;
  std::unique_ptr<TransactionCoordinator> txn_coordinator_;
  std::int64_t broker_epoch_ = -1;
  CorrelationId registration_ = 0;
  TimerId heartbeat_timer_ = 0;
};

// ---- Handlers (one file each under handlers/). Each sends its own answer, now or later.
void handle_produce(BrokerState& b, NodeId from, const ProduceRequest& req);
void handle_fetch(BrokerState& b, NodeId from, const FetchRequest& req);
void handle_list_offsets(BrokerState& b, NodeId from, const ListOffsetsRequest& req);
void handle_metadata(BrokerState& b, NodeId from, const MetadataRequest& req);
void handle_leader_and_isr(BrokerState& b, const LeaderAndIsrRequest& req);
void handle_offsets_for_leader_epoch(BrokerState& b, NodeId from, const OffsetsForLeaderEpochRequest& req);
void handle_init_producer_id(BrokerState& b, NodeId from, const InitProducerIdRequest& req);
void handle_find_coordinator(BrokerState& b, NodeId from, const FindCoordinatorRequest& req);
void handle_write_txn_markers(BrokerState& b, NodeId from, const WriteTxnMarkersRequest& req);

// ---- Coordinator hosting (coordinator_hosting.cc).
// The host the broker gives a coordinator: appends to and reads from the partitions of the
// internal topic (__consumer_offsets, __transaction_state) that this broker leads.
std::unique_ptr<TxnCoordinatorHost> make_internal_topic_host(BrokerState& b, std::string_view topic);
// Tells the coordinators which partitions of their internal topics this broker now leads.
void update_coordinator_leadership(BrokerState& b);
// Routes a group or transaction API message (or a marker's answer) to its coordinator; false
// if the message is not one.
bool route_to_coordinator(BrokerState& b, NodeId from, const Message& msg);

// ---- Replication (replication.cc).
// The fetch answer for `req` as things stand (records up to the HW, or the LEO for a replica).
FetchResponse read_for_fetch(BrokerState& b, const FetchRequest& req);
// Records a follower's fetch position (leader side): caught-up time, ISR expansion, HW.
void note_follower_fetch(BrokerState& b, Partition& p, NodeId follower, Offset fetch_offset);
// Recomputes the high watermark; completes produces and wakes fetches it unblocks.
void maybe_advance_high_watermark(BrokerState& b, Partition& p, ErrorCode answer = ErrorCode::NONE);
// Answers every fetch held on a partition.
void wake_fetches(BrokerState& b, TopicPartitionView key);
// Fails every acks=all produce waiting on the partition (leadership lost).
void fail_pending_produces(BrokerState& b, TopicPartitionView key, ErrorCode error);
// ISR shrink for lagging followers (leader side), run periodically.
void shrink_isrs(BrokerState& b);
void on_alter_partition_response(BrokerState& b, const AlterPartitionResponse& resp);
// Follower side: start (or restart) replicating from the partition's leader.
void start_following(BrokerState& b, const TopicPartition& key);
void on_offsets_for_leader_epoch_response(BrokerState& b, const OffsetsForLeaderEpochResponse& resp);
void on_replica_fetch_response(BrokerState& b, const FetchResponse& resp);
// A follower request timed out or its backoff ended: go again.
void on_follower_timer(BrokerState& b, TimerId id);
void on_leader_disconnect(BrokerState& b, NodeId leader);
// The connection to the controller broke: the AlterPartition requests in flight are retried.
void on_controller_disconnect(BrokerState& b);
// A deferred callback's turn came (kDeferred), a held fetch's wait ended (kFetchWait), or an
// acks=all produce timed out (kProduceTimeout). Each does nothing for a timer it no longer holds.
void run_deferred(BrokerState& b, TimerId id);
void end_fetch_wait(BrokerState& b, TimerId id);
void end_produce_wait(BrokerState& b, TimerId id);
// Log maintenance (log_maintenance.cc): retention and compaction of every hosted partition
// (each below its own high watermark), and flushes the flush policy asks for.
void run_log_maintenance(BrokerState& b);
void flush_if_due(BrokerState& b, Partition& p);

}  // namespace logsim::engine

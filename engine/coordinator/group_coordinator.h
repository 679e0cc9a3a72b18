// The group coordinator: Kafka's classic consumer-group protocol, on the brokers.
//
// A group lives in one partition of the internal, compacted, replicated topic
// __consumer_offsets (partition_for); the broker leading that partition coordinates the group.
// Every committed offset and every stored group state is a record in that partition, appended
// through the broker's log and answered only once the high watermark passes it (acks=all), so
// that when leadership moves, the new leader rebuilds the same groups by replaying the log.
//
// The coordinator is a sans-I/O state machine like the rest of the engine: it answers requests
// through Env::send, arms timers on its broker's TimerMux (the tags are CoordinatorTimer's), and
// reaches the log only through the InternalTopicHost the broker gives it.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/coordinator/internal_topic_host.h"
#include "engine/env/env.h"
#include "engine/protocol/messages.h"
#include "engine/plants.h"
#include "engine/timer_mux.h"

namespace logsim::engine {

// The internal topic's name, as in Kafka.
inline constexpr std::string_view kConsumerOffsetsTopic = "__consumer_offsets";

struct GroupCoordinatorConfig {
  std::int32_t group_min_session_timeout_ms = 6000;       // group.min.session.timeout.ms
  std::int32_t group_max_session_timeout_ms = 1800000;    // group.max.session.timeout.ms
  std::int32_t group_initial_rebalance_delay_ms = 3000;   // group.initial.rebalance.delay.ms
  std::int32_t group_max_size = std::numeric_limits<std::int32_t>::max();  // group.max.size
  std::int32_t offsets_commit_timeout_ms = 5000;          // offsets.commit.timeout.ms
  // Committed offsets of a group that has been Empty this long expire (KIP-211, Kafka 2.1+);
  // a group that never had members (standalone commits) loses each offset this long after its
  // commit. offsets.retention.minutes, default 7 days.
  std::int32_t offsets_retention_minutes = 10080;
  std::int32_t offsets_retention_check_interval_ms = 600000;  // offsets.retention.check.interval.ms
  Plants plants;                                          // planted bugs (none by default)
};

class GroupCoordinator {
 public:
  GroupCoordinator(Env& env, TimerMux& timers, GroupCoordinatorConfig config, InternalTopicHost& host);
  ~GroupCoordinator();
  GroupCoordinator(const GroupCoordinator&) = delete;
  GroupCoordinator& operator=(const GroupCoordinator&) = delete;

  // The __consumer_offsets partition that holds a group, as Kafka computes it:
  // abs(Java String.hashCode(group_id)) % partitions (abs of INT_MIN is 0).
  static PartitionId partition_for(std::string_view group_id, std::int32_t partitions);

  // The __consumer_offsets partitions this broker leads changed (the broker calls this after
  // every LeaderAndIsr, with the full set and the topic's partition count). Groups of newly led
  // partitions are loaded by replaying their logs; groups of partitions no longer led are
  // unloaded, and the requests they hold are answered NOT_COORDINATOR.
  void on_leadership(const std::set<std::int32_t>& led, std::int32_t num_partitions);

  // The APIs. Each answers `from` (now or later). A group whose partition this broker does not
  // lead is answered NOT_COORDINATOR.
  void handle(NodeId from, const JoinGroupRequest& req);
  void handle(NodeId from, const SyncGroupRequest& req);
  void handle(NodeId from, const HeartbeatRequest& req);
  void handle(NodeId from, const LeaveGroupRequest& req);
  void handle(NodeId from, const OffsetCommitRequest& req);
  void handle(NodeId from, const OffsetFetchRequest& req);
  void handle(NodeId from, const ListGroupsRequest& req);
  void handle(NodeId from, const DescribeGroupsRequest& req);
  void handle(NodeId from, const DeleteGroupsRequest& req);
  void handle(NodeId from, const OffsetDeleteRequest& req);
  void handle(NodeId from, const TxnOffsetCommitRequest& req);

  // The broker wrote (and replicated) the marker that ends `producer_id`'s transaction in the
  // __consumer_offsets partition `partition`: the offsets that transaction committed there
  // take effect, or are dropped if it aborted (Kafka's onTransactionCompleted). The broker
  // answers WriteTxnMarkers only after this returns (KAFKA-17507).
  void on_txn_completed(ProducerId producer_id, PartitionId partition, bool commit);

  // For tests and the harness: a group's state name ("Empty", "PreparingRebalance",
  // "CompletingRebalance", "Stable", "Dead") and generation; "Dead"/-1 if not loaded here.
  std::string group_state(std::string_view group_id) const;
  std::int32_t group_generation(std::string_view group_id) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace logsim::engine

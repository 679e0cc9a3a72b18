// The controller node: owns the cluster metadata (ClusterMetadata), persists it to its disk
// before anyone hears of a change, and tells the brokers.
//
// - The configured topics are created once every configured broker has registered (or, if one
//   never does, broker.session.timeout.ms after the first start), so that replicas and
//   preferred leaders spread over the cluster as in Kafka.
// - Brokers register at start (getting a broker epoch) and heartbeat every
//   broker.heartbeat.interval.ms; one silent for broker.session.timeout.ms is fenced: its
//   partitions get new leaders from their ISR (or, with unclean.leader.election.enable, from
//   any live replica) and it leaves every ISR.
// - Leaders change ISRs with AlterPartition (KIP-497), fenced by leader and partition epochs.
// - Every leader.imbalance.check.interval.ms, leadership moves back to preferred replicas
//   (auto.leader.rebalance.enable).
// - Admin APIs (engine/protocol/admin_messages.h): CreateTopics (replicas placed over the live
//   brokers), DeleteTopics, CreatePartitions, IncrementalAlterConfigs, DescribeConfigs. A
//   change is answered once it is durable, like every other change.
// - Every change is written to "metadata" (write a temporary file, rename, fsync) and only
//   once durable is it broadcast (LeaderAndIsr with the whole state) and are AlterPartition
//   answers sent. A restarted controller recovers the file, bumps its controller epoch, and
//   gives every registered broker a fresh session.
// (A replicated controller quorum comes later; this is one controller node.)
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "engine/controller/cluster_metadata.h"
#include "engine/env/env.h"
#include "engine/timer_mux.h"
#include "engine/timer_tags.h"

namespace logsim::engine {

struct ControllerConfig {
  std::vector<NodeId> brokers;                       // the cluster's brokers
  BrokerRacks racks;                                 // broker.rack of each (none: rack-unaware placement)
  std::vector<TopicCreation> topics;                 // created once every broker has registered
  std::int32_t broker_session_timeout_ms = 9000;     // broker.session.timeout.ms
  bool auto_leader_rebalance_enable = true;          // auto.leader.rebalance.enable
  std::int32_t leader_imbalance_check_interval_ms = 300000;  // leader.imbalance.check.interval.seconds
  // Defaults for topics created at run time (CreateTopics with -1) and for configs reset by
  // IncrementalAlterConfigs' DELETE.
  std::int32_t num_partitions = 1;               // num.partitions
  std::int32_t default_replication_factor = 1;   // default.replication.factor
  TopicConfigs topic_defaults;                   // min.insync.replicas, unclean.leader.election.enable, log.*
};

class Controller final : public Node {
 public:
  Controller(Env& env, ControllerConfig config);
  void on_start() override;
  void on_message(NodeId from, const Message& msg) override;
  void on_timer(TimerId id, std::uint64_t tag) override;
  void on_fsync(std::uint64_t token) override;

  const ClusterMetadata& metadata() const { return md_; }

 private:
  void changed();
  void create_initial_topics();
  void broadcast();
  void check_sessions();
  void handle_admin(NodeId from, const Message& msg);
  // Persists the change and answers `from` once it is durable.
  void answer_when_durable(NodeId from, Message answer);
  void on_own_timer(ControllerTimer tag);

  Env& env_;
  TimerMux timers_;
  Timers<ControllerTimer> own_timers_;
  ControllerConfig config_;
  ClusterMetadata md_;
  std::map<NodeId, Nanos> last_heartbeat_;
  std::int64_t durable_version_ = -1;
  // Answers that wait until the state they report is durable, by version.
  std::multimap<std::int64_t, std::pair<NodeId, Message>> pending_;
};

}  // namespace logsim::engine

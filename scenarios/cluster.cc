// The engine's configurations of a scenario's cluster (see cluster.h).
#include "scenarios/cluster.h"

namespace logsim::scenarios {

ClusterIds cluster_ids(const Scenario& scenario) {
  ClusterIds ids;
  for (std::int32_t b = 0; b < scenario.cluster.brokers; ++b) ids.brokers.push_back(NodeId(b));
  ids.controller = NodeId(scenario.cluster.brokers);
  return ids;
}

engine::BrokerConfig broker_config(const Scenario& scenario, const ClusterIds& ids) {
  const BrokerSettings& c = scenario.cluster.config;
  engine::BrokerConfig broker_config;
  broker_config.controller = ids.controller;
  broker_config.replica_lag_time_max_ms = c.replica_lag_time_max_ms;
  broker_config.replica_fetch_wait_max_ms = c.replica_fetch_wait_max_ms;
  broker_config.broker_heartbeat_interval_ms = c.broker_heartbeat_interval_ms;
  broker_config.log_retention_check_interval_ms = c.log_retention_check_interval_ms;
  broker_config.offsets_topic_num_partitions = c.offsets_topic_num_partitions;
  broker_config.offsets_topic_replication_factor = c.offsets_topic_replication_factor;
  broker_config.group.group_initial_rebalance_delay_ms = c.group_initial_rebalance_delay_ms;
  broker_config.group.group_min_session_timeout_ms = c.group_min_session_timeout_ms;
  broker_config.group.group_max_session_timeout_ms = c.group_max_session_timeout_ms;
  broker_config.group.offsets_commit_timeout_ms = c.offsets_commit_timeout_ms;
  broker_config.group.offsets_retention_minutes = c.offsets_retention_minutes;
  broker_config.group.offsets_retention_check_interval_ms = c.offsets_retention_check_interval_ms;
  broker_config.transaction_state_log_num_partitions = c.transaction_state_log_num_partitions;
  broker_config.transaction_state_log_replication_factor = c.transaction_state_log_replication_factor;
  broker_config.transaction_state_log_min_isr = c.transaction_state_log_min_isr;
  broker_config.transaction.transaction_max_timeout_ms = c.transaction_max_timeout_ms;
  broker_config.transaction.transaction_abort_timed_out_transaction_cleanup_interval_ms =
      c.transaction_abort_timed_out_transaction_cleanup_interval_ms;
  broker_config.group.plants = scenario.plants;
  broker_config.plants = scenario.plants;
  return broker_config;
}

engine::ControllerConfig controller_config(const Scenario& scenario, const ClusterIds& ids) {
  const BrokerSettings& c = scenario.cluster.config;
  engine::ControllerConfig cc;
  cc.brokers = ids.brokers;
  for (std::size_t i = 0; i < scenario.cluster.racks.size(); ++i) cc.racks[ids.brokers[i]] = scenario.cluster.racks[i];
  cc.num_partitions = c.num_partitions;
  cc.default_replication_factor = c.default_replication_factor;
  cc.topic_defaults = engine::TopicConfigs{c.min_insync_replicas, c.unclean_leader_election_enable, LogConfig{}};
  cc.broker_session_timeout_ms = c.broker_session_timeout_ms;
  cc.auto_leader_rebalance_enable = c.auto_leader_rebalance_enable;
  cc.leader_imbalance_check_interval_ms = c.leader_imbalance_check_interval_seconds * 1000;
  for (const auto& t : scenario.topics) {
    cc.topics.push_back(engine::TopicCreation{
        t.name, t.partitions, t.replication_factor,
        engine::TopicConfigs{t.min_insync_replicas, t.unclean_leader_election.value_or(c.unclean_leader_election_enable), t.log}});
  }
  return cc;
}

}  // namespace logsim::scenarios

// One topic of a scenario, as under /topics or in a create-topic step: its partitions,
// replication and Kafka topic configs (validated by the loader; -1 or none: the cluster's
// default).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/protocol/log_config.h"

namespace logsim::scenarios {

struct TopicSpec {
  std::string name;
  std::int32_t partitions = 1;
  std::int32_t replication_factor = -1;          // -1: the cluster's default.replication.factor
  std::int32_t min_insync_replicas = -1;         // min.insync.replicas; -1: the broker default
  std::optional<bool> unclean_leader_election;   // unclean.leader.election.enable; none: default
  LogConfig log;                                  // retention.ms, segment.bytes, cleanup.policy, ...
};

}  // namespace logsim::scenarios

// The controller's state: brokers and their epochs, and every partition's replicas, leader,
// leader epoch and ISR — with Kafka's rules for changing them.
//
// Invariants (checked by check_invariants()):
// 1. A partition's leader is -1 (offline) or a member of its ISR; the ISR is a non-empty
//    subset of its replicas.
// 2. leader_epoch increases with every leader change; partition_epoch with every change.
// 3. Only live brokers lead; the ISR holds only live brokers, except that a partition whose
//    last ISR member died keeps that member in its ISR (leader -1) so it can come back as
//    leader, as Kafka does without unclean election.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/env/messages.h"
#include "engine/env/rng.h"

namespace logsim::engine {

struct TopicCreation {
  std::string name;
  std::int32_t partitions = 1;
  std::int32_t replication_factor = 1;
  std::int32_t min_insync_replicas = 1;          // min.insync.replicas
  bool unclean_leader_election_enable = false;   // unclean.leader.election.enable
  LogConfig log;                                 // retention.ms, segment.bytes, cleanup.policy, ...
};

class ClusterMetadata {
 public:
  using Key = std::pair<std::string, std::int32_t>;

  std::int32_t controller_epoch = 0;
  std::int64_t version = 0;
  std::int64_t next_broker_epoch = 1;
  std::map<NodeId, std::int64_t> broker_epochs;  // registered (live, unfenced) brokers
  std::map<Key, PartitionState> partitions;
  std::map<std::string, bool> unclean_election;  // per topic
  std::map<std::string, LogConfig> topic_configs;

  bool is_live(NodeId b) const { return broker_epochs.contains(b); }
  std::vector<NodeId> live_brokers() const;

  // Creates a topic with Kafka's rack-unaware replica assignment over `brokers` (sorted),
  // starting at a random broker. Returns false if it exists or cannot be placed.
  ErrorCode create_topic(const TopicCreation& t, const std::vector<NodeId>& brokers, Rng& rng);

  // A broker (re)registers: any earlier incarnation is treated as failed first. Returns its
  // new broker epoch.
  std::int64_t register_broker(NodeId b);
  // A broker is gone (fenced by its session timeout, or replaced by a new incarnation).
  void broker_failed(NodeId b);
  // Moves leadership back to preferred replicas that are live and in sync.
  bool elect_preferred_leaders();
  // Applies a leader's ISR change, or says why not.
  ErrorCode alter_isr(const AlterPartitionRequest& req);

  void check_invariants() const;
  LeaderAndIsrRequest snapshot() const;

  std::string encode() const;
  static std::optional<ClusterMetadata> decode(std::string_view bytes);

 private:
  void set_leader(PartitionState& p, NodeId leader);
  void elect(PartitionState& p, bool unclean);
};

}  // namespace logsim::engine

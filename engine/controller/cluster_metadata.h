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
// 4. Every partition's topic is in `topics`, with the partition's topic id and
//    min.insync.replicas; a topic's partitions are numbered 0..N-1 without gaps.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/controller/topic_config.h"
#include "engine/protocol/messages.h"
#include "engine/env/rng.h"

namespace logsim::engine {

struct TopicCreation {
  std::string name;
  std::int32_t partitions = 1;
  std::int32_t replication_factor = 1;
  TopicConfigs configs;  // min.insync.replicas, unclean.leader.election.enable, the log configs
};

// A topic: its id (a new one for every creation, as Kafka's topic ids) and its configs.
struct TopicInfo {
  std::int64_t topic_id = 0;
  TopicConfigs configs;
};

// What an admin change came to: NONE, or Kafka's error and message.
struct AdminOutcome {
  ErrorCode error = ErrorCode::NONE;
  std::string message;
  bool ok() const { return error == ErrorCode::NONE; }
};

// Kafka's rack-unaware replica assignment (AdminUtils.assignReplicasToBrokersRackUnaware) of
// one partition over `brokers` (sorted), for a start index and replica shift, and the
// partition id the assignment started at (0 for a new topic, the old count when growing one).
std::vector<NodeId> assign_replicas(std::int32_t partition, std::int32_t replication_factor,
                                    const std::vector<NodeId>& brokers, std::int32_t start_index,
                                    std::int32_t start_shift, std::int32_t first_partition = 0);

// broker.rack of each broker that has one (empty: the cluster has no rack information).
using BrokerRacks = std::map<NodeId, std::string>;

// The brokers ordered alternately by rack: racks in name order, the brokers of each in id
// order, one from each rack in turn (Kafka's getRackAlternatedBrokerList). Every broker must
// have a rack.
std::vector<NodeId> rack_alternated(const std::vector<NodeId>& brokers, const BrokerRacks& racks);

// Kafka's rack-aware replica assignment (AdminUtils.assignReplicasToBrokersRackAware) of one
// partition over `brokers`, every one with a rack: the first replica walks the rack-alternated
// list from the start index, and each next one is the next broker along the shifted walk that
// is in a rack without a replica yet (while such racks remain) and holds none yet.
std::vector<NodeId> assign_replicas_rack_aware(std::int32_t partition, std::int32_t replication_factor,
                                               const std::vector<NodeId>& brokers, const BrokerRacks& racks,
                                               std::int32_t start_index, std::int32_t start_shift,
                                               std::int32_t first_partition = 0);

class ClusterMetadata {
 public:
  using Key = std::pair<std::string, std::int32_t>;

  std::int32_t controller_epoch = 0;
  std::int64_t version = 0;
  std::int64_t next_broker_epoch = 1;
  std::map<NodeId, std::int64_t> broker_epochs;  // registered (live, unfenced) brokers
  std::int64_t next_topic_id = 1;
  std::map<Key, PartitionState> partitions;
  std::map<std::string, TopicInfo> topics;
  // Whether the topics the cluster was configured with exist yet (they are created once every
  // configured broker has registered, so that replicas and leaders spread as in Kafka).
  bool initial_topics_created = false;

  bool is_live(NodeId b) const { return broker_epochs.contains(b); }
  std::vector<NodeId> live_brokers() const;

  // Creates a topic with Kafka's replica assignment over `brokers` (sorted), starting at a
  // random broker: rack-aware when every one of them has a rack in `racks`, else rack-unaware.
  // With validate_only nothing changes (the rng is still drawn).
  AdminOutcome create_topic(const TopicCreation& t, const std::vector<NodeId>& brokers, Rng& rng,
                            bool validate_only = false, const BrokerRacks& racks = {});
  // Deletes a topic: its partitions leave the metadata; brokers then delete their logs.
  AdminOutcome delete_topic(const std::string& name);
  // Grows a topic to `count` partitions, placing the new ones over `brokers` (sorted) the way
  // Kafka's CreatePartitions does: continuing the assignment from the first replica of
  // partition 0 (rack-aware as create_topic).
  AdminOutcome create_partitions(const std::string& name, std::int32_t count, const std::vector<NodeId>& brokers,
                                 bool validate_only = false, const BrokerRacks& racks = {});
  // IncrementalAlterConfigs on a topic (all or nothing). min.insync.replicas reaches every
  // partition's state; turning unclean.leader.election.enable on elects leaders for offline
  // partitions at once, as KRaft's controller does.
  AdminOutcome alter_configs(const std::string& name, const std::vector<AlterableConfig>& ops,
                             const TopicConfigs& defaults, bool validate_only = false);
  bool has_topic(const std::string& name) const { return topics.contains(name); }
  std::int32_t partition_count(const std::string& name) const;

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
  bool unclean(const std::string& topic) const;
};

}  // namespace logsim::engine

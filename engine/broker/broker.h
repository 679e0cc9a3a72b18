// A broker node: hosts partition logs and answers Kafka's APIs.
//
// This is the single-replica broker of the foundation: every partition it hosts is led by it,
// and the high watermark equals the log end offset (there are no followers to wait for).
// Replication, the controller, segments and retention grow from here (the broker-engine work).
//
// Each API has its own handler file in handlers/; on_message below is the registry.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/env/env.h"
#include "engine/log/partition_log.h"

namespace logsim::engine {

struct TopicSpec {
  std::string name;
  std::int32_t partitions = 1;
};

struct BrokerConfig {
  std::vector<TopicSpec> topics;  // created at first start (auto-created topics)
};

// A Fetch the broker holds until records arrive or its max wait ends (Kafka's long poll).
struct ParkedFetch {
  NodeId from;
  FetchRequest request;
  TimerId timer = 0;
};

// What the handlers work on: the broker's logs and identity.
struct BrokerState {
  Env& env;
  BrokerConfig config;
  // (topic, partition) -> log; ordered so iteration is deterministic.
  std::map<std::pair<std::string, std::int32_t>, std::unique_ptr<PartitionLog>> logs;
  // Held fetches, by the partition they wait on, in arrival order.
  std::map<std::pair<std::string, std::int32_t>, std::vector<ParkedFetch>> parked;

  PartitionLog* find(const std::string& topic, PartitionId p);
};

class Broker final : public Node {
 public:
  Broker(Env& env, BrokerConfig config);
  void on_start() override;
  void on_message(NodeId from, const Message& msg) override;
  void on_timer(TimerId id, std::uint64_t tag) override;

  const BrokerState& state() const { return state_; }

 private:
  void on_fetch(NodeId from, const FetchRequest& req);
  // Answers every fetch held on a partition (records arrived, or their wait ended).
  void wake(const std::string& topic, PartitionId p);

  BrokerState state_;
};

// The handlers (one file each). Each returns the response to send, if any.
ProduceResponse handle_produce(BrokerState& b, const ProduceRequest& req);
FetchResponse handle_fetch(BrokerState& b, const FetchRequest& req);
ListOffsetsResponse handle_list_offsets(BrokerState& b, const ListOffsetsRequest& req);
MetadataResponse handle_metadata(BrokerState& b, const MetadataRequest& req);

}  // namespace logsim::engine

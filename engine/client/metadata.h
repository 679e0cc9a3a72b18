// The client's view of the cluster: which broker leads each partition, and how many
// partitions each topic has (MetadataCache); and how the producer and the consumer keep it
// fresh (MetadataRefresh): a Metadata request to a bootstrap broker drawn at random.
//
// The refresh has at most one request in flight or waited for at a time. It asks no more often
// than once per retry.backoff.ms (a partition without a leader would otherwise be asked about in
// a tight loop): a request asked for sooner waits until then. A request unanswered for
// request.timeout.ms is asked again at once (of a broker drawn again); one whose connection
// broke is asked again after retry.backoff.ms (reconnect.backoff.ms in Kafka), not at once: a
// broker that is down would answer every immediate retry with another reset.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/base/name_order.h"
#include "engine/base/topic_partition.h"
#include "engine/client/client_channel.h"
#include "engine/protocol/messages.h"
#include "engine/timer_mux.h"
#include "engine/timer_tags.h"

namespace logsim::engine {

class MetadataCache {
 public:
  void update(const MetadataResponse& resp);
  std::optional<NodeId> leader(const std::string& topic, PartitionId p) const;
  // The leader epoch that came with the partition's leader (-1: no leader known).
  LeaderEpoch leader_epoch(const std::string& topic, PartitionId p) const;
  // Number of partitions of a topic, or 0 when unknown.
  std::int32_t partition_count(const std::string& topic) const;
  bool knows(const std::string& topic) const { return partition_count(topic) > 0; }

 private:
  struct Leader {
    NodeId node{-1};  // -1: none known
    LeaderEpoch epoch{-1};
    LeaderEpoch last_seen{-1};  // the newest leader epoch any answer named (kept while no leader is known)
  };
  // One topic: its partition count and its partitions' leaders by partition number. (A topic
  // recreated with fewer partitions keeps the entries above its count, as answers never name
  // them; callers read the count first.)
  struct Topic {
    std::int64_t id = 0;  // the incarnation the leaders are of
    std::int32_t count = 0;
    std::vector<Leader> leaders;
  };
  // The topic of the last lookup: producers and consumers ask about one topic many times in a
  // row. Map entries are never erased, so the pointer stays good.
  const Topic* find(const std::string& topic) const;
  const Leader* find(const std::string& topic, PartitionId p) const;  // null: no entry
  // A copy of the cache starts without one (it would point into the original's map).
  struct Memo {
    const std::string* name = nullptr;
    const Topic* topic = nullptr;
    Memo() = default;
    Memo(const Memo&) {}
    Memo& operator=(const Memo&) {
      name = nullptr;
      topic = nullptr;
      return *this;
    }
  };
  std::map<std::string, Topic, NameLess> topics_;
  mutable Memo memo_;
};

class MetadataRefresh {
 public:
  // The topics a request asks about (none: every topic), asked when it is sent.
  using Topics = std::function<std::vector<std::string>()>;

  // Sends through `channel` and arms its timers on the node's `timers`, which hands them back.
  MetadataRefresh(ClientChannel& channel, TimerMux& timers, Topics topics);
  MetadataRefresh(const MetadataRefresh&) = delete;
  MetadataRefresh& operator=(const MetadataRefresh&) = delete;

  // Asks for metadata, unless a request is in flight or waited for already.
  void request();
  // A Metadata answer: true when it answers the request in flight (the cache is updated);
  // false for any other (a late answer, or another client's).
  bool on_response(const MetadataResponse& resp);
  // The connection to `peer` broke: a request in flight to it is asked again after a wait.
  void on_disconnect(NodeId peer);

  const MetadataCache& cache() const { return cache_; }

 private:
  void on_timer(TimerId id);

  ClientChannel& channel_;
  Timers<MetadataTimer> timers_;
  RequestTable<std::monostate, MetadataTimer> requests_;
  Topics topics_;
  MetadataCache cache_;
  RequestSlot slot_;
  Nanos last_request_ = -1;  // when the latest request was sent
};

}  // namespace logsim::engine

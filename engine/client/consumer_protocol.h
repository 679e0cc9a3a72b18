// The consumer's embedded protocol in the classic group protocol (Kafka's ConsumerProtocol):
// what a member tells the group in JoinGroup (its subscription, and for the sticky assignors
// the partitions it owns and its generation) and what the leader hands each member in
// SyncGroup (its assignment). The coordinator sees both only as bytes.
//
// The encoding is our own (length-prefixed fields, version first), not Kafka's wire schema;
// decoding anything malformed yields nothing rather than a crash.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/topic_partition.h"

namespace logsim::engine {

struct ConsumerSubscription {
  std::vector<std::string> topics;
  std::vector<TopicPartition> owned_partitions;  // KIP-429: what the member owns now
  std::int32_t generation_id = -1;               // the generation it owned them in
  bool operator==(const ConsumerSubscription&) const = default;
};

struct ConsumerAssignment {
  std::vector<TopicPartition> partitions;
  bool operator==(const ConsumerAssignment&) const = default;
};

std::string encode_subscription(const ConsumerSubscription& s);
std::optional<ConsumerSubscription> decode_subscription(std::string_view bytes);
std::string encode_assignment(const ConsumerAssignment& a);
std::optional<ConsumerAssignment> decode_assignment(std::string_view bytes);

}  // namespace logsim::engine

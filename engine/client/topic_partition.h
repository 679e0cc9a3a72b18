// A topic partition as clients name it (Kafka's TopicPartition): shared by the consumer, the
// group assignors and, later, the group client.
#pragma once

#include <compare>
#include <string>

#include "engine/base/types.h"

namespace logsim::engine {

struct TopicPartition {
  std::string topic;
  PartitionId partition;
  auto operator<=>(const TopicPartition&) const = default;
};

}  // namespace logsim::engine

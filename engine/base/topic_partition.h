// A topic partition as Kafka names it (Kafka's TopicPartition): a topic and a partition index.
// Part of the vocabulary every layer shares, so clients, brokers, the history and the checkers
// all name a partition the same way.
#pragma once

#include <compare>
#include <string>

#include "engine/base/types.h"

namespace logsim {

struct TopicPartition {
  std::string topic;
  PartitionId partition;
  auto operator<=>(const TopicPartition&) const = default;
};

}  // namespace logsim

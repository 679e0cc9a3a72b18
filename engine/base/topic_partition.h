// A topic partition as Kafka names it (Kafka's TopicPartition): a topic and a partition index.
// Part of the vocabulary every layer shares, so clients, brokers, the history and the checkers
// all name a partition the same way.
//
// Maps keyed by TopicPartition on hot paths use TopicPartitionLess: the same order as
// TopicPartition's own (topic by bytes, then partition), computed inline (name_order.h), and
// able to find a TopicPartitionView, which names a topic without a copy of it.
#pragma once

#include <compare>
#include <string>
#include <string_view>

#include "engine/base/name_order.h"
#include "engine/base/types.h"

namespace logsim {

struct TopicPartition {
  std::string topic;
  PartitionId partition;
  auto operator<=>(const TopicPartition&) const = default;
};

// A topic partition for lookups: the topic is borrowed, not owned. Any TopicPartition is one.
struct TopicPartitionView {
  constexpr TopicPartitionView(std::string_view t, PartitionId p) : topic(t), partition(p) {}
  TopicPartitionView(const TopicPartition& tp) : topic(tp.topic), partition(tp.partition) {}  // NOLINT: a view of it
  std::string_view topic;
  PartitionId partition;
};

// std::less's order of TopicPartition, transparent over TopicPartition and TopicPartitionView.
struct TopicPartitionLess {
  using is_transparent = void;
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const noexcept {
    const int c = compare_names(std::string_view(a.topic), std::string_view(b.topic));
    return c != 0 ? c < 0 : a.partition < b.partition;
  }
};

}  // namespace logsim

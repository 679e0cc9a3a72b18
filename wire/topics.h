// Shapes that many Kafka APIs share, so each is written once: a topic as a name and an array of
// per-partition entries, and a partition's index with its error code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace logsim::wire {

// Kafka's {Name, Partitions} topic element (ListOffsets, OffsetCommit, OffsetFetch's response,
// OffsetDelete). APIs whose topic fields have other names (Produce's topic_data and
// partition_data, Fetch's topic) spell theirs out.
template <class Partition>
struct NamedTopic {
  std::string name;
  std::vector<Partition> partitions;
  bool operator==(const NamedTopic&) const = default;
};

// The partition of OffsetCommit's and OffsetDelete's responses.
struct PartitionError {
  std::int32_t partition_index = 0;
  std::int16_t error_code = 0;
  bool operator==(const PartitionError&) const = default;
};

}  // namespace logsim::wire

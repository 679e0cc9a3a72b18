// Kafka's built-in partitioner (Kafka 3.3+, KIP-794), as far as it does not depend on the
// producer's state:
// - Keyed records: murmur2 of the key bytes, made positive with `& 0x7fffffff`, modulo the
//   partition count (Kafka's Utils.murmur2 / Utils.toPositive).
// - Records without a key (or with partitioner.ignore.keys): one "sticky" partition takes
//   records until batch.size bytes went to it (KIP-480); then the next one is chosen. With
//   partitioner.adaptive.partitioning.enable (the default) the choice is weighted by the
//   partitions' queues (PartitionLoadStats), otherwise it is uniform (uniform_sticky_partition).
// The producer (producer.h) gathers the queue sizes and decides which partitions are available.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/env/rng.h"

namespace logsim::engine {

// Kafka's murmur2 (seed 0x9747b28c), returned as Kafka's signed 32-bit int.
std::int32_t murmur2(std::string_view key);

// The partition Kafka's default partitioner picks for a non-null key.
std::int32_t partition_for_key(std::string_view key, std::int32_t num_partitions);

// One partition as the adaptive partitioner weighs it.
struct PartitionQueue {
  std::int32_t partition = 0;
  std::int32_t queue_size = 0;  // batches waiting to be sent to it (not those in flight)
};

// KIP-794's load statistics of one topic (Kafka's BuiltInPartitioner.updatePartitionLoadStats):
// a partition whose queue is `size` weighs `max_size + 1 - size`, where max_size is the
// longest queue among the candidates, so the shortest queues are the likeliest and even the
// longest keeps weight 1. A switch draws one number below the sum of the weights.
class PartitionLoadStats {
 public:
  // From the queues of the candidate partitions (those with a leader and not excluded by
  // partitioner.availability.timeout.ms), in partition order, out of `queue_count` partitions
  // that have queues at all. nullopt where Kafka keeps no statistics and switches uniformly:
  // fewer than two queues, no candidate left, or every queue alike with none excluded.
  static std::optional<PartitionLoadStats> build(std::span<const PartitionQueue> candidates,
                                                 std::size_t queue_count);

  // The next sticky partition: one draw from `rng`.
  std::int32_t pick(Rng& rng) const;
  // The partition a draw in [0, total()) falls on: the first whose running sum exceeds it.
  std::int32_t partition_at(std::uint64_t draw) const;
  // The running sums of the weights (Kafka's cumulative frequency table); the last is total().
  std::span<const std::uint64_t> cumulative() const { return cumulative_; }
  std::uint64_t total() const { return cumulative_.back(); }

 private:
  PartitionLoadStats(std::vector<std::uint64_t> cumulative, std::vector<std::int32_t> partitions)
      : cumulative_(std::move(cumulative)), partitions_(std::move(partitions)) {}
  std::vector<std::uint64_t> cumulative_;  // nonempty, strictly increasing
  std::vector<std::int32_t> partitions_;   // the candidate each entry belongs to
};

// The next sticky partition without load statistics: uniform among `available` (the partitions
// with a leader, in partition order), or among all `partition_count` when none has one. One
// draw: uniform_u64 of the count, so with every leader known it draws as a plain uniform choice.
std::int32_t uniform_sticky_partition(std::span<const std::int32_t> available, std::int32_t partition_count, Rng& rng);

}  // namespace logsim::engine

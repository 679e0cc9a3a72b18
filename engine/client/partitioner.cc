// Kafka's murmur2, written from its published algorithm: 4-byte little-endian blocks, a tail
// that falls through from 3 bytes to 1, and a final avalanche; and the sticky partition's next
// choice, uniform or weighted by queue sizes (KIP-794).
#include "engine/client/partitioner.h"

#include <algorithm>

#include "engine/base/assert.h"

namespace logsim::engine {

std::int32_t murmur2(std::string_view key) {
  const std::uint32_t seed = 0x9747b28cU;
  const std::uint32_t m = 0x5bd1e995U;
  const int r = 24;
  const auto length = static_cast<std::uint32_t>(key.size());
  std::uint32_t h = seed ^ length;
  const auto byte = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(key[i])); };
  const std::size_t blocks = key.size() / 4;
  for (std::size_t i = 0; i < blocks; ++i) {
    const std::size_t b = i * 4;
    std::uint32_t k = byte(b) | (byte(b + 1) << 8) | (byte(b + 2) << 16) | (byte(b + 3) << 24);
    k *= m;
    k ^= k >> r;
    k *= m;
    h *= m;
    h ^= k;
  }
  const std::size_t tail = blocks * 4;
  switch (key.size() % 4) {
    case 3:
      h ^= byte(tail + 2) << 16;
      [[fallthrough]];
    case 2:
      h ^= byte(tail + 1) << 8;
      [[fallthrough]];
    case 1:
      h ^= byte(tail);
      h *= m;
      break;
    default:
      break;
  }
  h ^= h >> 13;
  h *= m;
  h ^= h >> 15;
  return static_cast<std::int32_t>(h);
}

std::int32_t partition_for_key(std::string_view key, std::int32_t num_partitions) {
  LOGSIM_ASSERT(num_partitions > 0, "partition count must be positive");
  const std::uint32_t positive = static_cast<std::uint32_t>(murmur2(key)) & 0x7fffffffU;
  return static_cast<std::int32_t>(positive % static_cast<std::uint32_t>(num_partitions));
}

std::optional<PartitionLoadStats> PartitionLoadStats::build(std::span<const PartitionQueue> candidates,
                                                            std::size_t queue_count) {
  LOGSIM_ASSERT(candidates.size() <= queue_count, "more candidates than queues");
  if (candidates.empty() || queue_count < 2) return std::nullopt;
  std::int32_t max_size = 0;
  bool all_equal = true;
  for (const PartitionQueue& q : candidates) {
    LOGSIM_ASSERT(q.queue_size >= 0, "a queue size is never negative");
    max_size = std::max(max_size, q.queue_size);
    all_equal = all_equal && q.queue_size == candidates.front().queue_size;
  }
  // With every queue alike and none excluded the weights would all be equal: Kafka then keeps
  // no statistics, and the uniform choice (which draws the same way) is taken.
  if (all_equal && candidates.size() == queue_count) return std::nullopt;
  std::vector<std::uint64_t> cumulative;
  std::vector<std::int32_t> partitions;
  cumulative.reserve(candidates.size());
  partitions.reserve(candidates.size());
  std::uint64_t sum = 0;
  for (const PartitionQueue& q : candidates) {
    sum += static_cast<std::uint64_t>(max_size) + 1 - static_cast<std::uint64_t>(q.queue_size);
    cumulative.push_back(sum);
    partitions.push_back(q.partition);
  }
  return PartitionLoadStats(std::move(cumulative), std::move(partitions));
}

std::int32_t PartitionLoadStats::partition_at(std::uint64_t draw) const {
  LOGSIM_ASSERT(draw < total(), "a draw below the sum of the weights");
  const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), draw);
  return partitions_[static_cast<std::size_t>(it - cumulative_.begin())];
}

std::int32_t PartitionLoadStats::pick(Rng& rng) const { return partition_at(rng.uniform_u64(total())); }

std::int32_t uniform_sticky_partition(std::span<const std::int32_t> available, std::int32_t partition_count, Rng& rng) {
  LOGSIM_ASSERT(partition_count > 0, "partition count must be positive");
  if (available.empty()) return static_cast<std::int32_t>(rng.uniform_u64(static_cast<std::uint64_t>(partition_count)));
  return available[static_cast<std::size_t>(rng.uniform_u64(available.size()))];
}

}  // namespace logsim::engine

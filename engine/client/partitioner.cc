// Kafka's murmur2, written from its published algorithm: 4-byte little-endian blocks, a tail
// that falls through from 3 bytes to 1, and a final avalanche.
#include "engine/client/partitioner.h"

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

}  // namespace logsim::engine

// Kafka's default partitioner for keyed records: murmur2 of the key bytes, made positive with
// `& 0x7fffffff`, modulo the partition count (Kafka's Utils.murmur2 / Utils.toPositive).
#pragma once

#include <cstdint>
#include <string_view>

namespace logsim::engine {

// Kafka's murmur2 (seed 0x9747b28c), returned as Kafka's signed 32-bit int.
std::int32_t murmur2(std::string_view key);

// The partition Kafka's default partitioner picks for a non-null key.
std::int32_t partition_for_key(std::string_view key, std::int32_t num_partitions);

}  // namespace logsim::engine

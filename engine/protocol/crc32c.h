// CRC-32C (Castagnoli, polynomial 0x1EDC6F41 reflected), the checksum of Kafka's record
// batches (DefaultRecordBatch's crc field) and of many storage engines.
//
// The value is a pure function of the bytes: on x86-64 CPUs with SSE 4.2 it is computed with
// the crc32 instruction, elsewhere with tables; both give the same result, so nothing a run
// observes depends on which one ran (DESIGN.md's determinism rules).
#pragma once

#include <cstdint>
#include <string_view>

namespace logsim {

// The CRC-32C of `bytes`.
std::uint32_t crc32c(std::string_view bytes);
// The CRC-32C of A + `bytes`, given crc = crc32c(A): a checksum computed piece by piece.
std::uint32_t crc32c_extend(std::uint32_t crc, std::string_view bytes);
// The same as crc32c, always with the tables (for tests: both ways must agree).
std::uint32_t crc32c_portable(std::string_view bytes);

}  // namespace logsim

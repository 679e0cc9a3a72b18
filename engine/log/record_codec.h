// The on-disk frame of one stored record, and the scan that recovers a log from its bytes.
//
// Frame: [u32 body length][u64 checksum of body][body], little-endian; body =
// [i64 offset][i32 leader epoch][i64 producer id][i32 producer epoch][i32 sequence]
// [i64 timestamp ms][i32 key length or -1][key][i32 value length or -1][value].
// Recovery reads frames until one is incomplete or fails its checksum (a torn tail after a
// power loss) and reports where the valid prefix ends, so the log can truncate there, as
// Kafka's log recovery truncates an invalid tail.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/env/messages.h"

namespace logsim::engine {

// Appends the frame of `rec` to `out`.
void encode_record(const StoredRecord& rec, std::string& out);
// The length of the frame encode_record would append for `rec`.
std::uint64_t encoded_size(const StoredRecord& rec);

struct DecodedLog {
  std::vector<StoredRecord> records;
  std::vector<std::uint64_t> positions;  // byte position of each record's frame
  std::uint64_t valid_bytes = 0;  // the length of the prefix made of whole, valid frames
};

// Decodes frames from the start of `bytes`, stopping at the first invalid one.
DecodedLog decode_records(std::string_view bytes);

}  // namespace logsim::engine

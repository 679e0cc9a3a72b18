// Kafka's consumer protocol inside the classic group protocol's opaque bytes: what a consumer
// group's leader writes for each member in SyncGroup (ConsumerProtocolAssignment), which the
// Java client, librdkafka and kafkajs all encode the same way. The broker never needs it; a
// live run reads it to record each member's assignment (cli/serve_recorder.h).
//
// Layout (not flexible in any version, 0 to 3 alike for the assignment):
//   version int16, then AssignedPartitions: array of (topic string, partitions array of int32),
//   then UserData: nullable bytes. A reader of a newer version stops after what it knows, as
//   Kafka's does; UserData may be missing in what some clients send.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace logsim::wire {

struct ConsumerProtocolAssignment {
  struct Topic {
    std::string topic;
    std::vector<std::int32_t> partitions;
    bool operator==(const Topic&) const = default;
  };
  std::int16_t version = 0;
  std::vector<Topic> assigned;
  std::optional<std::string> user_data;
  bool operator==(const ConsumerProtocolAssignment&) const = default;
};

std::string encode_consumer_assignment(const ConsumerProtocolAssignment& a);
// Nothing when the bytes are not such an assignment (malformed, truncated, a negative
// version). Empty bytes are an empty assignment (a member the leader gave nothing).
std::optional<ConsumerProtocolAssignment> decode_consumer_assignment(std::string_view bytes);

}  // namespace logsim::wire

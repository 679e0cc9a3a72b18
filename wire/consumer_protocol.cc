// Kafka's ConsumerProtocolAssignment (see consumer_protocol.h).
#include "wire/consumer_protocol.h"

#include "wire/codec.h"

namespace logsim::wire {

std::string encode_consumer_assignment(const ConsumerProtocolAssignment& a) {
  std::string out;
  Writer w(out);
  w.int16(a.version);
  w.int32(static_cast<std::int32_t>(a.assigned.size()));
  for (const auto& t : a.assigned) {
    w.string(t.topic);
    w.int32(static_cast<std::int32_t>(t.partitions.size()));
    for (const std::int32_t p : t.partitions) w.int32(p);
  }
  w.nullable_bytes(a.user_data);
  return out;
}

std::optional<ConsumerProtocolAssignment> decode_consumer_assignment(std::string_view bytes) {
  ConsumerProtocolAssignment a;
  if (bytes.empty()) return a;
  try {
    Reader r(bytes);
    a.version = r.int16();
    if (a.version < 0) return std::nullopt;
    // Neither array is nullable in Kafka's schema.
    const std::optional<std::size_t> topics = r.array_length();
    if (!topics) return std::nullopt;
    for (std::size_t i = 0; i < *topics; ++i) {
      ConsumerProtocolAssignment::Topic& t = a.assigned.emplace_back();
      t.topic = r.string();
      const std::optional<std::size_t> partitions = r.array_length();
      if (!partitions) return std::nullopt;
      for (std::size_t j = 0; j < *partitions; ++j) t.partitions.push_back(r.int32());
    }
    if (!r.done()) a.user_data = r.nullable_bytes();
    return a;
  } catch (const DecodeError&) {
    return std::nullopt;
  }
}

}  // namespace logsim::wire

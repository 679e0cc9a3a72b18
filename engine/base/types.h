// The vocabulary every layer shares: simulated time and strong identifier types.
//
// Offsets, partitions, node ids and epochs are distinct types over integers, so mixing an
// offset with an epoch does not compile (after Redpanda's model/fundamental.h).
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace logsim {

// Time is int64 nanoseconds of simulated (or, in live/, real monotonic) time. Configuration
// keeps Kafka's units (ms); convert at the edge with these helpers.
using Nanos = std::int64_t;
constexpr Nanos kNanosPerMicro = 1'000;
constexpr Nanos kNanosPerMilli = 1'000'000;
constexpr Nanos kNanosPerSecond = 1'000'000'000;
constexpr Nanos millis(std::int64_t ms) { return ms * kNanosPerMilli; }
constexpr Nanos seconds(std::int64_t s) { return s * kNanosPerSecond; }
constexpr std::int64_t to_millis(Nanos t) { return t / kNanosPerMilli; }

// A distinct integer type. Tag makes each instantiation its own type.
template <typename Tag, typename Rep>
class StrongInt {
 public:
  using rep = Rep;
  constexpr StrongInt() = default;
  constexpr explicit StrongInt(Rep v) : value_(v) {}
  constexpr Rep value() const { return value_; }
  constexpr auto operator<=>(const StrongInt&) const = default;
  constexpr StrongInt& operator++() {
    ++value_;
    return *this;
  }
  constexpr StrongInt operator+(Rep d) const { return StrongInt(static_cast<Rep>(value_ + d)); }
  constexpr StrongInt operator-(Rep d) const { return StrongInt(static_cast<Rep>(value_ - d)); }
  constexpr Rep operator-(StrongInt o) const { return static_cast<Rep>(value_ - o.value_); }
  friend std::ostream& operator<<(std::ostream& os, StrongInt v) { return os << v.value_; }

 private:
  Rep value_{};
};

// Its decimal text (found by argument-dependent lookup: `to_string(offset)`).
template <typename Tag, typename Rep>
std::string to_string(StrongInt<Tag, Rep> v) {
  return std::to_string(v.value());
}

struct NodeIdTag {};
struct PartitionIdTag {};
struct OffsetTag {};
struct LeaderEpochTag {};
struct ProducerIdTag {};
struct ProducerEpochTag {};
struct SequenceTag {};
struct GenerationTag {};

// A node of the simulated world: broker, controller or client application.
using NodeId = StrongInt<NodeIdTag, std::int32_t>;
// A partition index within one topic.
using PartitionId = StrongInt<PartitionIdTag, std::int32_t>;
// A record's position in one partition's log; committed offsets name the *next* to consume.
using Offset = StrongInt<OffsetTag, std::int64_t>;
using LeaderEpoch = StrongInt<LeaderEpochTag, std::int32_t>;
using ProducerId = StrongInt<ProducerIdTag, std::int64_t>;
using ProducerEpoch = StrongInt<ProducerEpochTag, std::int16_t>;
using Sequence = StrongInt<SequenceTag, std::int32_t>;
using GenerationId = StrongInt<GenerationTag, std::int32_t>;

}  // namespace logsim

template <typename Tag, typename Rep>
struct std::hash<logsim::StrongInt<Tag, Rep>> {
  std::size_t operator()(logsim::StrongInt<Tag, Rep> v) const noexcept {
    return std::hash<Rep>{}(v.value());
  }
};

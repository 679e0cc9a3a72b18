// Send order, after Jepsen's `nonmonotonic-send`: one producer's acknowledged sends of one key
// to one partition land at offsets in the order the sends were invoked. A send acknowledged at
// a lower offset than a send of the same key that the same producer invoked earlier is the
// violation — what retries do with max.in.flight.requests.per.connection > 1 and no
// idempotence, when a failed batch is sent again after a later one landed. Records without a
// key form a group of their own per partition. Equal offsets are `inconsistent-offsets`, not
// this. Found online, at the acknowledgement that completes the out-of-order pair.
//
// State: per (process, value), the index of its invoke until it completes; per (process, topic,
// partition, key), the acknowledged sends ordered by invoke. While a group holds no violation
// its offsets increase with invoke order, so a new acknowledgement is compared only with its
// neighbours in invoke order: O(log n) per event. After a violation every further report still
// names a real out-of-order pair, though not necessarily every one.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "properties/checker.h"

namespace logsim::properties {

class SendOrderChecker final : public Checker {
 public:
  std::string_view name() const override { return "send-order"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;

 private:
  struct Acked {
    std::int64_t offset;
    std::uint64_t value;
    std::uint64_t event;  // the acknowledgement
  };
  // process, topic, partition, key
  using Group = std::tuple<std::string, std::string, std::int32_t, std::optional<std::string>>;

  void on_ack(const HistoryEvent& e, std::uint64_t invoke);
  void report_pair(const HistoryEvent& e, std::uint64_t earlier_invoke, const Acked& earlier,
                   std::uint64_t later_invoke, const Acked& later);

  std::map<std::pair<std::string, std::uint64_t>, std::uint64_t> invoked_;  // (process, value) -> invoke
  std::map<Group, std::map<std::uint64_t, Acked>> acked_;                   // by invoke index
};

}  // namespace logsim::properties

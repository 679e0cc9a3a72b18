// Send order, after Jepsen's `nonmonotonic-send`: one producer's acknowledged sends of one key
// to one partition land at offsets in the order the sends were invoked. A send acknowledged at
// a lower offset than a send of the same key that the same producer invoked earlier is the
// violation — what retries do with max.in.flight.requests.per.connection > 1 and no
// idempotence, when a failed batch is sent again after a later one landed. Records without a
// key form a group of their own per partition. An idempotent producer's sends (send-invoke with
// `idempotent`) are one group per partition whatever their keys: Kafka keeps its records in
// send order per partition (sequence numbers per partition, max.in.flight <= 5), so any two
// of them landing out of order is the violation. Equal offsets are `inconsistent-offsets`, not
// this. Found online, at the acknowledgement that completes the out-of-order pair.
//
// State: per (process, value), the index of its invoke until it completes; per (process,
// topic-partition, key), the acknowledged sends ordered by invoke, in a vector (acknowledgements
// mostly arrive in invoke order, so an insertion is usually an append), pruned to the last one
// invoked before the producer's oldest send still in flight and the ones after it (no later
// acknowledgement can land before that one). While a group holds no
// violation its offsets increase with invoke order, so a new acknowledgement is compared only
// with its neighbours in invoke order. After a violation every further report still names a
// real out-of-order pair, though not necessarily every one.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "properties/checker.h"
#include "engine/base/flat_map.h"

namespace logsim::properties {

class SendOrderChecker final : public Checker {
 public:
  std::string_view name() const override { return "send-order"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;
  KindSet kinds() const override {
    return kinds_of({OpKind::kSendInvoke, OpKind::kSendOk, OpKind::kSendFail, OpKind::kSendInfo});
  }

 private:
  struct Acked {
    std::uint64_t invoke;
    std::int64_t offset;
    std::uint64_t value;
    std::uint64_t event;  // the acknowledgement
  };
  struct Send {  // one producer's send
    Id process;
    std::uint64_t value;
    bool operator==(const Send&) const = default;
  };
  struct Invoked {
    std::uint64_t event;  // the invoke's index
    bool idempotent;
  };
  // The key of every send of an idempotent producer: its partition's sends are one group.
  static constexpr Id kAnyKey = kNoId - 1;
  struct Group {  // one producer's sends of one key (kAnyKey: any) to one partition
    Id process;
    Id tp;
    Id key;
    bool operator==(const Group&) const = default;
  };
  struct Hash {
    std::uint64_t operator()(const Send& s) const noexcept { return s.value ^ (std::uint64_t{s.process} << 40); }
    std::uint64_t operator()(const Group& g) const noexcept {
      return pack(g.process, g.tp) ^ (std::uint64_t{g.key} * 0x9e3779b97f4a7c15ULL);
    }
  };

  void on_ack(const HistoryEvent& e, const EventIds& ids, const Invoked& invoke);
  // The invoke index of the process's oldest send still in flight (UINT64_MAX if none).
  std::uint64_t oldest_in_flight(Id process);
  void report_pair(const HistoryEvent& e, const Acked& earlier, const Acked& later, bool idempotent);

  // Hash maps: looked up, never iterated.
  FlatMap<Send, Invoked, Hash> invoked_;
  FlatMap<Group, std::vector<Acked>, Hash> acked_;  // sorted by invoke
  // Per process, its sends in invoke order (value, invoke), the completed ones dropped lazily
  // from the front: the oldest one still in flight bounds where a later acknowledgement can
  // land, so a group keeps only the last acknowledgement older than it and the ones after.
  std::vector<std::deque<std::pair<std::uint64_t, std::uint64_t>>> in_flight_;
};

}  // namespace logsim::properties

// The simulator's event queue: events ordered by (time, insertion sequence).
//
// Invariants:
// 1. Events pop in nondecreasing time; events with equal times pop first-in first-out
//    (DESIGN.md rule 4: ties are broken by insertion sequence, never by address or hash).
// 2. A cancelled event never pops.
// 3. Sequence numbers are unique and increase with every push, so (time, seq) is a total order.
//
// Layout: the binary heap holds small trivially-copyable keys (time, seq, slot); payloads live
// in a slab of slots reused through a free list, so sifting never moves a payload and a
// cancel is O(1) amortized: the stale key is skipped when it surfaces, and when stale keys
// outnumber live events the heap is rebuilt from the live keys alone. Without that rebuild a
// workload that arms and cancels long timers over and over (Kafka's request and session
// timeouts are tens of seconds) keeps every cancelled key until its time comes, and the heap
// grows with the run. The rebuild cannot change the order of pops: (time, seq) is a total order.
// Single-threaded.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "engine/base/types.h"

namespace logsim::sim {

template <typename Payload>
class EventQueue {
 public:
  struct Handle {
    std::uint32_t slot = 0;
    std::uint64_t seq = 0;  // 0 never names a live event
  };

  struct Popped {
    Nanos at;
    std::uint64_t seq;
    Payload payload;
  };

  Handle push(Nanos at, Payload payload) {
    const std::uint64_t seq = ++last_seq_;
    std::uint32_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
      slots_[slot].payload = std::move(payload);
    } else {
      slot = static_cast<std::uint32_t>(slots_.size());
      slots_.push_back(Slot{std::move(payload), 0});
    }
    slots_[slot].seq = seq;
    heap_.push_back(Key{at, seq, slot});
    std::push_heap(heap_.begin(), heap_.end(), Later{});
    ++live_;
    return Handle{slot, seq};
  }

  // The handle the next push() will return: callers that name an event by its handle inside its
  // own payload read it first.
  Handle next_handle() const {
    return Handle{free_.empty() ? static_cast<std::uint32_t>(slots_.size()) : free_.back(), last_seq_ + 1};
  }

  // Returns true if the event was pending and is now cancelled.
  bool cancel(Handle h) {
    if (h.seq == 0 || h.slot >= slots_.size() || slots_[h.slot].seq != h.seq) return false;
    release(h.slot);
    if (heap_.size() > 2 * live_ + kCompactSlack) compact();
    return true;
  }

  bool empty() const { return live_ == 0; }
  std::size_t size() const { return live_; }
  std::uint64_t last_seq() const { return last_seq_; }

  // Time of the earliest live event. Precondition: !empty().
  Nanos next_time() {
    drop_stale();
    assert(!heap_.empty());
    return heap_.front().at;
  }

  // Removes and returns the earliest live event, or nothing when the queue is empty.
  std::optional<Popped> pop() {
    drop_stale();
    if (heap_.empty()) return std::nullopt;
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    const Key k = heap_.back();
    heap_.pop_back();
    Popped out{k.at, k.seq, std::move(slots_[k.slot].payload)};
    release(k.slot);
    return out;
  }

 private:
  struct Key {
    Nanos at;
    std::uint64_t seq;
    std::uint32_t slot;
  };
  struct Later {
    bool operator()(const Key& a, const Key& b) const {
      return a.at != b.at ? a.at > b.at : a.seq > b.seq;
    }
  };
  struct Slot {
    Payload payload;
    std::uint64_t seq;  // the live event in this slot, 0 if free
  };

  void release(std::uint32_t slot) {
    slots_[slot].seq = 0;
    slots_[slot].payload = Payload{};
    free_.push_back(slot);
    --live_;
  }

  // Drops every stale key and restores the heap: O(heap), run when at least half the keys are
  // stale, so O(1) amortized per cancel.
  void compact() {
    std::erase_if(heap_, [&](const Key& k) { return slots_[k.slot].seq != k.seq; });
    std::make_heap(heap_.begin(), heap_.end(), Later{});
  }

  // Pops keys whose slot no longer holds their event (cancelled, maybe reused).
  void drop_stale() {
    while (!heap_.empty() && slots_[heap_.front().slot].seq != heap_.front().seq) {
      std::pop_heap(heap_.begin(), heap_.end(), Later{});
      heap_.pop_back();
    }
  }

  // Stale keys tolerated beyond the live count before a rebuild (keeps tiny queues cheap).
  static constexpr std::size_t kCompactSlack = 64;

  std::vector<Key> heap_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_;
  std::uint64_t last_seq_ = 0;
  std::size_t live_ = 0;
};

}  // namespace logsim::sim

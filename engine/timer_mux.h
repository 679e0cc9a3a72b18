// One node's timers, shared by the components it hosts: a broker and its group coordinator,
// an application and its clients (a consumer, a dead-letter producer, admin clients).
//
// The Env has one timer interface per node: set_timer(delay, tag) and Node::on_timer(id, tag).
// A component arms its timers through its own Timers<Tag> handle on the node's TimerMux; the
// node's on_timer hands each fired timer to the TimerMux, which hands it to the component that
// armed it, with that component's own tag enum. So no host tells its components' timers apart
// by tag, and no component needs tags that no other component uses: the tags are only what
// the trace records (their values are in timer_tags.h).
//
// Exactly one Env::set_timer per Timers::set and one Env::cancel_timer per Timers::cancel, in
// the same order: a component arms and disarms the world's timers as it would on the Env.
//
// Invariants: a timer is in the table from set until it fires or is cancelled, so a fired
// timer reaches its component at most once, and a cancelled one never. A timer the table does
// not hold (the host's own, armed on the Env) is left to the host: on_timer returns false.
// Lookups only, never iterated, so the table's order cannot reach behaviour.
//
// Lifetimes: the TimerMux outlives the Timers attached to it (a host declares it before its
// components); a component's timers that fire after its Timers is gone are dropped.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>

#include "engine/base/flat_map.h"
#include "engine/env/env.h"

namespace logsim::engine {

template <typename Tag>
class Timers;

class TimerMux {
 public:
  explicit TimerMux(Env& env) : env_(env) {}
  TimerMux(const TimerMux&) = delete;
  TimerMux& operator=(const TimerMux&) = delete;

  // For the host's Node::on_timer: runs the handler of the component that armed the timer.
  // False when no component did (a timer the host armed on its Env itself).
  bool on_timer(TimerId id, std::uint64_t tag);

  // Timers armed by components and not yet fired or cancelled.
  std::size_t armed() const { return owners_.size(); }

 private:
  template <typename Tag>
  friend class Timers;
  using Handler = std::function<void(TimerId, std::uint64_t)>;

  std::uint32_t attach(Handler handler);
  void detach(std::uint32_t owner) { handlers_[owner] = nullptr; }
  TimerId set(std::uint32_t owner, Nanos delay, std::uint64_t tag);
  void cancel(TimerId id);

  Env& env_;
  std::deque<Handler> handlers_;  // by owner; a deque, so a handler running is never moved
  FlatMap<TimerId, std::uint32_t> owners_;
};

// A component's handle on its node's timers, with the component's own tag enum.
template <typename Tag>
class Timers {
 public:
  Timers(TimerMux& mux, std::function<void(TimerId, Tag)> on_timer)
      : mux_(mux), owner_(mux.attach([fn = std::move(on_timer)](TimerId id, std::uint64_t tag) {
          fn(id, static_cast<Tag>(tag));
        })) {}
  ~Timers() { mux_.detach(owner_); }
  Timers(const Timers&) = delete;
  Timers& operator=(const Timers&) = delete;

  // Env::set_timer with this component's tag; the timer comes back to this component.
  TimerId set(Nanos delay, Tag tag) { return mux_.set(owner_, delay, static_cast<std::uint64_t>(tag)); }
  // Env::cancel_timer (a no-op for a timer that fired or was cancelled).
  void cancel(TimerId id) { mux_.cancel(id); }

 private:
  TimerMux& mux_;
  std::uint32_t owner_;
};

}  // namespace logsim::engine

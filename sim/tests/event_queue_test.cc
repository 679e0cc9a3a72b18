// Tests of the simulator's event queue: (time, sequence) order with FIFO ties, O(1) cancel by
// handle (amortized, with the heap rebuilt when stale keys pile up), and that a handle never
// names an event other than the one it was returned for.
//
// The properties drive the queue with random sequences of push/cancel/pop and compare it with
// a plain model (a list of pending events, popped by the smallest (time, push index)), so any
// difference in order, in cancel's answer or in size() is a counterexample that RapidCheck
// shrinks to a short sequence.
#include "sim/event_queue.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace logsim::sim {
namespace {

// The payload is the event's push index, so every pop names exactly which push it came from.
using Queue = EventQueue<std::size_t>;

struct Op {
  enum class Kind : std::uint8_t { kPush, kCancel, kPop };
  Kind kind = Kind::kPop;
  // kPush: the time (absolute, or the delay from the last pop in the "simulation" property).
  // kCancel: which push to cancel, as an index modulo the pushes made so far.
  std::int64_t value = 0;
};

// RapidCheck prints counterexamples with this (found by argument-dependent lookup).
void showValue(const Op& op, std::ostream& os) {
  switch (op.kind) {
    case Op::Kind::kPush: os << "push(" << op.value << ")"; break;
    case Op::Kind::kCancel: os << "cancel(#" << op.value << ")"; break;
    case Op::Kind::kPop: os << "pop"; break;
  }
}

// Times come from a small range so that equal times (the FIFO case) are common.
rc::Gen<Op> gen_op(std::int64_t time_max) {
  return rc::gen::weightedOneOf<Op>({
      {4, rc::gen::map(rc::gen::inRange<std::int64_t>(0, time_max + 1),
                       [](std::int64_t t) { return Op{Op::Kind::kPush, t}; })},
      {2, rc::gen::map(rc::gen::inRange<std::int64_t>(0, 1000),
                       [](std::int64_t i) { return Op{Op::Kind::kCancel, i}; })},
      {3, rc::gen::just(Op{Op::Kind::kPop, 0})},
  });
}

rc::Gen<std::vector<Op>> gen_ops(std::int64_t time_max) {
  return rc::gen::container<std::vector<Op>>(gen_op(time_max));
}

// The model: every push with its time and fate.
struct ModelEvent {
  Nanos at = 0;
  Queue::Handle handle;
  bool pending = true;
  bool cancelled = false;
  int pops = 0;
};

// The earliest pending event of the model by (time, push index), or nothing.
std::optional<std::size_t> model_next(const std::vector<ModelEvent>& events) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (!events[i].pending) continue;
    if (!best || events[i].at < events[*best].at) best = i;  // ties keep the earlier push
  }
  return best;
}

std::size_t model_size(const std::vector<ModelEvent>& events) {
  std::size_t n = 0;
  for (const auto& e : events) n += e.pending ? 1 : 0;
  return n;
}

// Applies one pop to queue and model and checks they agree.
void pop_and_compare(Queue& q, std::vector<ModelEvent>& model) {
  const std::optional<std::size_t> expected = model_next(model);
  auto got = q.pop();
  RC_ASSERT(got.has_value() == expected.has_value());
  if (!got) return;
  RC_ASSERT(got->payload == *expected);
  ModelEvent& e = model[got->payload];
  RC_ASSERT(got->at == e.at);
  RC_ASSERT(got->seq == e.handle.seq);
  RC_ASSERT(!e.cancelled);
  e.pending = false;
  ++e.pops;
}

// The whole contract at once: pops follow (time, push order), cancel answers true exactly for
// pending events, size() counts pending events, and draining pops every survivor exactly once.
RC_GTEST_PROP(EventQueueProperty, BehavesLikeTheModel, ()) {
  const std::vector<Op> ops = *gen_ops(8);
  Queue q;
  std::vector<ModelEvent> model;
  for (const Op& op : ops) {
    switch (op.kind) {
      case Op::Kind::kPush: {
        const std::size_t index = model.size();
        const Queue::Handle h = q.push(op.value, index);
        RC_ASSERT(h.seq != 0u);
        model.push_back(ModelEvent{op.value, h});
        break;
      }
      case Op::Kind::kCancel: {
        if (model.empty()) break;
        ModelEvent& e = model[static_cast<std::size_t>(op.value) % model.size()];
        RC_ASSERT(q.cancel(e.handle) == e.pending);
        if (e.pending) e.cancelled = true;
        e.pending = false;
        break;
      }
      case Op::Kind::kPop: pop_and_compare(q, model); break;
    }
    RC_ASSERT(q.size() == model_size(model));
    RC_ASSERT(q.empty() == (q.size() == 0));
    if (const auto next = model_next(model)) RC_ASSERT(q.next_time() == model[*next].at);
  }
  // Bounded, so a queue that never empties fails instead of hanging.
  for (std::size_t i = 0; i < model.size() && !q.empty(); ++i) pop_and_compare(q, model);
  RC_ASSERT(q.empty());
  RC_ASSERT(!q.pop().has_value());
  for (const ModelEvent& e : model) RC_ASSERT(e.pops == (e.cancelled ? 0 : 1));
}

// The order as the simulator uses the queue (never pushing before the last popped time): the
// popped times never decrease, and events of equal time pop in push order, whatever was
// cancelled in between.
RC_GTEST_PROP(EventQueueProperty, PopsInNondecreasingTimeWithFifoTies, ()) {
  const std::vector<Op> ops = *gen_ops(3);  // kPush: a delay from now, 0 is common
  Queue q;
  std::vector<Queue::Handle> handles;
  Nanos now = 0;
  std::optional<std::size_t> last_index;
  for (const Op& op : ops) {
    if (op.kind == Op::Kind::kPush) {
      handles.push_back(q.push(now + op.value, handles.size()));
    } else if (op.kind == Op::Kind::kCancel && !handles.empty()) {
      q.cancel(handles[static_cast<std::size_t>(op.value) % handles.size()]);
    } else if (auto got = q.pop()) {
      RC_ASSERT(got->at >= now);
      // Equal times: a later push has a larger index, so FIFO means increasing indices.
      if (got->at == now && last_index) RC_ASSERT(got->payload > *last_index);
      now = got->at;
      last_index = got->payload;
    }
  }
}

// Cancelled events never pop, and every event pushed and not cancelled pops exactly once.
RC_GTEST_PROP(EventQueueProperty, EverySurvivorPopsExactlyOnce,
              (const std::vector<std::int64_t>& times, const std::vector<std::size_t>& cancels)) {
  Queue q;
  std::vector<Queue::Handle> handles;
  for (const std::int64_t t : times) handles.push_back(q.push(t, handles.size()));
  std::vector<bool> cancelled(handles.size(), false);
  std::size_t live = handles.size();
  for (const std::size_t c : cancels) {
    if (handles.empty()) break;
    const std::size_t i = c % handles.size();
    RC_ASSERT(q.cancel(handles[i]) == !cancelled[i]);
    if (!cancelled[i]) --live;
    cancelled[i] = true;
    RC_ASSERT(q.size() == live);
  }
  std::vector<int> pops(handles.size(), 0);
  while (auto got = q.pop()) {
    RC_ASSERT(got->payload < handles.size());
    RC_ASSERT(!cancelled[got->payload]);
    ++pops[got->payload];
    RC_ASSERT(q.size() == --live);
  }
  for (std::size_t i = 0; i < handles.size(); ++i) RC_ASSERT(pops[i] == (cancelled[i] ? 0 : 1));
}

// The simulator's worst case for lazy cancellation: a deadline of tens of seconds re-armed on
// every step (a request or session timeout) while short events come and go. Stale keys then
// outnumber live events many times over and the heap is rebuilt again and again; the pops must
// still follow (time, push order) exactly, as a plain ordered model says.
TEST(EventQueue, ReArmingALongDeadlineOverAndOverKeepsTheOrder) {
  Queue q;
  std::set<std::pair<Nanos, std::size_t>> model;  // pending events by (time, push index)
  std::vector<Queue::Handle> handles;
  std::vector<Nanos> times;
  std::uint64_t x = 88172645463325252ULL;  // xorshift64: the test's own fixed stream
  const auto next = [&] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  const auto push = [&](Nanos at) {
    const std::size_t index = handles.size();
    handles.push_back(q.push(at, index));
    times.push_back(at);
    model.emplace(at, index);
    return index;
  };
  Nanos now = 0;
  std::optional<std::size_t> deadline;
  for (int step = 0; step < 20000; ++step) {
    if (deadline) {
      ASSERT_TRUE(q.cancel(handles[*deadline]));
      model.erase({times[*deadline], *deadline});
    }
    deadline = push(now + 30'000 + static_cast<Nanos>(next() % 3));
    for (std::uint64_t k = next() % 3; k > 0; --k) push(now + static_cast<Nanos>(next() % 50));
    if (next() % 4 != 0 && !model.empty()) {
      auto got = q.pop();
      ASSERT_TRUE(got.has_value());
      ASSERT_EQ(got->payload, model.begin()->second) << "step " << step;
      ASSERT_EQ(got->at, model.begin()->first);
      if (deadline == got->payload) deadline.reset();
      model.erase(model.begin());
      now = got->at;
    }
    ASSERT_EQ(q.size(), model.size());
  }
  while (auto got = q.pop()) {
    ASSERT_FALSE(model.empty());
    ASSERT_EQ(got->payload, model.begin()->second);
    model.erase(model.begin());
  }
  EXPECT_TRUE(model.empty());
}

TEST(EventQueue, EmptyQueuePopsNothing) {
  Queue q;
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.size(), 0u);
  EXPECT_FALSE(q.pop().has_value());
}

TEST(EventQueue, EqualTimesPopInPushOrder) {
  Queue q;
  q.push(5, 0);
  q.push(3, 1);
  q.push(5, 2);
  q.push(3, 3);
  std::vector<std::size_t> order;
  while (auto e = q.pop()) order.push_back(e->payload);
  EXPECT_EQ(order, (std::vector<std::size_t>{1, 3, 0, 2}));
}

TEST(EventQueue, CancelTwiceReturnsFalse) {
  Queue q;
  const auto h = q.push(10, 0);
  q.push(20, 1);
  EXPECT_TRUE(q.cancel(h));
  EXPECT_FALSE(q.cancel(h));
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.next_time(), 20);  // the cancelled earlier event is skipped
  ASSERT_EQ(q.pop()->payload, 1u);
  EXPECT_TRUE(q.empty());
}

TEST(EventQueue, CancelAfterPopReturnsFalse) {
  Queue q;
  const auto h = q.push(10, 0);
  ASSERT_EQ(q.pop()->payload, 0u);
  EXPECT_FALSE(q.cancel(h));
  EXPECT_EQ(q.size(), 0u);
}

TEST(EventQueue, DefaultHandleNamesNoEvent) {
  Queue q;
  q.push(1, 0);
  EXPECT_FALSE(q.cancel(Queue::Handle{}));
  EXPECT_FALSE(q.cancel(Queue::Handle{7, 1}));  // a slot that does not exist
  EXPECT_EQ(q.size(), 1u);
}

TEST(EventQueue, StaleHandleCannotCancelTheEventThatReusedItsSlot) {
  Queue q;
  const auto old_cancelled = q.push(10, 0);
  ASSERT_TRUE(q.cancel(old_cancelled));
  const auto reused = q.push(20, 1);
  ASSERT_EQ(reused.slot, old_cancelled.slot);  // the precondition of this test: a reused slot
  EXPECT_FALSE(q.cancel(old_cancelled));
  EXPECT_EQ(q.size(), 1u);

  // The same through a pop: the popped event's handle must not cancel the slot's next event.
  const auto old_popped = q.pop();
  ASSERT_EQ(old_popped->payload, 1u);
  const auto again = q.push(30, 2);
  ASSERT_EQ(again.slot, reused.slot);
  EXPECT_FALSE(q.cancel(reused));
  auto e = q.pop();
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->payload, 2u);
  EXPECT_EQ(e->at, 30);
}

TEST(EventQueue, SequenceNumbersIncreaseWithEveryPush) {
  Queue q;
  const auto a = q.push(5, 0);
  const auto b = q.push(1, 1);
  EXPECT_LT(a.seq, b.seq);
  EXPECT_EQ(q.last_seq(), b.seq);
  EXPECT_EQ(q.pop()->seq, b.seq);
  EXPECT_EQ(q.pop()->seq, a.seq);
}

// The World names a timer by its event's handle before pushing it: next_handle() must be what
// the next push returns, with a fresh slot and with a freed one (the last freed is reused first).
TEST(EventQueue, NextHandleIsWhatTheNextPushReturns) {
  Queue q;
  for (std::uint32_t i = 0; i < 3; ++i) {
    const auto expected = q.next_handle();
    const auto got = q.push(10 + i, i);
    EXPECT_EQ(got.slot, expected.slot);
    EXPECT_EQ(got.seq, expected.seq);
  }
  const auto first = q.pop();  // frees one slot
  ASSERT_TRUE(first.has_value());
  const auto middle = q.push(15, 9);
  ASSERT_TRUE(q.cancel(middle));  // frees another, reused first
  const auto expected = q.next_handle();
  EXPECT_EQ(expected.slot, middle.slot);
  const auto got = q.push(20, 7);
  EXPECT_EQ(got.slot, expected.slot);
  EXPECT_EQ(got.seq, expected.seq);
  EXPECT_EQ(q.next_handle().seq, got.seq + 1);
}

// Payloads need only be movable, and a cancel releases the payload at once (it may hold a
// closure that keeps a node's state alive).
TEST(EventQueue, CancelReleasesAMoveOnlyPayload) {
  EventQueue<std::unique_ptr<std::string>> q;
  auto owned = std::make_shared<int>(0);
  std::weak_ptr<int> watch = owned;
  EventQueue<std::shared_ptr<int>> shared;
  const auto h = shared.push(1, std::move(owned));
  EXPECT_FALSE(watch.expired());
  ASSERT_TRUE(shared.cancel(h));
  EXPECT_TRUE(watch.expired());

  q.push(2, std::make_unique<std::string>("b"));
  q.push(1, std::make_unique<std::string>("a"));
  EXPECT_EQ(*q.pop()->payload, "a");
  EXPECT_EQ(*q.pop()->payload, "b");
}

}  // namespace
}  // namespace logsim::sim

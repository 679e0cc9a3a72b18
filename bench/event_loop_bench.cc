// Throughput of the simulator's event loop, in events per second of wall time (items/s):
//   EventQueueSmallPayload  the bare EventQueue with a 16-byte trivially copyable payload, the
//                           cost floor of every simulated event (goal: >= 10M events/s);
//   EventQueueFunction      the same with std::function<void()> payloads, called at each pop;
//   WorldPingRing           a whole World: nodes pinging round a ring with timers and messages,
//                           so it includes dispatch, the network model, the trace hash and the
//                           message copies.
// The queue benchmarks keep `pending` events queued: each pop pushes one new event at a random
// time after the popped one, as a simulation does.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <variant>

#include "engine/env/env.h"
#include "engine/protocol/messages.h"
#include "engine/env/rng.h"
#include "sim/event_queue.h"
#include "sim/world.h"

namespace logsim::sim {
namespace {

// A random delay in [1 ns, ~1 ms]: the top bits of one raw draw (inline, ~1 ns, so the queue
// dominates the figure).
Nanos next_delay(Rng& rng) { return 1 + static_cast<Nanos>(rng.next_u64() >> 44); }

struct SmallPayload {
  std::uint32_t node = 0;
  std::uint32_t kind = 0;
  std::uint64_t tag = 0;
};
static_assert(sizeof(SmallPayload) == 16);

void BM_EventQueueSmallPayload(benchmark::State& state) {
  const auto pending = static_cast<std::uint64_t>(state.range(0));
  EventQueue<SmallPayload> queue;
  Rng rng(42);
  for (std::uint64_t i = 0; i < pending; ++i) queue.push(next_delay(rng), SmallPayload{0, 0, i});
  std::uint64_t sum = 0;
  for (auto _ : state) {
    auto ev = queue.pop();
    sum += ev->payload.tag;
    queue.push(ev->at + next_delay(rng), SmallPayload{1, 2, ev->payload.tag + 1});
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_EventQueueSmallPayload)->Arg(1000)->Arg(100)->Arg(100'000);

void BM_EventQueueFunction(benchmark::State& state) {
  const auto pending = static_cast<std::uint64_t>(state.range(0));
  EventQueue<std::function<void()>> queue;
  Rng rng(42);
  std::uint64_t fired = 0;
  // Captures a pointer and a value: within std::function's small buffer, as most closures are.
  for (std::uint64_t i = 0; i < pending; ++i) {
    queue.push(next_delay(rng), [&fired, i] { fired += i; });
  }
  for (auto _ : state) {
    auto ev = queue.pop();
    ev->payload();
    queue.push(ev->at + next_delay(rng), [&fired, seq = ev->seq] { fired += seq; });
  }
  benchmark::DoNotOptimize(fired);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_EventQueueFunction)->Arg(1000);

// Pings its ring successor every millisecond and answers the pings it receives.
class RingPinger final : public Node {
 public:
  RingPinger(Env& env, NodeId next) : env_(env), next_(next) {}
  void on_start() override { env_.set_timer(kNanosPerMilli, 0); }
  void on_timer(TimerId /*id*/, std::uint64_t /*tag*/) override {
    env_.send(next_, MetadataRequest{++sent_, {}});
    env_.set_timer(kNanosPerMilli, 0);
  }
  void on_message(NodeId from, const Message& msg) override {
    if (const auto* req = std::get_if<MetadataRequest>(&msg)) {
      env_.send(from, MetadataResponse{req->correlation_id, {}, {}});
    }
  }

 private:
  Env& env_;
  NodeId next_;
  CorrelationId sent_ = 0;
};

// Each iteration builds a world of `nodes` and runs one simulated second: per node and per
// millisecond a timer, a request and a response, so about 3 * nodes * 1000 events.
void BM_WorldPingRing(benchmark::State& state) {
  const auto nodes = static_cast<std::int32_t>(state.range(0));
  std::uint64_t events = 0;
  for (auto _ : state) {
    World world(7);
    for (std::int32_t i = 0; i < nodes; ++i) {
      const NodeId next((i + 1) % nodes);
      world.add_node("n" + std::to_string(i),
                     [next](Env& env) { return std::make_unique<RingPinger>(env, next); });
    }
    for (std::int32_t i = 0; i < nodes; ++i) world.start(NodeId(i));
    world.run_until(seconds(1));
    events += world.events_run();
    benchmark::DoNotOptimize(world.trace().hash());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
  state.counters["events_per_run"] =
      benchmark::Counter(static_cast<double>(events) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_WorldPingRing)->Arg(4)->Arg(32)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace logsim::sim

// End-to-end throughput of the simulated cluster, and the memory the log keeps per record.
//
// Three figures, each against a baseline measured in the same process:
//   log memory   bytes of memory per record retained by one PartitionLog on a SimDisk: the
//                process's resident memory before and after appending (measured first, before
//                anything was freed), against the goal of issue #8: 1.5 x payload + 32 bytes
//                (payload = key + value bytes); and its live heap (the allocator's count, read
//                before and after; glibc's also counts address space reserved but never touched).
//   end to end   records per second of wall time through produce -> replicate -> fetch, all in
//                one sim::World: three brokers and a controller, one topic of one partition
//                with replication factor 3 and min.insync.replicas 2, an idempotent producer
//                with acks=all, and one consumer reading from the earliest offset. Values are
//                100 bytes, keys null. The run ends when the consumer has read every record.
//                Goal: >= 3 million records/s on one core.
//   baseline     memcpy of the same payload bytes, record by record, as records/s: the floor
//                that no pipeline beats, so the ratio says how far the simulation is from it.
//
// Usage: bench_e2e [records]   (default 2,000,000; the smoke test passes a small count)
// Wall-clock time is read here, in the harness, never inside the simulation.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/broker/broker.h"
#include "engine/client/consumer.h"
#include "engine/client/producer.h"
#include "engine/timer_mux.h"
#include "engine/controller/controller.h"
#include "engine/log/partition_log.h"
#include "sim/disk.h"
#include "sim/world.h"
#include "bench/heap_counter.h"
#include "bench/per_record_cost.h"

namespace logsim::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kValueBytes = 100;
constexpr std::int64_t kNsPerSec = 1'000'000'000;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// ---- Baseline: the payload bytes copied once, record by record.

double memcpy_records_per_sec(std::uint64_t records) {
  const std::string value(kValueBytes, 'v');
  std::vector<char> out(records * kValueBytes);
  const auto start = Clock::now();
  for (std::uint64_t i = 0; i < records; ++i) std::memcpy(out.data() + i * kValueBytes, value.data(), kValueBytes);
  const double secs = seconds_since(start);
  volatile char sink = out[out.size() / 2];
  static_cast<void>(sink);
  return static_cast<double>(records) / secs;
}

// ---- Log memory: one PartitionLog on a SimDisk whose fsyncs never complete.

struct LogMemory {
  double bytes_per_record = 0;           // resident memory
  double heap_bytes_per_record = 0;      // the allocator's count (heap_counter.h)
  double payload_bytes = 0;
};

LogMemory log_memory(std::uint64_t records) {
  sim::SimDisk disk({}, Rng(1), [](Nanos, std::uint64_t, std::function<void()>) {});
  const std::int64_t before = live_heap_bytes();
  const std::int64_t resident_before = resident_bytes();
  {
    engine::PartitionLog log(disk, "t-0");
    log.recover(0);
    std::vector<Record> batch;
    constexpr std::uint64_t kBatch = 100;
    for (std::uint64_t i = 0; i < records; i += kBatch) {
      batch.clear();
      for (std::uint64_t j = 0; j < kBatch; ++j) {
        batch.push_back(Record{std::string(8, 'k'), std::string(kValueBytes, 'v'), static_cast<std::int64_t>(i)});
      }
      log.append(batch, LeaderEpoch(0), static_cast<std::int64_t>(i));
    }
    batch = {};
    const std::int64_t after = live_heap_bytes();
    LogMemory m;
    m.heap_bytes_per_record = static_cast<double>(after - before) / static_cast<double>(records);
    m.bytes_per_record = static_cast<double>(resident_bytes() - resident_before) / static_cast<double>(records);
    m.payload_bytes = 8 + kValueBytes;
    return m;
  }
}

// ---- End to end.

constexpr std::uint64_t kPollTag = 9001;

// Sends `total` records, keeping up to `window` sends unanswered.
class BenchProducer final : public Node {
 public:
  BenchProducer(Env& env, engine::ProducerConfig config, std::uint64_t total, std::uint64_t window)
      : timers_(env), producer_(env, timers_, std::move(config)), total_(total), window_(window) {}
  void on_start() override {
    producer_.start();
    top_up();
  }
  void on_message(NodeId from, const Message& msg) override { producer_.on_message(from, msg); }
  void on_timer(TimerId id, std::uint64_t tag) override { timers_.on_timer(id, tag); }
  void on_disconnect(NodeId peer) override { producer_.on_disconnect(peer); }
  std::uint64_t acknowledged() const { return acked_; }

 private:
  void top_up() {
    while (sent_ < total_ && sent_ - answered_ < window_) {
      ++sent_;
      producer_.send("t", Record{std::nullopt, std::string(kValueBytes, 'v'), 0}, PartitionId(0),
                     [this](const engine::SendResult& r) {
                       ++answered_;
                       if (r.outcome == engine::SendOutcome::kAcknowledged) ++acked_;
                       top_up_soon();
                     });
    }
  }
  // Called from inside the client's callback: send more once it has returned.
  void top_up_soon() {
    if (!in_top_up_) {
      in_top_up_ = true;
      top_up();
      in_top_up_ = false;
    }
  }

  engine::TimerMux timers_;
  engine::Producer producer_;
  std::uint64_t total_;
  std::uint64_t window_;
  std::uint64_t sent_ = 0;
  std::uint64_t answered_ = 0;
  std::uint64_t acked_ = 0;
  bool in_top_up_ = false;
};

// Reads partition 0 of "t" from the earliest offset, polling after every message.
class BenchConsumer final : public Node {
 public:
  BenchConsumer(Env& env, engine::ConsumerConfig config, std::uint64_t* consumed, std::uint64_t* bytes)
      : env_(env), timers_(env), consumer_(env, timers_, std::move(config)), consumed_(consumed), bytes_(bytes) {}
  void on_start() override {
    consumer_.assign({TopicPartition{"t", PartitionId(0)}});
    env_.set_timer(millis(1), kPollTag);
  }
  void on_message(NodeId from, const Message& msg) override {
    consumer_.on_message(from, msg);
    drain();
  }
  void on_timer(TimerId id, std::uint64_t tag) override {
    if (timers_.on_timer(id, tag)) return;
    drain();
    env_.set_timer(millis(1), kPollTag);
  }
  void on_disconnect(NodeId peer) override { consumer_.on_disconnect(peer); }

 private:
  void drain() {
    for (const engine::ConsumerRecord& r : consumer_.poll()) {
      ++*consumed_;
      *bytes_ += r.record.record.value ? r.record.record.value->size() : 0;
    }
  }
  Env& env_;
  engine::TimerMux timers_;
  engine::Consumer consumer_;
  std::uint64_t* consumed_;
  std::uint64_t* bytes_;
};

struct E2eResult {
  double records_per_sec = 0;
  double wall_secs = 0;
  double simulated_secs = 0;
  std::uint64_t consumed = 0;
  std::uint64_t acknowledged = 0;
  std::uint64_t events = 0;
  double heap_bytes_per_record_copy = 0;  // the World's heap growth / (records x 3 replicas)
  std::uint64_t trace_hash = 0;
  std::string per_record;  // per_record_line over the timed run
};

E2eResult end_to_end(std::uint64_t records, std::uint64_t seed) {
  const std::int64_t heap_before = live_heap_bytes();
  sim::World world(seed);
  const std::vector<NodeId> brokers{NodeId(0), NodeId(1), NodeId(2)};
  const NodeId controller(3);
  engine::BrokerConfig bc;
  bc.controller = controller;
  for (int b = 1; b <= 3; ++b) {
    world.add_node("broker-" + std::to_string(b),
                   [bc](Env& env) { return std::make_unique<engine::Broker>(env, bc); });
  }
  engine::ControllerConfig cc;
  cc.brokers = brokers;
  engine::TopicCreation topic;
  topic.name = "t";
  topic.partitions = 1;
  topic.replication_factor = 3;
  topic.configs.min_insync_replicas = 2;
  cc.topics.push_back(topic);
  world.add_node("controller", [cc](Env& env) { return std::make_unique<engine::Controller>(env, cc); });

  engine::ProducerConfig pc;
  pc.bootstrap_servers = brokers;
  pc.acks = -1;
  pc.enable_idempotence = true;
  BenchProducer* producer = nullptr;
  world.add_node("producer", [&](Env& env) {
    auto p = std::make_unique<BenchProducer>(env, pc, records, 1000);
    producer = p.get();
    return p;
  });
  engine::ConsumerConfig ccfg;
  ccfg.bootstrap_servers = brokers;
  ccfg.auto_offset_reset = engine::OffsetReset::kEarliest;
  std::uint64_t consumed = 0;
  std::uint64_t value_bytes = 0;
  world.add_node("consumer", [&](Env& env) {
    return std::make_unique<BenchConsumer>(env, ccfg, &consumed, &value_bytes);
  });
  static_cast<void>(value_bytes);

  // Let the cluster elect its leader before the clock starts.
  for (std::int32_t i = 0; i < 4; ++i) world.start(NodeId(i));
  world.run_until(seconds(2));
  const Nanos sim_start = world.now();
  const std::uint64_t events_before = world.events_run();
  const CostMeter meter;
  const auto start = Clock::now();
  world.start(NodeId(4));
  world.start(NodeId(5));
  constexpr Nanos kSlice = millis(10);
  constexpr Nanos kSimulatedMax = seconds(3600);
  while (consumed < records && world.now() - sim_start < kSimulatedMax) world.run_until(world.now() + kSlice);
  E2eResult r;
  r.wall_secs = seconds_since(start);
  r.per_record = per_record_line(meter, world.events_run() - events_before, records);
  r.simulated_secs = static_cast<double>(world.now() - sim_start) / kNsPerSec;
  r.consumed = consumed;
  r.acknowledged = producer != nullptr ? producer->acknowledged() : 0;
  r.records_per_sec = static_cast<double>(consumed) / r.wall_secs;
  r.events = world.events_run();
  r.trace_hash = world.trace().hash();
  r.heap_bytes_per_record_copy =
      static_cast<double>(live_heap_bytes() - heap_before) / static_cast<double>(records * 3);
  return r;
}

}  // namespace
}  // namespace logsim::bench

int main(int argc, char** argv) {
  using namespace logsim::bench;
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  const std::uint64_t records = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2'000'000;
  if (records == 0) {
    std::fprintf(stderr, "usage: bench_e2e [records > 0]\n");
    return 2;
  }

  // The log first, in a process that has freed nothing yet, so that its resident growth is its own.
  const LogMemory mem = log_memory(records);
  const double goal = 1.5 * mem.payload_bytes + 32;
  std::printf("log       resident memory per retained record: %.1f bytes (payload %.0f; goal <= %.1f = 1.5 x payload"
              " + 32; %.2f x payload)\n",
              mem.bytes_per_record, mem.payload_bytes, goal, mem.bytes_per_record / mem.payload_bytes);
  std::printf("log       heap per retained record: %.1f bytes (%s's count%s)\n", mem.heap_bytes_per_record,
              allocator_name(),
              std::string_view(allocator_name()) == "glibc malloc"
                  ? ": heap blocks, which count the address space glibc reserves, untouched, to align each 2 MiB page"
                  : "");

  const double memcpy_rate = memcpy_records_per_sec(records);
  std::printf("baseline  memcpy of %zu-byte values: %.3g records/s\n", kValueBytes, memcpy_rate);

  const E2eResult e = end_to_end(records, 1);
  std::printf("e2e       %llu records consumed (%llu acknowledged) in %.3f s wall, %.3f s simulated, %llu events\n",
              static_cast<unsigned long long>(e.consumed), static_cast<unsigned long long>(e.acknowledged),
              e.wall_secs, e.simulated_secs, static_cast<unsigned long long>(e.events));
  std::printf("e2e       %.3g records/s wall (goal >= 3e6; %.4f of the memcpy baseline); %.0f events/s\n",
              e.records_per_sec, e.records_per_sec / memcpy_rate, static_cast<double>(e.events) / e.wall_secs);
  std::printf("e2e       %s\n", e.per_record.c_str());
  std::printf("e2e       world heap growth per record per replica: %.1f bytes; trace hash %016llx\n",
              e.heap_bytes_per_record_copy, static_cast<unsigned long long>(e.trace_hash));
  return e.consumed == records ? 0 : 1;
}

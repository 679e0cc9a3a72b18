// The same logical workload on logsim and on librdkafka's mock cluster, side by side.
//
// Workload (issue #8): three brokers, one topic of 12 partitions with replication factor 3,
// N keyed records (default 200,000; keys "k0000000".."k0009999", 8 bytes; values 100 bytes)
// produced with acks=all and enable.idempotence=true, then one consumer group of one member
// reading from the earliest offset until it has every record. The phases run one after the
// other on both sides:
//   produce   from the first send to the last acknowledgement (librdkafka: the first
//             rd_kafka_producev to the return of rd_kafka_flush). records/s = N / that time.
//   consume   from subscribe to the N-th record polled: includes finding the coordinator,
//             the group's join and its initial rebalance delay, and the first fetches.
//             records/s = N / that time. Also given: from the first record polled to the last
//             ("steady"), which leaves out the join (logsim: from the start of the 10 ms slice
//             of simulated time in which the first record was polled).
//   total     produce + consume; "end to end" records/s = N / total.
// logsim times are wall-clock seconds of the single-threaded simulation, read here between
// 10 ms slices of simulated time (so each phase's end is seen within one slice). Each side
// runs in a forked child; its peak memory and CPU time are read from wait4's rusage, so the
// two do not mix. librdkafka's client, mock brokers and their threads run in real time on
// every core; logsim runs on one thread.
//
// Honest differences, printed with the results:
//   - librdkafka 2.0.2's mock keeps at most ~5 MiB or 100,000 message sets per partition
//     (the records here fit), keeps them in memory, does not replicate (replication factor is
//     metadata only), and its group coordinator waits a fixed 3 s before a new group's first
//     assignment (2.0.2 has no rd_kafka_mock_set_group_initial_rebalance_delay_ms). logsim's
//     brokers replicate to three simulated disks and its coordinator also waits
//     group.initial.rebalance.delay.ms = 3000, in simulated time (which costs no wall time).
//   - the baseline: memcpy of the same record bytes (key + value), record by record.
//
// The logsim application keeps at most `window` sends unanswered (default 1,000, as bench_e2e);
// librdkafka's queues everything (queue.buffering.max.messages = 1,000,000). A bigger window
// makes bigger batches but hardly changes logsim's wall time (docs/performance.md, 2026-12-07).
//
// A third side, "serve": the same librdkafka client workload over TCP against `logsim serve`
// (the engine on the live runtime, a child process), against the mock's figures (issue 27's
// goal: at least as fast as the mock, which does not replicate).
//
// Usage: bench_vs_rdkafka [records] [window] [sides] [rounds]   (the smoke test passes a small count)
// `rounds` (default 1) runs the sides in turn that many times and takes each figure's median,
// for ratios that one slow run on a noisy machine does not move.
// `sides` (default "mock,logsim,serve") picks the sides to run, e.g. "mock,serve" when only
// serve's ratios are wanted, or "serve" to profile it; a side left out prints nothing and its
// ratios read "not run".
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <csignal>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench/heap_counter.h"
#include "bench/per_record_cost.h"
#include "engine/broker/broker.h"
#include "engine/client/consumer.h"
#include "engine/client/producer.h"
#include "engine/timer_mux.h"
#include "engine/controller/controller.h"
#include "sim/world.h"

namespace logsim::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kValueBytes = 100;
constexpr std::size_t kKeyBytes = 8;
constexpr std::int32_t kPartitions = 12;
constexpr std::uint64_t kDistinctKeys = 10000;
constexpr std::int64_t kNsPerSec = 1'000'000'000;
constexpr const char* kTopic = "t";

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The workload's keys, made once before any clock starts (both sides send the same ones):
// formatting a key per send cost logsim's side a tenth of its instructions.
const std::vector<std::string>& keys() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> v;
    for (std::uint64_t i = 0; i < kDistinctKeys; ++i) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "k%07" PRIu64, i);
      v.emplace_back(buf, kKeyBytes);
    }
    return v;
  }();
  return all;
}

const std::string& key_of(std::uint64_t i) { return keys()[i % kDistinctKeys]; }

// What one side reports back to the parent (a plain struct written down a pipe).
struct SideResult {
  int ok = 0;                 // 1: every record acknowledged and consumed
  double produce_secs = 0;
  double consume_secs = 0;
  double steady_consume_secs = 0;  // first record polled to the last
  double produce_sim_secs = -1;    // logsim only: simulated seconds of each phase
  double consume_sim_secs = -1;
  std::uint64_t acknowledged = 0;
  std::uint64_t consumed = 0;
  std::uint64_t events = 0;        // logsim only
  char note[200] = {};
  char per_record[240] = {};       // logsim only: per_record_line over both phases
};

// ---- The baseline: memcpy of the same record bytes.

struct MemcpyResult {
  double bytes_per_sec = 0;
  double records_per_sec = 0;
};

MemcpyResult memcpy_baseline(std::uint64_t records) {
  const std::size_t per = kKeyBytes + kValueBytes;
  std::vector<char> src(records * per, 'v');
  for (std::uint64_t i = 0; i < records; ++i) std::memcpy(src.data() + i * per, key_of(i).data(), kKeyBytes);
  std::vector<char> dst(records * per);
  std::uint64_t copied = 0;
  const auto start = Clock::now();
  double secs = 0;
  do {
    for (std::uint64_t i = 0; i < records; ++i) std::memcpy(dst.data() + i * per, src.data() + i * per, per);
    copied += records;
    src[copied % src.size()] ^= 1;  // keep each pass's copy live
    secs = seconds_since(start);
  } while (secs < 0.5);
  volatile char sink = dst[dst.size() / 2];
  static_cast<void>(sink);
  return {static_cast<double>(copied * per) / secs, static_cast<double>(copied) / secs};
}

// ---- logsim.

constexpr std::uint64_t kPollTag = 9001;

// Sends `total` keyed records (the partitioner picks the partition), up to `window` unanswered.
class KeyedProducer final : public Node {
 public:
  KeyedProducer(Env& env, engine::ProducerConfig config, std::uint64_t total, std::uint64_t window)
      : timers_(env), producer_(env, timers_, std::move(config)), total_(total), window_(window) {}
  void on_start() override {
    producer_.start();
    top_up();
  }
  void on_message(NodeId from, const Message& msg) override { producer_.on_message(from, msg); }
  void on_timer(TimerId id, std::uint64_t tag) override { timers_.on_timer(id, tag); }
  void on_disconnect(NodeId peer) override { producer_.on_disconnect(peer); }
  std::uint64_t acknowledged() const { return acked_; }
  std::uint64_t answered() const { return answered_; }

 private:
  void top_up() {
    if (in_top_up_) return;  // called back from inside send(): the outer loop goes on
    in_top_up_ = true;
    while (sent_ < total_ && sent_ - answered_ < window_) {
      const std::uint64_t i = sent_++;
      producer_.send(kTopic, Record{key_of(i), std::string(kValueBytes, 'v'), 0}, std::nullopt,
                     [this](const engine::SendResult& r) {
                       ++answered_;
                       if (r.outcome == engine::SendOutcome::kAcknowledged) ++acked_;
                       top_up();
                     });
    }
    in_top_up_ = false;
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

// One group member: subscribes to the topic and polls after every message and every 1 ms.
class GroupReader final : public Node {
 public:
  GroupReader(Env& env, engine::ConsumerConfig config, std::uint64_t* consumed, Nanos* first_at)
      : env_(env), timers_(env), consumer_(env, timers_, std::move(config)), consumed_(consumed), first_at_(first_at) {}
  void on_start() override {
    consumer_.subscribe({kTopic}, nullptr);
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
    const auto records = consumer_.poll();
    if (!records.empty() && *consumed_ == 0) *first_at_ = env_.now();
    *consumed_ += records.size();
  }
  Env& env_;
  engine::TimerMux timers_;
  engine::Consumer consumer_;
  std::uint64_t* consumed_;
  Nanos* first_at_;
};

SideResult run_logsim(std::uint64_t records, std::uint64_t window) {
  SideResult r;
  sim::World world(1);
  const std::vector<NodeId> brokers{NodeId(0), NodeId(1), NodeId(2)};
  engine::BrokerConfig bc;
  bc.controller = NodeId(3);
  bc.group.group_initial_rebalance_delay_ms = 3000;  // Kafka's default, as in the mock
  for (int b = 1; b <= 3; ++b) {
    world.add_node("broker-" + std::to_string(b), [bc](Env& env) { return std::make_unique<engine::Broker>(env, bc); });
  }
  engine::ControllerConfig cc;
  cc.brokers = brokers;
  engine::TopicCreation topic;
  topic.name = kTopic;
  topic.partitions = kPartitions;
  topic.replication_factor = 3;
  cc.topics.push_back(topic);
  world.add_node("controller", [cc](Env& env) { return std::make_unique<engine::Controller>(env, cc); });

  engine::ProducerConfig pc;
  pc.bootstrap_servers = brokers;
  pc.acks = -1;
  pc.enable_idempotence = true;
  KeyedProducer* producer = nullptr;
  const NodeId producer_id = world.add_node("producer", [&](Env& env) {
    auto p = std::make_unique<KeyedProducer>(env, pc, records, window);
    producer = p.get();
    return p;
  });
  engine::ConsumerConfig ccfg;
  ccfg.bootstrap_servers = brokers;
  ccfg.auto_offset_reset = engine::OffsetReset::kEarliest;
  ccfg.group_id = "bench";
  std::uint64_t consumed = 0;
  Nanos first_at = -1;
  const NodeId consumer_id = world.add_node("consumer", [&](Env& env) {
    return std::make_unique<GroupReader>(env, ccfg, &consumed, &first_at);
  });

  // Let the cluster elect its leaders before the clock starts.
  for (std::int32_t i = 0; i < 4; ++i) world.start(NodeId(i));
  world.run_until(seconds(2));
  constexpr Nanos kSlice = millis(10);
  constexpr Nanos kSimulatedMax = seconds(3600);

  const Nanos produce_sim_start = world.now();
  const std::uint64_t events_before = world.events_run();
  const CostMeter meter;
  auto start = Clock::now();
  world.start(producer_id);
  while (producer->answered() < records && world.now() - produce_sim_start < kSimulatedMax) {
    world.run_until(world.now() + kSlice);
  }
  r.produce_secs = seconds_since(start);
  r.produce_sim_secs = static_cast<double>(world.now() - produce_sim_start) / kNsPerSec;
  r.acknowledged = producer->acknowledged();

  const Nanos consume_sim_start = world.now();
  start = Clock::now();
  auto first_wall = start;
  bool seen_first = false;
  world.start(consumer_id);
  while (consumed < records && world.now() - consume_sim_start < kSimulatedMax) {
    const auto slice_start = Clock::now();
    world.run_until(world.now() + kSlice);
    if (!seen_first && consumed > 0) {
      seen_first = true;
      first_wall = slice_start;  // the start of the slice that polled the first record
    }
  }
  r.consume_secs = seconds_since(start);
  r.steady_consume_secs = std::chrono::duration<double>(Clock::now() - first_wall).count();
  r.consume_sim_secs = static_cast<double>(world.now() - consume_sim_start) / kNsPerSec;
  r.consumed = consumed;
  r.events = world.events_run();
  std::snprintf(r.per_record, sizeof r.per_record, "%s", per_record_line(meter, r.events - events_before, records).c_str());
  r.ok = r.acknowledged == records && consumed == records ? 1 : 0;
  std::snprintf(r.note, sizeof r.note, "first record polled %.3f simulated s after subscribe",
                first_at < 0 ? -1.0 : static_cast<double>(first_at - consume_sim_start) / kNsPerSec);
  return r;
}

// ---- librdkafka's mock cluster.

struct DeliveryCounts {
  std::atomic<std::uint64_t> ok{0};
  std::atomic<std::uint64_t> failed{0};
};

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto* counts = static_cast<DeliveryCounts*>(opaque);
  if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    counts->ok.fetch_add(1, std::memory_order_relaxed);
  } else {
    counts->failed.fetch_add(1, std::memory_order_relaxed);
  }
}

bool set(rd_kafka_conf_t* conf, const char* name, const char* value, SideResult& r) {
  char err[256];
  if (rd_kafka_conf_set(conf, name, value, err, sizeof err) != RD_KAFKA_CONF_OK) {
    std::snprintf(r.note, sizeof r.note, "%.40s=%.60s: %.90s", name, value, err);
    return false;
  }
  return true;
}

// The librdkafka client workload against any cluster: produce, then consume with a group.
void run_client(const std::string& bootstraps, std::uint64_t records, SideResult& r);

SideResult run_rdkafka(std::uint64_t records) {
  SideResult r;
  char err[512];
  // A handle that owns the mock cluster; the producer and consumer connect to its listeners.
  rd_kafka_conf_t* host_conf = rd_kafka_conf_new();
  set(host_conf, "log_level", "3", r);
  rd_kafka_t* host = rd_kafka_new(RD_KAFKA_PRODUCER, host_conf, err, sizeof err);
  if (host == nullptr) {
    std::snprintf(r.note, sizeof r.note, "rd_kafka_new: %.150s", err);
    return r;
  }
  rd_kafka_mock_cluster_t* mcluster = rd_kafka_mock_cluster_new(host, 3);
  if (mcluster == nullptr) {
    std::snprintf(r.note, sizeof r.note, "rd_kafka_mock_cluster_new failed");
    return r;
  }
  if (rd_kafka_mock_topic_create(mcluster, kTopic, kPartitions, 3) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    std::snprintf(r.note, sizeof r.note, "rd_kafka_mock_topic_create failed");
    return r;
  }
  const std::string bootstraps = rd_kafka_mock_cluster_bootstraps(mcluster);

  run_client(bootstraps, records, r);
  rd_kafka_mock_cluster_destroy(mcluster);
  rd_kafka_destroy(host);
  return r;
}

void run_client(const std::string& bootstraps, std::uint64_t records, SideResult& r) {
  char err[512];
  // Produce.
  DeliveryCounts counts;
  rd_kafka_conf_t* pconf = rd_kafka_conf_new();
  if (!set(pconf, "bootstrap.servers", bootstraps.c_str(), r) || !set(pconf, "acks", "all", r) ||
      !set(pconf, "enable.idempotence", "true", r) || !set(pconf, "log_level", "3", r) ||
      !set(pconf, "queue.buffering.max.messages", "1000000", r)) {
    return;
  }
  rd_kafka_conf_set_dr_msg_cb(pconf, on_delivery);
  rd_kafka_conf_set_opaque(pconf, &counts);
  rd_kafka_t* producer = rd_kafka_new(RD_KAFKA_PRODUCER, pconf, err, sizeof err);
  if (producer == nullptr) {
    std::snprintf(r.note, sizeof r.note, "producer: %.150s", err);
    return;
  }
  const std::string value(kValueBytes, 'v');
  auto start = Clock::now();
  for (std::uint64_t i = 0; i < records; ++i) {
    const std::string& key = key_of(i);
    for (;;) {
      const rd_kafka_resp_err_t e =
          rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(kTopic), RD_KAFKA_V_KEY(key.data(), key.size()),
                            RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
      if (e == RD_KAFKA_RESP_ERR_NO_ERROR) break;
      if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        std::snprintf(r.note, sizeof r.note, "producev: %.150s", rd_kafka_err2str(e));
        return;
      }
      rd_kafka_poll(producer, 10);
    }
    if (i % 1000 == 0) rd_kafka_poll(producer, 0);
  }
  while (rd_kafka_flush(producer, 10000) == RD_KAFKA_RESP_ERR__TIMED_OUT &&
         counts.ok.load() + counts.failed.load() < records) {
  }
  r.produce_secs = seconds_since(start);
  r.acknowledged = counts.ok.load();
  rd_kafka_destroy(producer);

  // Consume with a high-level consumer.
  rd_kafka_conf_t* cconf = rd_kafka_conf_new();
  if (!set(cconf, "bootstrap.servers", bootstraps.c_str(), r) || !set(cconf, "group.id", "bench", r) ||
      !set(cconf, "auto.offset.reset", "earliest", r) || !set(cconf, "log_level", "3", r)) {
    return;
  }
  // LOGSIM_BENCH_CONSUMER_DEBUG=fetch,cgrp (librdkafka's `debug` contexts) logs the consumer's
  // requests on stderr, to explain a slow side.
  if (const char* contexts = std::getenv("LOGSIM_BENCH_CONSUMER_DEBUG");
      contexts != nullptr && (!set(cconf, "debug", contexts, r) || !set(cconf, "log_level", "7", r))) {
    return;
  }
  rd_kafka_t* consumer = rd_kafka_new(RD_KAFKA_CONSUMER, cconf, err, sizeof err);
  if (consumer == nullptr) {
    std::snprintf(r.note, sizeof r.note, "consumer: %.150s", err);
    return;
  }
  rd_kafka_poll_set_consumer(consumer);
  rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(topics, kTopic, RD_KAFKA_PARTITION_UA);
  start = Clock::now();
  auto first = start;
  if (rd_kafka_subscribe(consumer, topics) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    std::snprintf(r.note, sizeof r.note, "subscribe failed");
    return;
  }
  rd_kafka_topic_partition_list_destroy(topics);
  std::uint64_t consumed = 0;
  while (consumed < records && seconds_since(start) < 300) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer, 100);
    if (m == nullptr) continue;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      if (consumed == 0) first = Clock::now();
      ++consumed;
    }
    rd_kafka_message_destroy(m);
  }
  r.consume_secs = seconds_since(start);
  r.steady_consume_secs = std::chrono::duration<double>(Clock::now() - first).count();
  r.consumed = consumed;
  std::snprintf(r.note, sizeof r.note, "first record polled %.3f s after subscribe",
                std::chrono::duration<double>(first - start).count());
  rd_kafka_consumer_close(consumer);
  rd_kafka_destroy(consumer);
  r.ok = r.acknowledged == records && consumed == records ? 1 : 0;
}

// The same librdkafka client workload against `logsim serve` (a child process), whose three
// brokers replicate for real and whose group coordinator waits the same 3 s as the mock's.
SideResult run_served(std::uint64_t records) {
  SideResult r;
  char dir[] = "/tmp/logsim-bench-serve-XXXXXX";
  if (mkdtemp(dir) == nullptr) {
    std::snprintf(r.note, sizeof r.note, "mkdtemp failed");
    return r;
  }
  const std::string scenario = std::string(dir) + "/cluster.json";
  const std::string bootstrap_file = std::string(dir) + "/bootstrap";
  if (FILE* f = std::fopen(scenario.c_str(), "w")) {
    std::fprintf(f, "{\"name\": \"bench-serve\", \"cluster\": {\"brokers\": 3, \"config\": {\"default.replication.factor\": 3, "
                    "\"offsets.topic.replication.factor\": 3}}, \"topics\": [{\"name\": \"%s\", \"partitions\": %d, "
                    "\"replication_factor\": 3}]}\n", kTopic, kPartitions);
    std::fclose(f);
  }
  const pid_t server = fork();
  if (server == 0) {
    execl(LOGSIM_BINARY, "logsim", "serve", scenario.c_str(), "--listen", "127.0.0.1:0", "--bootstrap-file", bootstrap_file.c_str(),
          "--quiet", "--duration", "900s", static_cast<char*>(nullptr));
    _exit(127);
  }
  std::string bootstraps;
  for (int i = 0; i < 600 && bootstraps.empty(); ++i) {
    if (FILE* f = std::fopen(bootstrap_file.c_str(), "r")) {
      char line[512] = {};
      if (std::fgets(line, sizeof line, f) != nullptr) bootstraps = std::string(line, std::strcspn(line, "\n"));
      std::fclose(f);
    }
    if (bootstraps.empty()) usleep(100'000);
  }
  if (bootstraps.empty()) {
    std::snprintf(r.note, sizeof r.note, "logsim serve (%s) never wrote its bootstrap file", LOGSIM_BINARY);
  } else {
    run_client(bootstraps, records, r);
  }
  kill(server, SIGTERM);
  int status = 0;
  waitpid(server, &status, 0);
  std::remove(scenario.c_str());
  std::remove(bootstrap_file.c_str());
  rmdir(dir);
  return r;
}

// ---- Each side in its own child process.

struct Measured {
  SideResult r;
  double max_rss_mib = 0;
  double cpu_secs = 0;
  bool exited_cleanly = false;
};

template <typename F>
Measured in_child(F side) {
  Measured m;
  int fds[2];
  if (pipe(fds) != 0) return m;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const SideResult r = side();
    const ssize_t w = write(fds[1], &r, sizeof r);
    _exit(w == static_cast<ssize_t>(sizeof r) ? 0 : 1);
  }
  close(fds[1]);
  std::size_t got = 0;
  auto* out = reinterpret_cast<char*>(&m.r);
  while (got < sizeof m.r) {
    const ssize_t n = read(fds[0], out + got, sizeof m.r - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  close(fds[0]);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  m.exited_cleanly = got == sizeof m.r && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  m.max_rss_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;  // kilobytes on Linux
  m.cpu_secs = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
               static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  return m;
}

double rate(std::uint64_t n, double secs) { return secs > 0 ? static_cast<double>(n) / secs : 0; }

void print_side(const char* name, const Measured& m, std::uint64_t records) {
  const SideResult& r = m.r;
  std::printf("%-10s acknowledged %" PRIu64 "/%" PRIu64 ", consumed %" PRIu64 "/%" PRIu64 "%s\n", name, r.acknowledged,
              records, r.consumed, records, m.exited_cleanly && r.ok ? "" : "   (INCOMPLETE)");
  std::printf("%-10s produce  %8.3f s wall  %10.4g records/s", name, r.produce_secs, rate(records, r.produce_secs));
  if (r.produce_sim_secs >= 0) std::printf("   (%.3f s simulated)", r.produce_sim_secs);
  std::printf("\n%-10s consume  %8.3f s wall  %10.4g records/s", name, r.consume_secs, rate(records, r.consume_secs));
  if (r.consume_sim_secs >= 0) std::printf("   (%.3f s simulated)", r.consume_sim_secs);
  std::printf("\n%-10s   steady %8.3f s wall  %10.4g records/s   (first record polled to the last)\n", name,
              r.steady_consume_secs, rate(records, r.steady_consume_secs));
  const double total = r.produce_secs + r.consume_secs;
  std::printf("%-10s total    %8.3f s wall  %10.4g records/s end to end\n", name, total, rate(records, total));
  std::printf("%-10s peak RSS %.1f MiB, CPU %.3f s (user + system, all threads)", name, m.max_rss_mib, m.cpu_secs);
  if (r.events > 0) std::printf(", %" PRIu64 " simulation events", r.events);
  std::printf("\n%-10s %s\n", name, r.note);
  if (r.produce_sim_secs >= 0 && total > 0) {
    std::printf("%-10s %.1f simulated s per wall s (goal >= 20)\n", name, (r.produce_sim_secs + r.consume_sim_secs) / total);
  }
  if (r.per_record[0] != 0) std::printf("%-10s %s\n", name, r.per_record);
}

// Each figure's median over the rounds (a side's runs), so that one slow run on a noisy machine
// moves no ratio; the result stands for a clean, complete run only if every run was one.
Measured median_of(const std::vector<Measured>& runs) {
  Measured m;
  if (runs.empty()) return m;
  const auto median = [&runs](auto field) {
    std::vector<double> v;
    for (const Measured& r : runs) v.push_back(field(r));
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  m = runs[0];
  m.r.produce_secs = median([](const Measured& r) { return r.r.produce_secs; });
  m.r.consume_secs = median([](const Measured& r) { return r.r.consume_secs; });
  m.r.steady_consume_secs = median([](const Measured& r) { return r.r.steady_consume_secs; });
  m.r.produce_sim_secs = median([](const Measured& r) { return r.r.produce_sim_secs; });
  m.r.consume_sim_secs = median([](const Measured& r) { return r.r.consume_sim_secs; });
  m.max_rss_mib = median([](const Measured& r) { return r.max_rss_mib; });
  m.cpu_secs = median([](const Measured& r) { return r.cpu_secs; });
  for (const Measured& r : runs) {
    m.exited_cleanly = m.exited_cleanly && r.exited_cleanly;
    m.r.ok = m.r.ok && r.r.ok;
    m.r.acknowledged = std::min(m.r.acknowledged, r.r.acknowledged);
    m.r.consumed = std::min(m.r.consumed, r.r.consumed);
  }
  return m;
}

}  // namespace
}  // namespace logsim::bench

int main(int argc, char** argv) {
  using namespace logsim::bench;
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  const std::uint64_t records = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 200'000;
  const std::uint64_t window = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000;
  const std::string sides = argc > 3 ? argv[3] : "mock,logsim,serve";
  const long rounds = argc > 4 ? std::strtol(argv[4], nullptr, 10) : 1;
  const auto runs = [&sides](const char* side) { return ("," + sides + ",").find("," + std::string(side) + ",") != std::string::npos; };
  if (records == 0 || window == 0 || (!runs("mock") && !runs("logsim") && !runs("serve")) || rounds < 1 || rounds > 99) {
    std::fprintf(stderr,
                 "usage: bench_vs_rdkafka [records > 0] [logsim send window > 0] [sides: mock,logsim,serve] [rounds: 1-99]\n"
                 "  with several rounds the sides run in turn, round after round, and the ratios are of medians\n");
    return 2;
  }
  keys();  // made before any side forks or starts its clock
  std::printf("bench_vs_rdkafka %" PRIu64 " %" PRIu64 " %s %ld   (records, logsim send window, sides, rounds; librdkafka %s;"
              " %s on every side)\n",
              records, window, sides.c_str(), rounds, rd_kafka_version_str(), allocator_name());
  std::printf("workload: 3 brokers, 1 topic x %d partitions, replication factor 3, %" PRIu64
              " records (key %zu B + value %zu B), acks=all, idempotent; then 1 group of 1 member from earliest\n\n",
              kPartitions, records, kKeyBytes, kValueBytes);

  std::vector<Measured> libs, sims, serveds;
  for (long round = 1; round <= rounds; ++round) {
    if (rounds > 1) std::printf("---- round %ld of %ld\n\n", round, rounds);
    if (runs("mock")) {
      libs.push_back(in_child([records] { return run_rdkafka(records); }));
      print_side("librdkafka", libs.back(), records);
      std::printf("\n");
    }
    if (runs("logsim")) {
      sims.push_back(in_child([records, window] { return run_logsim(records, window); }));
      print_side("logsim", sims.back(), records);
      std::printf("\n");
    }
    if (runs("serve")) {
      serveds.push_back(in_child([records] { return run_served(records); }));
      print_side("serve", serveds.back(), records);
      std::printf("\n");
    }
  }
  const Measured lib = median_of(libs), sim = median_of(sims), served = median_of(serveds);
  if (rounds > 1) {
    std::printf("---- medians over %ld rounds\n\n", rounds);
    if (runs("mock")) print_side("librdkafka", lib, records);
    if (runs("logsim")) print_side("logsim", sim, records);
    if (runs("serve")) print_side("serve", served, records);
  }

  const MemcpyResult base = memcpy_baseline(records);

  // A ratio of two sides that both ran; "not run" otherwise (the sides argument left one out).
  const auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  const auto show = [](bool both, double value, int decimals = 3) {
    char text[32];
    if (both) std::snprintf(text, sizeof text, "%.*f", decimals, value);
    else std::snprintf(text, sizeof text, "not run");
    return std::string(text);
  };
  const double sim_total = sim.r.produce_secs + sim.r.consume_secs;
  const double lib_total = lib.r.produce_secs + lib.r.consume_secs;
  const bool lib_sim = runs("mock") && runs("logsim");
  std::printf("\nratios logsim / librdkafka (above 1: logsim is faster or, for memory, bigger)\n");
  std::printf("  produce records/s  %s   (goal >= 10)\n", show(lib_sim, ratio(lib.r.produce_secs, sim.r.produce_secs)).c_str());
  std::printf("  consume records/s  %s   (steady: %s)\n", show(lib_sim, ratio(lib.r.consume_secs, sim.r.consume_secs)).c_str(),
              show(lib_sim, ratio(lib.r.steady_consume_secs, sim.r.steady_consume_secs)).c_str());
  std::printf("  end to end         %s   (goal >= 40)\n", show(lib_sim, ratio(lib_total, sim_total)).c_str());
  std::printf("  peak RSS           %s\n", show(lib_sim, ratio(sim.max_rss_mib, lib.max_rss_mib)).c_str());
  std::printf("  CPU seconds        %s\n", show(lib_sim, ratio(sim.cpu_secs, lib.cpu_secs)).c_str());
  const double served_total = served.r.produce_secs + served.r.consume_secs;
  const bool lib_served = runs("mock") && runs("serve");
  std::printf("\nratios logsim serve (the same librdkafka client over TCP) / librdkafka's mock (goal: at least 1)\n");
  std::printf("  produce records/s  %s\n", show(lib_served, ratio(lib.r.produce_secs, served.r.produce_secs)).c_str());
  std::printf("  consume records/s  %s   (steady: %s)\n", show(lib_served, ratio(lib.r.consume_secs, served.r.consume_secs)).c_str(),
              show(lib_served, ratio(lib.r.steady_consume_secs, served.r.steady_consume_secs)).c_str());
  std::printf("  end to end         %s\n", show(lib_served, ratio(lib_total, served_total)).c_str());
  std::printf("  CPU seconds        %s   (serve's server and client processes together)\n",
              show(lib_served, ratio(served.cpu_secs, lib.cpu_secs)).c_str());

  std::printf("\nphysical limit: memcpy of the same %zu-byte records, record by record: %.3g GB/s = %.4g records/s\n",
              kKeyBytes + kValueBytes, base.bytes_per_sec / 1e9, base.records_per_sec);
  std::printf("  logsim end to end is %s of it; librdkafka's %s\n",
              show(runs("logsim"), ratio(rate(records, sim_total), base.records_per_sec), 5).c_str(),
              show(runs("mock"), ratio(rate(records, lib_total), base.records_per_sec), 5).c_str());

  std::printf("\nnotes: librdkafka 2.0.2's mock cluster keeps each partition's log in memory, at most ~5 MiB or\n"
              "  100,000 message sets per partition (older sets are dropped; these records fit), and does not\n"
              "  replicate (replication factor 3 is metadata only); logsim's brokers replicate to three\n"
              "  simulated disks. A new group waits group.initial.rebalance.delay = 3 s before its first\n"
              "  assignment on both sides; 2.0.2's mock has no call to lower it, and it costs librdkafka 3 s of\n"
              "  wall time but logsim only simulated time (see \"steady\" for consumption without the join).\n"
              "  librdkafka runs its client and brokers on several threads; logsim runs on one.\n");
  const auto passed = [](const Measured& m) { return m.exited_cleanly && m.r.ok == 1; };
  return (!runs("mock") || passed(lib)) && (!runs("logsim") || passed(sim)) && (!runs("serve") || passed(served)) ? 0 : 1;
}

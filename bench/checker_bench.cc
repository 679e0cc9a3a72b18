// Checker throughput: default_checkers() over a synthetic, realistic history of 10 million
// events (issue #6's goal: >= 5 million events/s), and the memory the checkers keep.
//
// The history: one topic of 12 partitions; 4 producers send keyed records (1,000 keys, Kafka's
// hash stand-in: key % partitions), each a send-invoke and a send-ok; 3 groups of 4 members
// each process every record (range-like assignment), commit every 100 records of a partition
// (commit-invoke + commit-ok), and every 100,000 records one group rebalances (every member
// revoked then assigned, the partitions rotated among them, a new generation); the new owners
// start again from the committed offsets (records processed twice: at-least-once). The history
// is clean, so the run also checks that no checker raises a false alarm on it.
//
// The events are generated in chunks of one million (the whole history as HistoryEvents would
// take gigabytes); only the checkers' work on each chunk is timed. Memory: the checkers' live
// heap bytes at the end (glibc's count, mallinfo2) and the process's peak RSS.
//
// Usage: bench_checkers [events] [--per-checker | --warm]   (default 10,000,000; the smoke test
// passes a small count; --per-checker then times each default checker alone over the same
// history; --warm measures a second run on a heap the first one already touched)
// Wall-clock time is read here, in the harness, never inside a checker.
#include <malloc.h>
#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "properties/checker.h"
#include "properties/duplicate_checker.h"
#include "properties/group_checkers.h"
#include "properties/group_interference_checker.h"
#include "properties/history.h"
#include "properties/log_checker.h"
#include "properties/order_checker.h"
#include "properties/poll_skip_checker.h"
#include "properties/send_order_checker.h"
#include "bench/heap_counter.h"

namespace logsim::bench {
namespace {

using properties::HistoryEvent;
using properties::OpKind;
using Clock = std::chrono::steady_clock;

constexpr std::int32_t kPartitions = 12;
constexpr std::int32_t kProducers = 4;
constexpr std::int32_t kMembers = 4;
constexpr std::int32_t kKeys = 1000;
constexpr std::int64_t kCommitEvery = 100;
constexpr std::int64_t kRebalanceEvery = 100000;
const char* const kGroups[] = {"billing", "audit", "search"};
constexpr std::int32_t kGroupCount = 3;

// CPU time of this thread: on a shared machine the wall clock also counts other processes.
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// splitmix64: the bench's own deterministic draws.
struct Rng {
  std::uint64_t s = 0x9e3779b97f4a7c15ULL;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

class Generator {
 public:
  Generator() {
    for (auto& g : groups_) {
      g.processed.assign(kPartitions, 0);
      g.committed.assign(kPartitions, 0);
      g.since_commit.assign(kPartitions, 0);
    }
    log_.resize(kPartitions);
  }

  // Appends events to `out` until it holds `n` or more.
  void fill(std::vector<HistoryEvent>& out, std::size_t n) {
    if (!started_) {
      started_ = true;
      for (std::int32_t g = 0; g < kGroupCount; ++g) assign_all(out, g);
    }
    while (out.size() < n) {
      send(out);
      for (std::int32_t g = 0; g < kGroupCount; ++g) catch_up(out, g);
      if (++records_ % kRebalanceEvery == 0) rebalance(out, static_cast<std::int32_t>((records_ / kRebalanceEvery) % kGroupCount));
    }
  }

 private:
  struct Stored {
    std::uint64_t value;
    std::int32_t key;
  };
  struct Group {
    std::int32_t generation = 1;
    std::int32_t rotation = 0;
    std::vector<std::int64_t> processed;  // next offset to process, per partition
    std::vector<std::int64_t> committed;
    std::vector<std::int64_t> since_commit;
  };

  HistoryEvent event(std::vector<HistoryEvent>& out, OpKind kind, std::string process) {
    HistoryEvent e;
    e.index = next_index_++;
    e.at = static_cast<Nanos>(e.index) * 1000;
    e.kind = kind;
    e.process = std::move(process);
    (void)out;
    return e;
  }
  std::string member(std::int32_t g, std::int32_t partition) const {
    const std::int32_t m = (partition * kMembers / kPartitions + groups_[static_cast<std::size_t>(g)].rotation) % kMembers;
    return std::string(kGroups[g]) + "-" + std::to_string(m + 1);
  }

  void send(std::vector<HistoryEvent>& out) {
    const std::int32_t key = static_cast<std::int32_t>(rng_.next() % kKeys);
    const std::int32_t partition = key % kPartitions;
    const std::string producer = "shop-" + std::to_string(1 + static_cast<std::int32_t>(rng_.next() % kProducers));
    const std::uint64_t value = ++last_value_;
    HistoryEvent invoke = event(out, OpKind::kSendInvoke, producer);
    invoke.topic = "orders";
    invoke.key = "key-" + std::to_string(key);
    invoke.value_id = value;
    invoke.idempotent = true;
    out.push_back(invoke);
    HistoryEvent ok = event(out, OpKind::kSendOk, producer);
    ok.topic = "orders";
    ok.partition = properties::known(PartitionId(partition));
    ok.offset = properties::known(Offset(static_cast<std::int64_t>(log_[static_cast<std::size_t>(partition)].size())));
    ok.key = invoke.key;
    ok.value_id = value;
    out.push_back(std::move(ok));
    log_[static_cast<std::size_t>(partition)].push_back(Stored{value, key});
  }

  void catch_up(std::vector<HistoryEvent>& out, std::int32_t g) {
    Group& group = groups_[static_cast<std::size_t>(g)];
    for (std::int32_t p = 0; p < kPartitions; ++p) {
      const auto& log = log_[static_cast<std::size_t>(p)];
      auto& next = group.processed[static_cast<std::size_t>(p)];
      while (next < static_cast<std::int64_t>(log.size())) {
        const Stored& r = log[static_cast<std::size_t>(next)];
        HistoryEvent e = event(out, OpKind::kProcess, member(g, p));
        e.group = kGroups[g];
        e.generation = properties::known(GenerationId(group.generation));
        e.topic = "orders";
        e.partition = properties::known(PartitionId(p));
        e.offset = properties::known(Offset(next));
        e.key = "key-" + std::to_string(r.key);
        e.value_id = r.value;
        out.push_back(std::move(e));
        ++next;
        if (++group.since_commit[static_cast<std::size_t>(p)] >= kCommitEvery) commit(out, g, p);
      }
    }
  }

  void commit(std::vector<HistoryEvent>& out, std::int32_t g, std::int32_t p) {
    Group& group = groups_[static_cast<std::size_t>(g)];
    group.since_commit[static_cast<std::size_t>(p)] = 0;
    const std::uint64_t id = ++last_commit_;
    for (const OpKind kind : {OpKind::kCommitInvoke, OpKind::kCommitOk}) {
      HistoryEvent e = event(out, kind, member(g, p));
      e.group = kGroups[g];
      e.generation = properties::known(GenerationId(group.generation));
      e.topic = "orders";
      e.partition = properties::known(PartitionId(p));
      e.offset = properties::known(Offset(group.processed[static_cast<std::size_t>(p)]));
      e.commit_id = id;
      e.note = "manual";
      out.push_back(std::move(e));
    }
    group.committed[static_cast<std::size_t>(p)] = group.processed[static_cast<std::size_t>(p)];
  }

  void assign_all(std::vector<HistoryEvent>& out, std::int32_t g) {
    Group& group = groups_[static_cast<std::size_t>(g)];
    for (std::int32_t m = 0; m < kMembers; ++m) {
      HistoryEvent e = event(out, OpKind::kAssign, std::string(kGroups[g]) + "-" + std::to_string(m + 1));
      e.group = kGroups[g];
      e.generation = properties::known(GenerationId(group.generation));
      for (std::int32_t p = 0; p < kPartitions; ++p) {
        if (member(g, p) == e.process) e.assignment.push_back({"orders", PartitionId(p)});
      }
      e.note = "assigned";
      out.push_back(std::move(e));
    }
  }

  // Every member revokes everything, the group moves to a new generation with the partitions
  // rotated, and the new owners start again from the committed offsets.
  void rebalance(std::vector<HistoryEvent>& out, std::int32_t g) {
    Group& group = groups_[static_cast<std::size_t>(g)];
    for (std::int32_t m = 0; m < kMembers; ++m) {
      HistoryEvent e = event(out, OpKind::kAssign, std::string(kGroups[g]) + "-" + std::to_string(m + 1));
      e.group = kGroups[g];
      e.generation = properties::known(GenerationId(group.generation));
      e.note = "revoked";
      out.push_back(std::move(e));
    }
    ++group.generation;
    group.rotation = (group.rotation + 1) % kMembers;
    assign_all(out, g);
    for (std::int32_t p = 0; p < kPartitions; ++p) {
      group.processed[static_cast<std::size_t>(p)] = group.committed[static_cast<std::size_t>(p)];
      group.since_commit[static_cast<std::size_t>(p)] = 0;
    }
  }

  Rng rng_;
  bool started_ = false;
  std::uint64_t next_index_ = 0;
  std::uint64_t last_value_ = 0;
  std::uint64_t last_commit_ = 0;
  std::int64_t records_ = 0;
  Group groups_[kGroupCount];
  std::vector<std::vector<Stored>> log_;
};

// The same checkers as default_checkers(), one by one, each timed over the same history.
void breakdown(std::size_t events) {
  std::vector<std::unique_ptr<properties::Checker>> checkers;
  checkers.push_back(std::make_unique<properties::OrderChecker>());
  checkers.push_back(std::make_unique<properties::LogChecker>());
  checkers.push_back(std::make_unique<properties::SendOrderChecker>());
  checkers.push_back(std::make_unique<properties::DuplicateChecker>());
  checkers.push_back(std::make_unique<properties::DoubleOwnershipChecker>());
  checkers.push_back(std::make_unique<properties::StaleCommitChecker>());
  checkers.push_back(std::make_unique<properties::LostCommitChecker>());
  checkers.push_back(std::make_unique<properties::PollSkipChecker>());
  checkers.push_back(std::make_unique<properties::GroupInterferenceChecker>());
  std::vector<double> seconds(checkers.size(), 0.0);
  std::vector<std::int64_t> bytes(checkers.size(), 0);
  Generator gen;
  std::vector<HistoryEvent> chunk;
  std::size_t fed = 0;
  while (fed < events) {
    chunk.clear();
    gen.fill(chunk, std::min<std::size_t>(1'000'000, events - fed));
    for (std::size_t i = 0; i < checkers.size(); ++i) {
      const std::int64_t heap = live_heap_bytes();
      const double start = cpu_seconds();
      for (const HistoryEvent& e : chunk) checkers[i]->observe(e);
      seconds[i] += cpu_seconds() - start;
      bytes[i] += live_heap_bytes() - heap;
    }
    fed += chunk.size();
  }
  std::printf("per checker (observe + finish, CPU time), %zu events:\n", fed);
  for (std::size_t i = 0; i < checkers.size(); ++i) {
    const std::int64_t heap = live_heap_bytes();
    const double start = cpu_seconds();
    checkers[i]->finish();
    seconds[i] += cpu_seconds() - start;
    bytes[i] += live_heap_bytes() - heap;
    std::printf("  %-22s %7.2f s  %6.2f M events/s  %8.1f MiB\n", std::string(checkers[i]->name()).c_str(), seconds[i],
                static_cast<double>(fed) / seconds[i] / 1e6, static_cast<double>(bytes[i]) / (1 << 20));
  }
}

int run(std::size_t events) {
  const long rss_before = peak_rss_kib();
  std::int64_t checker_bytes = 0;  // net heap the checkers allocated while observing and finishing
  properties::CheckerSet checkers = properties::default_checkers();
  Generator gen;
  std::vector<HistoryEvent> chunk;
  const std::size_t chunk_size = std::min<std::size_t>(events, 1'000'000);
  std::size_t fed = 0;
  double seconds = 0;
  double cpu = 0;
  while (fed < events) {
    chunk.clear();
    gen.fill(chunk, std::min(chunk_size, events - fed));
    const std::int64_t heap = live_heap_bytes();
    const auto start = Clock::now();
    const double cpu_start = cpu_seconds();
    for (const HistoryEvent& e : chunk) checkers.observe(e);
    seconds += std::chrono::duration<double>(Clock::now() - start).count();
    cpu += cpu_seconds() - cpu_start;
    checker_bytes += live_heap_bytes() - heap;
    fed += chunk.size();
  }
  const std::int64_t heap = live_heap_bytes();
  const auto start = Clock::now();
  const double cpu_start = cpu_seconds();
  const properties::Verdict verdict = checkers.finish();
  const double finish_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  seconds += finish_seconds;
  cpu += cpu_seconds() - cpu_start;
  checker_bytes += live_heap_bytes() - heap;
  std::printf("events                 %zu\n", fed);
  std::printf("checker time           %.2f s wall (finish: %.2f s), %.2f s CPU\n", seconds, finish_seconds, cpu);
  std::printf("throughput             %.2f million events/s of CPU time, %.2f of wall time (goal >= 5)\n",
              static_cast<double>(fed) / cpu / 1e6, static_cast<double>(fed) / seconds / 1e6);
  std::printf("checker heap at end    %.1f MiB (%.1f bytes/event)\n", static_cast<double>(checker_bytes) / (1 << 20),
              static_cast<double>(checker_bytes) / static_cast<double>(fed));
  std::printf("peak RSS               %.1f MiB before, %.1f MiB after\n", static_cast<double>(rss_before) / 1024,
              static_cast<double>(peak_rss_kib()) / 1024);
  std::printf("violations             %zu (the history is clean: expected 0)\n", verdict.violations.size());
  for (std::size_t i = 0; i < verdict.violations.size() && i < 5; ++i) {
    std::printf("  %s: %s\n", verdict.violations[i].anomaly.c_str(), verdict.violations[i].explanation.c_str());
  }
  return verdict.violations.empty() ? 0 : 1;
}

}  // namespace
}  // namespace logsim::bench

int main(int argc, char** argv) {
  const std::size_t events = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000;
  const std::string mode = argc > 2 ? argv[2] : "";
  // Freed memory stays in the process: without this, glibc hands the heap's top back to the
  // kernel after each chunk and touches it again for the next (page faults, costly under
  // virtualisation, measured 2.5 times slower here), which is the allocator, not the checkers.
  mallopt(M_TRIM_THRESHOLD, INT32_MAX);
  mallopt(M_MMAP_THRESHOLD, INT32_MAX);
  if (mode == "--warm") {
    // One run first to touch the heap: the measured run then pays no first-touch page faults.
    std::printf("warm-up run:\n");
    logsim::bench::run(events);
    std::printf("measured run (warm heap):\n");
  }
  const int rc = logsim::bench::run(events);
  if (mode == "--per-checker") logsim::bench::breakdown(events);
  return rc;
}

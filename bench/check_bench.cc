// logsim check on a real file (issue #28's goal: >= 2 million events/s end to end on one core,
// memory bounded by the checkers' state, not by the file).
//
// Writes a realistic clean history.jsonl with logsim's own writer: 4 producers send keyed,
// idempotent records (1,000 keys) to one topic of 8 partitions (send-invoke, send-ok); one
// group of 4 members processes every record and commits each partition every 100 records
// (commit-invoke, commit-ok); 40 times over the history the group rebalances (every member
// revoked, then assigned with the partitions rotated, in a new generation) and the new owners
// start again from the committed offsets (at-least-once). 2,000,000 events make about 290 MB.
//
// Then, in this one process, on the file (in the page cache after the first pass):
//   read      the file's bytes in 1 MiB chunks, nothing else (the floor)
//   parse     the streaming reader, each event shown to a sink that counts it
//   check     the reader feeding default_checkers(), as `logsim check` does, then finish
//   strict    (with --strict) every line through the strict nlohmann reader alone
//   before    (with --strict) logsim check as it was: the file into memory, the strict reader
//             into a History, then the checkers (last, as it raises the peak RSS)
// each with events/s, MB/s and its time as a multiple of the read's; and the peak RSS.
//
// Usage: bench_check [events] [--file PATH] [--strict] [--keep]
//   events   how many to write (default 2,000,000; the smoke test passes a small count)
//   --file   measure this history instead of writing one (it is not deleted)
//   --keep   leave the written file in place and print its path
// Wall-clock time is read here, in the harness.
#include <malloc.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "bench/heap_counter.h"
#include "properties/checker.h"
#include "properties/history.h"
#include "reports/history_jsonl.h"
#include "reports/history_line.h"

namespace logsim::bench {
namespace {

using properties::HistoryEvent;
using properties::OpKind;

constexpr std::int32_t kPartitions = 8;
constexpr std::int32_t kProducers = 4;
constexpr std::int32_t kMembers = 4;
constexpr std::int32_t kKeys = 1000;
constexpr std::int64_t kCommitEvery = 100;
constexpr std::int32_t kRebalances = 40;
const char* const kGroup = "billing";

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024;
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

// The history above, written line by line as it is made.
class Writer {
 public:
  Writer(std::ofstream& out, std::uint64_t events) : out_(out), events_(events) {
    // About three events a record (invoke, ok, process) and 2 % commits.
    rebalance_every_ = std::max<std::int64_t>(1, static_cast<std::int64_t>(events / 302 * 100) / (kRebalances + 1));
    processed_.assign(kPartitions, 0);
    committed_.assign(kPartitions, 0);
    since_commit_.assign(kPartitions, 0);
    log_.resize(kPartitions);
  }

  void run() {
    assign_all();
    while (index_ < events_) {
      send();
      catch_up();
      if (++records_ % rebalance_every_ == 0 && rebalances_ < kRebalances) rebalance();
    }
  }
  std::int32_t rebalances() const { return rebalances_; }
  std::uint64_t written() const { return index_; }

 private:
  struct Stored {
    std::uint64_t value;
    std::int32_t key;
  };

  HistoryEvent event(OpKind kind, std::string process) {
    HistoryEvent e;
    e.index = index_++;
    at_ += 1000 + static_cast<Nanos>(rng_.next() % 1000);
    e.at = at_;
    e.kind = kind;
    e.process = std::move(process);
    return e;
  }
  void write(const HistoryEvent& e) { out_ << reports::history_jsonl_line(e); }
  std::string member(std::int32_t partition) const {
    return std::string(kGroup) + "-" + std::to_string((partition * kMembers / kPartitions + rotation_) % kMembers + 1);
  }
  HistoryEvent group_event(OpKind kind, std::string process) {
    HistoryEvent e = event(kind, std::move(process));
    e.group = kGroup;
    e.generation = GenerationId(generation_);
    return e;
  }

  void send() {
    const auto key = static_cast<std::int32_t>(rng_.next() % kKeys);
    const std::int32_t partition = key % kPartitions;
    const std::string producer = "shop-" + std::to_string(1 + static_cast<std::int32_t>(rng_.next() % kProducers));
    const std::uint64_t value = ++last_value_;
    HistoryEvent invoke = event(OpKind::kSendInvoke, producer);
    invoke.topic = "orders";
    invoke.key = "key-" + std::to_string(key);
    invoke.value_id = value;
    invoke.idempotent = true;
    write(invoke);
    HistoryEvent ok = event(OpKind::kSendOk, producer);
    ok.topic = "orders";
    ok.partition = PartitionId(partition);
    auto& log = log_[static_cast<std::size_t>(partition)];
    ok.offset = Offset(static_cast<std::int64_t>(log.size()));
    ok.key = invoke.key;
    ok.value_id = value;
    write(ok);
    log.push_back(Stored{value, key});
  }

  void catch_up() {
    for (std::int32_t p = 0; p < kPartitions; ++p) {
      const auto& log = log_[static_cast<std::size_t>(p)];
      auto& next = processed_[static_cast<std::size_t>(p)];
      while (next < static_cast<std::int64_t>(log.size())) {
        const Stored& r = log[static_cast<std::size_t>(next)];
        HistoryEvent e = group_event(OpKind::kProcess, member(p));
        e.topic = "orders";
        e.partition = PartitionId(p);
        e.offset = Offset(next);
        e.key = "key-" + std::to_string(r.key);
        e.value_id = r.value;
        write(e);
        ++next;
        if (++since_commit_[static_cast<std::size_t>(p)] >= kCommitEvery) commit(p);
      }
    }
  }

  void commit(std::int32_t p) {
    since_commit_[static_cast<std::size_t>(p)] = 0;
    const std::uint64_t id = ++last_commit_;
    for (const OpKind kind : {OpKind::kCommitInvoke, OpKind::kCommitOk}) {
      HistoryEvent e = group_event(kind, member(p));
      e.topic = "orders";
      e.partition = PartitionId(p);
      e.offset = Offset(processed_[static_cast<std::size_t>(p)]);
      e.commit_id = id;
      if (kind == OpKind::kCommitInvoke) e.note = "manual";
      write(e);
    }
    committed_[static_cast<std::size_t>(p)] = processed_[static_cast<std::size_t>(p)];
  }

  void assign_all() {
    for (std::int32_t m = 0; m < kMembers; ++m) {
      HistoryEvent e = group_event(OpKind::kAssign, std::string(kGroup) + "-" + std::to_string(m + 1));
      for (std::int32_t p = 0; p < kPartitions; ++p) {
        if (member(p) == e.process) e.assignment.push_back({"orders", PartitionId(p)});
      }
      e.note = "assigned";
      write(e);
    }
  }

  // Every member revokes everything, the group moves to a new generation with the partitions
  // rotated, and the new owners start again from the committed offsets.
  void rebalance() {
    ++rebalances_;
    for (std::int32_t m = 0; m < kMembers; ++m) {
      HistoryEvent e = group_event(OpKind::kAssign, std::string(kGroup) + "-" + std::to_string(m + 1));
      e.note = "revoked";
      write(e);
    }
    ++generation_;
    rotation_ = (rotation_ + 1) % kMembers;
    assign_all();
    for (std::int32_t p = 0; p < kPartitions; ++p) {
      processed_[static_cast<std::size_t>(p)] = committed_[static_cast<std::size_t>(p)];
      since_commit_[static_cast<std::size_t>(p)] = 0;
    }
  }

  std::ofstream& out_;
  std::uint64_t events_;
  std::int64_t rebalance_every_ = 1;
  Rng rng_;
  std::uint64_t index_ = 0;
  Nanos at_ = 0;
  std::uint64_t last_value_ = 0;
  std::uint64_t last_commit_ = 0;
  std::int64_t records_ = 0;
  std::int32_t rebalances_ = 0;
  std::int32_t generation_ = 1;
  std::int32_t rotation_ = 0;
  std::vector<std::int64_t> processed_, committed_, since_commit_;
  std::vector<std::vector<Stored>> log_;
};

struct Phase {
  double wall = 0;
  double cpu = 0;
  std::uint64_t events = 0;
};

Phase timed(const std::function<std::uint64_t()>& work) {
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = cpu_seconds();
  Phase p;
  p.events = work();
  p.cpu = cpu_seconds() - cpu_start;
  p.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return p;
}

void print(const char* name, const Phase& p, double bytes, const Phase& floor) {
  std::printf("%-8s %7.3f s wall %7.3f s CPU  %6.2f M events/s  %7.1f MB/s  %6.1f x the read  (CPU: %.2f M events/s)  peak RSS %.0f MiB\n",
              name, p.wall, p.cpu, static_cast<double>(p.events) / p.wall / 1e6, bytes / p.wall / 1e6, p.wall / floor.wall,
              static_cast<double>(p.events) / p.cpu / 1e6, peak_rss_mib());
}

// The file's bytes, 1 MiB at a time, as the reader reads them.
std::uint64_t read_only(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> buf(std::size_t{1} << 20);
  std::uint64_t sum = 0;
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    sum += static_cast<unsigned char>(buf[static_cast<std::size_t>(in.gcount()) - 1]);
  }
  return sum;
}

// Each line through the strict reader alone: the cost of the old path's parsing.
std::uint64_t strict_only(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  std::uint64_t n = 0;
  std::size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    reports::parse_history_line(line, path, line_no, n);
    ++n;
  }
  return n;
}

// logsim check before the stream (for comparison): the whole file into a string, every line
// through the strict reader into a History, then the checkers over the History's events.
std::uint64_t before_stream(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  properties::History h;
  std::size_t line_no = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++line_no;
    if (end > start) h.append(reports::parse_history_line(std::string_view(text).substr(start, end - start), path, line_no, h.size()));
    start = end + 1;
  }
  properties::CheckerSet checkers = properties::default_checkers();
  for (const auto& e : h.events()) checkers.observe(e);
  return checkers.finish().violations.empty() ? h.size() : 0;
}

int run(const std::string& path, bool strict) {
  const auto bytes = static_cast<double>(std::filesystem::file_size(path));
  std::printf("file     %s, %.1f MB\n", path.c_str(), bytes / 1e6);
  read_only(path);  // into the page cache, if it is not there yet
  const Phase floor = timed([&] {
    read_only(path);
    return std::uint64_t{0};
  });
  Phase parse = timed([&] {
    std::uint64_t at_sum = 0;
    const std::uint64_t n = reports::read_history_file(path, [&](const HistoryEvent& e) { at_sum += static_cast<std::uint64_t>(e.at); });
    return at_sum == 0 ? 0 : n;
  });
  const std::int64_t heap_before = live_heap_bytes();
  std::int64_t checker_heap = 0;
  properties::Verdict verdict;
  const Phase check = timed([&] {
    properties::CheckerSet checkers = properties::default_checkers();
    const std::uint64_t n = reports::read_history_file(path, [&](const HistoryEvent& e) { checkers.observe(e); });
    verdict = checkers.finish();
    checker_heap = live_heap_bytes() - heap_before;
    return n;
  });
  std::printf("events   %llu; the checkers' heap at the end %.1f MiB\n", static_cast<unsigned long long>(check.events),
              static_cast<double>(checker_heap) / (1 << 20));
  std::printf("read     %7.3f s wall  %7.1f MB/s\n", floor.wall, bytes / floor.wall / 1e6);
  print("parse", parse, bytes, floor);
  print("check", check, bytes, floor);
  if (strict) {
    print("strict", timed([&] { return strict_only(path); }), bytes, floor);
    print("before", timed([&] { return before_stream(path); }), bytes, floor);  // last: it raises the peak RSS
  }
  std::printf("goal     check >= 2.00 M events/s end to end: %s\n",
              static_cast<double>(check.events) / check.wall >= 2e6 ? "met" : "NOT met");
  std::printf("verdict  %zu violations (the history is clean: expected 0)\n", verdict.violations.size());
  for (std::size_t i = 0; i < verdict.violations.size() && i < 5; ++i) {
    std::printf("  %s: %s\n", verdict.violations[i].anomaly.c_str(), verdict.violations[i].explanation.c_str());
  }
  return verdict.violations.empty() && check.events == parse.events ? 0 : 1;
}

}  // namespace
}  // namespace logsim::bench

int main(int argc, char** argv) {
  std::uint64_t events = 2'000'000;
  std::string file;
  bool strict = false;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--file" && i + 1 < argc) {
      file = argv[++i];
    } else if (a == "--strict") {
      strict = true;
    } else if (a == "--keep") {
      keep = true;
    } else {
      events = std::strtoull(a.c_str(), nullptr, 10);
    }
  }
  const bool written = file.empty();
  if (written) {
    file = (std::filesystem::temp_directory_path() / ("bench_check_" + std::to_string(getpid()) + ".jsonl")).string();
    const auto start = std::chrono::steady_clock::now();
    std::ofstream out(file, std::ios::binary);
    logsim::bench::Writer writer(out, events);
    writer.run();
    out.close();
    std::printf("written  %llu events, %d rebalances, in %.1f s (logsim's writer)\n", static_cast<unsigned long long>(writer.written()),
                writer.rebalances(), std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  const int rc = logsim::bench::run(file, strict);
  if (written && !keep) std::filesystem::remove(file);
  if (written && keep) std::printf("kept     %s\n", file.c_str());
  return rc;
}

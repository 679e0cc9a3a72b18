// What one record costs a benchmark's workload: simulation events, heap allocations, bytes
// allocated and instructions, each divided by the records it handled (issue #31). Printed by
// bench_e2e and bench_vs_rdkafka so that a change shows where the cost moved.
//
// Allocations are counted by replacing operator new in the benchmark's binary (this file's .cc):
// a thread-local counter add per allocation, so only the calling thread's allocations count
// (the simulation's; librdkafka's threads allocate with malloc and are not in these figures).
// Instructions come from the CPU's counter (perf_event_open) where the kernel offers it; a
// virtual machine often does not, and then scripts/per-record-cost counts them under callgrind.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace logsim::bench {

struct Cost {
  std::uint64_t allocations = 0;
  std::uint64_t bytes_allocated = 0;
  std::optional<std::uint64_t> instructions;  // none without a hardware counter
};

// Counts from construction to read(), on the constructing thread. Under callgrind started with
// --collect-atstart=no, callgrind collects from construction to the first read().
class CostMeter {
 public:
  CostMeter();
  ~CostMeter();
  CostMeter(const CostMeter&) = delete;
  CostMeter& operator=(const CostMeter&) = delete;
  Cost read() const;
  // Why instructions are not counted ("" when they are).
  const std::string& no_counter_reason() const { return reason_; }

 private:
  std::uint64_t allocations_at_start_;
  std::uint64_t bytes_at_start_;
  int fd_ = -1;
  std::string reason_;
  mutable bool read_once_ = false;  // callgrind's collection stops at the first read
};

// "per record: 0.067 simulation events, 10.1 allocations, 1,093 bytes allocated, 8,712
// instructions" (instructions replaced by the reason when not counted).
std::string per_record_line(const CostMeter& meter, std::uint64_t events, std::uint64_t records);

}  // namespace logsim::bench

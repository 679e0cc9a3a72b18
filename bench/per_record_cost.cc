// Per-record costs (see per_record_cost.h): operator new replaced to count allocations, and the
// instruction counter from perf_event_open.
#include "bench/per_record_cost.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define LOGSIM_TOGGLE_CALLGRIND() CALLGRIND_TOGGLE_COLLECT
#else
#define LOGSIM_TOGGLE_CALLGRIND() static_cast<void>(0)
#endif

namespace {

thread_local std::uint64_t t_allocations = 0;
thread_local std::uint64_t t_bytes = 0;

void* counted(std::size_t n) {
  ++t_allocations;
  t_bytes += n;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}

void* counted_aligned(std::size_t n, std::align_val_t align) {
  ++t_allocations;
  t_bytes += n;
  const auto a = static_cast<std::size_t>(align);
  if (void* p = std::aligned_alloc(a, (n + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}

}  // namespace

void* operator new(std::size_t n) { return counted(n); }
void* operator new[](std::size_t n) { return counted(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return counted(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return counted(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new(std::size_t n, std::align_val_t a) { return counted_aligned(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted_aligned(n, a); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace logsim::bench {

CostMeter::CostMeter() : allocations_at_start_(t_allocations), bytes_at_start_(t_bytes) {
  // Under `valgrind --tool=callgrind --collect-atstart=no` (scripts/per-record-cost), callgrind
  // counts from here to the first read(); elsewhere this does nothing.
  LOGSIM_TOGGLE_CALLGRIND();
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.type = PERF_TYPE_HARDWARE;
  attr.size = sizeof attr;
  attr.config = PERF_COUNT_HW_INSTRUCTIONS;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  // This thread only, on any CPU.
  fd_ = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
  if (fd_ < 0) {
    reason_ = std::string("no instruction counter here (perf_event_open: ") + std::strerror(errno) +
              "); scripts/per-record-cost counts them under callgrind";
    return;
  }
  ioctl(fd_, PERF_EVENT_IOC_RESET, 0);
  ioctl(fd_, PERF_EVENT_IOC_ENABLE, 0);
}

CostMeter::~CostMeter() {
  if (fd_ >= 0) close(fd_);
}

Cost CostMeter::read() const {
  if (!read_once_) {
    read_once_ = true;
    LOGSIM_TOGGLE_CALLGRIND();
  }
  Cost c;
  c.allocations = t_allocations - allocations_at_start_;
  c.bytes_allocated = t_bytes - bytes_at_start_;
  if (fd_ >= 0) {
    std::uint64_t n = 0;
    if (::read(fd_, &n, sizeof n) == static_cast<ssize_t>(sizeof n)) c.instructions = n;
  }
  return c;
}

std::string per_record_line(const CostMeter& meter, std::uint64_t events, std::uint64_t records) {
  const Cost c = meter.read();
  const double n = records == 0 ? 1.0 : static_cast<double>(records);
  char buf[256];
  std::snprintf(buf, sizeof buf, "per record: %.4f simulation events, %.2f allocations, %.0f bytes allocated, ",
                static_cast<double>(events) / n, static_cast<double>(c.allocations) / n,
                static_cast<double>(c.bytes_allocated) / n);
  std::string line = buf;
  if (c.instructions) {
    std::snprintf(buf, sizeof buf, "%.0f instructions", static_cast<double>(*c.instructions) / n);
    line += buf;
  } else {
    line += "instructions: " + meter.no_counter_reason();
  }
  return line;
}

}  // namespace logsim::bench

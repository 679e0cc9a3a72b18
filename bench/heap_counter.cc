// The counting operator new and delete (see heap_counter.h).
#include "bench/heap_counter.h"

#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>

namespace {

std::atomic<std::int64_t> g_live_bytes{0};

void count(void* p, int sign) {
  g_live_bytes.fetch_add(sign * static_cast<std::int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
}

void* counted_alloc(std::size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  count(p, 1);
  return p;
}

void* counted_alloc_nothrow(std::size_t n) noexcept {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p != nullptr) count(p, 1);
  return p;
}

void counted_free(void* p) noexcept {
  if (p == nullptr) return;
  count(p, -1);
  std::free(p);
}

}  // namespace

namespace logsim::bench {
std::int64_t live_heap_bytes() { return g_live_bytes.load(std::memory_order_relaxed); }

std::int64_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return -1;
  long long size = 0;
  long long resident = 0;
  const int read = std::fscanf(f, "%lld %lld", &size, &resident);
  std::fclose(f);
  if (read != 2) return -1;
  return resident * static_cast<std::int64_t>(sysconf(_SC_PAGESIZE));
}
}  // namespace logsim::bench

void* operator new(std::size_t n) { return counted_alloc(n); }
void* operator new[](std::size_t n) { return counted_alloc(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted_alloc_nothrow(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted_alloc_nothrow(n); }
// Aligned allocations (the simulated disk's huge pages).
void* operator new(std::size_t n, std::align_val_t al) {
  const auto a = static_cast<std::size_t>(al);
  void* p = std::aligned_alloc(a, (n + a - 1) / a * a);
  if (p == nullptr) throw std::bad_alloc();
  count(p, 1);
  return p;
}
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { counted_free(p); }

// Live heap and resident memory of the process (see heap_counter.h).
#include "bench/heap_counter.h"

#include <malloc.h>
#include <unistd.h>

#include <cstdio>

namespace logsim::bench {

std::int64_t live_heap_bytes() {
  // glibc's own count of the bytes its chunks hand out: in the arenas (uordblks) and in blocks
  // of their own mapping (hblkhd, the simulated disk's 2 MiB pages among them). Read when asked,
  // so the allocations between two readings cost nothing extra.
  const struct mallinfo2 mi = mallinfo2();
  return static_cast<std::int64_t>(mi.uordblks + mi.hblkhd);
}

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

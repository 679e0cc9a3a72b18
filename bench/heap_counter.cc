// Live heap and resident memory of the process (see heap_counter.h).
#include "bench/heap_counter.h"

#include <malloc.h>
#ifdef LOGSIM_TCMALLOC
#include <gperftools/malloc_extension.h>
#endif
#include <unistd.h>

#include <cstdio>

namespace logsim::bench {

std::int64_t live_heap_bytes() {
#ifdef LOGSIM_TCMALLOC
  // tcmalloc's count of the bytes the application holds (glibc's mallinfo2 reads 0 under it).
  std::size_t bytes = 0;
  MallocExtension::instance()->GetNumericProperty("generic.current_allocated_bytes", &bytes);
  return static_cast<std::int64_t>(bytes);
#else
  // glibc's own count of the bytes its chunks hand out: in the arenas (uordblks) and in blocks
  // of their own mapping (hblkhd, the simulated disk's 2 MiB pages among them). Read when asked,
  // so the allocations between two readings cost nothing extra.
  const struct mallinfo2 mi = mallinfo2();
  return static_cast<std::int64_t>(mi.uordblks + mi.hblkhd);
#endif
}

const char* allocator_name() {
#ifdef LOGSIM_TCMALLOC
  return "tcmalloc_minimal";
#else
  return "glibc malloc";
#endif
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

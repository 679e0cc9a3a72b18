// Live heap bytes and resident memory of the whole process, for the benchmarks' memory
// figures. The heap figure is the allocator's own accounting (glibc's mallinfo2, or tcmalloc's),
// read when asked: nothing is counted per allocation, so the code being timed runs as it does
// in logsim itself.
#pragma once

#include <cstdint>

namespace logsim::bench {

// Bytes the process holds in heap blocks right now: glibc's chunk sizes (this includes address
// space reserved but never touched, such as the padding of aligned blocks), or under tcmalloc
// (LOGSIM_TCMALLOC) the bytes allocated and not yet freed.
std::int64_t live_heap_bytes();
// The allocator the process runs on (and live_heap_bytes counts): "glibc malloc" or
// "tcmalloc_minimal" (CMake's LOGSIM_TCMALLOC).
const char* allocator_name();

// Bytes of the process resident in memory right now (/proc/self/statm): what the operating
// system charges for. -1 where it cannot be read.
std::int64_t resident_bytes();

}  // namespace logsim::bench

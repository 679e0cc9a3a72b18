// Live heap bytes and resident memory of the whole process, for the benchmarks' memory
// figures. The heap figure is glibc's own accounting (mallinfo2), read when asked: nothing is
// counted per allocation, so the code being timed runs as it does in logsim itself.
#pragma once

#include <cstdint>

namespace logsim::bench {

// Bytes the process holds in heap blocks right now (glibc's chunk sizes: this includes address
// space reserved but never touched, such as the padding of aligned blocks).
std::int64_t live_heap_bytes();

// Bytes of the process resident in memory right now (/proc/self/statm): what the operating
// system charges for. -1 where it cannot be read.
std::int64_t resident_bytes();

}  // namespace logsim::bench

// Live heap bytes of the whole process, for the benchmarks' memory figures: linking
// heap_counter.cc replaces operator new and delete (every form, aligned included) with ones
// that count each block's usable size.
#pragma once

#include <cstdint>

namespace logsim::bench {

// Bytes the process holds through operator new right now (usable sizes: this includes address
// space an allocator reserved but never touched, such as glibc's padding of aligned blocks).
std::int64_t live_heap_bytes();

// Bytes of the process resident in memory right now (/proc/self/statm): what the operating
// system charges for. -1 where it cannot be read.
std::int64_t resident_bytes();

}  // namespace logsim::bench

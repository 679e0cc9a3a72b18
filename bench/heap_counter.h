// Live heap bytes of the whole process, for the benchmarks' memory figures: linking
// heap_counter.cc replaces operator new and delete (every form, aligned included) with ones
// that count each block's usable size.
#pragma once

#include <cstdint>

namespace logsim::bench {

// Bytes the process holds through operator new right now.
std::int64_t live_heap_bytes();

}  // namespace logsim::bench

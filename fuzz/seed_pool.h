// The parallel seed pool that logsim fuzz and logsim run's batches share: indices 0, 1, 2, ...
// handed out one at a time, in increasing order, to `jobs` threads. Parallelism is across seeds
// only (DESIGN.md rule 1): each call of `work` runs whole, independent simulations and the pool
// shares nothing between them. Which thread ran an index is left to chance, so callers keep
// their results by index (a vector, an ordered map) and stay deterministic in what they print.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

namespace logsim::fuzz {

struct SeedPool {
  std::optional<std::int64_t> count;  // how many indices at most (none: until work returns false)
  int jobs = 1;                       // threads (at least 1, at most count)
  std::function<void()> poll{};       // called on the calling thread about every 100 ms while the work runs
};

// Calls work(i) for i = 0, 1, 2, ... until `count` indices have been handed out or a call returns
// false (then no thread takes another). The first exception a call throws also stops the pool;
// it is thrown again here once every thread has finished. Returns the number of threads used.
int run_seed_pool(const SeedPool& pool, const std::function<bool(std::int64_t)>& work);

}  // namespace logsim::fuzz

// Threads over an atomic counter (see seed_pool.h).
#include "fuzz/seed_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace logsim::fuzz {

int run_seed_pool(const SeedPool& pool, const std::function<bool(std::int64_t)>& work) {
  std::atomic<std::int64_t> next{0};
  std::atomic<bool> stop{false};
  std::atomic<int> finished{0};
  std::mutex mu;
  std::exception_ptr error;
  const auto worker = [&] {
    while (!stop.load()) {
      const std::int64_t i = next.fetch_add(1);
      if (pool.count && i >= *pool.count) break;
      try {
        if (!work(i)) stop = true;
      } catch (...) {
        std::lock_guard lock(mu);
        if (!error) error = std::current_exception();
        stop = true;
      }
    }
    ++finished;
  };
  int threads = std::max(1, pool.jobs);
  if (pool.count) threads = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(threads, *pool.count)));
  std::vector<std::thread> running;
  for (int t = 0; t < threads; ++t) running.emplace_back(worker);
  if (pool.poll) {
    while (finished.load() < threads) {
      pool.poll();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  for (auto& t : running) t.join();
  if (error) std::rethrow_exception(error);
  return threads;
}

}  // namespace logsim::fuzz

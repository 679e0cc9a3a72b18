// The deterministic PRNG and its distributions, exactly as rng.h specifies them.
//
// Every function here is a fixed, written-down algorithm: golden-value tests in
// tests/rng_test.cc pin the outputs, and an independent Python model reproduced them. Changing
// any line that touches a draw changes every seeded run, so do it on purpose or not at all.
//
// Precondition violations are bugs in the caller: they stop the process with a message (always
// on, also in release builds), never an exception.
#include "engine/env/rng.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace logsim {

namespace {

constexpr std::uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ULL;  // splitmix64's increment

// GCC and Clang's 128-bit integer; __extension__ keeps -Wpedantic quiet about it.
__extension__ typedef unsigned __int128 U128;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "logsim rng: precondition violated: %s\n", what);
  std::abort();
}

void check(bool ok, const char* what) {
  if (!ok) fail(what);
}

}  // namespace

std::uint64_t splitmix64_mix(std::uint64_t x) {
  std::uint64_t z = x + kGoldenGamma;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

Rng::Rng(std::uint64_t seed) {
  // A splitmix64 generator started at `seed` yields splitmix64_mix(seed + i * gamma) as its
  // i-th output; its four first outputs are the xoshiro256** state. They cannot all be zero
  // (splitmix64 is a bijection of distinct inputs), so the state is always valid.
  std::uint64_t x = seed;
  for (auto& word : s_) {
    word = splitmix64_mix(x);
    x += kGoldenGamma;
  }
}

Rng Rng::for_stream(std::uint64_t master_seed, std::string_view name) {
  return Rng(splitmix64_mix(master_seed ^ splitmix64_mix(fnv1a64(name))));
}

std::uint64_t Rng::uniform_u64(std::uint64_t bound) {
  check(bound > 0, "uniform_u64: bound must be > 0");
  // Lemire, "Fast Random Integer Generation in an Interval" (2019): the high word of
  // x * bound is the result; the low word tells whether x fell in the biased sliver.
  U128 m = static_cast<U128>(next_u64()) * bound;
  auto low = static_cast<std::uint64_t>(m);
  if (low < bound) {
    const std::uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
    while (low < threshold) {
      m = static_cast<U128>(next_u64()) * bound;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

std::int64_t Rng::uniform_int(std::int64_t lo, std::int64_t hi) {
  check(lo <= hi, "uniform_int: lo must be <= hi");
  // hi - lo computed in unsigned arithmetic is exact (mod 2^64) for every pair; only the full
  // int64 range has 2^64 values, which no uint64 bound can express: there any 64 bits will do.
  const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  if (span == UINT64_MAX) return static_cast<std::int64_t>(next_u64());
  // Modular add then a C++20-defined conversion back: lands in [lo, hi] without overflow.
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + uniform_u64(span + 1));
}

double Rng::uniform_real(double lo, double hi) {
  check(std::isfinite(lo) && std::isfinite(hi) && lo <= hi,
        "uniform_real: lo and hi must be finite, lo <= hi");
  // Always one draw, even when lo == hi, so the number of draws never depends on the values.
  const double r = lo + (hi - lo) * uniform_real();
  // Rounding can carry lo + (hi - lo) * u up to hi itself; keep the half-open promise.
  if (r >= hi) return lo == hi ? lo : std::nextafter(hi, lo);
  return r;
}

bool Rng::bernoulli(double p) {
  check(!std::isnan(p), "bernoulli: p is NaN");
  if (p <= 0.0) return false;
  if (p >= 1.0) return true;
  return uniform_real() < p;
}

double Rng::exponential(double mean) {
  check(mean > 0.0 && std::isfinite(mean), "exponential: mean must be finite and > 0");
  // Inversion: -mean * ln(1 - u). u < 1, so log1p(-u) is finite. log1p comes from the C
  // library: deterministic for one platform and build (DESIGN.md rule 5's "same build"), not
  // bit-identical across libms.
  return -mean * std::log1p(-uniform_real());
}

std::size_t Rng::weighted_index(std::span<const double> weights) {
  check(!weights.empty(), "weighted_index: no weights");
  double total = 0.0;
  for (double w : weights) {
    check(w >= 0.0 && std::isfinite(w), "weighted_index: weights must be finite and >= 0");
    total += w;
  }
  check(total > 0.0 && std::isfinite(total), "weighted_index: weights must sum to a finite > 0");
  const double target = uniform_real() * total;
  // Strict < means a zero weight is never chosen: its running sum equals the previous one.
  double acc = 0.0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    acc += weights[i];
    if (target < acc) return i;
  }
  // Only reached if rounding made the running sum fall short of target: take the last index
  // that has weight (one exists, since total > 0).
  std::size_t last = weights.size() - 1;
  while (weights[last] == 0.0) --last;
  return last;
}

ZipfDistribution::ZipfDistribution(std::size_t n, double s) {
  check(n > 0, "ZipfDistribution: n must be > 0");
  check(s >= 0.0 && std::isfinite(s), "ZipfDistribution: s must be finite and >= 0");
  // std::pow is from the C library: deterministic for one platform and build (see exponential).
  cdf_.resize(n);
  double acc = 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    acc += 1.0 / std::pow(static_cast<double>(k + 1), s);
    cdf_[k] = acc;
  }
  for (double& c : cdf_) c /= acc;
  cdf_.back() = 1.0;  // exact, whatever the rounding of the sum
}

std::size_t ZipfDistribution::sample(Rng& rng) const {
  // The first rank whose cumulative probability exceeds u; u < 1 == cdf_.back(), so this is in
  // range, and the clamp only guards that reasoning.
  const double u = rng.uniform_real();
  const auto it = std::upper_bound(cdf_.begin(), cdf_.end(), u);
  const auto rank = static_cast<std::size_t>(it - cdf_.begin());
  return std::min(rank, cdf_.size() - 1);
}

}  // namespace logsim

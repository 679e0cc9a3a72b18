// Deterministic pseudo-random numbers: our own generator and our own distributions.
//
// DESIGN.md rule 2: every random choice comes from a stream derived from (master seed, stream
// name), so adding draws to one stream never shifts another. The standard library's
// distributions are implementation-defined (their outputs differ between libstdc++ and libc++)
// and are banned; these are specified here exactly, and golden-value tests pin their outputs.
//
// Generator: xoshiro256** (Blackman & Vigna). Rng(seed) sets s[i] = splitmix64_mix(seed +
// i * 0x9E3779B97F4A7C15) for i = 0..3 (mod 2^64), i.e. the first four outputs of a splitmix64
// generator started at `seed`. Stream seeds:
//   for_stream(master, name) = Rng(splitmix64_mix(master ^ splitmix64_mix(fnv1a64(name)))).
//
// Every distribution below states how many raw draws it spends; that count, and the values,
// are part of the contract. Precondition violations abort with a message (also in release).
//
// Not thread-safe: one Rng belongs to one simulation thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace logsim {

class Rng {
 public:
  explicit Rng(std::uint64_t seed);

  // The stream named `name` of the run seeded with `master_seed`.
  static Rng for_stream(std::uint64_t master_seed, std::string_view name);

  // Next raw 64 bits of xoshiro256**.
  std::uint64_t next_u64() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, bound), without modulo bias: Lemire's nearly-divisionless method, the high
  // 64 bits of next_u64() * bound, redrawing while the low 64 bits are < 2^64 mod bound.
  // One draw, more only on (rare) rejection. bound > 0.
  std::uint64_t uniform_u64(std::uint64_t bound);
  // Uniform in [lo, hi], both inclusive: lo + uniform_u64(hi - lo + 1); for the full int64
  // range (where hi - lo + 1 overflows) one next_u64() reinterpreted as int64. lo <= hi.
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi);
  // Uniform in [0, 1) with 53 bits of precision: (next_u64() >> 11) * 2^-53, an exact multiple
  // of 2^-53. One draw. Inline: the network draws eight per message.
  double uniform_real() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  // Uniform in [lo, hi): lo + (hi - lo) * uniform_real(), kept below hi if rounding reaches
  // it; lo when lo == hi. One draw, always. lo, hi finite, lo <= hi.
  double uniform_real(double lo, double hi);
  // True with probability p: p <= 0 is false and p >= 1 is true *without a draw*; otherwise
  // uniform_real() < p (one draw). p not NaN.
  bool bernoulli(double p);
  // Exponentially distributed with the given mean (finite, > 0), by inversion:
  // -mean * log1p(-uniform_real()). One draw. log1p is the C library's: bit-identical for one
  // platform and build, not across libms.
  double exponential(double mean);
  // An index i with probability weights[i] / sum(weights): target = uniform_real() * sum, then
  // the first i whose running sum exceeds target (so a zero weight is never chosen). One draw.
  // Weights finite and >= 0, sum > 0.
  std::size_t weighted_index(std::span<const double> weights);

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<std::uint64_t, 4> s_{};
};

// splitmix64's output for state x: z = x + 0x9E3779B97F4A7C15, then
// z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9, z = (z ^ (z >> 27)) * 0x94D049BB133111EB,
// return z ^ (z >> 31) (all mod 2^64). A bijection; also used to derive seeds.
std::uint64_t splitmix64_mix(std::uint64_t x);
// 64-bit FNV-1a of a byte string (offset basis 0xcbf29ce484222325, prime 0x100000001b3), for
// stream names and partitioner-independent hashing.
std::uint64_t fnv1a64(std::string_view bytes);

// Zipf over ranks {0, ..., n-1}: P(rank k) proportional to 1 / (k + 1)^s. Precomputes the
// normalized cumulative table once (O(n) memory; last entry exactly 1; std::pow, so as
// platform-bound as exponential()); sample() is the first rank whose cumulative value exceeds
// one uniform_real() draw (std::upper_bound), clamped to n - 1. n > 0, s finite and >= 0.
class ZipfDistribution {
 public:
  ZipfDistribution(std::size_t n, double s);
  std::size_t sample(Rng& rng) const;
  std::size_t size() const { return cdf_.size(); }

 private:
  std::vector<double> cdf_;
};

}  // namespace logsim

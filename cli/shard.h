// Sweeps past one machine: `--shard I/N` picks shard I of N of a sweep (`logsim run --seeds`,
// `logsim fuzz --seeds` or `--time`), and shard.json records which shard of which sweep a
// directory holds, so that `logsim merge` can put the shards back together and refuse what
// does not fit.
//
// Shards are 0-based, I in [0, N), as Kubernetes' Indexed Jobs number their pods
// (JOB_COMPLETION_INDEX) and as a GitHub Actions matrix of 0..N-1 gives them. A sweep's runs are
// numbered 0, 1, 2, ... in the order one machine would run them; shard I takes the runs whose
// number is I modulo N. The shares are disjoint and together are the whole sweep; interleaving
// (rather than cutting the list into N blocks) keeps them disjoint for `fuzz --time`, where no
// shard knows how far the others will get, and spreads slow scenarios over every shard.
//
// shard.json (version 1): {"version", "kind" ("run" or "fuzz"), "sweep" (what defines the
// sweep: two shards of one sweep have equal "sweep" objects), "sweep_id" (16 hex digits, a hash
// of "sweep"), "build" (the GNU build ID of the logsim executable that ran the shard: merge warns when
// shards were run by different builds, whose trace hashes need not agree), "shard" {"index", "count"}, "runs" (the sweep numbers of the runs this shard ran,
// ascending; run only), "runs_total" (the sweep's runs; run only), "exit_code"}.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace logsim::cli {

constexpr int kShardVersion = 1;
constexpr std::int64_t kShardCountMax = 1'000'000;

struct Shard {
  std::int64_t index = 0;  // 0-based
  std::int64_t count = 1;
  // Whether run number `n` of the sweep (0-based, in one machine's order) belongs to this shard.
  bool has(std::int64_t n) const { return n % count == index; }
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// Parses `--shard I/N`. On bad text returns nothing and sets `error` to what is wrong and what
// would be right.
std::optional<Shard> parse_shard(std::string_view text, std::string& error);

// A hash of a file's bytes (16 hex digits), so that shards run on machines with different copies
// of a scenario are not merged as one sweep; "unreadable" when the file cannot be read.
std::string file_digest(const std::string& path);

// The running logsim executable's GNU build ID (hex; "unknown" where it has none).
std::string build_digest();

// shard.json for a shard of `sweep`; the caller adds "runs", "runs_total" and "exit_code".
nlohmann::json shard_manifest(std::string_view kind, const nlohmann::json& sweep, const Shard& shard);

}  // namespace logsim::cli

// --shard I/N and shard.json (see shard.h).
#include "cli/shard.h"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <sstream>

#include "engine/env/rng.h"

namespace logsim::cli {
namespace {

std::optional<std::int64_t> parse_count(std::string_view t) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<Shard> parse_shard(std::string_view text, std::string& error) {
  const std::string expected = "expected I/N with 0 <= I < N <= 1000000, 0-based as Kubernetes' JOB_COMPLETION_INDEX (e.g. 0/4, 1/4, 2/4, 3/4)";
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) {
    error = fmt::format("--shard \"{}\" has no \"/\"; {}", text, expected);
    return std::nullopt;
  }
  const auto index = parse_count(text.substr(0, slash));
  const auto count = parse_count(text.substr(slash + 1));
  if (!index || !count) {
    error = fmt::format("--shard \"{}\" is not two whole numbers; {}", text, expected);
    return std::nullopt;
  }
  if (*count < 1 || *count > kShardCountMax) {
    error = fmt::format("--shard \"{}\": the shard count {} is out of range; {}", text, *count, expected);
    return std::nullopt;
  }
  if (*index < 0 || *index >= *count) {
    error = fmt::format("--shard \"{}\": shard {} of {} does not exist (shards are numbered from 0 to {}); {}", text, *index, *count,
                        *count - 1, expected);
    return std::nullopt;
  }
  return Shard{*index, *count};
}

std::string file_digest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "unreadable";
  std::ostringstream s;
  s << in.rdbuf();
  return fmt::format("{:016x}", fnv1a64(s.str()));
}

nlohmann::json shard_manifest(std::string_view kind, const nlohmann::json& sweep, const Shard& shard) {
  return {{"version", kShardVersion},
          {"kind", kind},
          {"sweep", sweep},
          {"sweep_id", fmt::format("{:016x}", fnv1a64(sweep.dump()))},
          {"shard", {{"index", shard.index}, {"count", shard.count}}}};
}

}  // namespace logsim::cli

// Parsing, validating and printing topic configs with Kafka's rules.
#include "engine/controller/topic_config.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>

namespace logsim::engine {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string invalid(std::string_view key, std::string_view value, std::string_view why) {
  return "Invalid value " + std::string(value) + " for configuration " + std::string(key) + ": " + std::string(why);
}

// A LONG (or INT, with int32 bounds) at least `lo`, as Kafka's ConfigDef parses and validates it.
std::string parse_integer(std::string_view key, std::string_view value, std::int64_t lo, bool is_int, std::int64_t& out) {
  const std::string_view t = trim(value);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  const bool fits = !is_int || (v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max());
  if (t.empty() || ec != std::errc() || end != t.data() + t.size() || !fits) {
    return invalid(key, value, is_int ? "Not a number of type INT" : "Not a number of type LONG");
  }
  if (v < lo) return invalid(key, value, "Value must be at least " + std::to_string(lo));
  out = v;
  return "";
}

std::string policy_name(CleanupPolicy p) {
  switch (p) {
    case CleanupPolicy::kDelete: return "delete";
    case CleanupPolicy::kCompact: return "compact";
    case CleanupPolicy::kCompactDelete: return "compact,delete";
  }
  return "delete";
}

// cleanup.policy is a list of "compact" and "delete" (in any order, each at most once).
std::optional<CleanupPolicy> parse_policy(std::string_view value) {
  bool compact = false, del = false;
  std::string_view rest = value;
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    if (item == "compact") compact = true;
    else if (item == "delete") del = true;
    else return std::nullopt;
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  if (compact && del) return CleanupPolicy::kCompactDelete;
  return compact ? CleanupPolicy::kCompact : CleanupPolicy::kDelete;
}

}  // namespace

const std::vector<std::string>& topic_config_keys() {
  static const std::vector<std::string> keys = {
      "cleanup.policy", "delete.retention.ms", "flush.messages", "flush.ms", "index.interval.bytes",
      "message.timestamp.type", "min.compaction.lag.ms", "min.insync.replicas", "retention.bytes",
      "retention.ms", "segment.bytes", "segment.ms", "unclean.leader.election.enable"};
  return keys;
}

std::string set_topic_config(TopicConfigs& c, std::string_view key, std::string_view value) {
  LogConfig& log = c.log;
  std::int64_t v = 0;
  std::string err;
  // LONG and INT keys: where each is stored and its lower bound, as in Kafka's LogConfig.
  struct Numeric {
    std::string_view key;
    std::int64_t lo;
    bool is_int;
    std::int64_t* field;
  };
  const Numeric numeric[] = {
      {"delete.retention.ms", 0, false, &log.delete_retention_ms},
      {"flush.messages", 1, false, &log.flush_messages},
      {"flush.ms", 0, false, &log.flush_ms},
      {"index.interval.bytes", 0, true, &log.index_interval_bytes},
      {"min.compaction.lag.ms", 0, false, &log.min_compaction_lag_ms},
      {"retention.bytes", std::numeric_limits<std::int64_t>::min(), false, &log.retention_bytes},
      {"retention.ms", -1, false, &log.retention_ms},
      {"segment.bytes", 14, true, &log.segment_bytes},  // LegacyRecord.RECORD_OVERHEAD_V0
      {"segment.ms", 1, false, &log.segment_ms},
  };
  for (const Numeric& n : numeric) {
    if (key != n.key) continue;
    err = parse_integer(key, value, n.lo, n.is_int, v);
    if (err.empty()) *n.field = v;
    return err;
  }
  if (key == "min.insync.replicas") {
    err = parse_integer(key, value, 1, true, v);
    if (err.empty()) c.min_insync_replicas = static_cast<std::int32_t>(v);
    return err;
  }
  if (key == "unclean.leader.election.enable") {
    const std::string_view t = trim(value);
    if (t == "true") c.unclean_leader_election_enable = true;
    else if (t == "false") c.unclean_leader_election_enable = false;
    else return invalid(key, value, "Expected value to be either true or false");
    return "";
  }
  if (key == "cleanup.policy") {
    const auto p = parse_policy(value);
    if (!p) return invalid(key, value, "String must be one of: compact, delete");
    log.cleanup_policy = *p;
    return "";
  }
  if (key == "message.timestamp.type") {
    const std::string_view t = trim(value);
    if (t == "CreateTime") log.timestamp_type = TimestampType::kCreateTime;
    else if (t == "LogAppendTime") log.timestamp_type = TimestampType::kLogAppendTime;
    else return invalid(key, value, "String must be one of: CreateTime, LogAppendTime");
    return "";
  }
  return "Unknown topic config name: " + std::string(key);
}

std::string alter_topic_configs(TopicConfigs& c, const std::vector<AlterableConfig>& ops, const TopicConfigs& defaults) {
  TopicConfigs next = c;
  for (const AlterableConfig& op : ops) {
    const auto& keys = topic_config_keys();
    if (std::find(keys.begin(), keys.end(), op.name) == keys.end()) return "Unknown topic config name: " + op.name;
    std::string err;
    switch (op.op) {
      case AlterConfigOp::kSet:
        err = set_topic_config(next, op.name, op.value);
        break;
      case AlterConfigOp::kDelete:
        err = set_topic_config(next, op.name, topic_config_value(defaults, op.name));
        break;
      case AlterConfigOp::kAppend:
      case AlterConfigOp::kSubtract: {
        const bool append = op.op == AlterConfigOp::kAppend;
        if (op.name != "cleanup.policy") {
          return std::string("Config value ") + (append ? "append" : "subtract") +
                 " is not allowed for config key: " + op.name;
        }
        const auto item = parse_policy(op.value);
        if (!item || *item == CleanupPolicy::kCompactDelete) {
          return invalid(op.name, op.value, "String must be one of: compact, delete");
        }
        bool compact = next.log.compacts(), del = next.log.deletes();
        (*item == CleanupPolicy::kCompact ? compact : del) = append;
        if (!compact && !del) {
          // Kafka rejects an empty cleanup.policy list.
          return invalid(op.name, "", "String must be one of: compact, delete");
        }
        next.log.cleanup_policy = compact && del ? CleanupPolicy::kCompactDelete
                                  : compact      ? CleanupPolicy::kCompact
                                                 : CleanupPolicy::kDelete;
        break;
      }
    }
    if (!err.empty()) return err;
  }
  c = next;
  return "";
}

std::string topic_config_value(const TopicConfigs& c, std::string_view key) {
  const LogConfig& log = c.log;
  if (key == "cleanup.policy") return policy_name(log.cleanup_policy);
  if (key == "delete.retention.ms") return std::to_string(log.delete_retention_ms);
  if (key == "flush.messages") return std::to_string(log.flush_messages);
  if (key == "flush.ms") return std::to_string(log.flush_ms);
  if (key == "index.interval.bytes") return std::to_string(log.index_interval_bytes);
  if (key == "message.timestamp.type") {
    return log.timestamp_type == TimestampType::kCreateTime ? "CreateTime" : "LogAppendTime";
  }
  if (key == "min.compaction.lag.ms") return std::to_string(log.min_compaction_lag_ms);
  if (key == "min.insync.replicas") return std::to_string(c.min_insync_replicas);
  if (key == "retention.bytes") return std::to_string(log.retention_bytes);
  if (key == "retention.ms") return std::to_string(log.retention_ms);
  if (key == "segment.bytes") return std::to_string(log.segment_bytes);
  if (key == "segment.ms") return std::to_string(log.segment_ms);
  if (key == "unclean.leader.election.enable") return c.unclean_leader_election_enable ? "true" : "false";
  return "";
}

std::vector<DescribedConfig> describe_topic_configs(const TopicConfigs& c, const TopicConfigs& defaults) {
  std::vector<DescribedConfig> out;
  for (const std::string& key : topic_config_keys()) {
    std::string value = topic_config_value(c, key);
    const bool is_default = value == topic_config_value(defaults, key);
    out.push_back(DescribedConfig{key, std::move(value), is_default});
  }
  return out;
}

}  // namespace logsim::engine

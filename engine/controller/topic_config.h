// A topic's configs as Kafka's admin APIs see them: keys and string values, parsed and
// validated with Kafka's types, bounds and error messages, so that a config copied from a real
// cluster means the same here. The controller applies CreateTopics' configs and
// IncrementalAlterConfigs through this, and answers DescribeConfigs from it.
//
// The keys logsim models (topic_config_keys()): cleanup.policy, delete.retention.ms,
// flush.messages, flush.ms, index.interval.bytes, message.timestamp.type,
// min.compaction.lag.ms, min.insync.replicas, retention.bytes, retention.ms, segment.bytes,
// segment.ms, unclean.leader.election.enable. Any other key is refused with Kafka's
// "Unknown topic config name".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/protocol/admin_messages.h"
#include "engine/protocol/log_config.h"

namespace logsim::engine {

struct TopicConfigs {
  std::int32_t min_insync_replicas = 1;          // min.insync.replicas
  bool unclean_leader_election_enable = false;   // unclean.leader.election.enable
  LogConfig log;                                 // the log configs
};

// The modelled keys, sorted.
const std::vector<std::string>& topic_config_keys();

// Sets `key` to `value`. Returns "" on success, else Kafka's message for INVALID_CONFIG
// (e.g. "Invalid value abc for configuration retention.ms: Not a number of type LONG").
std::string set_topic_config(TopicConfigs& c, std::string_view key, std::string_view value);

// Applies IncrementalAlterConfigs' operations in order, all or nothing: on the first error `c`
// is left unchanged and the message is returned. kDelete takes the key's value from
// `defaults`; kAppend and kSubtract apply to the list config cleanup.policy only.
std::string alter_topic_configs(TopicConfigs& c, const std::vector<AlterableConfig>& ops, const TopicConfigs& defaults);

// The value of `key` as Kafka prints it (e.g. "compact,delete", "9223372036854775807").
// Precondition: key is one of topic_config_keys().
std::string topic_config_value(const TopicConfigs& c, std::string_view key);

// Every modelled key, sorted, with its value and whether it equals the default.
std::vector<DescribedConfig> describe_topic_configs(const TopicConfigs& c, const TopicConfigs& defaults);

}  // namespace logsim::engine

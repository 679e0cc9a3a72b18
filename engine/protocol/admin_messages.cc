// Digests of the admin messages.
#include "engine/protocol/admin_messages.h"

namespace logsim {

void CreateTopicsRequest::fold(Digest& d) const {
  d.add(correlation_id).add(name).add(num_partitions).add(replication_factor).add(validate_only);
  d.add(static_cast<std::uint64_t>(configs.size()));
  for (const auto& c : configs) c.fold(d);
}

void CreateTopicsResponse::fold(Digest& d) const {
  d.add(correlation_id).add(name).add(error).add(error_message).add(topic_id).add(num_partitions).add(replication_factor);
}

void IncrementalAlterConfigsRequest::fold(Digest& d) const {
  d.add(correlation_id).add(topic).add(validate_only).add(static_cast<std::uint64_t>(configs.size()));
  for (const auto& c : configs) c.fold(d);
}

void DescribeConfigsResponse::fold(Digest& d) const {
  d.add(correlation_id).add(topic).add(error).add(error_message).add(static_cast<std::uint64_t>(configs.size()));
  for (const auto& c : configs) d.add(c.name).add(c.value).add(c.is_default);
}

}  // namespace logsim

// Kafka's API keys, the supported version table and the request/response headers (api.h).
#include "wire/api.h"

#include <algorithm>
#include <array>
#include <limits>

#include "engine/base/assert.h"

namespace logsim::wire {

namespace {

constexpr std::array<std::string_view, 52> kNames = {
    "Produce", "Fetch", "ListOffsets", "Metadata", "LeaderAndIsr", "StopReplica", "UpdateMetadata",
    "ControlledShutdown", "OffsetCommit", "OffsetFetch", "FindCoordinator", "JoinGroup", "Heartbeat",
    "LeaveGroup", "SyncGroup", "DescribeGroups", "ListGroups", "SaslHandshake", "ApiVersions",
    "CreateTopics", "DeleteTopics", "DeleteRecords", "InitProducerId", "OffsetForLeaderEpoch",
    "AddPartitionsToTxn", "AddOffsetsToTxn", "EndTxn", "WriteTxnMarkers", "TxnOffsetCommit",
    "DescribeAcls", "CreateAcls", "DeleteAcls", "DescribeConfigs", "AlterConfigs",
    "AlterReplicaLogDirs", "DescribeLogDirs", "SaslAuthenticate", "CreatePartitions",
    "CreateDelegationToken", "RenewDelegationToken", "ExpireDelegationToken",
    "DescribeDelegationToken", "DeleteGroups", "ElectLeaders", "IncrementalAlterConfigs",
    "AlterPartitionReassignments", "ListPartitionReassignments", "OffsetDelete",
    "DescribeClientQuotas", "AlterClientQuotas", "DescribeUserScramCredentials",
    "AlterUserScramCredentials"};

constexpr std::int16_t kNeverFlexible = std::numeric_limits<std::int16_t>::max();

// Ascending by key. The last column is Kafka's first flexible version of the API.
constexpr std::array kSupported = {
    ApiRange{ApiKey::PRODUCE, 3, 7, 9},
    ApiRange{ApiKey::FETCH, 4, 11, 12},
    ApiRange{ApiKey::LIST_OFFSETS, 1, 3, 6},
    ApiRange{ApiKey::METADATA, 0, 8, 9},
    ApiRange{ApiKey::OFFSET_COMMIT, 1, 7, 8},
    ApiRange{ApiKey::OFFSET_FETCH, 1, 7, 6},
    ApiRange{ApiKey::FIND_COORDINATOR, 0, 2, 3},
    ApiRange{ApiKey::JOIN_GROUP, 0, 5, 6},
    ApiRange{ApiKey::HEARTBEAT, 0, 3, 4},
    ApiRange{ApiKey::LEAVE_GROUP, 0, 3, 4},
    ApiRange{ApiKey::SYNC_GROUP, 0, 3, 4},
    ApiRange{ApiKey::DESCRIBE_GROUPS, 0, 2, 5},
    ApiRange{ApiKey::LIST_GROUPS, 0, 2, 3},
    ApiRange{ApiKey::API_VERSIONS, 0, 3, 3},
    ApiRange{ApiKey::CREATE_TOPICS, 0, 4, 5},
    ApiRange{ApiKey::DELETE_TOPICS, 0, 3, 4},
    ApiRange{ApiKey::INIT_PRODUCER_ID, 0, 1, 2},
    ApiRange{ApiKey::ADD_PARTITIONS_TO_TXN, 0, 3, 3},
    ApiRange{ApiKey::ADD_OFFSETS_TO_TXN, 0, 3, 3},
    ApiRange{ApiKey::END_TXN, 0, 3, 3},
    ApiRange{ApiKey::TXN_OFFSET_COMMIT, 0, 3, 3},
    ApiRange{ApiKey::DESCRIBE_CONFIGS, 0, 2, 4},
    ApiRange{ApiKey::CREATE_PARTITIONS, 0, 1, 2},
    ApiRange{ApiKey::DELETE_GROUPS, 0, 1, 2},
    ApiRange{ApiKey::OFFSET_DELETE, 0, 0, kNeverFlexible},
};

static_assert(std::is_sorted(kSupported.begin(), kSupported.end(),
                             [](const ApiRange& a, const ApiRange& b) { return a.key < b.key; }));

}  // namespace

std::string api_name(ApiKey key) {
  const auto k = static_cast<std::int16_t>(key);
  if (k >= 0 && static_cast<std::size_t>(k) < kNames.size()) return std::string(kNames[static_cast<std::size_t>(k)]);
  return "Unknown(" + std::to_string(k) + ")";
}

std::span<const ApiRange> supported_apis() { return kSupported; }

std::optional<ApiRange> supported_range(ApiKey key) {
  for (const ApiRange& r : kSupported) {
    if (r.key == key) return r;
  }
  return std::nullopt;
}

bool is_supported(ApiKey key, std::int16_t version) {
  const auto r = supported_range(key);
  return r && version >= r->min_version && version <= r->max_version;
}

bool is_flexible(ApiKey key, std::int16_t version) {
  const auto r = supported_range(key);
  LOGSIM_ASSERT(r.has_value(), "is_flexible of an unsupported API " + api_name(key));
  return version >= r->first_flexible_version;
}

std::int16_t request_header_version(ApiKey key, std::int16_t version) {
  return is_flexible(key, version) ? 2 : 1;
}

std::int16_t response_header_version(ApiKey key, std::int16_t version) {
  if (key == ApiKey::API_VERSIONS) return 0;
  return is_flexible(key, version) ? 1 : 0;
}

RequestHeader decode_request_header(Reader& r) {
  RequestHeader h;
  h.api_key = static_cast<ApiKey>(r.int16());
  h.api_version = r.int16();
  h.correlation_id = r.int32();
  if (is_supported(h.api_key, h.api_version)) {
    h.client_id = r.nullable_string();
    if (request_header_version(h.api_key, h.api_version) >= 2) r.skip_tagged_fields();
    return h;
  }
  // Every request header from v1 on has the client id here; a best effort for the logs.
  try {
    h.client_id = r.nullable_string();
  } catch (const DecodeError&) {
    h.client_id.reset();
  }
  return h;
}

void encode_request_header(Writer& w, const RequestHeader& h) {
  LOGSIM_ASSERT(is_supported(h.api_key, h.api_version), "request header of an unsupported version");
  w.int16(static_cast<std::int16_t>(h.api_key));
  w.int16(h.api_version);
  w.int32(h.correlation_id);
  w.nullable_string(h.client_id);
  if (request_header_version(h.api_key, h.api_version) >= 2) w.empty_tagged_fields();
}

void encode_response_header(Writer& w, const RequestHeader& h) {
  w.int32(h.correlation_id);
  if (response_header_version(h.api_key, h.api_version) >= 1) w.empty_tagged_fields();
}

std::int32_t decode_response_header(Reader& r, ApiKey key, std::int16_t version) {
  const std::int32_t correlation_id = r.int32();
  if (response_header_version(key, version) >= 1) r.skip_tagged_fields();
  return correlation_id;
}

}  // namespace logsim::wire

// The bodies of the client-facing data APIs as they travel on the wire: ApiVersions (0-3),
// Metadata (0-8), Produce (3-7), Fetch (4-11) and ListOffsets (1-3).
//
// Field names are Kafka's (its message specs, in snake_case) and every field of every supported
// version is here; a comment gives the versions a field exists in when not all. A field absent
// from the version being decoded keeps its initializer, which is Kafka's default for it, and is
// not written when encoding that version. Error codes stay raw int16 (a codec keeps unknown
// codes; logsim::ErrorCode has Kafka's numbers for the gateway to cast to). Record batches are
// opaque bytes here: Produce's and Fetch's `records` are the batches exactly as sent.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wire/api.h"
#include "wire/codec.h"
#include "wire/topics.h"

namespace logsim::wire {

// ApiVersions v0-2 have an empty request body. v3 is flexible (request header v2, compact
// strings, tagged fields), but the response header stays v0 at every version.
struct ApiVersionsRequest {
  static constexpr ApiKey kApiKey = ApiKey::API_VERSIONS;
  std::string client_software_name;     // v3+ (librdkafka: "librdkafka")
  std::string client_software_version;  // v3+
  bool operator==(const ApiVersionsRequest&) const = default;
};

// The v3 body's tagged fields (supported_features, finalized_features_epoch, finalized_features,
// zk_migration_ready, KIP-584) are skipped when read and never written: logsim has no features.
struct ApiVersionsResponse {
  static constexpr ApiKey kApiKey = ApiKey::API_VERSIONS;
  struct ApiVersion {
    std::int16_t api_key = 0;
    std::int16_t min_version = 0;
    std::int16_t max_version = 0;
    bool operator==(const ApiVersion&) const = default;
  };
  std::int16_t error_code = 0;
  std::vector<ApiVersion> api_keys;
  std::int32_t throttle_time_ms = 0;  // v1+
  bool operator==(const ApiVersionsResponse&) const = default;
};

// v0: an empty topic list means all topics, and null cannot be sent. v1+: null means all
// topics (kcat -L), an empty list none.
struct MetadataRequest {
  static constexpr ApiKey kApiKey = ApiKey::METADATA;
  struct Topic {
    std::string name;
    bool operator==(const Topic&) const = default;
  };
  std::optional<std::vector<Topic>> topics = std::vector<Topic>{};  // nullable v1+
  bool allow_auto_topic_creation = true;                             // v4+
  bool include_cluster_authorized_operations = false;                // v8+
  bool include_topic_authorized_operations = false;                  // v8+
  bool operator==(const MetadataRequest&) const = default;
};

struct MetadataResponse {
  static constexpr ApiKey kApiKey = ApiKey::METADATA;
  // Kafka's "not given" for the authorized-operations bit fields (logsim has no authorizer).
  static constexpr std::int32_t kNoAuthorizedOperations = INT32_MIN;
  struct Broker {
    std::int32_t node_id = 0;
    std::string host;
    std::int32_t port = 0;
    std::optional<std::string> rack;  // v1+
    bool operator==(const Broker&) const = default;
  };
  struct Partition {
    std::int16_t error_code = 0;
    std::int32_t partition_index = 0;
    std::int32_t leader_id = -1;
    std::int32_t leader_epoch = -1;  // v7+
    std::vector<std::int32_t> replica_nodes;
    std::vector<std::int32_t> isr_nodes;
    std::vector<std::int32_t> offline_replicas;  // v5+
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::int16_t error_code = 0;
    std::string name;
    bool is_internal = false;  // v1+
    std::vector<Partition> partitions;
    std::int32_t topic_authorized_operations = kNoAuthorizedOperations;  // v8+
    bool operator==(const Topic&) const = default;
  };
  std::int32_t throttle_time_ms = 0;  // v3+
  std::vector<Broker> brokers;
  std::optional<std::string> cluster_id;  // v2+
  std::int32_t controller_id = -1;        // v1+
  std::vector<Topic> topics;
  std::int32_t cluster_authorized_operations = kNoAuthorizedOperations;  // v8 (to v10)
  bool operator==(const MetadataResponse&) const = default;
};

// acks 0 means the broker sends no response at all. Each partition's records are one or more
// whole record batches (magic 2 from v3 on), kept as the bytes sent.
struct ProduceRequest {
  static constexpr ApiKey kApiKey = ApiKey::PRODUCE;
  struct Partition {
    std::int32_t index = 0;
    std::optional<std::string> records;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partition_data;
    bool operator==(const Topic&) const = default;
  };
  std::optional<std::string> transactional_id;  // v3+
  std::int16_t acks = 0;
  std::int32_t timeout_ms = 0;
  std::vector<Topic> topic_data;
  bool operator==(const ProduceRequest&) const = default;
};

struct ProduceResponse {
  static constexpr ApiKey kApiKey = ApiKey::PRODUCE;
  struct Partition {
    std::int32_t index = 0;
    std::int16_t error_code = 0;
    std::int64_t base_offset = 0;
    std::int64_t log_append_time_ms = -1;  // v2+; -1 unless the topic uses LogAppendTime
    std::int64_t log_start_offset = -1;    // v5+
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partition_responses;
    bool operator==(const Topic&) const = default;
  };
  std::vector<Topic> responses;
  std::int32_t throttle_time_ms = 0;  // v1+ (after the responses)
  bool operator==(const ProduceResponse&) const = default;
};

// session_id 0 with session_epoch -1 is a full fetch outside any fetch session (KIP-227), which
// is what kafkajs sends. isolation_level: 0 READ_UNCOMMITTED, 1 READ_COMMITTED.
struct FetchRequest {
  static constexpr ApiKey kApiKey = ApiKey::FETCH;
  struct Partition {
    std::int32_t partition = 0;
    std::int32_t current_leader_epoch = -1;  // v9+
    std::int64_t fetch_offset = 0;
    std::int64_t log_start_offset = -1;  // v5+ (followers only)
    std::int32_t partition_max_bytes = 0;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string topic;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  struct ForgottenTopic {
    std::string topic;
    std::vector<std::int32_t> partitions;
    bool operator==(const ForgottenTopic&) const = default;
  };
  std::int32_t replica_id = -1;  // -1 for a consumer
  std::int32_t max_wait_ms = 0;
  std::int32_t min_bytes = 0;
  std::int32_t max_bytes = 0x7fffffff;  // v3+
  std::int8_t isolation_level = 0;       // v4+
  std::int32_t session_id = 0;           // v7+
  std::int32_t session_epoch = -1;       // v7+
  std::vector<Topic> topics;
  std::vector<ForgottenTopic> forgotten_topics_data;  // v7+
  std::string rack_id;                                // v11+
  bool operator==(const FetchRequest&) const = default;
};

// kafkajs needs last_stable_offset (the high watermark without transactions), an empty or null
// aborted_transactions and preferred_read_replica -1 (else it fetches from that replica).
struct FetchResponse {
  static constexpr ApiKey kApiKey = ApiKey::FETCH;
  struct AbortedTransaction {
    std::int64_t producer_id = 0;
    std::int64_t first_offset = 0;
    bool operator==(const AbortedTransaction&) const = default;
  };
  struct Partition {
    std::int32_t partition_index = 0;
    std::int16_t error_code = 0;
    std::int64_t high_watermark = 0;
    std::int64_t last_stable_offset = -1;  // v4+
    std::int64_t log_start_offset = -1;    // v5+
    std::optional<std::vector<AbortedTransaction>> aborted_transactions;  // v4+, nullable
    std::int32_t preferred_read_replica = -1;                             // v11+
    std::optional<std::string> records;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string topic;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  std::int32_t throttle_time_ms = 0;  // v1+
  std::int16_t error_code = 0;        // v7+
  std::int32_t session_id = 0;        // v7+
  std::vector<Topic> responses;
  bool operator==(const FetchResponse&) const = default;
};

// timestamp -2 asks for the earliest offset (log start), -1 for the latest (high watermark);
// from v1 on the answer is one offset, not an array.
struct ListOffsetsRequest {
  static constexpr ApiKey kApiKey = ApiKey::LIST_OFFSETS;
  struct Partition {
    std::int32_t partition_index = 0;
    std::int64_t timestamp = 0;
    bool operator==(const Partition&) const = default;
  };
  using Topic = NamedTopic<Partition>;
  std::int32_t replica_id = -1;
  std::int8_t isolation_level = 0;  // v2+
  std::vector<Topic> topics;
  bool operator==(const ListOffsetsRequest&) const = default;
};

struct ListOffsetsResponse {
  static constexpr ApiKey kApiKey = ApiKey::LIST_OFFSETS;
  struct Partition {
    std::int32_t partition_index = 0;
    std::int16_t error_code = 0;
    std::int64_t timestamp = -1;
    std::int64_t offset = -1;
    bool operator==(const Partition&) const = default;
  };
  using Topic = NamedTopic<Partition>;
  std::int32_t throttle_time_ms = 0;  // v2+
  std::vector<Topic> topics;
  bool operator==(const ListOffsetsResponse&) const = default;
};

LOGSIM_WIRE_DECLARE_CODECS(api_versions, ApiVersionsRequest, ApiVersionsResponse);
LOGSIM_WIRE_DECLARE_CODECS(metadata, MetadataRequest, MetadataResponse);
LOGSIM_WIRE_DECLARE_CODECS(produce, ProduceRequest, ProduceResponse);
LOGSIM_WIRE_DECLARE_CODECS(fetch, FetchRequest, FetchResponse);
LOGSIM_WIRE_DECLARE_CODECS(list_offsets, ListOffsetsRequest, ListOffsetsResponse);

// The ApiVersions response that advertises supported_apis() (error 0).
ApiVersionsResponse advertised_api_versions();

}  // namespace logsim::wire

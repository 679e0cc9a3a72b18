// Kafka's API keys, the version ranges this codec implements, and the request and response
// headers that precede every body.
//
// The supported table is what ApiVersions advertises, byte for byte: a range is listed only if
// every version in it is implemented exactly (kafka-wire-protocol.md explains each choice;
// clients take min(their max, our max), and kafkajs ignores our min). Whether a version is
// flexible (KIP-482: compact strings and arrays, tagged fields) comes from Kafka's message specs;
// of the supported versions only ApiVersions v3 is.
//
// Headers (Kafka's RequestHeader.json / ResponseHeader.json):
//   request  v1: api_key i16, api_version i16, correlation_id i32, client_id nullable string
//            v2: v1 + tagged fields (client_id stays a plain nullable string, not compact)
//   response v0: correlation_id i32;  v1: v0 + tagged fields
// A flexible request version uses request header v2 and response header v1, except that the
// ApiVersions response header is always v0, so that a client can read the error of a request
// version the broker does not know.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "wire/codec.h"

namespace logsim::wire {

// Kafka's API keys 0-51 with Kafka's numbers and (Java ApiKeys) names; only some are
// supported (supported_apis()). Any other int16 is still a valid ApiKey value, just unnamed.
enum class ApiKey : std::int16_t {
  PRODUCE = 0,
  FETCH = 1,
  LIST_OFFSETS = 2,
  METADATA = 3,
  LEADER_AND_ISR = 4,
  STOP_REPLICA = 5,
  UPDATE_METADATA = 6,
  CONTROLLED_SHUTDOWN = 7,
  OFFSET_COMMIT = 8,
  OFFSET_FETCH = 9,
  FIND_COORDINATOR = 10,
  JOIN_GROUP = 11,
  HEARTBEAT = 12,
  LEAVE_GROUP = 13,
  SYNC_GROUP = 14,
  DESCRIBE_GROUPS = 15,
  LIST_GROUPS = 16,
  SASL_HANDSHAKE = 17,
  API_VERSIONS = 18,
  CREATE_TOPICS = 19,
  DELETE_TOPICS = 20,
  DELETE_RECORDS = 21,
  INIT_PRODUCER_ID = 22,
  OFFSET_FOR_LEADER_EPOCH = 23,
  ADD_PARTITIONS_TO_TXN = 24,
  ADD_OFFSETS_TO_TXN = 25,
  END_TXN = 26,
  WRITE_TXN_MARKERS = 27,
  TXN_OFFSET_COMMIT = 28,
  DESCRIBE_ACLS = 29,
  CREATE_ACLS = 30,
  DELETE_ACLS = 31,
  DESCRIBE_CONFIGS = 32,
  ALTER_CONFIGS = 33,
  ALTER_REPLICA_LOG_DIRS = 34,
  DESCRIBE_LOG_DIRS = 35,
  SASL_AUTHENTICATE = 36,
  CREATE_PARTITIONS = 37,
  CREATE_DELEGATION_TOKEN = 38,
  RENEW_DELEGATION_TOKEN = 39,
  EXPIRE_DELEGATION_TOKEN = 40,
  DESCRIBE_DELEGATION_TOKEN = 41,
  DELETE_GROUPS = 42,
  ELECT_LEADERS = 43,
  INCREMENTAL_ALTER_CONFIGS = 44,
  ALTER_PARTITION_REASSIGNMENTS = 45,
  LIST_PARTITION_REASSIGNMENTS = 46,
  OFFSET_DELETE = 47,
  DESCRIBE_CLIENT_QUOTAS = 48,
  ALTER_CLIENT_QUOTAS = 49,
  DESCRIBE_USER_SCRAM_CREDENTIALS = 50,
  ALTER_USER_SCRAM_CREDENTIALS = 51,
};

// Kafka's protocol name of the key ("Produce", "ApiVersions"), or "Unknown(N)".
std::string api_name(ApiKey key);

// The error code of a request version the broker does not implement.
inline constexpr std::int16_t kUnsupportedVersionError = 35;

// One advertised range (an element of the ApiVersions response).
struct ApiRange {
  ApiKey key;
  std::int16_t min_version;
  std::int16_t max_version;
  // The first version that is flexible in Kafka's spec (may be above max_version).
  std::int16_t first_flexible_version;
};

// The implemented APIs, by ascending key: exactly the ranges ApiVersions advertises.
std::span<const ApiRange> supported_apis();
std::optional<ApiRange> supported_range(ApiKey key);
bool is_supported(ApiKey key, std::int16_t version);
// Precondition: the key is supported.
bool is_flexible(ApiKey key, std::int16_t version);

// Precondition: the key is supported. 1 or 2 (request), 0 or 1 (response).
std::int16_t request_header_version(ApiKey key, std::int16_t version);
std::int16_t response_header_version(ApiKey key, std::int16_t version);

struct RequestHeader {
  ApiKey api_key = ApiKey::PRODUCE;
  std::int16_t api_version = 0;
  std::int32_t correlation_id = 0;
  std::optional<std::string> client_id;
  bool operator==(const RequestHeader&) const = default;
};

// Reads a request header. For a supported key and version it reads the header of that
// version and throws DecodeError if it is malformed. For an unknown key or an unsupported
// version it still returns the key, version and correlation id (the first 8 bytes, which every
// header version shares) so that the caller can answer UNSUPPORTED_VERSION, and the client id
// when it can be read (else null); only fewer than 8 bytes throw. is_supported() on the result
// tells which case it was.
RequestHeader decode_request_header(Reader& r);

// Writes the request header of `h.api_version` (the key and version must be supported).
void encode_request_header(Writer& w, const RequestHeader& h);

// Writes the response header that answers `h`: v0 or v1 (the key and version must be supported,
// except ApiVersions, whose response header is v0 at every version).
void encode_response_header(Writer& w, const RequestHeader& h);

// Reads the response header for a request of `key` at `version`; returns the correlation id.
std::int32_t decode_response_header(Reader& r, ApiKey key, std::int16_t version);

}  // namespace logsim::wire

// Declares the four codec functions of one API, e.g. for (produce, ProduceRequest,
// ProduceResponse):
//   ProduceRequest decode_produce_request(Reader&, std::int16_t version);
//   void encode_produce_request(Writer&, const ProduceRequest&, std::int16_t version);
//   ProduceResponse decode_produce_response(Reader&, std::int16_t version);
//   void encode_produce_response(Writer&, const ProduceResponse&, std::int16_t version);
// Each codes the body only (no header, no size prefix). The version must be supported
// (LOGSIM_ASSERT); a decoder throws DecodeError on malformed bytes and leaves the Reader after
// the body (decode_request also checks that nothing follows it). The same four, as overloads
// for generic code (the request/response variants, table-driven tests):
//   void decode(Reader&, std::int16_t version, ProduceRequest& out);   (and the response)
//   void encode(Writer&, const ProduceRequest&, std::int16_t version); (and the response)
#define LOGSIM_WIRE_DECLARE_CODECS(name, Request, Response)                                   \
  Request decode_##name##_request(Reader& r, std::int16_t version);                           \
  void encode_##name##_request(Writer& w, const Request& m, std::int16_t version);           \
  Response decode_##name##_response(Reader& r, std::int16_t version);                         \
  void encode_##name##_response(Writer& w, const Response& m, std::int16_t version);         \
  void decode(Reader& r, std::int16_t version, Request& out);                                 \
  void decode(Reader& r, std::int16_t version, Response& out);                                \
  void encode(Writer& w, const Request& m, std::int16_t version);                             \
  void encode(Writer& w, const Response& m, std::int16_t version)

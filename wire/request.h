// Whole frames for the gateway: one call decodes a request frame (header and body) into a
// variant of the request structs, one call encodes a response into a frame with its size
// prefix. The mirror images (encode_request, decode_response) serve a C++ test client.
//
// Contract: decode_request never throws for a well-formed header of an API or version that is
// not supported: it returns the header with `support` saying which, and no body, so that the
// caller can answer (unsupported_version_response) or close the connection, as Kafka does.
// Malformed bytes of a supported version, a header shorter than 8 bytes, or bytes left after
// the body throw DecodeError, whose message names the API and version; its offset counts from
// the start of the frame after the size prefix. Kafka closes the connection in that case.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>

#include "wire/admin_messages.h"
#include "wire/api.h"
#include "wire/core_messages.h"
#include "wire/group_messages.h"
#include "wire/offset_messages.h"
#include "wire/txn_messages.h"

namespace logsim::wire {

// One alternative per supported API, in the order of supported_apis() (by key).
using RequestBody =
    std::variant<ProduceRequest, FetchRequest, ListOffsetsRequest, MetadataRequest, OffsetCommitRequest,
                 OffsetFetchRequest, FindCoordinatorRequest, JoinGroupRequest, HeartbeatRequest,
                 LeaveGroupRequest, SyncGroupRequest, DescribeGroupsRequest, ListGroupsRequest,
                 ApiVersionsRequest, CreateTopicsRequest, DeleteTopicsRequest, InitProducerIdRequest,
                 AddPartitionsToTxnRequest, AddOffsetsToTxnRequest, EndTxnRequest, TxnOffsetCommitRequest,
                 DescribeConfigsRequest, CreatePartitionsRequest, DeleteGroupsRequest, OffsetDeleteRequest>;
using ResponseBody =
    std::variant<ProduceResponse, FetchResponse, ListOffsetsResponse, MetadataResponse, OffsetCommitResponse,
                 OffsetFetchResponse, FindCoordinatorResponse, JoinGroupResponse, HeartbeatResponse,
                 LeaveGroupResponse, SyncGroupResponse, DescribeGroupsResponse, ListGroupsResponse,
                 ApiVersionsResponse, CreateTopicsResponse, DeleteTopicsResponse, InitProducerIdResponse,
                 AddPartitionsToTxnResponse, AddOffsetsToTxnResponse, EndTxnResponse, TxnOffsetCommitResponse,
                 DescribeConfigsResponse, CreatePartitionsResponse, DeleteGroupsResponse,
                 OffsetDeleteResponse>;

ApiKey api_key_of(const RequestBody& body);
ApiKey api_key_of(const ResponseBody& body);

enum class Support {
  kSupported,
  kUnknownApi,          // the key is not one this codec implements
  kUnsupportedVersion,  // a known key at a version outside its advertised range
};

struct DecodedRequest {
  RequestHeader header;
  Support support = Support::kSupported;
  std::optional<RequestBody> body;  // present iff support == kSupported
};

// `frame` is one whole frame without its 4-byte size prefix (frame.h's frame_body).
DecodedRequest decode_request(std::span<const std::uint8_t> frame);

// The whole response frame (size prefix, response header of `request`'s key and version, body).
// Precondition: the body's API is the request's and the version is supported.
std::string encode_response(const RequestHeader& request, const ResponseBody& body);

// What to send for a request decode_request marked unsupported: for ApiVersions, the v0 frame
// with error UNSUPPORTED_VERSION (35) and every supported range (clients then retry with a
// version in the range); for any other API nothing (nullopt): close the connection, as Kafka does.
std::optional<std::string> unsupported_version_response(const RequestHeader& request);

// A test client's side: the whole request frame (size prefix, header, body).
std::string encode_request(const RequestHeader& header, const RequestBody& body);

struct DecodedResponse {
  std::int32_t correlation_id = 0;
  ResponseBody body;
};

// Decodes a response frame (without its size prefix) to a request of `key` at `version`.
// Throws DecodeError on malformed bytes or bytes after the body.
DecodedResponse decode_response(ApiKey key, std::int16_t version, std::span<const std::uint8_t> frame);

}  // namespace logsim::wire

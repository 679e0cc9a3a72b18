// Whole request and response frames (request.h).
#include "wire/request.h"

#include <utility>

#include "engine/base/assert.h"
#include "wire/frame.h"

namespace logsim::wire {

namespace {

// The alternative of `Variant` whose kApiKey is `key`, decoded from `r` at `version`.
template <class Variant, std::size_t I = 0>
Variant decode_alternative(ApiKey key, Reader& r, std::int16_t version) {
  if constexpr (I == std::variant_size_v<Variant>) {
    (void)r;
    (void)version;
    invariant_failed("a supported key", __FILE__, __LINE__, "no message type for " + api_name(key));
  } else {
    using M = std::variant_alternative_t<I, Variant>;
    if (M::kApiKey != key) return decode_alternative<Variant, I + 1>(key, r, version);
    Variant out{std::in_place_index<I>};
    decode(r, version, std::get<I>(out));
    return out;
  }
}

template <class Variant>
ApiKey key_of(const Variant& v) {
  return std::visit([](const auto& m) { return std::remove_cvref_t<decltype(m)>::kApiKey; }, v);
}

// A whole frame: size prefix, the header `write_header` writes for `h`, the body.
template <class Variant>
std::string framed(const RequestHeader& h, const Variant& body, void (*write_header)(Writer&, const RequestHeader&)) {
  std::string out;
  Writer w(out);
  const std::size_t at = begin_frame(w);
  write_header(w, h);
  std::visit([&](const auto& m) { encode(w, m, h.api_version); }, body);
  end_frame(w, at);
  return out;
}

std::string context(ApiKey key, std::int16_t version, const char* what) {
  return api_name(key) + " v" + std::to_string(version) + " " + what;
}

}  // namespace

ApiKey api_key_of(const RequestBody& body) { return key_of(body); }
ApiKey api_key_of(const ResponseBody& body) { return key_of(body); }

DecodedRequest decode_request(std::span<const std::uint8_t> frame) {
  Reader r(frame);
  DecodedRequest d;
  try {
    d.header = decode_request_header(r);
  } catch (const DecodeError& e) {
    throw e.with_context("request header");
  }
  const ApiKey key = d.header.api_key;
  const std::int16_t version = d.header.api_version;
  if (!supported_range(key)) {
    d.support = Support::kUnknownApi;
    return d;
  }
  if (!is_supported(key, version)) {
    d.support = Support::kUnsupportedVersion;
    return d;
  }
  try {
    d.body = decode_alternative<RequestBody>(key, r, version);
    r.expect_done("request body");
  } catch (const DecodeError& e) {
    throw e.with_context(context(key, version, "request"));
  }
  return d;
}

std::string encode_response(const RequestHeader& request, const ResponseBody& body) {
  LOGSIM_ASSERT(api_key_of(body) == request.api_key, "a response body of another API than the request's");
  return framed(request, body, encode_response_header);
}

std::optional<std::string> unsupported_version_response(const RequestHeader& request) {
  if (request.api_key != ApiKey::API_VERSIONS) return std::nullopt;
  ApiVersionsResponse body = advertised_api_versions();
  body.error_code = kUnsupportedVersionError;
  RequestHeader v0 = request;
  v0.api_version = 0;  // the header is v0 at every version; the body v0 is what every client reads
  return encode_response(v0, body);
}

std::string encode_request(const RequestHeader& header, const RequestBody& body) {
  LOGSIM_ASSERT(api_key_of(body) == header.api_key, "a request body of another API than the header's");
  return framed(header, body, encode_request_header);
}

DecodedResponse decode_response(ApiKey key, std::int16_t version, std::span<const std::uint8_t> frame) {
  LOGSIM_ASSERT(is_supported(key, version), "decode_response of an unsupported version");
  Reader r(frame);
  try {
    const std::int32_t correlation_id = decode_response_header(r, key, version);
    ResponseBody body = decode_alternative<ResponseBody>(key, r, version);
    r.expect_done("response body");
    return {correlation_id, std::move(body)};
  } catch (const DecodeError& e) {
    throw e.with_context(context(key, version, "response"));
  }
}

}  // namespace logsim::wire

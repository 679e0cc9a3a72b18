// libFuzzer target over the request decoder: whatever the bytes, decode_request either returns
// (a body for a supported API and version, or a header marked unsupported) or throws
// DecodeError. A decoded request, encoded again and decoded again, gives the same header and
// body. The same holds for the response decoders, with the API and version picked by the
// input's first byte. The consumer protocol's assignment decoder (what serve reads from
// SyncGroup answers) returns nothing or an assignment that encodes back to a prefix of the
// input. Any other exception, crash, leak or undefined behaviour is a bug.
//
//   cmake --preset fuzz && cmake --build --preset fuzz --target wire_fuzzer
//   build/fuzz/wire/wire_fuzzer -max_total_time=30 CORPUS wire/tests/corpus
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "wire/consumer_protocol.h"
#include "wire/frame.h"
#include "wire/request.h"

namespace {

using namespace logsim::wire;

std::span<const std::uint8_t> unframe(const std::string& frame) {
  const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(frame.data()), frame.size());
  return frame_body(bytes, check_frame(bytes));
}

void check_request(std::span<const std::uint8_t> input) {
  DecodedRequest d;
  try {
    d = decode_request(input);
  } catch (const DecodeError&) {
    return;  // the one way a frame may be refused
  }
  if (!d.body) return;
  const std::string again = encode_request(d.header, *d.body);
  const DecodedRequest d2 = decode_request(unframe(again));
  if (!(d2.header == d.header) || !d2.body || !(*d2.body == *d.body)) std::abort();
}

void check_response(std::span<const std::uint8_t> input) {
  if (input.empty()) return;
  const auto apis = supported_apis();
  const ApiRange& api = apis[input[0] % apis.size()];
  const auto span = static_cast<unsigned>(api.max_version - api.min_version + 1);
  const auto version = static_cast<std::int16_t>(api.min_version + (input[0] / apis.size()) % span);
  try {
    const DecodedResponse r = decode_response(api.key, version, input.subspan(1));
    const RequestHeader h{api.key, version, r.correlation_id, std::nullopt};
    const DecodedResponse r2 = decode_response(api.key, version, unframe(encode_response(h, r.body)));
    if (r2.correlation_id != r.correlation_id || !(r2.body == r.body)) std::abort();
  } catch (const DecodeError&) {
  }
}

void check_consumer_assignment(std::span<const std::uint8_t> input) {
  const std::string_view bytes(reinterpret_cast<const char*>(input.data()), input.size());
  const auto a = decode_consumer_assignment(bytes);
  if (!a || bytes.empty()) return;
  // What it read, written again, is the input up to where it stopped (user data may be absent).
  std::string again = encode_consumer_assignment(*a);
  if (!a->user_data) again.resize(again.size() - 4);  // the null marker it may not have read
  if (bytes.substr(0, again.size()) != again) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> input(data, size);
  check_request(input);
  check_response(input);
  check_consumer_assignment(input);
  return 0;
}

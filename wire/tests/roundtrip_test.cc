// Round trips for every supported API at every supported version (table-driven): a sample
// request encoded as a whole frame decodes back to the same header and body, and re-encodes to
// the same bytes; likewise a sample response. Together with the golden frames this pins the
// field order, the versions each field exists in, and the frame and header layout.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "wire/frame.h"
#include "wire/request.h"
#include "wire/tests/golden_frames.h"
#include "wire/tests/samples.h"

namespace logsim::wire {
namespace {

struct Case {
  samples::Sample sample;
  std::int16_t version;
};

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const samples::Sample& s : samples::all_samples()) {
    const auto range = supported_range(s.key);
    if (!range) continue;  // a sample of an API that is not advertised: caught below
    for (std::int16_t v = range->min_version; v <= range->max_version; ++v) cases.push_back({s, v});
  }
  return cases;
}

std::string case_name(const testing::TestParamInfo<Case>& info) {
  return api_name(info.param.sample.key) + "_v" + std::to_string(info.param.version);
}

// The frame's bytes after its size prefix, checking the prefix on the way.
std::span<const std::uint8_t> unframe(const std::string& frame) {
  const FrameCheck check = check_frame(golden::as_bytes(frame));
  EXPECT_EQ(check.status, FrameStatus::kComplete);
  EXPECT_EQ(check.bytes, frame.size());
  return frame_body(golden::as_bytes(frame), check);
}

class RoundTrip : public testing::TestWithParam<Case> {};

TEST_P(RoundTrip, RequestDecodesToTheSampleAndReencodesToTheSameBytes) {
  const Case& c = GetParam();
  const RequestHeader header{c.sample.key, c.version, 1234, "client-a"};
  const RequestBody body = c.sample.request(c.version);
  const std::string frame = encode_request(header, body);
  const DecodedRequest decoded = decode_request(unframe(frame));
  EXPECT_EQ(decoded.header, header);
  ASSERT_EQ(decoded.support, Support::kSupported);
  ASSERT_TRUE(decoded.body.has_value());
  EXPECT_TRUE(*decoded.body == body);
  EXPECT_EQ(encode_request(decoded.header, *decoded.body), frame);
}

TEST_P(RoundTrip, ResponseDecodesToTheSampleAndReencodesToTheSameBytes) {
  const Case& c = GetParam();
  const RequestHeader header{c.sample.key, c.version, -77, std::nullopt};
  const ResponseBody body = c.sample.response(c.version);
  const std::string frame = encode_response(header, body);
  const DecodedResponse decoded = decode_response(c.sample.key, c.version, unframe(frame));
  EXPECT_EQ(decoded.correlation_id, -77);
  EXPECT_TRUE(decoded.body == body);
  EXPECT_EQ(encode_response(header, decoded.body), frame);
}

TEST_P(RoundTrip, EveryTruncationOfTheRequestIsRefused) {
  const Case& c = GetParam();
  const std::string frame = encode_request({c.sample.key, c.version, 1, "c"}, c.sample.request(c.version));
  const std::span<const std::uint8_t> whole = unframe(frame);
  for (std::size_t n = 0; n < whole.size(); ++n) {
    EXPECT_THROW(decode_request(whole.first(n)), DecodeError) << "prefix of " << n << " bytes";
  }
}

TEST_P(RoundTrip, EveryTruncationOfTheResponseIsRefused) {
  const Case& c = GetParam();
  const std::string frame = encode_response({c.sample.key, c.version, 1, {}}, c.sample.response(c.version));
  const std::span<const std::uint8_t> whole = unframe(frame);
  for (std::size_t n = 0; n < whole.size(); ++n) {
    EXPECT_THROW(decode_response(c.sample.key, c.version, whole.first(n)), DecodeError) << n << " bytes";
  }
}

INSTANTIATE_TEST_SUITE_P(EverySupportedVersion, RoundTrip, testing::ValuesIn(all_cases()), case_name);

TEST(RoundTripTable, EveryAdvertisedApiHasASampleAndNoSampleIsUnadvertised) {
  std::vector<ApiKey> sampled;
  for (const samples::Sample& s : samples::all_samples()) {
    EXPECT_TRUE(supported_range(s.key).has_value()) << api_name(s.key);
    sampled.push_back(s.key);
  }
  for (const ApiRange& r : supported_apis()) {
    EXPECT_NE(std::find(sampled.begin(), sampled.end(), r.key), sampled.end()) << api_name(r.key);
  }
}

}  // namespace
}  // namespace logsim::wire

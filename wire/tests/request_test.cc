// decode_request's outcomes for what a gateway meets: unknown APIs and versions (answered, not
// thrown), malformed frames (DecodeError naming the API, version and byte), trailing bytes, and
// counts that cannot fit (refused before anything is allocated).
#include <gtest/gtest.h>

#include "wire/request.h"
#include "wire/tests/golden_frames.h"

namespace logsim::wire {
namespace {

using golden::as_bytes;
using golden::cat;
using golden::hex;

TEST(DecodeRequest, AnUnknownApiKeyYieldsItsHeaderAndNoBody) {
  // SaslHandshake v1 (17), which logsim does not implement.
  const std::string frame = cat({hex("00 11 00 01 00 00 00 2a 00 03"), "abc", hex("00 05"), "PLAIN"});
  const DecodedRequest d = decode_request(as_bytes(frame));
  EXPECT_EQ(d.support, Support::kUnknownApi);
  EXPECT_EQ(d.header, (RequestHeader{ApiKey::SASL_HANDSHAKE, 1, 42, "abc"}));
  EXPECT_FALSE(d.body.has_value());
  EXPECT_EQ(api_name(d.header.api_key), "SaslHandshake");
  EXPECT_EQ(unsupported_version_response(d.header), std::nullopt);  // close the connection
}

TEST(DecodeRequest, AKeyOutsideKafkasListIsUnknownToo) {
  const DecodedRequest d = decode_request(as_bytes(hex("7f ff 00 00 00 00 00 01")));  // no client id
  EXPECT_EQ(d.support, Support::kUnknownApi);
  EXPECT_EQ(static_cast<std::int16_t>(d.header.api_key), 32767);
  EXPECT_EQ(d.header.correlation_id, 1);
  EXPECT_EQ(d.header.client_id, std::nullopt);
  EXPECT_EQ(api_name(d.header.api_key), "Unknown(32767)");
}

TEST(DecodeRequest, AVersionOutsideTheRangeYieldsItsHeaderAndNoBody) {
  for (std::int16_t version : {std::int16_t{2}, std::int16_t{8}, std::int16_t{-1}}) {  // Produce: 3..7
    std::string frame = cat({hex("00 00")});
    Writer(frame).int16(version);
    frame += cat({hex("00 00 00 09 ff ff"), "whatever follows"});
    const DecodedRequest d = decode_request(as_bytes(frame));
    EXPECT_EQ(d.support, Support::kUnsupportedVersion) << version;
    EXPECT_EQ(d.header, (RequestHeader{ApiKey::PRODUCE, version, 9, std::nullopt}));
    EXPECT_FALSE(d.body.has_value());
  }
}

TEST(DecodeRequest, AHeaderShorterThanEightBytesIsMalformed) {
  const std::string frame = hex("00 12 00 03 00 00 00 01");
  for (std::size_t n = 0; n < frame.size(); ++n) {
    EXPECT_THROW(decode_request(as_bytes(frame).first(n)), DecodeError) << n;
  }
}

TEST(DecodeRequest, TheErrorNamesTheApiVersionAndByte) {
  const std::string frame = golden::produce_v7_request();
  try {
    decode_request(as_bytes(frame).first(frame.size() - 1));
    FAIL() << "a truncated frame was accepted";
  } catch (const DecodeError& e) {
    EXPECT_EQ(e.offset(), 44u);  // the records' int32 length: 73 bytes announced, 72 there
    EXPECT_STREQ(e.what(), "Produce v7 request, byte 44: bytes length 73 past the end (72 bytes left)");
  }
}

TEST(DecodeRequest, BytesAfterTheBodyAreMalformed) {
  const std::string frame = golden::api_versions_v2_kafkajs() + "x";
  try {
    decode_request(as_bytes(frame));
    FAIL() << "trailing bytes were accepted";
  } catch (const DecodeError& e) {
    EXPECT_STREQ(e.what(), "ApiVersions v2 request, byte 17: 1 unread bytes after the request body");
  }
}

TEST(DecodeRequest, AHugeArrayCountFailsBeforeAllocating) {
  // Produce v7 whose topic_data claims 2^31-1 topics in a frame of a few bytes: refused at the
  // count, which no allocation precedes (an allocation of that many topics would throw
  // bad_alloc or take seconds, and ASan would report it).
  const std::string frame = cat({hex("00 00 00 07 00 00 00 01 ff ff"),  // header, client_id null
                                 hex("ff ff ff ff 00 00 75 30"),        // transactional_id, acks, timeout
                                 hex("7f ff ff ff"), hex("00 01")});    // topic_data count, 2 bytes
  try {
    decode_request(as_bytes(frame));
    FAIL() << "an absurd count was accepted";
  } catch (const DecodeError& e) {
    EXPECT_STREQ(e.what(), "Produce v7 request, byte 18: array of 2147483647 elements cannot fit in the 2 bytes left");
  }
}

TEST(DecodeRequest, ANegativeLengthOtherThanNullIsMalformed) {
  // Metadata v1 whose first topic name has length -2.
  const std::string frame = cat({hex("00 03 00 01 00 00 00 01 ff ff"), hex("00 00 00 01 ff fe")});
  EXPECT_THROW(decode_request(as_bytes(frame)), DecodeError);
  // A null topic name (-1) in a field that is not nullable.
  const std::string null_name = cat({hex("00 03 00 01 00 00 00 01 ff ff"), hex("00 00 00 01 ff ff")});
  EXPECT_THROW(decode_request(as_bytes(null_name)), DecodeError);
}

}  // namespace
}  // namespace logsim::wire

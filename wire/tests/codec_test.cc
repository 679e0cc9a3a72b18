// The primitive types against Kafka's encodings (its protocol guide and ByteUtils' test
// vectors), and the Reader's refusals of malformed input.
#include <gtest/gtest.h>

#include <limits>

#include "wire/codec.h"
#include "wire/tests/golden_frames.h"

namespace logsim::wire {
namespace {

using golden::hex;

template <class F>
std::string written(F&& write) {
  std::string out;
  Writer w(out);
  write(w);
  return out;
}

// Expects `read` on `bytes` to throw DecodeError at `offset` with a message containing `part`.
template <class F>
void expect_refused(const std::string& bytes, F&& read, std::size_t offset, const std::string& part) {
  Reader r(bytes);
  try {
    read(r);
    ADD_FAILURE() << "accepted: " << part;
  } catch (const DecodeError& e) {
    EXPECT_EQ(e.offset(), offset) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(Codec, FixedWidthIntegersAreBigEndian) {
  EXPECT_EQ(written([](Writer& w) { w.int16(-2); }), hex("ff fe"));
  EXPECT_EQ(written([](Writer& w) { w.int32(0x01020304); }), hex("01 02 03 04"));
  EXPECT_EQ(written([](Writer& w) { w.int64(-1700000000000); }), hex("ff ff fe 74 30 1a 98 00"));
  EXPECT_EQ(written([](Writer& w) { w.uint32(0xe641a44b); }), hex("e6 41 a4 4b"));
  const std::string r_bytes = hex("80 ff fe 01 02 03 04 ff ff fe 74 30 1a 98 00 e6 41 a4 4b 02");
  Reader r(r_bytes);
  EXPECT_EQ(r.int8(), -128);
  EXPECT_EQ(r.int16(), -2);
  EXPECT_EQ(r.int32(), 0x01020304);
  EXPECT_EQ(r.int64(), -1700000000000);
  EXPECT_EQ(r.uint32(), 0xe641a44bu);
  EXPECT_TRUE(r.boolean());  // any non-zero byte
  EXPECT_TRUE(r.done());
}

TEST(Codec, VarintsFollowKafkasByteUtils) {
  // (value, unsigned LEB128) and (value, zigzag) pairs from Kafka's ByteUtilsTest.
  EXPECT_EQ(written([](Writer& w) { w.uvarint(300); }), hex("ac 02"));
  EXPECT_EQ(written([](Writer& w) { w.uvarint(0xffffffff); }), hex("ff ff ff ff 0f"));
  EXPECT_EQ(written([](Writer& w) { w.varint(-1); }), hex("01"));
  EXPECT_EQ(written([](Writer& w) { w.varint(1); }), hex("02"));
  EXPECT_EQ(written([](Writer& w) { w.varint(std::numeric_limits<std::int32_t>::min()); }), hex("ff ff ff ff 0f"));
  EXPECT_EQ(written([](Writer& w) { w.varlong(std::numeric_limits<std::int64_t>::min()); }),
            hex("ff ff ff ff ff ff ff ff ff 01"));
  for (std::int64_t v : {std::int64_t{0}, std::int64_t{-64}, std::int64_t{63}, std::int64_t{1} << 40,
                         std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()}) {
    const std::string r_bytes = written([&](Writer& w) { w.varlong(v); });
    Reader r(r_bytes);
    EXPECT_EQ(r.varlong(), v);
    EXPECT_TRUE(r.done());
  }
  for (std::int32_t v : {0, -1, 1, 1 << 20, std::numeric_limits<std::int32_t>::max()}) {
    const std::string r_bytes = written([&](Writer& w) { w.varint(v); });
    Reader r(r_bytes);
    EXPECT_EQ(r.varint(), v);
  }
}

TEST(Codec, VarintsThatAreTooLongOrOverflowAreRefused) {
  expect_refused(hex("ff ff ff ff ff 01"), [](Reader& r) { r.uvarint(); }, 0, "varint longer than 5 bytes");
  expect_refused(hex("00 ff ff ff ff 1f"), [](Reader& r) { (void)r.int8(); r.varint(); }, 1, "past 32 bits");
  expect_refused(hex("ff ff ff ff ff ff ff ff ff 02"), [](Reader& r) { r.varlong(); }, 0, "past 64 bits");
  expect_refused(hex("ff ff"), [](Reader& r) { r.uvarint(); }, 2, "truncated varint");
}

TEST(Codec, StringsAndBytesWithTheirNullMarkers) {
  EXPECT_EQ(written([](Writer& w) { w.string("ab"); }), hex("00 02 61 62"));
  EXPECT_EQ(written([](Writer& w) { w.nullable_string(std::nullopt); }), hex("ff ff"));
  EXPECT_EQ(written([](Writer& w) { w.compact_string("ab"); }), hex("03 61 62"));
  EXPECT_EQ(written([](Writer& w) { w.compact_nullable_string(std::nullopt); }), hex("00"));
  EXPECT_EQ(written([](Writer& w) { w.bytes("ab"); }), hex("00 00 00 02 61 62"));
  EXPECT_EQ(written([](Writer& w) { w.nullable_bytes(std::nullopt); }), hex("ff ff ff ff"));
  EXPECT_EQ(written([](Writer& w) { w.compact_bytes(""); }), hex("01"));
  EXPECT_EQ(written([](Writer& w) { w.compact_nullable_bytes(std::nullopt); }), hex("00"));
  const std::string r_bytes = hex("00 02 61 62 ff ff 03 61 62 00 00 00 00 02 61 62 ff ff ff ff 01 00");
  Reader r(r_bytes);
  EXPECT_EQ(r.string(), "ab");
  EXPECT_EQ(r.nullable_string(), std::nullopt);
  EXPECT_EQ(r.compact_string(), "ab");
  EXPECT_EQ(r.compact_nullable_string(), std::nullopt);
  EXPECT_EQ(r.bytes(), "ab");
  EXPECT_EQ(r.nullable_bytes(), std::nullopt);
  EXPECT_EQ(r.compact_bytes(), "");
  EXPECT_EQ(r.compact_nullable_bytes(), std::nullopt);
  EXPECT_TRUE(r.done());
}

TEST(Codec, MalformedLengthsAreRefusedWithTheirOffset) {
  expect_refused(hex("ff ff"), [](Reader& r) { r.string(); }, 0, "null string in a field that is not nullable");
  expect_refused(hex("ff fe"), [](Reader& r) { r.nullable_string(); }, 0, "negative string length -2");
  expect_refused(hex("00 05 61"), [](Reader& r) { r.string(); }, 0, "string length 5 past the end (1 bytes left)");
  expect_refused(hex("00"), [](Reader& r) { r.compact_string(); }, 0, "null compact string");
  expect_refused(hex("00 ff ff ff fe"), [](Reader& r) { (void)r.int8(); r.nullable_bytes(); }, 1,
                 "negative bytes length -2");
  expect_refused(hex("7f ff ff ff"), [](Reader& r) { r.bytes(); }, 0, "bytes length 2147483647 past the end");
  expect_refused(hex("05 61"), [](Reader& r) { r.compact_bytes(); }, 0, "compact bytes length 4 past the end");
  expect_refused(hex("00 01"), [](Reader& r) { r.int32(); }, 0, "truncated int32 (4 bytes needed, 2 left)");
  expect_refused(hex("81 80 02") + std::string(32768, 'a'), [](Reader& r) { r.compact_string(); }, 0,
                 "compact string length 32768 over 32767");
}

TEST(Codec, ArrayCountsAreCheckedAgainstTheBytesLeft) {
  const std::string nulls_bytes = hex("ff ff ff ff 00 00 00 00 00 01");
  Reader nulls(nulls_bytes);
  EXPECT_EQ(nulls.array_length(), std::nullopt);
  EXPECT_EQ(nulls.array_length(), std::size_t{0});
  EXPECT_EQ(nulls.compact_array_length(), std::nullopt);
  EXPECT_EQ(nulls.compact_array_length(), std::size_t{0});
  // 2^31-1 elements in a 20-byte input: refused at the count, before any allocation.
  expect_refused(hex("7f ff ff ff") + std::string(16, '\0'), [](Reader& r) { r.array_length(); }, 0,
                 "array of 2147483647 elements cannot fit in the 16 bytes left");
  expect_refused(hex("ff ff ff ff 0f"), [](Reader& r) { r.compact_array_length(); }, 0,
                 "array of 4294967294 elements cannot fit");
  expect_refused(hex("ff ff ff fe"), [](Reader& r) { r.array_length(); }, 0, "negative array length -2");
}

TEST(Codec, TaggedFieldsAreSkippedWhateverTheTags) {
  // Two tagged fields (tag 0, 3 bytes; tag 300, 1 byte), then an int8 7.
  const std::string r_bytes = hex("02 00 03 aa bb cc ac 02 01 dd 07");
  Reader r(r_bytes);
  r.skip_tagged_fields();
  EXPECT_EQ(r.int8(), 7);
  EXPECT_TRUE(r.done());
  expect_refused(hex("01 00 05 aa"), [](Reader& rr) { rr.skip_tagged_fields(); }, 2,
                 "tagged field of 5 bytes past the end");
  expect_refused(hex("05 00"), [](Reader& rr) { rr.skip_tagged_fields(); }, 0, "5 tagged fields cannot fit");
  EXPECT_EQ(written([](Writer& w) { w.empty_tagged_fields(); }), hex("00"));
}

TEST(Codec, UuidsAndTheSizePatch) {
  Uuid u{};
  for (std::size_t i = 0; i < u.size(); ++i) u[i] = static_cast<std::uint8_t>(i);
  const std::string r_bytes = written([&](Writer& w) { w.uuid(u); });
  Reader r(r_bytes);
  EXPECT_EQ(r.uuid(), u);
  std::string out = hex("00 00 00 00 aa");
  Writer(out).patch_int32(0, 1);
  EXPECT_EQ(out, hex("00 00 00 01 aa"));
}

}  // namespace
}  // namespace logsim::wire

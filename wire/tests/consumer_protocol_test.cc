// Kafka's ConsumerProtocolAssignment: the bytes a group leader writes for a member, byte for
// byte as Kafka's schema lays them out, and what is refused.
#include "wire/consumer_protocol.h"

#include <gtest/gtest.h>

#include "wire/tests/golden_frames.h"

namespace logsim::wire {
namespace {

using golden::hex;

// Version 1; topic "t" with partitions 0 and 3; no user data.
const std::string kTwoPartitions = hex(
    "0001"                  // version
    "00000001" "0001" "74"  // one topic: "t"
    "00000002" "00000000" "00000003"
    "ffffffff");            // user data: null

TEST(ConsumerProtocol, DecodesKafkasLayoutAndEncodesItAgain) {
  const auto a = decode_consumer_assignment(kTwoPartitions);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->version, 1);
  ASSERT_EQ(a->assigned.size(), 1u);
  EXPECT_EQ(a->assigned[0].topic, "t");
  EXPECT_EQ(a->assigned[0].partitions, (std::vector<std::int32_t>{0, 3}));
  EXPECT_EQ(a->user_data, std::nullopt);
  EXPECT_EQ(encode_consumer_assignment(*a), kTwoPartitions);
}

TEST(ConsumerProtocol, EmptyBytesAreAnEmptyAssignmentAndMissingUserDataIsNone) {
  const auto empty = decode_consumer_assignment("");
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->assigned.empty());
  const auto bare = decode_consumer_assignment(hex("0000" "00000000"));  // kafkajs-style: no user data field
  ASSERT_TRUE(bare.has_value());
  EXPECT_TRUE(bare->assigned.empty());
  const auto with_data = decode_consumer_assignment(hex("0000" "00000000" "00000002" "abcd"));
  ASSERT_TRUE(with_data.has_value());
  EXPECT_EQ(with_data->user_data, std::optional<std::string>(hex("abcd")));
}

TEST(ConsumerProtocol, RefusesTruncatedOrImpossibleBytes) {
  for (std::size_t cut = 1; cut < kTwoPartitions.size() - 4; ++cut) {
    EXPECT_EQ(decode_consumer_assignment(kTwoPartitions.substr(0, cut)), std::nullopt) << "cut at " << cut;
  }
  EXPECT_EQ(decode_consumer_assignment(hex("ffff" "00000000")), std::nullopt) << "a negative version";
  EXPECT_EQ(decode_consumer_assignment(hex("0000" "7fffffff")), std::nullopt) << "more topics than bytes";
  EXPECT_EQ(decode_consumer_assignment(hex("0000" "ffffffff")), std::nullopt) << "a null topic array (not nullable)";
  EXPECT_EQ(decode_consumer_assignment(hex("0000" "00000001" "0001" "74" "ffffffff")), std::nullopt) << "a null partition array";
}

}  // namespace
}  // namespace logsim::wire

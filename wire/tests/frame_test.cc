// The size-prefixed framing: when a frame is whole, and sizes that are refused at once.
#include <gtest/gtest.h>

#include "wire/frame.h"
#include "wire/tests/golden_frames.h"

namespace logsim::wire {
namespace {

using golden::as_bytes;
using golden::hex;

TEST(Frame, AFrameIsWholeOnlyWhenItsSizeAndAllItsBytesHaveArrived) {
  const std::string received = hex("00 00 00 03 61 62 63 00 00");  // a frame, then the next one's start
  for (std::size_t n = 0; n < 4; ++n) {
    const FrameCheck c = check_frame(as_bytes(received).first(n));
    EXPECT_EQ(c.status, FrameStatus::kIncomplete);
    EXPECT_EQ(c.bytes, 4 - n);
  }
  const FrameCheck partial = check_frame(as_bytes(received).first(5));
  EXPECT_EQ(partial.status, FrameStatus::kIncomplete);
  EXPECT_EQ(partial.size, 3);
  EXPECT_EQ(partial.bytes, 2u);
  const FrameCheck whole = check_frame(as_bytes(received));
  EXPECT_EQ(whole.status, FrameStatus::kComplete);
  EXPECT_EQ(whole.bytes, 7u);
  const auto body = frame_body(as_bytes(received), whole);
  EXPECT_EQ(std::string(body.begin(), body.end()), "abc");
}

TEST(Frame, NegativeAndOversizedSizesAreRefusedBeforeTheirBytesArrive) {
  EXPECT_EQ(check_frame(as_bytes(hex("ff ff ff ff"))).status, FrameStatus::kNegativeSize);
  EXPECT_EQ(check_frame(as_bytes(hex("80 00 00 00"))).status, FrameStatus::kNegativeSize);
  // 104857601 = socket.request.max.bytes + 1.
  const FrameCheck big = check_frame(as_bytes(hex("06 40 00 01")));
  EXPECT_EQ(big.status, FrameStatus::kTooLarge);
  EXPECT_EQ(big.size, 104857601);
  EXPECT_EQ(check_frame(as_bytes(hex("06 40 00 00"))).status, FrameStatus::kIncomplete);
  EXPECT_EQ(check_frame(as_bytes(hex("00 00 00 11")), 16).status, FrameStatus::kTooLarge);
  EXPECT_EQ(check_frame(as_bytes(hex("00 00 00 00"))).status, FrameStatus::kComplete);
}

TEST(Frame, BeginAndEndFrameWriteTheSizeOfWhatCameBetween) {
  std::string out = "x";
  Writer w(out);
  const std::size_t at = begin_frame(w);
  w.string("abc");
  end_frame(w, at);
  EXPECT_EQ(out, "x" + hex("00 00 00 05 00 03") + "abc");
}

}  // namespace
}  // namespace logsim::wire

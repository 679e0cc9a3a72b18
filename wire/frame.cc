// Kafka's size-prefixed framing (frame.h).
#include "wire/frame.h"

#include "engine/base/assert.h"

namespace logsim::wire {

FrameCheck check_frame(std::span<const std::uint8_t> received, std::int32_t max_bytes) {
  if (received.size() < 4) return {FrameStatus::kIncomplete, 0, 4 - received.size()};
  Reader r(received.first(4));
  const std::int32_t size = r.int32();
  if (size < 0) return {FrameStatus::kNegativeSize, size, 0};
  if (size > max_bytes) return {FrameStatus::kTooLarge, size, 0};
  const std::size_t whole = 4 + static_cast<std::size_t>(size);
  if (received.size() < whole) return {FrameStatus::kIncomplete, size, whole - received.size()};
  return {FrameStatus::kComplete, size, whole};
}

std::span<const std::uint8_t> frame_body(std::span<const std::uint8_t> received, const FrameCheck& check) {
  LOGSIM_ASSERT(check.status == FrameStatus::kComplete && received.size() >= check.bytes,
                "frame_body of an incomplete frame");
  return received.subspan(4, check.bytes - 4);
}

std::size_t begin_frame(Writer& w) {
  const std::size_t at = w.size();
  w.int32(0);
  return at;
}

void end_frame(Writer& w, std::size_t at) {
  const std::size_t size = w.size() - at - 4;
  LOGSIM_ASSERT(size <= static_cast<std::size_t>(INT32_MAX), "frame over 2^31-1 bytes");
  w.patch_int32(at, static_cast<std::int32_t>(size));
}

}  // namespace logsim::wire

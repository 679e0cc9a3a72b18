// Kafka's framing: every request and response is an int32 size (big-endian, not counting
// itself) followed by that many bytes. The socket layer accumulates received bytes and asks
// check_frame whether a whole frame is there yet; nothing here reads a socket.
//
// Contract: check_frame never reads past the span and never trusts the size before checking
// it: a negative size or one above `max_bytes` (Kafka's socket.request.max.bytes, default
// 104857600) is refused at once, before the caller waits for (or allocates) that many bytes.
// Kafka closes the connection in both cases, and so should the caller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "wire/codec.h"

namespace logsim::wire {

inline constexpr std::int32_t kDefaultMaxFrameBytes = 104857600;  // socket.request.max.bytes

enum class FrameStatus {
  kIncomplete,  // not all of the size prefix or the frame has arrived yet
  kComplete,    // a whole frame is there: `size` bytes after the 4-byte prefix
  kNegativeSize,
  kTooLarge,    // size > max_bytes
};

struct FrameCheck {
  FrameStatus status = FrameStatus::kIncomplete;
  std::int32_t size = 0;  // the prefix's value, once 4 bytes have arrived
  // kComplete: 4 + size, the bytes to consume. kIncomplete: how many more bytes are needed
  // at least (4 - received while the prefix is incomplete). Otherwise 0.
  std::size_t bytes = 0;
};

FrameCheck check_frame(std::span<const std::uint8_t> received,
                       std::int32_t max_bytes = kDefaultMaxFrameBytes);

// The frame's bytes without the size prefix. Precondition: check.status == kComplete.
std::span<const std::uint8_t> frame_body(std::span<const std::uint8_t> received, const FrameCheck& check);

// Writing a frame: begin_frame writes a placeholder size and returns where it is; end_frame
// fills in the number of bytes written since.
std::size_t begin_frame(Writer& w);
void end_frame(Writer& w, std::size_t at);

}  // namespace logsim::wire

// Kafka's primitive wire types: a bounds-checked Reader over received bytes and a Writer that
// appends to a std::string. Everything above (headers, message bodies, frames) is built from
// these, so this is the one place that touches raw bytes.
//
// Contract of the Reader: it never reads past the end of its span and never allocates from an
// untrusted length before checking that the bytes are there (a string or array length is
// compared with what remains first; an array is never reserved from its count). Every
// malformed input — truncated field, negative length other than the null marker, length past
// the end, array count that cannot fit, varint longer than its type, compact string over
// 32767 bytes — throws DecodeError,
// whose message names what was wrong and the byte offset where the bad field starts. No other
// exception escapes a Reader (std::bad_alloc aside).
//
// Contract of the Writer: it appends big-endian integers and length-prefixed data exactly as
// Kafka's generated serializers do. Data that cannot be represented (a string over 32767
// bytes, more than 2^31-1 array elements) is a caller bug and fails LOGSIM_ASSERT.
//
// Encodings (Kafka's protocol guide, "Protocol Primitive Types"):
//   intN          big-endian two's complement; uint32 big-endian
//   uvarint       unsigned LEB128, at most 5 bytes; varint / varlong: zigzag LEB128 (5 / 10)
//   string        int16 length + UTF-8; nullable: length -1 is null
//   compact str.  uvarint (length + 1); 0 is null
//   bytes         int32 length + bytes; nullable: -1 is null; compact: uvarint (length + 1)
//   array         int32 count, -1 is null; compact: uvarint (count + 1), 0 is null
//   tagged fields uvarint count, then per field uvarint tag, uvarint size, size bytes
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace logsim::wire {

// The one exception the decoders throw for malformed input.
// what(): "[CONTEXT, ]byte OFFSET: DETAIL", e.g. "Produce v7 request, byte 41: truncated int32
// (4 bytes needed, 2 left)".
class DecodeError : public std::runtime_error {
 public:
  DecodeError(const std::string& detail, std::size_t offset, const std::string& context = {});
  // The byte offset (from the start of the Reader's span) at which the bad field starts.
  std::size_t offset() const { return offset_; }
  const std::string& detail() const { return detail_; }
  // The same error with `context` (which message was being read) in front.
  DecodeError with_context(const std::string& context) const { return {detail_, offset_, context}; }

 private:
  std::string detail_;
  std::size_t offset_;
};

using Uuid = std::array<std::uint8_t, 16>;

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
  explicit Reader(std::string_view bytes);
  // A Reader does not own its bytes: reading a temporary string would dangle.
  explicit Reader(std::string&&) = delete;

  std::size_t offset() const { return pos_; }
  std::size_t remaining() const { return bytes_.size() - pos_; }
  bool done() const { return pos_ == bytes_.size(); }

  std::int8_t int8();
  std::int16_t int16();
  std::int32_t int32();
  std::int64_t int64();
  std::uint32_t uint32();
  bool boolean();  // any non-zero byte is true, as in Kafka
  std::uint32_t uvarint();
  std::int32_t varint();
  std::int64_t varlong();
  Uuid uuid();

  std::string string();
  std::optional<std::string> nullable_string();
  std::string compact_string();
  std::optional<std::string> compact_nullable_string();
  std::string bytes();
  std::optional<std::string> nullable_bytes();
  std::string compact_bytes();
  std::optional<std::string> compact_nullable_bytes();

  // An array's element count (int32, -1 = null). Each element takes at least one byte, so a
  // count larger than what remains is refused here, before anything is allocated.
  std::optional<std::size_t> array_length();
  // A compact array's element count (uvarint count + 1, 0 = null), refused likewise.
  std::optional<std::size_t> compact_array_length();
  // Skips a tagged-field section: every tag and its bytes, whatever the tags are.
  void skip_tagged_fields();

  // Throws unless every byte was consumed (`what` names the message for the error).
  void expect_done(std::string_view what) const;
  // Throws DecodeError at `offset` (by default the current position).
  [[noreturn]] void fail(const std::string& what) const;
  [[noreturn]] void fail_at(std::size_t offset, const std::string& what) const;

 private:
  const std::uint8_t* take(std::size_t n, std::string_view what);
  std::string take_string(std::size_t n, std::string_view what);
  std::optional<std::string> sized(std::int64_t length, std::size_t at, std::string_view what,
                                   bool nullable);
  std::uint64_t uvarint_bits(int max_bytes, std::string_view what);
  std::int64_t compact_string_length();

  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
};

class Writer {
 public:
  // Appends to `out`, which must outlive the Writer.
  explicit Writer(std::string& out) : out_(out) {}

  std::size_t size() const { return out_.size(); }

  void int8(std::int8_t v);
  void int16(std::int16_t v);
  void int32(std::int32_t v);
  void int64(std::int64_t v);
  void uint32(std::uint32_t v);
  void boolean(bool v) { int8(v ? 1 : 0); }
  void uvarint(std::uint32_t v);
  void varint(std::int32_t v);
  void varlong(std::int64_t v);
  void uuid(const Uuid& v);

  void string(std::string_view v);
  void nullable_string(const std::optional<std::string>& v);
  void compact_string(std::string_view v);
  void compact_nullable_string(const std::optional<std::string>& v);
  void bytes(std::string_view v);
  void nullable_bytes(const std::optional<std::string>& v);
  void compact_bytes(std::string_view v);
  void compact_nullable_bytes(const std::optional<std::string>& v);

  void array_length(std::optional<std::size_t> count);          // nullopt writes -1
  void compact_array_length(std::optional<std::size_t> count);  // nullopt writes 0
  void empty_tagged_fields() { uvarint(0); }

  // Overwrites four bytes at `at` (already written) with `v`: a size prefix filled in last.
  void patch_int32(std::size_t at, std::int32_t v);

 private:
  void raw(std::string_view v) { out_.append(v); }
  void unsigned_varint(std::uint64_t v);

  std::string& out_;
};

}  // namespace logsim::wire

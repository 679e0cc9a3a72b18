// Kafka's primitive wire types (see codec.h for the contract).
#include "wire/codec.h"

#include <limits>

#include "engine/base/assert.h"

namespace logsim::wire {

namespace {

std::string message(const std::string& detail, std::size_t offset, const std::string& context) {
  return (context.empty() ? "" : context + ", ") + "byte " + std::to_string(offset) + ": " + detail;
}

constexpr std::int64_t kMaxString = std::numeric_limits<std::int16_t>::max();
constexpr std::int64_t kMaxBytes = std::numeric_limits<std::int32_t>::max();

}  // namespace

DecodeError::DecodeError(const std::string& detail, std::size_t offset, const std::string& context)
    : std::runtime_error(message(detail, offset, context)), detail_(detail), offset_(offset) {}

Reader::Reader(std::string_view bytes)
    : bytes_(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()) {}

void Reader::fail(const std::string& what) const { fail_at(pos_, what); }

void Reader::fail_at(std::size_t offset, const std::string& what) const {
  throw DecodeError(what, offset);
}

const std::uint8_t* Reader::take(std::size_t n, std::string_view what) {
  if (n > remaining()) {
    fail("truncated " + std::string(what) + " (" + std::to_string(n) + " bytes needed, " +
         std::to_string(remaining()) + " left)");
  }
  const std::uint8_t* p = bytes_.data() + pos_;
  pos_ += n;
  return p;
}

std::string Reader::take_string(std::size_t n, std::string_view what) {
  const std::uint8_t* p = take(n, what);
  return std::string(reinterpret_cast<const char*>(p), n);
}

std::int8_t Reader::int8() { return static_cast<std::int8_t>(*take(1, "int8")); }

std::int16_t Reader::int16() {
  const std::uint8_t* p = take(2, "int16");
  return static_cast<std::int16_t>((p[0] << 8) | p[1]);
}

std::uint32_t Reader::uint32() {
  const std::uint8_t* p = take(4, "int32");
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

std::int32_t Reader::int32() { return static_cast<std::int32_t>(uint32()); }

std::int64_t Reader::int64() {
  const std::uint8_t* p = take(8, "int64");
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return static_cast<std::int64_t>(v);
}

bool Reader::boolean() { return *take(1, "boolean") != 0; }

// LEB128 with at most `max_bytes` bytes whose value fits `width` bits (Kafka's ByteUtils).
std::uint64_t Reader::uvarint_bits(int max_bytes, std::string_view what) {
  const std::size_t start = pos_;
  const int width = max_bytes == 5 ? 32 : 64;
  std::uint64_t v = 0;
  for (int i = 0; i < max_bytes; ++i) {
    const std::uint8_t b = *take(1, what);
    const int shift = 7 * i;
    if (i == max_bytes - 1 && (b >> (width - shift)) != 0) {
      fail_at(start, std::string(what) + " longer than " + std::to_string(max_bytes) + " bytes or past " +
                         std::to_string(width) + " bits");
    }
    v |= std::uint64_t{b & 0x7Fu} << shift;
    if ((b & 0x80) == 0) return v;
  }
  fail_at(start, std::string(what) + " longer than " + std::to_string(max_bytes) + " bytes");
}

std::uint32_t Reader::uvarint() { return static_cast<std::uint32_t>(uvarint_bits(5, "varint")); }

std::int32_t Reader::varint() {
  const auto u = static_cast<std::uint32_t>(uvarint_bits(5, "varint"));
  return static_cast<std::int32_t>((u >> 1) ^ (0u - (u & 1u)));
}

std::int64_t Reader::varlong() {
  const std::uint64_t u = uvarint_bits(10, "varlong");
  return static_cast<std::int64_t>((u >> 1) ^ (0ull - (u & 1ull)));
}

Uuid Reader::uuid() {
  const std::uint8_t* p = take(16, "uuid");
  Uuid u{};
  for (std::size_t i = 0; i < u.size(); ++i) u[i] = p[i];
  return u;
}

// The data after a length field read at `at`: null for -1 where allowed, else checked.
std::optional<std::string> Reader::sized(std::int64_t length, std::size_t at, std::string_view what,
                                         bool nullable) {
  const std::string name(what);
  if (length == -1) {
    if (!nullable) fail_at(at, "null " + name + " in a field that is not nullable");
    return std::nullopt;
  }
  if (length < 0) fail_at(at, "negative " + name + " length " + std::to_string(length));
  if (static_cast<std::uint64_t>(length) > remaining()) {
    fail_at(at, name + " length " + std::to_string(length) + " past the end (" +
                    std::to_string(remaining()) + " bytes left)");
  }
  return take_string(static_cast<std::size_t>(length), what);
}

std::optional<std::string> Reader::nullable_string() {
  const std::size_t at = pos_;
  return sized(int16(), at, "string", true);
}

std::string Reader::string() {
  const std::size_t at = pos_;
  return *sized(int16(), at, "string", false);
}

// A compact string's length, refused above 32767 as Kafka's generated readers do (a string is
// an int16-sized field in every encoding).
std::int64_t Reader::compact_string_length() {
  const std::size_t at = pos_;
  const std::int64_t length = std::int64_t{uvarint()} - 1;
  if (length > kMaxString) fail_at(at, "compact string length " + std::to_string(length) + " over 32767");
  return length;
}

std::optional<std::string> Reader::compact_nullable_string() {
  const std::size_t at = pos_;
  return sized(compact_string_length(), at, "compact string", true);
}

std::string Reader::compact_string() {
  const std::size_t at = pos_;
  return *sized(compact_string_length(), at, "compact string", false);
}

std::optional<std::string> Reader::nullable_bytes() {
  const std::size_t at = pos_;
  return sized(int32(), at, "bytes", true);
}

std::string Reader::bytes() {
  const std::size_t at = pos_;
  return *sized(int32(), at, "bytes", false);
}

std::optional<std::string> Reader::compact_nullable_bytes() {
  const std::size_t at = pos_;
  return sized(std::int64_t{uvarint()} - 1, at, "compact bytes", true);
}

std::string Reader::compact_bytes() {
  const std::size_t at = pos_;
  return *sized(std::int64_t{uvarint()} - 1, at, "compact bytes", false);
}

namespace {

// Refuses a count that cannot fit in what remains (each element takes at least one byte).
std::optional<std::size_t> checked_count(const Reader& r, std::int64_t count, std::size_t at) {
  if (count == -1) return std::nullopt;
  if (count < 0) r.fail_at(at, "negative array length " + std::to_string(count));
  if (static_cast<std::uint64_t>(count) > r.remaining()) {
    r.fail_at(at, "array of " + std::to_string(count) + " elements cannot fit in the " +
                      std::to_string(r.remaining()) + " bytes left");
  }
  return static_cast<std::size_t>(count);
}

}  // namespace

std::optional<std::size_t> Reader::array_length() {
  const std::size_t at = pos_;
  return checked_count(*this, int32(), at);
}

std::optional<std::size_t> Reader::compact_array_length() {
  const std::size_t at = pos_;
  return checked_count(*this, std::int64_t{uvarint()} - 1, at);
}

void Reader::skip_tagged_fields() {
  const std::size_t at = pos_;
  const std::uint32_t count = uvarint();
  if (count > remaining()) {
    fail_at(at, std::to_string(count) + " tagged fields cannot fit in the " + std::to_string(remaining()) +
                    " bytes left");
  }
  for (std::uint32_t i = 0; i < count; ++i) {
    (void)uvarint();  // the tag: unknown tags are skipped, as Kafka keeps them aside
    const std::size_t size_at = pos_;
    const std::uint32_t size = uvarint();
    if (size > remaining()) {
      fail_at(size_at, "tagged field of " + std::to_string(size) + " bytes past the end (" +
                           std::to_string(remaining()) + " bytes left)");
    }
    pos_ += size;
  }
}

void Reader::expect_done(std::string_view what) const {
  if (!done()) fail(std::to_string(remaining()) + " unread bytes after the " + std::string(what));
}

void Writer::int8(std::int8_t v) { out_.push_back(static_cast<char>(v)); }

void Writer::int16(std::int16_t v) {
  const auto u = static_cast<std::uint16_t>(v);
  out_.push_back(static_cast<char>(u >> 8));
  out_.push_back(static_cast<char>(u & 0xFF));
}

void Writer::uint32(std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out_.push_back(static_cast<char>((v >> shift) & 0xFF));
}

void Writer::int32(std::int32_t v) { uint32(static_cast<std::uint32_t>(v)); }

void Writer::int64(std::int64_t v) {
  const auto u = static_cast<std::uint64_t>(v);
  for (int shift = 56; shift >= 0; shift -= 8) out_.push_back(static_cast<char>((u >> shift) & 0xFF));
}

void Writer::unsigned_varint(std::uint64_t v) {
  while (v >= 0x80) {
    out_.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out_.push_back(static_cast<char>(v));
}

void Writer::uvarint(std::uint32_t v) { unsigned_varint(v); }

void Writer::varint(std::int32_t v) {
  const auto u = static_cast<std::uint32_t>(v);
  unsigned_varint((u << 1) ^ (0u - (u >> 31)));
}

void Writer::varlong(std::int64_t v) {
  const auto u = static_cast<std::uint64_t>(v);
  unsigned_varint((u << 1) ^ (0ull - (u >> 63)));
}

void Writer::uuid(const Uuid& v) {
  for (std::uint8_t b : v) out_.push_back(static_cast<char>(b));
}

void Writer::string(std::string_view v) {
  LOGSIM_ASSERT(static_cast<std::int64_t>(v.size()) <= kMaxString, "string over 32767 bytes");
  int16(static_cast<std::int16_t>(v.size()));
  raw(v);
}

void Writer::nullable_string(const std::optional<std::string>& v) {
  if (v) return string(*v);
  int16(-1);
}

void Writer::compact_string(std::string_view v) {
  LOGSIM_ASSERT(static_cast<std::int64_t>(v.size()) <= kMaxString, "string over 32767 bytes");
  uvarint(static_cast<std::uint32_t>(v.size() + 1));
  raw(v);
}

void Writer::compact_nullable_string(const std::optional<std::string>& v) {
  if (v) return compact_string(*v);
  uvarint(0);
}

void Writer::bytes(std::string_view v) {
  LOGSIM_ASSERT(static_cast<std::int64_t>(v.size()) <= kMaxBytes, "bytes over 2^31-1");
  int32(static_cast<std::int32_t>(v.size()));
  raw(v);
}

void Writer::nullable_bytes(const std::optional<std::string>& v) {
  if (v) return bytes(*v);
  int32(-1);
}

void Writer::compact_bytes(std::string_view v) {
  LOGSIM_ASSERT(static_cast<std::int64_t>(v.size()) < kMaxBytes, "bytes over 2^31-2");
  uvarint(static_cast<std::uint32_t>(v.size() + 1));
  raw(v);
}

void Writer::compact_nullable_bytes(const std::optional<std::string>& v) {
  if (v) return compact_bytes(*v);
  uvarint(0);
}

void Writer::array_length(std::optional<std::size_t> count) {
  if (!count) return int32(-1);
  LOGSIM_ASSERT(static_cast<std::int64_t>(*count) <= kMaxBytes, "array over 2^31-1 elements");
  int32(static_cast<std::int32_t>(*count));
}

void Writer::compact_array_length(std::optional<std::size_t> count) {
  if (!count) return uvarint(0);
  LOGSIM_ASSERT(static_cast<std::int64_t>(*count) < kMaxBytes, "array over 2^31-2 elements");
  uvarint(static_cast<std::uint32_t>(*count + 1));
}

void Writer::patch_int32(std::size_t at, std::int32_t v) {
  LOGSIM_ASSERT(at + 4 <= out_.size(), "patch_int32 past the end");
  const auto u = static_cast<std::uint32_t>(v);
  for (std::size_t i = 0; i < 4; ++i) out_[at + i] = static_cast<char>((u >> (24 - 8 * i)) & 0xFF);
}

}  // namespace logsim::wire

// The byte codec of the coordinators' internal records (__consumer_offsets and
// __transaction_state): big-endian fixed-width integers, and strings as a uint32 length
// followed by the raw bytes, so any byte round-trips. Private to engine/coordinator/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace logsim::engine::codec {

// Appends big-endian integers and length-prefixed strings.
class Writer {
 public:
  Writer& u8(std::uint8_t v) {
    out_.push_back(static_cast<char>(v));
    return *this;
  }
  Writer& u64(std::uint64_t v, int bytes = 8) {
    for (int i = bytes - 1; i >= 0; --i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
    return *this;
  }
  Writer& i16(std::int16_t v) { return u64(static_cast<std::uint16_t>(v), 2); }
  Writer& i32(std::int32_t v) { return u64(static_cast<std::uint32_t>(v), 4); }
  Writer& i64(std::int64_t v) { return u64(static_cast<std::uint64_t>(v), 8); }
  Writer& str(std::string_view s) {
    u64(s.size(), 4);
    out_.append(s);
    return *this;
  }
  Writer& opt_str(const std::optional<std::string>& s) {
    u8(s.has_value() ? 1 : 0);
    return s ? str(*s) : *this;
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// Reads what Writer wrote. Every read checks the bytes left; after the first failure every
// read fails, so a decoder can read everything and check ok() once at the end.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  std::uint64_t u64(std::size_t bytes = 8) {
    if (!ok_ || in_.size() < bytes) return fail();
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < bytes; ++i) v = (v << 8) | static_cast<std::uint8_t>(in_[i]);
    in_.remove_prefix(bytes);
    return v;
  }
  std::uint8_t u8() { return static_cast<std::uint8_t>(u64(1)); }
  std::int16_t i16() { return static_cast<std::int16_t>(static_cast<std::uint16_t>(u64(2))); }
  std::int32_t i32() { return static_cast<std::int32_t>(static_cast<std::uint32_t>(u64(4))); }
  std::int64_t i64() { return static_cast<std::int64_t>(u64(8)); }
  std::string str() {
    const std::uint64_t n = u64(4);
    if (!ok_ || in_.size() < n) {
      fail();
      return {};
    }
    std::string s(in_.substr(0, n));
    in_.remove_prefix(n);
    return s;
  }
  std::optional<std::string> opt_str() {
    const std::uint8_t present = u8();
    if (present > 1) fail();
    if (present != 1) return std::nullopt;
    return str();
  }
  // True if every read succeeded and nothing is left over.
  bool done() const { return ok_ && in_.empty(); }
  bool ok() const { return ok_; }

 private:
  std::uint64_t fail() {
    ok_ = false;
    return 0;
  }
  std::string_view in_;
  bool ok_ = true;
};

}  // namespace logsim::engine::codec

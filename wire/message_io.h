// How message bodies are described once and coded both ways (internal to wire/).
//
// Each message has one function template, `describe(Io& io, M& m)`, that lists its fields in
// Kafka's order with the versions they exist in (`if (io.v >= 5) io.i64(p.log_start_offset)`).
// DecodeIo reads each field into a message; EncodeIo writes each field of a const message.
// So the field order, the version conditions and the nullability are written down once, and a
// decoder cannot disagree with its encoder. A field absent from a version keeps the default
// member initializer on decode (Kafka's "default") and is not written on encode.
//
// Flexible versions (KIP-482) are handled here, not in the descriptions: strings, bytes and
// arrays become compact and every struct (each array element, and the body) ends with a
// tagged-field section. Tagged fields are skipped on read and written empty.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/base/assert.h"
#include "wire/api.h"
#include "wire/codec.h"

namespace logsim::wire {

// `Like<M, T>`: M is T or const T, so one description serves the decoder and the encoder.
template <class M, class T>
concept Like = std::same_as<std::remove_const_t<M>, T>;

class DecodeIo {
 public:
  DecodeIo(Reader& r, std::int16_t version, bool flex) : v(version), flexible(flex), r_(r) {}

  const std::int16_t v;
  const bool flexible;

  void i8(std::int8_t& x) { x = r_.int8(); }
  void i16(std::int16_t& x) { x = r_.int16(); }
  void i32(std::int32_t& x) { x = r_.int32(); }
  void i64(std::int64_t& x) { x = r_.int64(); }
  void boolean(bool& x) { x = r_.boolean(); }
  void string(std::string& x) { x = flexible ? r_.compact_string() : r_.string(); }
  void nullable_string(std::optional<std::string>& x) {
    x = flexible ? r_.compact_nullable_string() : r_.nullable_string();
  }
  void bytes(std::string& x) { x = flexible ? r_.compact_bytes() : r_.bytes(); }
  void nullable_bytes(std::optional<std::string>& x) {
    x = flexible ? r_.compact_nullable_bytes() : r_.nullable_bytes();
  }

  // An array whose elements `element(io, x)` describes; each element is a struct.
  template <class T, class F>
  void array(std::vector<T>& xs, F&& element) {
    const std::size_t at = r_.offset();
    auto n = length();
    if (!n) r_.fail_at(at, "null array in a field that is not nullable");
    read_elements(xs, *n, element, true);
  }
  // A field that is nullable only in other versions: null is refused here.
  template <class T, class F>
  void array(std::optional<std::vector<T>>& xs, F&& element) {
    array(xs.emplace(), element);
  }
  template <class T, class F>
  void nullable_array(std::optional<std::vector<T>>& xs, F&& element) {
    auto n = length();
    if (!n) return xs.reset();
    xs.emplace();
    read_elements(*xs, *n, element, true);
  }
  // Arrays of a primitive ([]int32, []string): no tagged fields after each element.
  void int32_array(std::vector<std::int32_t>& xs) {
    array_of_primitives(xs, [](DecodeIo& io, std::int32_t& x) { io.i32(x); });
  }
  void string_array(std::vector<std::string>& xs) {
    array_of_primitives(xs, [](DecodeIo& io, std::string& x) { io.string(x); });
  }
  void nullable_string_array(std::optional<std::vector<std::string>>& xs) {
    auto n = length();
    if (!n) return xs.reset();
    xs.emplace();
    read_elements(*xs, *n, [](DecodeIo& io, std::string& x) { io.string(x); }, false);
  }
  void tagged_fields() {
    if (flexible) r_.skip_tagged_fields();
  }

 private:
  std::optional<std::size_t> length() { return flexible ? r_.compact_array_length() : r_.array_length(); }
  template <class T, class F>
  void array_of_primitives(std::vector<T>& xs, F&& element) {
    const std::size_t at = r_.offset();
    auto n = length();
    if (!n) r_.fail_at(at, "null array in a field that is not nullable");
    read_elements(xs, *n, element, false);
  }
  // Never reserves from the count: each element is read (and its bytes checked) first.
  template <class T, class F>
  void read_elements(std::vector<T>& xs, std::size_t n, F&& element, bool structs) {
    xs.clear();
    for (std::size_t i = 0; i < n; ++i) {
      T x{};
      element(*this, x);
      if (structs) tagged_fields();
      xs.push_back(std::move(x));
    }
  }

  Reader& r_;
};

class EncodeIo {
 public:
  EncodeIo(Writer& w, std::int16_t version, bool flex) : v(version), flexible(flex), w_(w) {}

  const std::int16_t v;
  const bool flexible;

  void i8(std::int8_t x) { w_.int8(x); }
  void i16(std::int16_t x) { w_.int16(x); }
  void i32(std::int32_t x) { w_.int32(x); }
  void i64(std::int64_t x) { w_.int64(x); }
  void boolean(bool x) { w_.boolean(x); }
  void string(const std::string& x) { flexible ? w_.compact_string(x) : w_.string(x); }
  void nullable_string(const std::optional<std::string>& x) {
    flexible ? w_.compact_nullable_string(x) : w_.nullable_string(x);
  }
  void bytes(const std::string& x) { flexible ? w_.compact_bytes(x) : w_.bytes(x); }
  void nullable_bytes(const std::optional<std::string>& x) {
    flexible ? w_.compact_nullable_bytes(x) : w_.nullable_bytes(x);
  }

  template <class T, class F>
  void array(const std::vector<T>& xs, F&& element) {
    write_elements(xs, element, true);
  }
  template <class T, class F>
  void array(const std::optional<std::vector<T>>& xs, F&& element) {
    LOGSIM_ASSERT(xs.has_value(), "a null array in a version where the field is not nullable");
    write_elements(*xs, element, true);
  }
  template <class T, class F>
  void nullable_array(const std::optional<std::vector<T>>& xs, F&& element) {
    if (!xs) return length(std::nullopt);
    write_elements(*xs, element, true);
  }
  void int32_array(const std::vector<std::int32_t>& xs) {
    write_elements(xs, [](EncodeIo& io, std::int32_t x) { io.i32(x); }, false);
  }
  void string_array(const std::vector<std::string>& xs) {
    write_elements(xs, [](EncodeIo& io, const std::string& x) { io.string(x); }, false);
  }
  void nullable_string_array(const std::optional<std::vector<std::string>>& xs) {
    if (!xs) return length(std::nullopt);
    string_array(*xs);
  }
  void tagged_fields() {
    if (flexible) w_.empty_tagged_fields();
  }

 private:
  void length(std::optional<std::size_t> n) { flexible ? w_.compact_array_length(n) : w_.array_length(n); }
  template <class T, class F>
  void write_elements(const std::vector<T>& xs, F&& element, bool structs) {
    length(xs.size());
    for (const T& x : xs) {
      element(*this, x);
      if (structs) tagged_fields();
    }
  }

  Writer& w_;
};

// The shape most Kafka APIs share: an array of topics, each a name and an array of partitions,
// e.g. topics(io, m.topic_data, &Topic::name, &Topic::partition_data, partition), where
// `partition(io, p)` describes one partition.
template <class Io, class Topics, class Topic, class Partition, class F>
void topics(Io& io, Topics& xs, std::string Topic::*name, std::vector<Partition> Topic::*partitions,
            F&& partition) {
  io.array(xs, [&](auto& io2, auto& t) {
    io2.string(t.*name);
    io2.array(t.*partitions, partition);
  });
}

// Decodes a whole body of message M at `version` (M::kApiKey says whether it is flexible).
template <class M>
M decode_body(Reader& r, std::int16_t version) {
  LOGSIM_ASSERT(is_supported(M::kApiKey, version), "decoding an unsupported version");
  M m{};
  DecodeIo io(r, version, is_flexible(M::kApiKey, version));
  describe(io, m);
  io.tagged_fields();
  return m;
}

template <class M>
void encode_body(Writer& w, const M& m, std::int16_t version) {
  LOGSIM_ASSERT(is_supported(M::kApiKey, version), "encoding an unsupported version");
  EncodeIo io(w, version, is_flexible(M::kApiKey, version));
  describe(io, m);
  io.tagged_fields();
}

}  // namespace logsim::wire

// Defines the four public codec functions of one API (declared by LOGSIM_WIRE_DECLARE_CODECS
// in its header) from its two descriptions.
#define LOGSIM_WIRE_DEFINE_CODECS(name, Request, Response)                                          \
  Request decode_##name##_request(Reader& r, std::int16_t v) { return decode_body<Request>(r, v); }  \
  void encode_##name##_request(Writer& w, const Request& m, std::int16_t v) { encode_body(w, m, v); } \
  Response decode_##name##_response(Reader& r, std::int16_t v) { return decode_body<Response>(r, v); } \
  void encode_##name##_response(Writer& w, const Response& m, std::int16_t v) { encode_body(w, m, v); } \
  void decode(Reader& r, std::int16_t v, Request& out) { out = decode_body<Request>(r, v); }        \
  void decode(Reader& r, std::int16_t v, Response& out) { out = decode_body<Response>(r, v); }      \
  void encode(Writer& w, const Request& m, std::int16_t v) { encode_body(w, m, v); }                \
  void encode(Writer& w, const Response& m, std::int16_t v) { encode_body(w, m, v); }

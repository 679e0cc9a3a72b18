// A cursor over a JSON document that knows its JSON pointer, for precise load errors.
// Internal to the loader.
#pragma once

#include <nlohmann/json.hpp>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/types.h"

namespace logsim::scenarios {

class JsonReader {
 public:
  JsonReader(const nlohmann::json& j, std::string pointer, const std::string& file)
      : j_(j), pointer_(std::move(pointer)), file_(file) {}

  const std::string& pointer() const { return pointer_; }
  const std::string& file() const { return file_; }
  const nlohmann::json& json() const { return j_; }

  [[noreturn]] void fail(const std::string& problem, const std::string& expected) const;

  // Requires an object whose keys are all in `allowed` (did-you-mean for the rest).
  void expect_object(const std::vector<std::string>& allowed) const;
  bool has(const std::string& key) const { return j_.is_object() && j_.contains(key); }
  JsonReader at(const std::string& key) const;  // the key must exist
  std::optional<JsonReader> get(const std::string& key) const;
  std::vector<JsonReader> items() const;        // requires an array

  std::string string() const;
  std::int64_t integer(std::int64_t lo, std::int64_t hi) const;
  double number(double lo, double hi) const;
  bool boolean() const;
  Nanos duration() const;  // "250ms", "5s", ...
  // A Kafka config value: a number, or a string holding one (Kafka properties are strings).
  std::int64_t config_integer(std::int64_t lo, std::int64_t hi) const;

 private:
  static std::string escape(const std::string& key);
  const nlohmann::json& j_;
  std::string pointer_;
  const std::string& file_;
};

}  // namespace logsim::scenarios

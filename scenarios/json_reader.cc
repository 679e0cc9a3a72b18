// JsonReader: typed, range-checked reads that fail with the JSON pointer of the bad value.
#include "scenarios/json_reader.h"

#include <charconv>

#include "scenarios/loader.h"

namespace logsim::scenarios {
namespace {

std::string type_name(const nlohmann::json& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "a boolean";
  if (j.is_number_integer() || j.is_number_unsigned()) return "an integer";
  if (j.is_number()) return "a number";
  if (j.is_string()) return "a string";
  if (j.is_array()) return "an array";
  return "an object";
}

std::string shown(const nlohmann::json& j) {
  std::string s = j.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

}  // namespace

void JsonReader::fail(const std::string& problem, const std::string& expected) const {
  throw ScenarioError(file_, pointer_.empty() ? "/" : pointer_, problem, expected);
}

std::string JsonReader::escape(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

void JsonReader::expect_object(const std::vector<std::string>& allowed) const {
  if (!j_.is_object()) fail("found " + type_name(j_), "an object");
  for (const auto& [key, value] : j_.items()) {
    bool ok = false;
    for (const auto& a : allowed) ok = ok || a == key;
    if (ok) continue;
    JsonReader bad(value, pointer_ + "/" + escape(key), file_);
    std::string expected = "one of:";
    for (const auto& a : allowed) expected += " " + a;
    if (auto guess = did_you_mean(key, allowed)) expected = "did you mean \"" + *guess + "\"?";
    bad.fail("unknown key \"" + key + "\"", expected);
  }
}

JsonReader JsonReader::at(const std::string& key) const {
  if (!j_.is_object()) fail("found " + type_name(j_), "an object");
  if (!j_.contains(key)) fail("missing required key \"" + key + "\"", "\"" + key + "\" to be present");
  return JsonReader(j_.at(key), pointer_ + "/" + escape(key), file_);
}

std::optional<JsonReader> JsonReader::get(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return at(key);
}

std::vector<JsonReader> JsonReader::items() const {
  if (!j_.is_array()) fail("found " + type_name(j_), "an array");
  std::vector<JsonReader> out;
  for (std::size_t i = 0; i < j_.size(); ++i) out.emplace_back(j_[i], pointer_ + "/" + std::to_string(i), file_);
  return out;
}

std::string JsonReader::string() const {
  if (!j_.is_string()) fail("found " + type_name(j_) + " " + shown(j_), "a string");
  return j_.get<std::string>();
}

std::int64_t JsonReader::integer(std::int64_t lo, std::int64_t hi) const {
  if (!j_.is_number_integer() && !j_.is_number_unsigned()) {
    fail("found " + type_name(j_) + " " + shown(j_), "an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
  }
  if (j_.is_number_unsigned() && j_.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
    fail("found " + shown(j_), "an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
  }
  const auto v = j_.get<std::int64_t>();
  if (v < lo || v > hi) fail("found " + std::to_string(v), "an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
  return v;
}

double JsonReader::number(double lo, double hi) const {
  if (!j_.is_number()) fail("found " + type_name(j_) + " " + shown(j_), "a number");
  const auto v = j_.get<double>();
  if (!(v >= lo && v <= hi)) fail("found " + shown(j_), "a number from " + std::to_string(lo) + " to " + std::to_string(hi));
  return v;
}

bool JsonReader::boolean() const {
  if (!j_.is_boolean()) fail("found " + type_name(j_) + " " + shown(j_), "true or false");
  return j_.get<bool>();
}

Nanos JsonReader::duration() const {
  const std::string expected = "a duration such as \"250ms\", \"5s\", \"2m\", \"1h\" or \"7d\"";
  if (!j_.is_string()) fail("found " + type_name(j_) + " " + shown(j_), expected);
  auto d = parse_duration(j_.get<std::string>());
  if (!d) fail("found \"" + j_.get<std::string>() + "\"", expected);
  return *d;
}

std::int64_t JsonReader::config_integer(std::int64_t lo, std::int64_t hi) const {
  if (j_.is_string()) {
    const auto s = j_.get<std::string>();
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) {
      fail("found \"" + s + "\"", "an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    }
    if (v < lo || v > hi) fail("found " + s, "an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    return v;
  }
  return integer(lo, hi);
}

}  // namespace logsim::scenarios

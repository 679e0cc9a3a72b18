// The strict reader of one history.jsonl line (nlohmann::json): the reference for what a line
// may hold and for every error message (reports/history_line.h).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/history_jsonl.h"
#include "reports/history_line.h"
#include "scenarios/loader.h"

namespace logsim::reports {
namespace {

using properties::HistoryEvent;
using properties::OpKind;

const std::vector<std::string> kKeys = {"index", "at_ns", "op", "process", "group", "generation", "topic", "partition",
                                        "offset", "key", "value_id", "idempotent", "assignment", "error", "note",
                                        "commit_id", "log_start_offset", "high_watermark", "records", "tombstone",
                                        "read_committed", "source_value_id"};

std::vector<std::string> op_names() {
  std::vector<std::string> out;
  for (int k = 0; k < 64; ++k) {
    const auto name = properties::op_kind_name(static_cast<OpKind>(k));
    if (name == "?") break;
    out.emplace_back(name);
  }
  return out;
}

class LineReader {
 public:
  LineReader(const nlohmann::json& j, const std::string& file, std::size_t line) : j_(j), file_(file), line_(line) {}

  [[noreturn]] void fail(const std::string& problem, const std::string& expected) const {
    throw HistoryFileError(file_, line_, problem, expected);
  }
  const nlohmann::json* get(const char* key) const {
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  std::int64_t integer(const char* key, std::int64_t lo, std::int64_t hi, std::int64_t absent) const {
    const auto* v = get(key);
    if (v == nullptr) return absent;
    if (!v->is_number_integer()) fail("\"" + std::string(key) + "\" is " + type_of(*v), "an integer");
    const auto x = v->get<std::int64_t>();
    if (x < lo || x > hi) fail("\"" + std::string(key) + "\" is " + std::to_string(x), "an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    return x;
  }
  // An offset, partition or generation: absent (or -1, Kafka's "none") is none.
  template <typename T>
  std::optional<T> id(const char* key) const {
    using Rep = typename T::rep;
    return properties::known(T(static_cast<Rep>(integer(key, -1, std::numeric_limits<Rep>::max(), -1))));
  }
  std::string string(const char* key) const {
    const auto* v = get(key);
    if (v == nullptr) return {};
    if (!v->is_string()) fail("\"" + std::string(key) + "\" is " + type_of(*v), "a string");
    return v->get<std::string>();
  }
  static std::string type_of(const nlohmann::json& v) {
    const std::string name = v.type_name();
    return (name == "object" || name == "array" ? "an " : "a ") + name;
  }

 private:
  const nlohmann::json& j_;
  const std::string& file_;
  std::size_t line_;
};

HistoryEvent read_event(const nlohmann::json& j, const std::string& file, std::size_t line, std::size_t index) {
  const LineReader r(j, file, line);
  if (!j.is_object()) r.fail("the line is " + LineReader::type_of(j), "one JSON object per line");
  for (const auto& [key, _] : j.items()) {
    if (std::find(kKeys.begin(), kKeys.end(), key) != kKeys.end()) continue;
    auto guess = scenarios::did_you_mean(key, kKeys);
    r.fail("unknown key \"" + key + "\"", guess ? "did you mean \"" + *guess + "\"?" : "the keys of docs/history.md");
  }
  HistoryEvent e;
  const std::string op = r.string("op");
  if (r.get("op") == nullptr) r.fail("no \"op\"", "\"op\": one of the ops of docs/history.md, e.g. \"send-ok\"");
  const auto kind = properties::op_kind_from_name(op);
  if (!kind) {
    const auto names = op_names();
    auto guess = scenarios::did_you_mean(op, names);
    std::string all;
    for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
    r.fail("unknown op \"" + op + "\"", guess ? "did you mean \"" + *guess + "\"?" : "one of " + all);
  }
  e.kind = *kind;
  if (r.get("at_ns") == nullptr) r.fail("no \"at_ns\"", "\"at_ns\": the event's time in nanoseconds");
  e.at = r.integer("at_ns", 0, INT64_MAX, 0);
  const std::int64_t given_index = r.integer("index", 0, INT64_MAX, static_cast<std::int64_t>(index));
  if (given_index != static_cast<std::int64_t>(index)) {
    r.fail("\"index\" is " + std::to_string(given_index), "the event's position in the file, " + std::to_string(index) + " (or no index)");
  }
  e.process = r.string("process");
  e.group = r.string("group");
  e.generation = r.id<GenerationId>("generation");
  e.topic = r.string("topic");
  e.partition = r.id<PartitionId>("partition");
  e.offset = r.id<Offset>("offset");
  if (const auto* k = r.get("key")) {
    if (!k->is_string() && !k->is_null()) r.fail("\"key\" is " + LineReader::type_of(*k), "a string, or null");
    if (k->is_string()) e.key = k->get<std::string>();
  }
  if (const auto* v = r.get("value_id")) {
    if (!v->is_number_unsigned()) r.fail("\"value_id\" is " + LineReader::type_of(*v), "a positive integer");
    e.value_id = v->get<std::uint64_t>();
  }
  if (const auto* v = r.get("records")) {
    if (!v->is_number_unsigned() || v->get<std::uint64_t>() > UINT32_MAX) {
      r.fail("\"records\" is " + LineReader::type_of(*v), "a count of records, 0 to 4294967295");
    }
    e.records = static_cast<std::uint32_t>(v->get<std::uint64_t>());
  }
  if (const auto* v = r.get("idempotent")) {
    if (!v->is_boolean()) r.fail("\"idempotent\" is " + LineReader::type_of(*v), "true or false");
    e.idempotent = v->get<bool>();
  }
  if (const auto* v = r.get("tombstone")) {
    if (!v->is_boolean()) r.fail("\"tombstone\" is " + LineReader::type_of(*v), "true or false");
    e.tombstone = v->get<bool>();
  }
  if (const auto* v = r.get("read_committed")) {
    if (!v->is_boolean()) r.fail("\"read_committed\" is " + LineReader::type_of(*v), "true or false");
    e.read_committed = v->get<bool>();
  }
  if (const auto* a = r.get("assignment")) {
    if (!a->is_array()) r.fail("\"assignment\" is " + LineReader::type_of(*a), "a list of {\"topic\", \"partition\"}");
    for (const auto& tp : *a) {
      if (!tp.is_object() || !tp.contains("topic") || !tp["topic"].is_string() || !tp.contains("partition") ||
          !tp["partition"].is_number_integer()) {
        r.fail("an assignment entry is " + tp.dump(), "{\"topic\": \"orders\", \"partition\": 0}");
      }
      e.assignment.push_back({tp["topic"].get<std::string>(), PartitionId(tp["partition"].get<std::int32_t>())});
    }
  }
  e.error = r.string("error");
  e.note = r.string("note");
  if (const auto* v = r.get("commit_id")) {
    if (!v->is_number_unsigned()) r.fail("\"commit_id\" is " + LineReader::type_of(*v), "a positive integer");
    e.commit_id = v->get<std::uint64_t>();
  }
  if (const auto* v = r.get("source_value_id")) {
    if (!v->is_number_unsigned()) r.fail("\"source_value_id\" is " + LineReader::type_of(*v), "a positive integer");
    e.source_value_id = v->get<std::uint64_t>();
  }
  e.log_start_offset = r.id<Offset>("log_start_offset");
  e.high_watermark = r.id<Offset>("high_watermark");
  return e;
}

}  // namespace

HistoryEvent parse_history_line(std::string_view line, const std::string& file, std::size_t line_no, std::uint64_t index) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::parse_error& e) {
    throw HistoryFileError(file, line_no, "not valid JSON (byte " + std::to_string(e.byte) + " of the line)",
                           "one JSON object per line");
  } catch (const nlohmann::json::out_of_range&) {
    // A number beyond a double (1e999): nlohmann refuses it apart from syntax errors.
    throw HistoryFileError(file, line_no, "not valid JSON (a number out of range)", "one JSON object per line");
  }
  return read_event(j, file, line_no, index);
}

}  // namespace logsim::reports

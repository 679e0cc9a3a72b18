// The text shared by report.html and its timeline (see html_text.h).
#include "reports/html_text.h"

#include <fmt/format.h>

#include "reports/junit.h"

namespace logsim::reports::html {

using properties::HistoryEvent;
using properties::OpKind;

std::string esc(std::string_view s) { return xml_escape(s); }

std::string seconds(double ms) { return fmt::format("{:.3f}s", ms / 1000.0); }
double ms_of(Nanos t) { return static_cast<double>(t) / 1e6; }

std::string str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return {};
  return it->is_string() ? it->get<std::string>() : it->dump();
}

std::int64_t int_or(const nlohmann::json& j, const char* key, std::int64_t fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<std::int64_t>() : fallback;
}

std::string event_line(const HistoryEvent& e) {
  std::string s = fmt::format("#{} {} {}", e.index, seconds(ms_of(e.at)), properties::op_kind_name(e.kind));
  if (!e.process.empty()) s += " " + e.process;
  if (!e.group.empty()) s += fmt::format(" group {}", e.group);
  if (e.generation) s += fmt::format(" gen {}", e.generation->value());
  if (!e.topic.empty()) s += e.partition ? fmt::format(" {}/{}", e.topic, e.partition->value()) : " " + e.topic;
  if (e.offset) s += fmt::format(" @{}", e.offset->value());
  if (e.key) s += " key=" + *e.key;
  if (e.value_id != 0) s += fmt::format(" value#{}", e.value_id);
  if (e.kind == OpKind::kAssign) {
    s += " [";
    for (std::size_t i = 0; i < e.assignment.size(); ++i) s += fmt::format("{}{}/{}", i ? " " : "", e.assignment[i].topic, e.assignment[i].partition.value());
    s += "]";
  }
  if (!e.error.empty()) s += " " + e.error;
  if (!e.note.empty()) s += " (" + e.note + ")";
  return s;
}

}  // namespace logsim::reports::html

// The text report.html and its timeline (reports/html_timeline.h) both write: HTML escaping,
// simulated times, a summary field as text, and one history event as one line (the timeline's
// tooltips and the page's table around the first violation say the same). Internal to the
// report's files. Only esc() escapes: the others return plain text, which the caller escapes
// where it writes it into the page.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engine/base/types.h"
#include "properties/history.h"

namespace logsim::reports::html {

// `s` with & < > " and ' escaped (and control characters but tab and newlines as ?), as in
// junit.xml (xml_escape): safe in HTML text and in a quoted attribute value.
std::string esc(std::string_view s);
// A time in milliseconds, in seconds to the millisecond: "1.250s".
std::string seconds(double ms);
// Simulated nanoseconds in milliseconds.
double ms_of(Nanos t);
// The value of `key` in a summary object as text: a string as it is, anything else as JSON, and
// "" when the key is missing or null.
std::string str(const nlohmann::json& j, const char* key);
// The integer at `key` in a summary object, or `fallback` when it is missing, null or not an integer.
std::int64_t int_or(const nlohmann::json& j, const char* key, std::int64_t fallback);
// One event as one line of text: index, time, kind, and whichever of its fields it has.
std::string event_line(const properties::HistoryEvent& e);

}  // namespace logsim::reports::html

// One line of history.jsonl to one event, two ways (internal to reports/history_jsonl.cc).
//
// scan_history_line is the fast path: a hand-rolled scanner for the lines logsim writes and
// for hand-written lines of the same shape (known keys in any order, each once; integers in
// range; strings without escapes, control characters or non-ASCII bytes; whitespace between
// tokens). It accepts a line only when the strict reader would accept it and give the same
// event; on anything else it gives up (returns false) without saying why.
//
// parse_history_line is the strict reader (nlohmann::json): it accepts every valid line and
// refuses every other with HistoryFileError naming the file, the line, what is wrong and what
// was expected. It is the reference: a line the scanner gives up on goes to it, so the errors
// are always its own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "properties/history.h"

namespace logsim::reports {

// Fills `out` from `line` (no '\n') and returns true, or returns false with `out` in some
// unspecified state. `index` is the event's position: a line's "index", if given, must equal it.
bool scan_history_line(std::string_view line, std::uint64_t index, properties::HistoryEvent& out);

// The event on `line`, line number `line_no` of `file`, at position `index`. Throws
// HistoryFileError.
properties::HistoryEvent parse_history_line(std::string_view line, const std::string& file, std::size_t line_no,
                                            std::uint64_t index);

}  // namespace logsim::reports

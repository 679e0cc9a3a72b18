// history.jsonl: the history as JSON lines, one event per line (docs/history.md), written by
// `logsim run --out DIR` / `--history FILE` and read back by `logsim check`, so a history
// recorded from a real system can be checked by the same checkers.
//
// Each line is an object with "op" (send-invoke, send-ok, ..., see docs/history.md) and
// "at_ns"; the other fields appear only when they carry something (a partition of -1, an
// empty group, ... are left out). Reading is strict: an unknown key or op, a wrong type, or
// time going backwards is an error naming the file, the line and what was expected.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "properties/history.h"

namespace logsim::reports {

// The history as JSON lines (each line ends with '\n').
std::string history_jsonl(const properties::History& history);

class HistoryFileError : public std::runtime_error {
 public:
  HistoryFileError(const std::string& file, std::size_t line, const std::string& problem, const std::string& expected);
};

// Parses JSON lines into a history (indices are the line order; blank lines are skipped).
// Throws HistoryFileError.
properties::History read_history_jsonl(std::string_view text, const std::string& file);
properties::History read_history_file(const std::string& path);

}  // namespace logsim::reports

// history.jsonl: the history as JSON lines, one event per line (docs/history.md), written by
// `logsim run --out DIR` / `--history FILE` and read back by `logsim check`, so a history
// recorded from a real system can be checked by the same checkers.
//
// Each line is an object with "op" (send-invoke, send-ok, ..., see docs/history.md) and
// "at_ns"; the other fields appear only when they carry something (a partition of -1, an
// empty group, ... are left out). Reading is strict: an unknown key or op, a wrong type, or
// time going backwards is an error naming the file, the line and what was expected.
//
// Reading streams: a file is read in chunks and each event is shown to a callback as soon as
// its line is parsed, so checking a history holds neither the file nor the history in memory.
// Most lines take a fast hand-rolled scanner; any line it is not sure of (an escape, unusual
// keys or numbers, a mistake) goes to the strict nlohmann-based reader, whose errors are the
// ones reported (reports/history_line.h).
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "properties/history.h"

namespace logsim::reports {

// The history as JSON lines (each line ends with '\n').
std::string history_jsonl(const properties::History& history);
// One event's line (ending with '\n'), for writing a history as it is made.
std::string history_jsonl_line(const properties::HistoryEvent& event);

class HistoryFileError : public std::runtime_error {
 public:
  HistoryFileError(const std::string& file, std::size_t line, const std::string& problem, const std::string& expected);
};

// Shown each event as it is read, with its index set (its position among the events). The
// event is the reader's and is reused for the next line: copy what is kept.
using HistoryEventSink = std::function<void(const properties::HistoryEvent&)>;

struct HistoryReadOptions {
  // Bytes read from the stream at a time (a line longer than this grows the buffer). Default
  // 1 MiB: large enough that reading costs little, small enough to stay in cache.
  std::size_t chunk_bytes = std::size_t{1} << 20;
  // Called after each chunk with the bytes read and the events shown so far (for a progress
  // display); may be empty.
  std::function<void(std::uint64_t bytes, std::uint64_t events)> on_chunk;
};

// Reads JSON lines from `in` (named `file` in errors), showing each event to `sink` in order.
// Blank lines are skipped. Returns the number of events. Throws HistoryFileError (a read that
// fails, a line that is wrong: the events before it have been shown).
std::uint64_t read_history_stream(std::istream& in, const std::string& file, const HistoryEventSink& sink,
                                  const HistoryReadOptions& options = {});
// The same from a file (an error names `path`; line 0 when it cannot be opened).
std::uint64_t read_history_file(const std::string& path, const HistoryEventSink& sink, const HistoryReadOptions& options = {});
// The same from text in memory.
std::uint64_t read_history_jsonl(std::string_view text, const std::string& file, const HistoryEventSink& sink);

// Parses JSON lines into a history (indices are the line order; blank lines are skipped).
// Throws HistoryFileError.
properties::History read_history_jsonl(std::string_view text, const std::string& file);
properties::History read_history_file(const std::string& path);

}  // namespace logsim::reports

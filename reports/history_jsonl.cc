// Writing history.jsonl, and reading it as a stream: lines split out of chunks, each parsed by
// the fast scanner or else the strict reader (reports/history_line.h), then checked for time
// order and shown to the caller.
#include "reports/history_jsonl.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/history_line.h"
#include "scenarios/loader.h"

namespace logsim::reports {
namespace {

using properties::HistoryEvent;
using properties::OpKind;

// Fields in a fixed, readable order: index, time and op first.
nlohmann::ordered_json event_json(const HistoryEvent& e) {
  nlohmann::ordered_json j;
  j["index"] = e.index;
  j["at_ns"] = e.at;
  j["op"] = properties::op_kind_name(e.kind);
  if (!e.process.empty()) j["process"] = e.process;
  if (!e.group.empty()) j["group"] = e.group;
  if (e.generation) j["generation"] = e.generation->value();
  if (!e.topic.empty()) j["topic"] = e.topic;
  if (e.partition) j["partition"] = e.partition->value();
  if (e.offset) j["offset"] = e.offset->value();
  if (e.key) j["key"] = *e.key;
  if (e.value_id != 0) j["value_id"] = e.value_id;
  if (e.idempotent) j["idempotent"] = true;
  if (e.tombstone) j["tombstone"] = true;
  if (e.read_committed) j["read_committed"] = true;
  if (e.kind == OpKind::kPoll) j["records"] = e.records;
  if (e.kind == OpKind::kAssign) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const auto& tp : e.assignment) a.push_back({{"topic", tp.topic}, {"partition", tp.partition.value()}});
    j["assignment"] = std::move(a);
  }
  if (!e.error.empty()) j["error"] = e.error;
  if (!e.note.empty()) j["note"] = e.note;
  if (e.commit_id != 0) j["commit_id"] = e.commit_id;
  if (e.source_value_id != 0) j["source_value_id"] = e.source_value_id;
  if (e.log_start_offset) j["log_start_offset"] = e.log_start_offset->value();
  if (e.high_watermark) j["high_watermark"] = e.high_watermark->value();
  return j;
}

// Lines to events: skips blank lines, parses the rest (fast path first), keeps time in order.
class LineDecoder {
 public:
  LineDecoder(const std::string& file, const HistoryEventSink& sink) : file_(file), sink_(sink) {}

  // One line, without its '\n'.
  void line(std::string_view text) {
    ++line_no_;
    if (text.empty() || (text.front() != '{' && text.find_first_not_of(" \t\r") == std::string_view::npos)) return;
    if (!scan_history_line(text, events_, event_)) event_ = parse_history_line(text, file_, line_no_, events_);
    if (event_.at < last_) {
      throw HistoryFileError(file_, line_no_, "time goes back, to " + std::to_string(event_.at) + " ns after " + std::to_string(last_),
                             "events in time order");
    }
    last_ = event_.at;
    event_.index = events_++;
    sink_(event_);
  }
  std::size_t line_no() const { return line_no_; }
  std::uint64_t events() const { return events_; }

 private:
  const std::string& file_;
  const HistoryEventSink& sink_;
  std::size_t line_no_ = 0;
  std::uint64_t events_ = 0;
  Nanos last_ = 0;
  HistoryEvent event_;  // reused line after line: its strings keep their storage
};

}  // namespace

HistoryFileError::HistoryFileError(const std::string& file, std::size_t line, const std::string& problem,
                                   const std::string& expected)
    : std::runtime_error(file + ":" + std::to_string(line) + ": " + problem + scenarios::expected_clause(expected)) {}

std::string history_jsonl(const properties::History& history) {
  std::string out;
  for (const auto& e : history.events()) out += history_jsonl_line(e);
  return out;
}

std::string history_jsonl_line(const properties::HistoryEvent& event) { return event_json(event).dump() + "\n"; }

std::uint64_t read_history_stream(std::istream& in, const std::string& file, const HistoryEventSink& sink,
                                  const HistoryReadOptions& options) {
  LineDecoder decoder(file, sink);
  std::vector<char> buf(std::max<std::size_t>(options.chunk_bytes, 1));
  std::size_t kept = 0;  // bytes at buf's start: a line whose end is not read yet
  std::uint64_t bytes = 0;
  for (;;) {
    if (kept == buf.size()) buf.resize(buf.size() * 2);  // one line longer than the buffer
    in.read(buf.data() + kept, static_cast<std::streamsize>(buf.size() - kept));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (in.bad()) throw HistoryFileError(file, decoder.line_no() + 1, "the file could not be read", "a readable history.jsonl");
    if (got == 0) break;
    bytes += got;
    const char* p = buf.data();
    const char* const end = buf.data() + kept + got;
    while (const auto* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)))) {
      decoder.line(std::string_view(p, static_cast<std::size_t>(nl - p)));
      p = nl + 1;
    }
    kept = static_cast<std::size_t>(end - p);
    std::memmove(buf.data(), p, kept);
    if (options.on_chunk) options.on_chunk(bytes, decoder.events());
  }
  if (kept > 0) decoder.line(std::string_view(buf.data(), kept));  // the last line has no '\n'
  return decoder.events();
}

std::uint64_t read_history_file(const std::string& path, const HistoryEventSink& sink, const HistoryReadOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw HistoryFileError(path, 0, "cannot open the file", "a readable history.jsonl");
  return read_history_stream(in, path, sink, options);
}

std::uint64_t read_history_jsonl(std::string_view text, const std::string& file, const HistoryEventSink& sink) {
  LineDecoder decoder(file, sink);
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    decoder.line(text.substr(start, end - start));
    start = end + 1;
  }
  return decoder.events();
}

properties::History read_history_jsonl(std::string_view text, const std::string& file) {
  properties::History h;
  read_history_jsonl(text, file, [&h](const HistoryEvent& e) { h.append(e); });
  return h;
}

properties::History read_history_file(const std::string& path) {
  properties::History h;
  read_history_file(path, [&h](const HistoryEvent& e) { h.append(e); });
  return h;
}

}  // namespace logsim::reports

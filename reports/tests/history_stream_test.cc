// The streaming history reader (fast scanner first, the strict reader for the rest) against the
// reference: each line through the strict nlohmann-based reader alone, as logsim read histories
// before the fast path. Same events, field by field, or the same error (file, line, message), on
// varied lines, on thousands of mutated lines, and with chunk boundaries anywhere in a line.
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "reports/history_jsonl.h"
#include "reports/history_line.h"

namespace logsim::reports {
namespace {

using properties::HistoryEvent;
using properties::OpKind;

std::string describe(const HistoryEvent& e) {
  std::string s = std::to_string(e.index) + "|" + std::to_string(e.at) + "|" + std::string(properties::op_kind_name(e.kind)) +
                  "|" + e.process + "|" + e.group + "|" + std::to_string(properties::History::packed(e.generation)) + "|" +
                  e.topic + "|" + std::to_string(properties::History::packed(e.partition)) + "|" +
                  std::to_string(properties::History::packed(e.offset)) + "|" + (e.key ? "\"" + *e.key + "\"" : "<null>") + "|" +
                  std::to_string(e.value_id) + "|" + (e.idempotent ? "idem" : "") + "|" + e.error + "|" + e.note + "|" +
                  std::to_string(e.commit_id) + "|" + std::to_string(e.source_value_id) + "|" + std::to_string(properties::History::packed(e.log_start_offset)) + "|" +
                  std::to_string(properties::History::packed(e.high_watermark)) + "|[";
  for (const auto& tp : e.assignment) s += tp.topic + "/" + std::to_string(tp.partition.value()) + " ";
  return s + "]";
}

// What a read gives: each event described, then the error if one stopped it.
struct Outcome {
  std::vector<std::string> events;
  std::string error;
};

// The reference: every line through the strict reader, as read_history_jsonl did before the
// fast path (blank lines skipped, time order checked after the line is read).
Outcome reference(std::string_view text) {
  Outcome out;
  std::size_t line_no = 0;
  std::size_t start = 0;
  Nanos last = 0;
  try {
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      const std::string_view line = text.substr(start, end - start);
      start = end + 1;
      ++line_no;
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      HistoryEvent e = parse_history_line(line, "h.jsonl", line_no, out.events.size());
      if (e.at < last) {
        throw HistoryFileError("h.jsonl", line_no, "time goes back, to " + std::to_string(e.at) + " ns after " + std::to_string(last),
                               "events in time order");
      }
      last = e.at;
      e.index = out.events.size();
      out.events.push_back(describe(e));
    }
  } catch (const HistoryFileError& e) {
    out.error = e.what();
  }
  return out;
}

Outcome from_text(std::string_view text) {
  Outcome out;
  try {
    read_history_jsonl(text, "h.jsonl", [&out](const HistoryEvent& e) { out.events.push_back(describe(e)); });
  } catch (const HistoryFileError& e) {
    out.error = e.what();
  }
  return out;
}

Outcome from_stream(const std::string& text, std::size_t chunk_bytes) {
  Outcome out;
  std::istringstream in(text);
  HistoryReadOptions options;
  options.chunk_bytes = chunk_bytes;
  try {
    read_history_stream(in, "h.jsonl", [&out](const HistoryEvent& e) { out.events.push_back(describe(e)); }, options);
  } catch (const HistoryFileError& e) {
    out.error = e.what();
  }
  return out;
}

void expect_same(const Outcome& got, const Outcome& want, const std::string& text) {
  EXPECT_EQ(got.error, want.error) << text;
  EXPECT_EQ(got.events, want.events) << text;
}

// Lines of every op and every field, in logsim's own shape and in hand-written ones.
const std::vector<std::string> kValidLines = {
    R"({"index":0,"at_ns":1,"op":"send-invoke","process":"shop-1","topic":"orders","key":"key-7","value_id":1,"idempotent":true})",
    R"({"index":1,"at_ns":2,"op":"send-ok","process":"shop-1","topic":"orders","partition":2,"offset":0,"key":"key-7","value_id":1})",
    R"({"at_ns":2,"op":"send-invoke","process":"copier-1","topic":"out","key":"key-7","value_id":90,"source_value_id":1})",
    R"({"at_ns":3,"op":"send-fail","process":"shop-1","topic":"orders","key":null,"value_id":2,"error":"NOT_ENOUGH_REPLICAS"})",
    R"({"at_ns":3,"op":"send-info","process":"shop-1","topic":"orders","value_id":3,"error":"REQUEST_TIMED_OUT","idempotent":false})",
    R"({"at_ns":4,"op":"assign","process":"billing-1","group":"billing","generation":1,"assignment":[{"topic":"orders","partition":0},{"topic":"orders","partition":2}],"note":"assigned"})",
    R"({"at_ns":4,"op":"assign","process":"billing-2","group":"billing","generation":1,"assignment":[],"note":"revoked"})",
    R"({"at_ns":4,"op":"assign","process":"b","assignment":[{"partition":5,"topic":"t"}]})",
    R"({"at_ns":5,"op":"seek","process":"billing-1","topic":"orders","partition":1,"offset":30,"log_start_offset":30,"high_watermark":52,"note":"auto.offset.reset: offset 12 was out of range"})",
    R"({"at_ns":5,"op":"seek","process":"admin","group":"billing","topic":"orders","partition":1,"offset":-1,"note":"delete-offsets"})",
    R"({"at_ns":6,"op":"process","process":"billing-1","group":"billing","generation":1,"topic":"orders","partition":2,"offset":0,"key":"key-7","value_id":1})",
    R"({"at_ns":7,"op":"commit-invoke","process":"billing-1","group":"billing","generation":1,"topic":"orders","partition":2,"offset":1,"commit_id":1,"note":"manual"})",
    R"({"at_ns":7,"op":"commit-ok","process":"billing-1","group":"billing","generation":1,"topic":"orders","partition":2,"offset":1,"commit_id":1})",
    R"({"at_ns":8,"op":"commit-fail","process":"billing-1","group":"billing","generation":-1,"topic":"orders","partition":-1,"offset":1,"commit_id":2,"error":"ILLEGAL_GENERATION"})",
    R"({"at_ns":9,"op":"fault","process":"broker-2","note":"crash broker-2"})",
    R"({"at_ns":9,"op":"admin","process":"admin","note":"create-topics orders","error":"TOPIC_ALREADY_EXISTS"})",
    // Hand-written: spaces, tabs, keys in any order, -0, a CR before the end.
    R"( { "op" : "send-ok", "at_ns" : 10 , "value_id": 0, "offset": -0, "partition": 2147483647 } )",
    "{\t\"at_ns\":\t11,\"op\":\"fault\"}\r",
    R"({"at_ns":12,"op":"process","key":"","process":"","topic":"","note":""})",
    // What the scanner leaves to the strict reader: escapes, unicode, big numbers.
    R"({"at_ns":13,"op":"send-ok","key":"k\"1\n\\ \/ \t","note":"caf\u00e9 \ud83d\ude00"})",
    "{\"at_ns\":14,\"op\":\"send-ok\",\"key\":\"café 😀\",\"process\":\"Ünïcode\"}",
    R"({"at_ns":15,"op":"send-ok","value_id":18446744073709551615,"commit_id":9223372036854775808})",
    R"({"at_ns":9223372036854775807,"op":"fault","offset":9223372036854775807})",
    R"({"at_ns":9223372036854775807,"op":"assign","assignment":[{"topic":"t","partition":1,"extra":true}]})",
};

TEST(HistoryStream, TheScannerTakesLogsimsOwnLinesAndLeavesEscapesAndUnicode) {
  HistoryEvent e;
  for (std::size_t i = 0; i < 19; ++i) {
    const std::uint64_t index = i == 1 ? 1 : 0;
    EXPECT_TRUE(scan_history_line(kValidLines[i], index, e)) << kValidLines[i];
    HistoryEvent want = parse_history_line(kValidLines[i], "h.jsonl", 1, index);
    want.index = index;  // the caller sets it: the reader's event has it already
    EXPECT_EQ(describe(e), describe(want)) << kValidLines[i];
  }
  for (std::size_t i = 19; i < kValidLines.size(); ++i) EXPECT_FALSE(scan_history_line(kValidLines[i], 0, e)) << kValidLines[i];
}

// The scanner reads strings eight bytes at a time: a byte it must leave to the strict reader is
// found at every position of a word and of the tail, and the bytes next to them in value
// (space, DEL, '#', ']') are not mistaken for them.
TEST(HistoryStream, TheScannerFindsEachByteItCannotTakeAtEveryPositionOfAString) {
  for (std::size_t length = 1; length <= 26; ++length) {
    for (std::size_t at = 0; at < length; ++at) {
      for (const char c : {'\\', '\x01', '\x1f', '\x7f', '\x80', '\xff', ' ', '#', '!', ']', '"'}) {
        std::string note(length, 'a');
        note[at] = c;
        const std::string line = R"({"at_ns":1,"op":"fault","note":")" + note + R"(","process":"p"})";
        HistoryEvent e;
        const bool scanned = scan_history_line(line, 0, e);
        const auto u = static_cast<unsigned char>(c);
        if (c == '\\' || u < 0x20 || u >= 0x80) {
          EXPECT_FALSE(scanned) << "byte " << int{u} << " at " << at << " of " << length;
        } else if (c == '"') {
          EXPECT_FALSE(scanned) << "a quote inside ends the string early, and what follows is not JSON";
        } else {
          ASSERT_TRUE(scanned) << "byte " << int{u} << " at " << at << " of " << length;
          EXPECT_EQ(e.note, note);
          EXPECT_EQ(e.process, "p");
        }
      }
    }
  }
}

TEST(HistoryStream, SameEventsAsTheStrictReader) {
  std::string text;
  for (const auto& line : kValidLines) text += line + "\n";
  text += "\n   \n\r\n";  // blank lines, a CRLF one among them
  text += R"({"at_ns":9223372036854775807,"op":"fault"})";  // no '\n' at the end
  const Outcome want = reference(text);
  ASSERT_EQ(want.error, "");
  ASSERT_EQ(want.events.size(), kValidLines.size() + 1);
  expect_same(from_text(text), want, text);
  // The whole-history readers agree too.
  const properties::History h = read_history_jsonl(text, "h.jsonl");
  ASSERT_EQ(h.size(), want.events.size());
  for (std::size_t i = 0; i < h.size(); ++i) EXPECT_EQ(describe(h.events()[i]), want.events[i]);
}

TEST(HistoryStream, ChunkBoundariesAnywhereInALine) {
  std::string text;
  for (const auto& line : kValidLines) text += line + "\r\n\n";
  const Outcome want = reference(text);
  ASSERT_EQ(want.error, "");
  for (const std::size_t chunk : {1UL, 2UL, 3UL, 5UL, 7UL, 16UL, 61UL, 64UL, 100UL, 1000UL, 1UL << 20}) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    expect_same(from_stream(text, chunk), want, text);
  }
}

TEST(HistoryStream, ProgressCountsEveryByte) {
  std::string text;
  for (int i = 0; i < 100; ++i) text += R"({"at_ns":1,"op":"fault"})" "\n";
  std::istringstream in(text);
  HistoryReadOptions options;
  options.chunk_bytes = 64;
  std::uint64_t last_bytes = 0;
  std::uint64_t last_events = 0;
  int calls = 0;
  options.on_chunk = [&](std::uint64_t bytes, std::uint64_t events) {
    EXPECT_GT(bytes, last_bytes);
    EXPECT_GE(events, last_events);
    last_bytes = bytes;
    last_events = events;
    ++calls;
  };
  EXPECT_EQ(read_history_stream(in, "h.jsonl", [](const HistoryEvent&) {}, options), 100U);
  EXPECT_EQ(last_bytes, text.size());
  EXPECT_EQ(last_events, 100U);
  EXPECT_GE(calls, static_cast<int>(text.size() / 64));
}

// The same mistakes as history_jsonl_test, and more, each after valid lines, in every chunk size.
TEST(HistoryStream, SameErrorsAsTheStrictReader) {
  const std::string ok = "\n" R"({"at_ns": 5, "op": "send-invoke", "process": "p", "topic": "t", "value_id": 1})" "\n";
  const std::vector<std::string> bad = {
      R"({"at_ns": 6, "op": "send-okk"})",
      R"({"at_ns":6,"op":"send-ok","ofset":3})",
      R"({"at_ns":4,"op":"send-ok"})",
      R"({"at_ns":6,"op":"send-ok","offset":"3"})",
      "{\"at_ns\": 6,",
      R"({"op":"send-ok"})",
      R"({"at_ns":6})",
      R"({"at_ns":6,"index":5,"op":"send-ok"})",
      R"({"at_ns":6,"index":-1,"op":"send-ok"})",
      "[1]",
      "3",
      R"({"at_ns":-6,"op":"send-ok"})",
      R"({"at_ns":6.0,"op":"send-ok"})",
      R"({"at_ns":1e3,"op":"send-ok"})",
      R"({"at_ns":06,"op":"send-ok"})",
      R"({"at_ns":6,"op":"send-ok","partition":-2})",
      R"({"at_ns":6,"op":"send-ok","partition":2147483648})",
      R"({"at_ns":6,"op":"send-ok","generation":true})",
      R"({"at_ns":6,"op":"send-ok","value_id":-1})",
      R"({"at_ns":6,"op":"send-ok","commit_id":"1"})",
      R"({"at_ns":6,"op":"send-ok","idempotent":1})",
      R"({"at_ns":6,"op":"send-ok","key":3})",
      R"({"at_ns":6,"op":"send-ok","process":null})",
      R"({"at_ns":6,"op":"assign","assignment":{"topic":"t"}})",
      R"({"at_ns":6,"op":"assign","assignment":[{"topic":"t"}]})",
      R"({"at_ns":6,"op":"assign","assignment":[{"topic":"t","partition":"0"}]})",
      R"({"at_ns":6,"op":7})",
      R"({"at_ns":6,"op":"send-ok"} x)",
      R"({"at_ns":6,"op":"send-ok",})",
      R"({"at_ns":6,"op":"send-ok","note":"a)" "\x01" R"(b"})",
      R"({"at_ns":6,"op":"send-ok","note":"bad \x"})",
      R"({"at_ns":6,"op":"send-ok","offset":2147e83647})",
      "{\"at_ns\":6,\"op\":\"send-ok\",\"note\":\"\xff\xfe\"}",
  };
  for (const auto& line : bad) {
    const std::string text = ok + line + "\n" + ok;
    const Outcome want = reference(text);
    ASSERT_NE(want.error, "") << line;
    EXPECT_EQ(want.error.rfind("h.jsonl:3: ", 0), 0U) << want.error;
    expect_same(from_text(text), want, text);
    for (const std::size_t chunk : {1UL, 4UL, 33UL, 4096UL}) expect_same(from_stream(text, chunk), want, text);
  }
}

// splitmix64: the test's own deterministic draws.
std::uint64_t next(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Lines mutated a byte or a few at a time (deleted, replaced, duplicated): whatever each becomes,
// valid or not, the streaming reader gives what the strict reader gives.
TEST(HistoryStream, MutatedLinesReadAsTheStrictReaderReadsThem) {
  const std::string alphabet = "{}[]\":,\\ -+.0123456789eEtrufalsn_xyz\t\r\x01\xc3\xa9";
  std::uint64_t seed = 42;
  int scanned = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string line = kValidLines[next(seed) % 18];
    const int edits = 1 + static_cast<int>(next(seed) % 3);
    for (int k = 0; k < edits && !line.empty(); ++k) {
      const std::size_t at = next(seed) % line.size();
      switch (next(seed) % 3) {
        case 0: line.erase(at, 1); break;
        case 1: line[at] = alphabet[next(seed) % alphabet.size()]; break;
        default: line.insert(at, 1, line[at]); break;
      }
    }
    const std::string text = line + "\n";
    const Outcome want = reference(text);
    HistoryEvent e;
    if (scan_history_line(line, 0, e)) ++scanned;
    expect_same(from_text(text), want, text);
    if (::testing::Test::HasFailure()) return;  // one mutated line is enough to see
  }
  EXPECT_GT(scanned, 1000) << "many mutations (of a digit, of a letter in a string) still take the fast path";
}

}  // namespace
}  // namespace logsim::reports

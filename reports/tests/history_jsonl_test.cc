// history.jsonl: a history written and read back is the same history; a file with a mistake
// is refused with its line, what is wrong and what was expected.
#include "reports/history_jsonl.h"

#include <gtest/gtest.h>

#include <string>

namespace logsim::reports {
namespace {

using properties::HistoryEvent;
using properties::OpKind;

properties::History sample() {
  properties::History h;
  HistoryEvent send;
  send.at = 5;
  send.kind = OpKind::kSendOk;
  send.process = "shop";
  send.topic = "orders";
  send.partition = PartitionId(2);
  send.offset = Offset(41);
  send.key = std::string("k\"1\n");
  send.value_id = 7;
  send.idempotent = true;
  h.append(send);
  HistoryEvent assign;
  assign.at = 9;
  assign.kind = OpKind::kAssign;
  assign.process = "billing-1";
  assign.group = "billing";
  assign.generation = GenerationId(3);
  assign.assignment = {{"orders", PartitionId(0)}, {"orders", PartitionId(2)}};
  assign.note = "assigned";
  h.append(assign);
  HistoryEvent empty_assign = assign;
  empty_assign.assignment.clear();
  h.append(empty_assign);
  HistoryEvent fail;
  fail.at = 12;
  fail.kind = OpKind::kCommitFail;
  fail.process = "billing-1";
  fail.group = "billing";
  fail.generation = GenerationId(3);
  fail.topic = "orders";
  fail.partition = PartitionId(0);
  fail.offset = Offset(0);
  fail.commit_id = 4;
  fail.source_value_id = 17;  // not on a commit in practice: the format carries it on any event
  fail.error = "ILLEGAL_GENERATION";
  h.append(fail);
  HistoryEvent reset;
  reset.at = 13;
  reset.kind = OpKind::kSeek;
  reset.process = "billing-1";
  reset.topic = "orders";
  reset.partition = PartitionId(1);
  reset.offset = Offset(30);
  reset.log_start_offset = Offset(30);
  reset.high_watermark = Offset(52);
  reset.note = "auto.offset.reset: offset 12 was out of range";
  h.append(reset);
  return h;
}

std::string describe(const HistoryEvent& e) {
  std::string s = std::to_string(e.index) + " " + std::to_string(e.at) + " " + std::string(properties::op_kind_name(e.kind)) +
                  " " + e.process + " " + e.group + " " + std::to_string(properties::History::packed(e.generation)) + " " + e.topic + " " +
                  std::to_string(properties::History::packed(e.partition)) + " " + std::to_string(properties::History::packed(e.offset)) + " " + (e.key ? *e.key : "<null>") + " " +
                  std::to_string(e.value_id) + " " + (e.idempotent ? "idem" : "") + " " + e.error + " " + e.note + " " +
                  std::to_string(e.commit_id) + " " + std::to_string(e.source_value_id) + " " + std::to_string(properties::History::packed(e.log_start_offset)) + " " +
                  std::to_string(properties::History::packed(e.high_watermark)) + " [";
  for (const auto& tp : e.assignment) s += tp.topic + "/" + std::to_string(tp.partition.value()) + " ";
  return s + "]";
}

TEST(HistoryJsonl, RoundTrips) {
  const properties::History h = sample();
  const std::string text = history_jsonl(h);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 5);
  EXPECT_NE(text.find("\"log_start_offset\":30,\"high_watermark\":52"), std::string::npos) << text;
  EXPECT_EQ(text.find("\"generation\""), text.find("\"generation\":3")) << "absent fields are left out";
  const properties::History back = read_history_jsonl(text, "h.jsonl");
  ASSERT_EQ(back.size(), h.size());
  for (std::size_t i = 0; i < h.size(); ++i) EXPECT_EQ(describe(back.events()[i]), describe(h.events()[i]));
  EXPECT_EQ(history_jsonl(back), text);
}

std::string error_of(const std::string& text) {
  try {
    read_history_jsonl(text, "h.jsonl");
  } catch (const HistoryFileError& e) {
    return e.what();
  }
  return "no error";
}

TEST(HistoryJsonl, MistakesNameTheLineAndWhatWasExpected) {
  const std::string ok = R"({"at_ns": 1, "op": "send-invoke", "process": "p", "topic": "t", "value_id": 1})" "\n";
  EXPECT_EQ(error_of(ok + R"({"at_ns": 2, "op": "send-okk"})"),
            "h.jsonl:2: unknown op \"send-okk\"; did you mean \"send-ok\"?");
  EXPECT_EQ(error_of(ok + R"({"at_ns": 2, "op": "send-ok", "ofset": 3})"),
            "h.jsonl:2: unknown key \"ofset\"; did you mean \"offset\"?");
  EXPECT_EQ(error_of(ok + R"({"at_ns": 0, "op": "send-ok"})"),
            "h.jsonl:2: time goes back, to 0 ns after 1; expected events in time order");
  EXPECT_EQ(error_of(ok + R"({"at_ns": 2, "op": "send-ok", "offset": "3"})"),
            "h.jsonl:2: \"offset\" is a string; expected an integer");
  EXPECT_EQ(error_of(ok + "{\"at_ns\": 2,"), "h.jsonl:2: not valid JSON (byte 13 of the line); expected one JSON object per line");
  EXPECT_EQ(error_of(ok + R"({"op": "send-ok"})"), "h.jsonl:2: no \"at_ns\"; expected \"at_ns\": the event's time in nanoseconds");
  EXPECT_EQ(error_of(ok + R"({"at_ns": 3, "index": 5, "op": "send-ok"})"),
            "h.jsonl:2: \"index\" is 5; expected the event's position in the file, 1 (or no index)");
  EXPECT_EQ(error_of("\n\n" + ok + "[1]"), "h.jsonl:4: the line is an array; expected one JSON object per line");
}

}  // namespace
}  // namespace logsim::reports

// report.html: the lanes a person needs are there (brokers, partitions, groups, lag), states
// and network cuts are shaded where they happened, the first violation is marked and explained
// with the events around it, text is escaped, and large runs are thinned when drawn but not
// when counted. samples.json reads back to what was written.
#include <gtest/gtest.h>

#include "reports/html.h"
#include "reports/samples_json.h"

namespace logsim::reports {
namespace {

using properties::HistoryEvent;
using properties::OpKind;

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

HistoryEvent ev(OpKind kind, double at_s, std::string process) {
  HistoryEvent e;
  e.kind = kind;
  e.at = static_cast<Nanos>(at_s * 1e9);
  e.process = std::move(process);
  return e;
}

// Two brokers and a controller; orders/0 led by broker-1 then, after broker-1 crashes at 4 s,
// by broker-2; one group of two members.
scenarios::Samples samples() {
  scenarios::Samples s;
  s.interval = millis(1000);
  s.nodes = {"broker-1", "broker-2", "controller", "producer", "email-1", "email-2"};
  s.node_roles = {"broker", "broker", "controller", "producer", "member", "member"};
  s.partitions = {"orders/0"};
  for (int t = 0; t <= 10; ++t) {
    scenarios::Sample x;
    x.at = millis(1000 * t);
    const bool crashed = t >= 4 && t < 7;
    x.node_states = std::string(crashed ? "CUUUUU" : "UUUUUU");
    const std::int32_t leader = t < 4 ? 0 : 1;
    x.partitions.push_back({leader, leader == 0 ? 0 : 1, 100LL * t, 100LL * t - 10, crashed ? 1 : 2});
    s.samples.push_back(x);
  }
  return s;
}

properties::History history() {
  properties::History h;
  auto assign = ev(OpKind::kAssign, 1, "email-1");
  assign.group = "email";
  assign.generation = GenerationId(1);
  assign.assignment = {{"orders", PartitionId(0)}};
  h.append(assign);
  auto isolate = ev(OpKind::kFault, 2, "broker-2");
  isolate.note = "isolate broker-2";
  h.append(isolate);
  auto heal = ev(OpKind::kFault, 3, "");
  heal.note = "heal";
  h.append(heal);
  auto crash = ev(OpKind::kFault, 4, "broker-1");
  crash.note = "crash broker-1";
  h.append(crash);
  auto commit = ev(OpKind::kCommitOk, 5, "email-1");
  commit.group = "email";
  commit.topic = "orders";
  commit.partition = PartitionId(0);
  commit.offset = Offset(350);
  h.append(commit);
  auto reassign = ev(OpKind::kAssign, 6, "email-2");
  reassign.group = "email";
  reassign.generation = GenerationId(2);
  reassign.assignment = {{"orders", PartitionId(0)}};
  h.append(reassign);
  auto process = ev(OpKind::kProcess, 7, "email-2");
  process.group = "email";
  process.topic = "orders";
  process.partition = PartitionId(0);
  process.offset = Offset(120);
  process.key = "<script>alert(1)</script>";
  h.append(process);
  return h;
}

nlohmann::json summary(bool violated) {
  nlohmann::json j{{"version", 1}, {"verdict", violated ? "violated" : "pass"}, {"expectation_met", !violated},
                   {"expectation_detail", ""}, {"scenario", "orders & <friends>"}, {"file", "s.json"}, {"seed", 7},
                   {"trace_hash", "00000000000000ab"}, {"trace_events", 1234}, {"simulated_ms", 10000}, {"wall_ms", 12.5},
                   {"stats", {{"records.sent", 1000}}}, {"replay", "logsim run s.json --seed 7"}};
  j["violations"] = nlohmann::json::array();
  if (violated) {
    j["violations"].push_back({{"anomaly", "nonmonotonic-poll"}, {"first_event", 6}, {"at_ms", 7000}, {"process", "email-2"},
                               {"topic", "orders"}, {"partition", 0}, {"offset", 120}, {"key", "k"}, {"members", {"email-2"}},
                               {"explanation", "email-2 went back from 360 to 120"}});
  }
  return j;
}

TEST(ReportHtml, HasALaneForEveryBrokerPartitionMemberAndTheLag) {
  const std::string html = report_html(summary(false), history(), samples());
  EXPECT_NE(html.find(R"(class="lane broker" data-lane="broker-1")"), std::string::npos);
  EXPECT_NE(html.find(R"(class="lane broker" data-lane="broker-2")"), std::string::npos);
  EXPECT_NE(html.find(R"(class="lane controller" data-lane="controller")"), std::string::npos);
  EXPECT_NE(html.find(R"(class="lane partition" data-lane="orders/0")"), std::string::npos);
  EXPECT_NE(html.find(R"(class="lane member" data-lane="email-1")"), std::string::npos);
  EXPECT_NE(html.find(R"(class="lane member" data-lane="email-2")"), std::string::npos);
  EXPECT_NE(html.find(R"(class="lane lag")"), std::string::npos);
  // Producers are not lanes of their own.
  EXPECT_EQ(html.find(R"(data-lane="producer")"), std::string::npos);
  // Nothing is fetched: self-contained.
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  EXPECT_EQ(html.find("id=\"violation-mark\""), std::string::npos);
}

TEST(ReportHtml, ShadesCrashesCutsAndLeadershipWhereTheyHappened) {
  const std::string html = report_html(summary(false), history(), samples());
  EXPECT_NE(html.find("broker-1 crashed from 4.000s to 7.000s"), std::string::npos);
  EXPECT_NE(html.find("broker-2 isolated from every other node from 2.000s to 3.000s"), std::string::npos);
  EXPECT_NE(html.find("orders/0: leadership broker-1 (epoch 0) -&gt; broker-2 (epoch 1) by 4.000s"), std::string::npos);
  EXPECT_NE(html.find("orders/0: committed offset of group email"), std::string::npos);
  EXPECT_NE(html.find("email-1 generation 1 from 1.000s to 10.000s: orders/0"), std::string::npos);
  EXPECT_NE(html.find("group email: generation 2 from 6.000s"), std::string::npos);
}

TEST(ReportHtml, MarksAndExplainsTheFirstViolationWithTheEventsAroundIt) {
  const std::string html = report_html(summary(true), history(), samples());
  EXPECT_NE(html.find("id=\"violation-mark\""), std::string::npos);
  EXPECT_NE(html.find("class=\"violation-dot\""), std::string::npos);  // on the orders/0 lane
  EXPECT_NE(html.find("email-2 went back from 360 to 120"), std::string::npos);
  EXPECT_NE(html.find("class=\"verdict violated\""), std::string::npos);
  // The first event's row is highlighted; the rows around it are there.
  EXPECT_NE(html.find(R"(<tr class="first"><td>#6 7.000s process email-2)"), std::string::npos) << html;
  EXPECT_NE(html.find("#3 4.000s fault broker-1"), std::string::npos);
  EXPECT_NE(html.find("logsim run s.json --seed 7"), std::string::npos);
}

TEST(ReportHtml, EscapesEveryText) {
  const std::string html = report_html(summary(true), history(), samples());
  EXPECT_EQ(html.find("<script>alert(1)"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("orders &amp; &lt;friends&gt;"), std::string::npos);
}

TEST(ReportHtml, ThinsWhatIsDrawnButNotWhatIsCounted) {
  properties::History h;
  for (int i = 0; i < 5000; ++i) {
    auto f = ev(OpKind::kFault, i * 0.002, "broker-1");
    f.note = "pause broker-1";
    h.append(f);
  }
  const std::string html = report_html(summary(false), h, samples());
  EXPECT_NE(html.find("faults (5000)"), std::string::npos);
  const std::size_t marks = count(html, "class=\"fault\"");
  EXPECT_GT(marks, 100u);
  EXPECT_LE(marks, 400u);
}

TEST(ReportHtml, MergesAssignmentBandsTooNarrowToSee) {
  properties::History h;
  for (int i = 0; i < 2000; ++i) {
    auto a = ev(OpKind::kAssign, 1 + i * 0.001, "email-1");
    a.group = "email";
    a.generation = properties::known(GenerationId(i + 1));
    a.assignment = {{"orders", PartitionId(0)}};
    h.append(a);
  }
  const std::string html = report_html(summary(false), h, samples());
  EXPECT_NE(html.find("email-1: 1999 assignments between"), std::string::npos) << "the last band is wide: drawn on its own";
  EXPECT_LE(count(html, "class=\"band"), 4u);
  EXPECT_NE(html.find("rebalances (2000)"), std::string::npos);
}

// A transactional producer gets a lane of its transactions, each drawn from its txn-begin to its
// end and classed by outcome; one never ended runs to the end of the run; committed ones are
// thinned when there are many, aborted ones never are.
TEST(ReportHtml, DrawsEachTransactionByOutcome) {
  properties::History h;
  const auto txn = [&](double from, double to, OpKind end, int sends) {
    h.append(ev(OpKind::kTxnBegin, from, "pay"));
    for (int i = 0; i < sends; ++i) h.append(ev(OpKind::kSendInvoke, from, "pay"));
    if (end != OpKind::kTxnBegin) {
      auto e = ev(end, to, "pay");
      if (end == OpKind::kTxnInfo) e.error = "PRODUCER_FENCED";
      h.append(e);
    }
  };
  txn(1, 2, OpKind::kTxnCommit, 3);
  txn(2, 3, OpKind::kTxnAbort, 2);
  txn(3, 4, OpKind::kTxnInfo, 1);
  txn(5, 0, OpKind::kTxnBegin, 4);  // never ended
  std::string html = report_html(summary(false), h, samples());
  EXPECT_NE(html.find("pay (4 txns)"), std::string::npos);
  EXPECT_EQ(count(html, "class=\"txn txn-commit\""), 1u);
  EXPECT_EQ(count(html, "class=\"txn txn-abort\""), 1u);
  EXPECT_EQ(count(html, "class=\"txn txn-info\""), 1u);
  EXPECT_EQ(count(html, "class=\"txn txn-open\""), 1u);
  EXPECT_NE(html.find("a transaction of 3 send(s) from 1.000s to 2.000s: committed"), std::string::npos);
  EXPECT_NE(html.find("outcome unknown (PRODUCER_FENCED)"), std::string::npos);
  EXPECT_NE(html.find("a transaction of 4 send(s) from 5.000s to 10.000s: never ended"), std::string::npos);

  properties::History many;
  for (int i = 0; i < 2000; ++i) {
    many.append(ev(OpKind::kTxnBegin, i * 0.004, "pay"));
    many.append(ev(i % 100 == 0 ? OpKind::kTxnAbort : OpKind::kTxnCommit, i * 0.004 + 0.002, "pay"));
  }
  html = report_html(summary(false), many, samples());
  EXPECT_EQ(count(html, "class=\"txn txn-abort\""), 20u);
  EXPECT_LE(count(html, "class=\"txn txn-commit\""), 400u);
  EXPECT_GT(count(html, "class=\"txn txn-commit\""), 100u);
}

// The records of aborted and unknown transactions are dots on their partition's lane where they
// were acknowledged, a committed one's are not; the last stable offset is drawn only where a
// transaction held it below the high watermark. An older samples.json without "lso" reads as
// having none held back.
TEST(ReportHtml, MarksAbortedTransactionsRecordsAndAHeldBackLastStableOffset) {
  properties::History h;
  const auto txn = [&](double at, OpKind end, std::int64_t offset, std::uint64_t value) {
    h.append(ev(OpKind::kTxnBegin, at, "pay"));
    auto ok = ev(OpKind::kSendOk, at + 0.1, "pay");
    ok.topic = "orders";
    ok.partition = PartitionId(0);
    ok.offset = Offset(offset);
    ok.value_id = value;
    h.append(ok);
    h.append(ev(end, at + 0.2, "pay"));
  };
  txn(1, OpKind::kTxnCommit, 100, 1);
  txn(2, OpKind::kTxnAbort, 200, 2);
  txn(3, OpKind::kTxnInfo, 300, 3);
  scenarios::Samples s = samples();
  for (auto& x : s.samples) x.partitions[0].last_stable = x.partitions[0].high_watermark;
  std::string html = report_html(summary(false), h, s);
  EXPECT_EQ(count(html, "class=\"txn-abort-record\""), 1u);
  EXPECT_EQ(count(html, "class=\"txn-info-record\""), 1u);
  EXPECT_EQ(count(html, "txn-commit-record"), 0u) << "a committed transaction's records are not marked";
  EXPECT_NE(html.find("orders/0 offset 200: value 2 of a transaction of pay (aborted)"), std::string::npos);
  EXPECT_EQ(count(html, "class=\"lso\""), 0u) << "never held back: not drawn";
  s.samples[6].partitions[0].last_stable = 300;  // an open transaction from offset 300
  html = report_html(summary(false), h, s);
  EXPECT_EQ(count(html, "class=\"lso\""), 1u);

  auto j = samples_json(s);
  EXPECT_EQ(samples_from_json(j).samples[6].partitions[0].last_stable, 300);
  for (auto& x : j["samples"]) x.erase("lso");
  EXPECT_EQ(samples_from_json(j).samples[6].partitions[0].last_stable, 590);
}

TEST(SamplesJson, ReadsBackWhatWasWritten) {
  const scenarios::Samples s = samples();
  const scenarios::Samples back = samples_from_json(nlohmann::json::parse(samples_json(s).dump()));
  ASSERT_EQ(back.samples.size(), s.samples.size());
  EXPECT_EQ(back.nodes, s.nodes);
  EXPECT_EQ(back.node_roles, s.node_roles);
  EXPECT_EQ(back.partitions, s.partitions);
  EXPECT_EQ(back.interval, s.interval);
  EXPECT_EQ(back.samples[5].node_states, "CUUUUU");
  EXPECT_EQ(back.samples[5].partitions[0].leader, 1);
  EXPECT_EQ(back.samples[5].partitions[0].log_end, 500);
  EXPECT_EQ(back.samples[5].partitions[0].high_watermark, 490);
  EXPECT_EQ(back.samples[5].partitions[0].isr, 1);
}

TEST(SamplesJson, RejectsADocumentThatIsNotSamples) {
  auto j = samples_json(samples());
  j["samples"][2]["states"] = "UU";
  EXPECT_THROW(samples_from_json(j), std::runtime_error);
  j = samples_json(samples());
  j["version"] = 9;
  EXPECT_THROW(samples_from_json(j), std::runtime_error);
  EXPECT_THROW(samples_from_json(nlohmann::json::array()), std::runtime_error);
}

}  // namespace
}  // namespace logsim::reports

// The user-facing API on bundled scenarios whose outcome is known: a scenario that demonstrates
// lost writes is reported as such (by the plain functions and by the GoogleTest assertions), and
// the history queries agree with the run's own counts.
#include "api/logsim.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "api/gtest.h"

namespace {

std::string bundled(const std::string& name) { return std::string(LOGSIM_SOURCE_DIR) + "/scenarios/" + name; }

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh directory under the test's working directory (the build tree).
std::string scratch_dir(const std::string& name) {
  // Under the system's temporary directory, not the working directory (a run from the source
  // tree would leave files there).
  const std::string dir = (std::filesystem::temp_directory_path() / ("logsim-api-test-" + std::to_string(::getpid())) / name).string();
  std::filesystem::remove_all(dir);
  return dir;
}

nlohmann::json small_scenario() {
  return {
      {"name", "small"},
      {"duration", "10s"},
      {"cluster", {{"brokers", 1}, {"config", {{"offsets.topic.replication.factor", 1}, {"offsets.topic.num.partitions", 1}}}}},
      {"topics", {{{"name", "orders"}, {"partitions", 2}}}},
      {"producers", {{{"name", "shop"}, {"topic", "orders"}, {"rate_per_sec", 100}, {"count", 300}, {"keys", {{"uniform", 10}}}}}},
      {"groups", {{{"name", "billing"}, {"topics", {"orders"}}, {"members", 2}, {"config", {{"auto.offset.reset", "earliest"}}}}}},
  };
}

TEST(Api, AKnownAnomalyIsReportedAsFoundAndAsExpected) {
  const std::string file = bundled("acks-1-leader-failover.json");
  const logsim::Scenario s = logsim::load_scenario(file);
  const logsim::RunOutput out = logsim::run(s);  // the file's seed, 3

  EXPECT_EQ(out.result.seed, 3u);
  EXPECT_FALSE(logsim::passed(out));
  EXPECT_TRUE(logsim::as_expected(out)) << out.result.expectation_detail;
  EXPECT_EQ(logsim::anomalies(out), (std::vector<std::string>{"inconsistent-offsets", "lost-write", "nonmonotonic-send"}));
  EXPECT_TRUE(logsim::found(out, "lost-write"));
  EXPECT_FALSE(logsim::found(out, "duplicate"));
  const logsim::Violation* first = logsim::first_violation(out);
  ASSERT_NE(first, nullptr);
  for (const auto& v : out.result.verdict.violations) EXPECT_LE(first->first_event, v.first_event);
  EXPECT_EQ(logsim::replay_command(out), "logsim run " + file + " --seed 3");

  // Lost writes are acknowledged records that no reader ever sees.
  EXPECT_FALSE(logsim::missing_from(out.history, "ledger", "payments").empty());

  EXPECT_TRUE(logsim::testing::AsExpected(out));
  EXPECT_TRUE(logsim::testing::Found(out, {"lost-write", "inconsistent-offsets"}));
}

TEST(Api, AFailingAssertionExplainsAndWritesTheReport) {
  const logsim::RunOutput out = logsim::run(logsim::load_scenario(bundled("acks-1-leader-failover.json")));
  const std::string dir = scratch_dir("failing");

  const ::testing::AssertionResult r = logsim::testing::Passed(out, dir);
  ASSERT_FALSE(r);
  const std::string message = r.message();
  EXPECT_NE(message.find("the verdict is violated"), std::string::npos) << message;
  EXPECT_NE(message.find("VIOLATION  " + logsim::first_violation(out)->anomaly), std::string::npos) << message;
  EXPECT_NE(message.find("replay     logsim run "), std::string::npos) << message;
  EXPECT_NE(message.find(dir + "/report.html"), std::string::npos) << message;
  for (const char* name : {"report.html", "summary.json", "history.jsonl", "junit.xml", "samples.json"}) {
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + name)) << name;
  }
  EXPECT_NE(read_file(dir + "/summary.json").find("\"lost-write\""), std::string::npos);

  const ::testing::AssertionResult missing = logsim::testing::Found(out, {"lost-write", "duplicate"}, "");
  ASSERT_FALSE(missing);
  EXPECT_NE(std::string(missing.message()).find("expected to find { duplicate }"), std::string::npos) << missing.message();
}

TEST(Api, HistoryQueriesAgreeWithTheRunsCounts) {
  const logsim::RunOutput out = logsim::run(logsim::load_scenario(bundled("quickstart.json")), {.seed = 7});
  ASSERT_TRUE(logsim::testing::Passed(out));
  const logsim::History& h = out.history;

  EXPECT_EQ(logsim::stat(out, "records.acknowledged"), 2000);
  EXPECT_EQ(logsim::acknowledged(h).size(), 2000u);
  EXPECT_EQ(logsim::acknowledged(h, "checkout").size(), 2000u);
  EXPECT_TRUE(logsim::acknowledged(h, "nobody").empty());
  EXPECT_EQ(logsim::count(h, {.kind = logsim::OpKind::kSendOk}), 2000u);
  EXPECT_EQ(logsim::count(h, {.kind = logsim::OpKind::kSendInvoke, .topic = "orders"}), 2000u);

  // A consumer without a group is a reader by its name.
  EXPECT_EQ(logsim::processed_by(h, "email").size(), 2000u);
  EXPECT_EQ(logsim::processed_by(h, "analytics", "orders").size(), 2000u);
  EXPECT_TRUE(logsim::processed_by(h, "email", "payments").empty());
  EXPECT_TRUE(logsim::missing_from(h, "email", "orders").empty());
  std::size_t by_partition = 0;
  for (std::int32_t p = 0; p < 3; ++p) {
    const std::size_t n = logsim::count(h, {.kind = logsim::OpKind::kProcess, .process = "email", .topic = "orders", .partition = logsim::PartitionId(p)});
    EXPECT_GT(n, 0u) << "partition " << p;
    by_partition += n;
  }
  EXPECT_EQ(by_partition, 2000u);
  for (const auto& e : logsim::events(h, {.kind = logsim::OpKind::kFault})) EXPECT_EQ(e.kind, logsim::OpKind::kFault);
  EXPECT_EQ(logsim::events(h, {.kind = logsim::OpKind::kFault}).size(), static_cast<std::size_t>(logsim::stat(out, "faults")));
}

TEST(Api, AGroupIsAReaderAndWhatItNeverProcessedIsMissing) {
  // Committing before processing, then crashing mid-batch, skips the rest of the batch: unseen.
  const logsim::RunOutput out = logsim::run(logsim::load_scenario(bundled("commit-before-processing-loses-messages.json")));
  ASSERT_TRUE(logsim::testing::AsExpected(out));
  ASSERT_TRUE(logsim::found(out, "unseen"));
  const logsim::History& h = out.history;

  const auto processed = logsim::processed_by(h, "billing");
  EXPECT_EQ(static_cast<std::int64_t>(processed.size()), logsim::stat(out, "group.billing.processed"));
  EXPECT_EQ(logsim::count(h, {.kind = logsim::OpKind::kProcess, .group = "billing"}), processed.size());
  EXPECT_TRUE(logsim::processed_by(h, "billing-1").empty()) << "a member is not a reader: its group is";
  const auto missing = logsim::missing_from(h, "billing", "orders");
  EXPECT_FALSE(missing.empty());
  for (const auto& e : missing) {
    EXPECT_EQ(e.kind, logsim::OpKind::kSendOk);
    for (const auto& p : processed) ASSERT_NE(p.value_id, e.value_id);
  }
  EXPECT_EQ(logsim::acknowledged(h).size(), missing.size() + [&] {
    std::set<std::uint64_t> ids;
    for (const auto& p : processed) ids.insert(p.value_id);
    return ids.size();
  }());
}

TEST(Api, AScenarioBuiltInCodeRunsLikeItsText) {
  const logsim::Scenario a = logsim::scenario_from_json(small_scenario());
  const logsim::Scenario b = logsim::parse_scenario(small_scenario().dump(), "small.json");
  const logsim::RunOutput ra = logsim::run(a, {.seed = 5});
  const logsim::RunOutput rb = logsim::run(b, {.seed = 5});
  EXPECT_TRUE(logsim::testing::Passed(ra));
  EXPECT_EQ(ra.result.trace_hash, rb.result.trace_hash);
  EXPECT_NE(ra.result.trace_hash, logsim::run(a, {.seed = 6}).result.trace_hash);
  EXPECT_EQ(logsim::run(a).result.seed, 1u);  // a scenario without a seed runs seed 1
  EXPECT_TRUE(logsim::missing_from(ra.history, "billing", "orders").empty());
  EXPECT_EQ(logsim::processed_by(ra.history, "billing").size(), 300u);

  // No file to replay: the summary says so instead of naming one.
  EXPECT_EQ(ra.result.file, logsim::kInCode);
  const std::string text = logsim::describe(ra);
  EXPECT_NE(text.find("replay     run the same scenario again with seed 5"), std::string::npos) << text;
  EXPECT_EQ(text.find("logsim run"), std::string::npos) << text;
  EXPECT_EQ(logsim::replay_command(rb), "logsim run small.json --seed 5");
  const std::string dir = scratch_dir("in-code");
  EXPECT_EQ(logsim::write_report(ra, dir), dir + "/report.html");
  EXPECT_NE(read_file(dir + "/summary.json").find("built in code"), std::string::npos);
  // junit.xml's reproduce line too: no `logsim run <in-code>` that cannot work.
  EXPECT_NE(read_file(dir + "/junit.xml").find("reproduce: run the same scenario again with seed 5"), std::string::npos);
  EXPECT_EQ(read_file(dir + "/junit.xml").find("logsim run"), std::string::npos);
}

TEST(Api, ABadScenarioThrowsWithWhereAndWhat) {
  nlohmann::json j = small_scenario();
  j["producers"][0]["config"] = {{"ack", 1}};
  try {
    logsim::scenario_from_json(j);
    FAIL() << "a misspelt key must be refused";
  } catch (const logsim::ScenarioError& e) {
    EXPECT_EQ(e.file(), logsim::kInCode);
    EXPECT_EQ(e.pointer(), "/producers/0/config/ack");
    EXPECT_NE(std::string(e.what()).find("acks"), std::string::npos) << e.what();
  }
  EXPECT_THROW(logsim::load_scenario("no/such/file.json"), logsim::ScenarioError);
}

}  // namespace

// Users' own applications in the simulation (api/app.h): a producer and a poll-style consumer
// written here, registered by name, named by a scenario's "app" keys, run through a broker
// crash and a member crash. The checkers judge them as they judge logsim's own applications:
// the correct consumer passes, and the same consumer with the classic bug (commit a batch
// before processing it) is caught when a crash lands mid-batch.
#include "api/app.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <utility>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "api/gtest.h"
#include "api/logsim.h"
#include "api/tests/wall_clock_app.h"
#include "api/app_registry.h"
#include "api/checker.h"
#include "fuzz/fuzz.h"

namespace {

using logsim::AppContext;
using logsim::ConsumedRecord;
using logsim::OpKind;

// Sends `count` orders at 200 a second, keyed by one of 20 customers drawn from the node's
// random stream. (Its count is memory: a restarted shop would start again; none restarts here.)
class Shop : public logsim::App {
 public:
  void on_start(AppContext& ctx) override { next(ctx); }

 private:
  void next(AppContext& ctx) {
    if (sent_ == kCount) return;
    const std::string key = "customer-" + std::to_string(ctx.rng().uniform_u64(20));
    ctx.producer().send(ctx.topics().front(), key, "order-" + std::to_string(sent_++), {{"source", "shop"}},
                        [this](const logsim::SendResult& r) { acknowledged_ += r.acknowledged() ? 1 : 0; });
    ctx.set_timer(logsim::millis(5), [this, &ctx] { next(ctx); });
  }
  static constexpr int kCount = 2400;
  int sent_ = 0;
  int acknowledged_ = 0;
};

// Polls; processes each record of the batch (each takes `processing`); commits the batch
// (commitSync) and polls again. With `commit_first`, the bug: it commits the batch as soon as
// it has polled it, then processes it, so a crash mid-batch loses the rest of the batch.
class Billing : public logsim::App {
 public:
  explicit Billing(bool commit_first) : commit_first_(commit_first) {}

  void on_start(AppContext& ctx) override {
    ctx_ = &ctx;
    ctx.consumer().subscribe(ctx.topics());
    ctx.set_timer(0, [this] { poll(); });
  }
  void on_stop(AppContext& ctx) override { ctx.consumer().commit_sync(); }

 private:
  void poll() {
    batch_ = ctx_->consumer().poll();
    next_ = 0;
    if (batch_.empty()) {
      ctx_->set_timer(logsim::millis(10), [this] { poll(); });
      return;
    }
    if (commit_first_) ctx_->consumer().commit_sync([this](const std::string&) { process_next(); });
    else process_next();
  }
  void process_next() {
    if (next_ == batch_.size()) {
      if (commit_first_) poll();
      else ctx_->consumer().commit_sync([this](const std::string&) { poll(); });
      return;
    }
    ctx_->set_timer(logsim::millis(10), [this] {
      const ConsumedRecord& r = batch_[next_++];
      // The record as the shop sent it: its value and header, not the harness's id header.
      const bool intact = r.value && r.value->rfind("order-", 0) == 0 && r.headers.size() == 1 && r.headers[0].key == "source";
      if (!intact) {
        auto e = ctx_->event(OpKind::kFault);
        e.note = "billing: a record not as sent";
        ctx_->record(std::move(e));
      }
      ctx_->consumer().processed(r);
      process_next();
    });
  }

  bool commit_first_;
  AppContext* ctx_ = nullptr;
  std::vector<ConsumedRecord> batch_;
  std::size_t next_ = 0;
};

class AppTest : public ::testing::Test {
 protected:
  void SetUp() override {
    logsim::register_app("shop", [] { return std::make_unique<Shop>(); });
    logsim::register_app("billing", [] { return std::make_unique<Billing>(false); });
    logsim::register_app("billing-commits-first", [] { return std::make_unique<Billing>(true); });
  }
  void TearDown() override {
    for (const char* name : {"shop", "billing", "billing-commits-first"}) logsim::unregister_app(name);
  }

  // Three brokers; the shop's orders read by a two-member group running `billing`; a broker
  // crashes, then a member crashes while it is busy (each member is behind: its batches are full).
  static nlohmann::json scenario(const std::string& billing) {
    return nlohmann::json::parse(R"({
      "name": "users-apps", "duration": "30s", "quiesce": "30s", "seed": 5,
      "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "offsets.topic.num.partitions": 2}},
      "topics": [{"name": "orders", "partitions": 2}],
      "producers": [{"name": "shop", "topic": "orders", "app": "shop", "config": {"acks": "all"}}],
      "groups": [{"name": "billing", "topics": ["orders"], "members": 2, "app": ")" + billing + R"(",
                  "config": {"auto.offset.reset": "earliest", "max.poll.records": 50,
                             "session.timeout.ms": 6000, "heartbeat.interval.ms": 1000}}],
      "timeline": [
        {"at": "4s", "action": "crash", "target": "broker-1"},
        {"at": "6s", "action": "restart", "target": "broker-1"},
        {"at": "10s", "action": "crash", "target": "billing-1"},
        {"at": "11s", "action": "restart", "target": "billing-1"}
      ]
    })");
  }
};

TEST_F(AppTest, UsersAppsPassTheCheckersThroughCrashes) {
  const logsim::Scenario s = logsim::scenario_from_json(scenario("billing"));
  const logsim::RunOutput out = logsim::run(s);
  EXPECT_TRUE(logsim::testing::Passed(out));
  // Their history, recorded by the wrappers: every order sent and acknowledged, every one
  // processed by the group, commits, and the crashed member's new assignment.
  EXPECT_EQ(logsim::stat(out, "records.sent"), 2400);
  EXPECT_EQ(logsim::stat(out, "records.acknowledged"), 2400);
  EXPECT_EQ(logsim::acknowledged(out.history, "shop").size(), 2400u);
  EXPECT_TRUE(logsim::missing_from(out.history, "billing", "orders").empty());
  EXPECT_GT(logsim::stat(out, "records.processed.billing-1"), 0);
  EXPECT_GT(logsim::stat(out, "records.processed.billing-2"), 0);
  EXPECT_GT(logsim::stat(out, "group.billing.commits.accepted"), 0);
  for (const auto& e : logsim::events(out.history, {.kind = OpKind::kFault})) {
    EXPECT_NE(e.note, "billing: a record not as sent") << e.process;
  }
}

// A seek step aimed at an App's group member moves its consumer at its next poll, as logsim's
// own members' do: billing-1 goes back to offset 0 of what it holds at 8 s and processes those
// records again; the checkers excuse the repeat (a seek) and the run passes.
TEST_F(AppTest, ASeekStepMovesAnAppMembersConsumer) {
  nlohmann::json j = scenario("billing");
  j["timeline"] = nlohmann::json::array();
  const logsim::RunOutput plain = logsim::run(logsim::scenario_from_json(j));
  j["timeline"].push_back({{"at", "8s"}, {"action", "seek"}, {"target", "billing-1"}, {"topic", "orders"}, {"to", {{"offset", 0}}}});
  const logsim::RunOutput out = logsim::run(logsim::scenario_from_json(j));
  EXPECT_TRUE(logsim::testing::Passed(out));
  const auto seeks = logsim::events(out.history, {.kind = OpKind::kSeek, .process = "billing-1"});
  ASSERT_FALSE(seeks.empty()) << "the seek step did nothing";
  EXPECT_EQ(seeks.front().note, "seek to offset 0");
  EXPECT_GE(seeks.front().at, 8'000'000'000);
  const auto processed = [](const logsim::RunOutput& o) {
    return logsim::stat(o, "records.processed.billing-1") + logsim::stat(o, "records.processed.billing-2");
  };
  EXPECT_EQ(processed(plain), 2400) << "without the seek every order is processed once";
  EXPECT_GT(processed(out), 2400) << "after the seek billing-1 processes its partition again";
}

TEST_F(AppTest, UsersAppsPassForEverySeed) {
  const logsim::Scenario s = logsim::scenario_from_json(scenario("billing"));
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const logsim::RunOutput out = logsim::run(s, {.seed = seed});
    EXPECT_TRUE(logsim::testing::Passed(out)) << "seed " << seed;
    EXPECT_TRUE(logsim::missing_from(out.history, "billing", "orders").empty()) << "seed " << seed;
  }
}

TEST_F(AppTest, SameSeedSameRun) {
  const logsim::Scenario s = logsim::scenario_from_json(scenario("billing"));
  const logsim::RunOutput a = logsim::run(s, {.seed = 9});
  const logsim::RunOutput b = logsim::run(s, {.seed = 9});
  EXPECT_EQ(a.result.trace_hash, b.result.trace_hash);
  EXPECT_EQ(a.history.size(), b.history.size());
  const logsim::RunOutput c = logsim::run(s, {.seed = 10});
  EXPECT_NE(a.result.trace_hash, c.result.trace_hash);
}

// An App that reads the wall clock does not replay: the determinism check runs the seed twice
// and names the first event where the runs part. (The same App's source fails
// determinism-lint --app: the test determinism_lint_catches_a_wall_clock_app.)
TEST_F(AppTest, AnAppReadingTheWallClockIsCaughtByTheDeterminismCheck) {
  logsim::register_app("billing-wall-clock", [] { return std::make_unique<logsim::test::WallClockBilling>(); });
  const logsim::Scenario s = logsim::scenario_from_json(scenario("billing-wall-clock"));
  const std::optional<logsim::Divergence> d = logsim::check_determinism(s);
  logsim::unregister_app("billing-wall-clock");
  ASSERT_TRUE(d.has_value()) << "two runs of an App that reads the wall clock agreed";
  EXPECT_NE(d->first_hash, d->second_hash);
  EXPECT_NE(d->first_event, d->second_event);
  // The same check passes the App that keeps to simulated time.
  EXPECT_FALSE(logsim::check_determinism(logsim::scenario_from_json(scenario("billing")), 3).has_value());
}

// Billing with assertions: `always` that its batches stay under `limit` records (a backlog,
// after the member crash, makes them bigger), `sometimes` that a batch is full (50, the
// scenario's max.poll.records), and
// `sometimes` one that no run can make true.
class AssertingBilling : public logsim::App {
 public:
  explicit AssertingBilling(std::size_t limit) : limit_(limit) {}
  void on_start(AppContext& ctx) override {
    ctx_ = &ctx;
    ctx.consumer().subscribe(ctx.topics());
    ctx.set_timer(0, [this] { poll(); });
  }

 private:
  void poll() {
    const std::vector<ConsumedRecord> batch = ctx_->consumer().poll();
    if (!batch.empty()) {
      ctx_->always(batch.size() < limit_, "a batch stays under the limit");
      ctx_->sometimes(batch.size() == 50, "a batch is full");
      ctx_->sometimes(batch.front().partition.value() > 5, "a record from partition 6 or above");
    }
    for (const ConsumedRecord& r : batch) ctx_->consumer().processed(r);
    ctx_->consumer().commit_sync([this](const std::string&) { ctx_->set_timer(logsim::millis(10), [this] { poll(); }); });
  }
  std::size_t limit_;
  AppContext* ctx_ = nullptr;
};

TEST_F(AppTest, AnAlwaysThatFailsIsAViolationAtItsEvent) {
  logsim::register_app("asserting-billing", [] { return std::make_unique<AssertingBilling>(10); });
  const logsim::RunOutput out = logsim::run(logsim::scenario_from_json(scenario("asserting-billing")));
  logsim::unregister_app("asserting-billing");
  EXPECT_TRUE(logsim::found(out, "assertion-failed")) << logsim::describe(out);
  EXPECT_EQ(logsim::anomalies(out), std::vector<std::string>{"assertion-failed"});
  const logsim::Violation* v = logsim::first_violation(out);
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->explanation.find("always(\"a batch stays under the limit\")"), std::string::npos) << v->explanation;
  const logsim::HistoryEvent at = out.history.at(v->first_event);
  EXPECT_EQ(at.kind, OpKind::kAssert);
  EXPECT_EQ(at.error, "always-failed");
  EXPECT_EQ(at.process, v->process);
  // Recorded once a run, however often it fails; the sometimes assertions once each, and the
  // full batch once more when it held.
  EXPECT_EQ(logsim::stat(out, "assertions.always.failed"), 1);
  EXPECT_EQ(logsim::stat(out, "assertions.sometimes.reached"), 2);
  EXPECT_EQ(logsim::stat(out, "assertions.sometimes.held"), 1);
}

TEST_F(AppTest, AnAlwaysThatHoldsPasses) {
  logsim::register_app("asserting-billing", [] { return std::make_unique<AssertingBilling>(51); });
  const logsim::RunOutput out = logsim::run(logsim::scenario_from_json(scenario("asserting-billing")));
  logsim::unregister_app("asserting-billing");
  EXPECT_TRUE(logsim::testing::Passed(out));
  EXPECT_EQ(logsim::stat(out, "assertions.always.failed"), 0);
}

// A fuzz campaign tallies the sometimes assertions over its seeds: the full batch held in some,
// the impossible one in none (logsim fuzz prints it as NEVER HELD).
TEST_F(AppTest, AFuzzCampaignReportsTheSometimesThatNeverHeld) {
  logsim::register_app("asserting-billing", [] { return std::make_unique<AssertingBilling>(51); });
  logsim::fuzz::FuzzOptions o;
  o.template_doc = scenario("asserting-billing");
  o.template_file = "<app_test>";
  o.seeds = 6;
  o.shape.kinds = {logsim::scenarios::FaultKind::kMemberCrash};
  o.user.apps = logsim::detail::registered_app_nodes();
  const logsim::fuzz::FuzzReport r = logsim::fuzz::fuzz(o);
  logsim::unregister_app("asserting-billing");
  EXPECT_EQ(r.seeds_run, 6);
  EXPECT_TRUE(r.failing_seeds.empty());
  ASSERT_TRUE(r.sometimes.contains("a batch is full"));
  EXPECT_EQ(r.sometimes.at("a batch is full").reached, 6);
  EXPECT_GT(r.sometimes.at("a batch is full").held, 0);
  ASSERT_TRUE(r.sometimes.contains("a record from partition 6 or above"));
  EXPECT_EQ(r.sometimes.at("a record from partition 6 or above").reached, 6);
  EXPECT_EQ(r.sometimes.at("a record from partition 6 or above").held, 0);
}

// A user's own property: the billing group charges each order at most once. At-least-once
// delivery does not promise it: the member crash makes the group process some orders again.
class ChargedOnce : public logsim::Property {
 public:
  ChargedOnce() : Property("charged-once") {}
  void check(const logsim::HistoryEvent& e) override {
    if (e.kind != OpKind::kProcess || e.group != "billing") return;
    if (!charged_.insert(e.value_id).second) violation("charged-twice", e, "order " + std::to_string(e.value_id) + " charged twice");
  }

 private:
  std::set<std::uint64_t> charged_;
};

TEST_F(AppTest, AUsersPropertyIsJudgedBesideTheCheckers) {
  const logsim::Scenario s = logsim::scenario_from_json(scenario("billing"));
  logsim::register_checker("charged-once", [] { return std::make_unique<ChargedOnce>(); });
  const logsim::RunOutput out = logsim::run(s);
  logsim::unregister_checker("charged-once");
  EXPECT_EQ(logsim::anomalies(out), std::vector<std::string>{"charged-twice"}) << logsim::describe(out);
  const logsim::Violation* v = logsim::first_violation(out);
  ASSERT_NE(v, nullptr);
  const logsim::HistoryEvent at = out.history.at(v->first_event);
  EXPECT_EQ(at.kind, OpKind::kProcess);
  EXPECT_EQ(v->explanation, "order " + std::to_string(at.value_id) + " charged twice");
  // It was processed before, by the group.
  const auto earlier = logsim::events(out.history, {.kind = OpKind::kProcess, .group = "billing"});
  EXPECT_GT(std::count_if(earlier.begin(), earlier.end(),
                          [&](const logsim::HistoryEvent& e) { return e.value_id == at.value_id && e.index < at.index; }), 0);
  // Unregistered, the same run passes: only the property objected.
  EXPECT_TRUE(logsim::testing::Passed(logsim::run(s)));
}

// Flow control: whenever a poll brings records of a partition, the member pauses that
// partition for 300 ms (a downstream system is busy), goes on polling, and resumes it.
class Throttling : public logsim::App {
 public:
  void on_start(AppContext& ctx) override {
    ctx_ = &ctx;
    ctx.consumer().subscribe(ctx.topics());
    ctx.set_timer(0, [this] { poll(); });
  }
  static inline int pauses = 0;      // over the whole run (the test reads them; one run at a time)
  static inline int refused = 0;

 private:
  void poll() {
    logsim::Consumer& c = ctx_->consumer();
    std::vector<logsim::TopicPartition> to_pause;
    for (const ConsumedRecord& r : c.poll()) {
      const std::vector<logsim::TopicPartition> paused = c.paused();
      ctx_->always(std::find(paused.begin(), paused.end(), r.topic_partition()) == paused.end(),
                   "poll returns no record of a paused partition");
      c.processed(r);
      if (std::find(to_pause.begin(), to_pause.end(), r.topic_partition()) == to_pause.end()) to_pause.push_back(r.topic_partition());
    }
    if (!to_pause.empty()) {
      EXPECT_TRUE(c.pause(to_pause));
      ++pauses;
      ctx_->set_timer(logsim::millis(300), [this, to_pause] {
        // A rebalance may have taken a partition away meanwhile: resume what is still ours.
        std::vector<logsim::TopicPartition> ours;
        for (const auto& tp : to_pause) {
          const auto& mine = ctx_->consumer().assignment();
          if (std::find(mine.begin(), mine.end(), tp) != mine.end()) ours.push_back(tp);
        }
        ctx_->consumer().resume(ours);
      });
    }
    refused += c.pause({{"orders", logsim::PartitionId(99)}}) ? 0 : 1;
    c.commit_sync([this](const std::string&) { ctx_->set_timer(logsim::millis(10), [this] { poll(); }); });
  }
  AppContext* ctx_ = nullptr;
};

TEST_F(AppTest, APausedPartitionIsNotPolledUntilResumedAndNothingIsLost) {
  logsim::register_app("throttling", [] { return std::make_unique<Throttling>(); });
  Throttling::pauses = Throttling::refused = 0;
  const logsim::RunOutput out = logsim::run(logsim::scenario_from_json(scenario("throttling")));
  logsim::unregister_app("throttling");
  EXPECT_TRUE(logsim::testing::Passed(out));
  EXPECT_TRUE(logsim::missing_from(out.history, "billing", "orders").empty());
  EXPECT_GT(Throttling::pauses, 10);
  EXPECT_GT(Throttling::refused, 0) << "pausing a partition not assigned is refused";
  EXPECT_EQ(logsim::stat(out, "assertions.always.failed"), 0);
  // Paused 300 ms after each poll that brought records: no partition is polled twice within
  // 300 ms (at least ~ a poll's 10 ms less) by one member in one generation.
  std::map<std::pair<std::string, std::string>, logsim::Nanos> last;  // (member, partition) -> when
  for (const auto& e : logsim::events(out.history, {.kind = OpKind::kProcess, .group = "billing"})) {
    const auto key = std::make_pair(e.process + "/" + std::to_string(e.generation.value_or(logsim::GenerationId(-1)).value()),
                                    std::to_string(e.partition.value_or(logsim::PartitionId(-1)).value()));
    if (auto it = last.find(key); it != last.end() && it->second != e.at) {
      EXPECT_GE(e.at - it->second, logsim::millis(300)) << key.first << " " << key.second << " at " << e.at;
    }
    last[key] = e.at;
  }
}

// KafkaJS's style: consumer.run({eachMessage}). Each record takes 5 ms (a timer) before its
// done(); `twice` calls done() a second time, which must change nothing.
class EachMessage : public logsim::App {
 public:
  explicit EachMessage(bool twice) : twice_(twice) {}
  void on_start(AppContext& ctx) override {
    ctx.consumer().subscribe(ctx.topics());
    ctx.consumer().run_each_message([&ctx, this](const ConsumedRecord& r, std::function<void()> done) {
      ctx.always(r.value && r.value->rfind("order-", 0) == 0, "each message is an order");
      ctx.set_timer(logsim::millis(5), [this, done = std::move(done)] {
        done();
        if (twice_) done();
      });
    });
  }

 private:
  bool twice_;
};

// consumer.run({eachBatch}): each batch is one partition's records of a poll, in offset order;
// done() after 20 ms.
class EachBatch : public logsim::App {
 public:
  void on_start(AppContext& ctx) override {
    ctx.consumer().subscribe(ctx.topics());
    ctx.consumer().run_each_batch([&ctx](const std::vector<ConsumedRecord>& batch, std::function<void()> done) {
      bool one_partition_in_order = !batch.empty();
      for (std::size_t i = 1; i < batch.size(); ++i) {
        one_partition_in_order = one_partition_in_order && batch[i].topic_partition() == batch[0].topic_partition() &&
                                 batch[i].offset.value() > batch[i - 1].offset.value();
      }
      ctx.always(one_partition_in_order, "a batch is one partition's records in offset order");
      ctx.sometimes(batch.size() > 1, "a batch of several records");
      ctx.set_timer(logsim::millis(20), std::move(done));
    });
  }
};

TEST_F(AppTest, TheEachMessageAndEachBatchLoopsProcessAndCommitEverythingThroughCrashes) {
  logsim::register_app("each-message", [] { return std::make_unique<EachMessage>(false); });
  logsim::register_app("each-batch", [] { return std::make_unique<EachBatch>(); });
  for (const char* app : {"each-message", "each-batch"}) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const logsim::RunOutput out = logsim::run(logsim::scenario_from_json(scenario(app)), {.seed = seed});
      EXPECT_TRUE(logsim::testing::Passed(out)) << app << " seed " << seed;
      EXPECT_TRUE(logsim::missing_from(out.history, "billing", "orders").empty()) << app << " seed " << seed;
      EXPECT_GT(logsim::stat(out, "group.billing.commits.accepted"), 0) << app << ": autoCommit commits";
      EXPECT_EQ(logsim::stat(out, "assertions.always.failed"), 0) << app;
    }
  }
  logsim::unregister_app("each-message");
  logsim::unregister_app("each-batch");
}

// Without faults every order is processed exactly once, even by a handler that calls done()
// twice; and the loop's commits leave the group's offsets at the end of each partition.
TEST_F(AppTest, TheEachMessageLoopProcessesEachRecordOnceAndADoubleDoneChangesNothing) {
  logsim::register_app("each-message-twice", [] { return std::make_unique<EachMessage>(true); });
  nlohmann::json doc = scenario("each-message-twice");
  doc.erase("timeline");
  const logsim::RunOutput out = logsim::run(logsim::scenario_from_json(doc));
  logsim::unregister_app("each-message-twice");
  EXPECT_TRUE(logsim::testing::Passed(out));
  const auto processed = logsim::events(out.history, {.kind = OpKind::kProcess, .group = "billing"});
  EXPECT_EQ(processed.size(), 2400u);
  std::set<std::uint64_t> ids;
  for (const auto& e : processed) ids.insert(e.value_id);
  EXPECT_EQ(ids.size(), 2400u);
}

// An operator's App with the admin client: at 26 s (the billing group is stable again by then) it
// creates a compacted topic, tries again, grows it, describes the group, deletes the topic, and
// asks for more replicas than there are brokers. Each answer is noted.
class Operator : public logsim::App {
 public:
  static inline std::vector<std::string> answers;  // the test reads them (one run at a time)
  static inline logsim::GroupDescription described;

  void on_start(AppContext& ctx) override {
    ctx.set_timer(logsim::seconds(26), [&ctx] {
      logsim::Admin& a = ctx.admin();
      const auto note = [](const std::string& error) { answers.push_back(error.empty() ? "ok" : error); };
      a.create_topic("receipts", 3, 3, {{"cleanup.policy", "compact"}}, [&a, note](const std::string& e) {
        note(e);
        a.create_topic("receipts", 3, -1, {}, [&a, note](const std::string& again) {
          note(again);
          a.create_partitions("receipts", 5, [&a, note](const std::string& grown) {
            note(grown);
            a.describe_group("billing", [&a, note](const logsim::GroupDescription& d) {
              described = d;
              a.delete_topic("receipts", [&a, note](const std::string& deleted) {
                note(deleted);
                a.create_topic("too-many-replicas", 1, 7, {}, note);
              });
            });
          });
        });
      });
    });
  }
};

TEST_F(AppTest, TheAdminClientCreatesGrowsAndDeletesTopicsAndDescribesGroups) {
  logsim::register_app("operator", [] { return std::make_unique<Operator>(); });
  Operator::answers.clear();
  nlohmann::json doc = scenario("billing");
  doc["producers"].push_back({{"name", "operator"}, {"topic", "orders"}, {"app", "operator"}});
  const logsim::RunOutput out = logsim::run(logsim::scenario_from_json(doc));
  logsim::unregister_app("operator");
  EXPECT_TRUE(logsim::testing::Passed(out));
  EXPECT_EQ(Operator::answers,
            (std::vector<std::string>{"ok", "TOPIC_ALREADY_EXISTS", "ok", "ok", "INVALID_REPLICATION_FACTOR"}));
  EXPECT_EQ(Operator::described.error, logsim::ErrorCode::NONE);
  EXPECT_EQ(Operator::described.state, "Stable");
  EXPECT_EQ(Operator::described.members.size(), 2u);
  ASSERT_EQ(Operator::described.rows.size(), 2u);
  for (const auto& row : Operator::described.rows) EXPECT_GE(row.lag, 0) << row.partition.value();
  // Each call is in the history, by the operator's node, the compacted topic's config in its note.
  std::vector<std::string> notes;
  for (const auto& e : logsim::events(out.history, {.kind = OpKind::kAdmin, .process = "operator"})) notes.push_back(e.note);
  ASSERT_EQ(notes.size(), 6u);
  EXPECT_EQ(notes[0], "create-topic receipts cleanup.policy=compact: done");
  EXPECT_EQ(notes[1].rfind("create-topic receipts: TOPIC_ALREADY_EXISTS", 0), 0u) << notes[1];
  EXPECT_EQ(notes[2], "add-partitions receipts to 5 partitions: done");
  EXPECT_EQ(notes[3], "describe-group billing: state Stable, generation " + std::to_string(Operator::described.generation_id));
  EXPECT_EQ(notes[4], "delete-topic receipts: done");
  EXPECT_EQ(notes[5].rfind("create-topic too-many-replicas: INVALID_REPLICATION_FACTOR", 0), 0u) << notes[5];
}

TEST_F(AppTest, CommittingBeforeProcessingIsCaught) {
  const logsim::Scenario s = logsim::scenario_from_json(scenario("billing-commits-first"));
  const logsim::RunOutput out = logsim::run(s);
  EXPECT_FALSE(logsim::passed(out));
  EXPECT_TRUE(logsim::found(out, "lost-commit")) << logsim::describe(out);
  EXPECT_FALSE(logsim::missing_from(out.history, "billing", "orders").empty());
}

TEST_F(AppTest, AnUnknownAppNamesThePathAndTheRegisteredApps) {
  try {
    logsim::scenario_from_json(scenario("biling"));
    FAIL() << "no error";
  } catch (const logsim::ScenarioError& e) {
    EXPECT_EQ(e.pointer(), "/groups/0/app");
    EXPECT_NE(e.problem().find("\"biling\""), std::string::npos) << e.what();
    EXPECT_NE(e.expected().find("did you mean \"billing\"?"), std::string::npos) << e.what();
    EXPECT_NE(e.expected().find("\"billing-commits-first\", \"shop\""), std::string::npos) << e.what();
  }
}

TEST_F(AppTest, TheBuiltInKeysAreRefusedBesideAnApp) {
  nlohmann::json j = scenario("billing");
  j["groups"][0]["commit"] = "after-each-batch";
  try {
    logsim::scenario_from_json(j);
    FAIL() << "no error";
  } catch (const logsim::ScenarioError& e) {
    EXPECT_EQ(e.pointer(), "/groups/0/commit");
  }
}

TEST(AppRegistry, AProgramWithoutTheAppRefusesTheScenario) {
  // What `logsim run` (which registers no app) says of such a file.
  const nlohmann::json j = nlohmann::json::parse(R"({"name": "x", "topics": [{"name": "t"}],
      "producers": [{"name": "p", "topic": "t", "app": "shop"}]})");
  try {
    logsim::scenario_from_json(j);
    FAIL() << "no error";
  } catch (const logsim::ScenarioError& e) {
    EXPECT_EQ(e.pointer(), "/producers/0/app");
    EXPECT_NE(e.expected().find("logsim::register_app(\"shop\""), std::string::npos) << e.what();
  }
}

}  // namespace

// An App's durable store (api/store.h): first on a simulated disk driven by hand (what a
// crash, a power loss and a torn write leave), then inside runs: a node's store across a crash
// and a power loss, and the ordering bug it exists to show (a consumer that commits offsets
// before its store has synced what it did with the records) caught at a power loss, with the
// right order passing the same seeds.
#include "api/store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "api/app.h"
#include "api/gtest.h"
#include "api/logsim.h"
#include "api/app_registry.h"
#include "fuzz/fuzz.h"
#include "engine/env/rng.h"
#include "sim/disk.h"

namespace {

using logsim::AppContext;
using logsim::ConsumedRecord;
using logsim::Store;

// A simulated disk whose fsync completions wait until the test fires them; each completion is
// then handed to the store, as the world hands it to the node.
class HandDisk {
 public:
  explicit HandDisk(logsim::sim::SimDiskOptions options = {}, std::uint64_t seed = 1)
      : disk(options, logsim::Rng(seed), [this](logsim::Nanos, std::uint64_t token, std::function<void()> complete) {
          waiting.emplace_back(token, std::move(complete));
        }) {}
  // Completes every fsync begun so far (the last first, when `reversed`), telling `store`.
  void complete_all(Store& store, bool reversed = false) {
    std::vector<std::pair<std::uint64_t, std::function<void()>>> batch = std::move(waiting);
    waiting.clear();
    if (reversed) std::reverse(batch.begin(), batch.end());
    for (auto& [token, complete] : batch) {
      complete();
      store.on_fsync(token);
    }
  }
  std::vector<std::pair<std::uint64_t, std::function<void()>>> waiting;  // first: the sink captures it
  logsim::sim::SimDisk disk;
};

std::map<std::string, std::string> contents(const Store& s) { return {s.items().begin(), s.items().end()}; }

TEST(Store, ReadsBackPutsAndErasesWhenOpenedAgain) {
  HandDisk d;
  {
    Store s(d.disk, "store");
    EXPECT_EQ(s.size(), 0u);
    s.put("a", "1");
    s.put("b", "2");
    s.put("a", "3");
    s.erase("b");
    s.erase("never-there");
    s.put("", "empty key");
    s.put("c", std::string("\0bin\xff", 5));
    EXPECT_EQ(s.get("a"), "3");
    EXPECT_FALSE(s.get("b").has_value());
  }
  const Store again(d.disk, "store");
  EXPECT_EQ(contents(again), (std::map<std::string, std::string>{{"", "empty key"}, {"a", "3"}, {"c", std::string("\0bin\xff", 5)}}));
  EXPECT_EQ(again.dropped_at_open(), 0u);
}

TEST(Store, ACrashKeepsUnsyncedWritesAPowerLossKeepsOnlySyncedOnes) {
  HandDisk d;
  {
    Store s(d.disk, "store");
    s.put("synced", "1");
    bool done = false;
    s.sync([&] { done = true; });
    EXPECT_FALSE(done);
    EXPECT_EQ(s.syncs_in_flight(), 1u);
    d.complete_all(s);
    EXPECT_TRUE(done);
    s.put("unsynced", "2");
  }
  d.disk.crash();
  EXPECT_EQ(contents(Store(d.disk, "store")), (std::map<std::string, std::string>{{"synced", "1"}, {"unsynced", "2"}}));
  d.disk.power_loss();
  EXPECT_EQ(contents(Store(d.disk, "store")), (std::map<std::string, std::string>{{"synced", "1"}}));
}

TEST(Store, ASyncInFlightAtAPowerLossMakesNothingDurableAndNeverReportsDone) {
  HandDisk d;
  bool done = false;
  {
    Store s(d.disk, "store");
    s.put("k", "v");
    s.sync([&] { done = true; });
  }
  d.disk.power_loss();
  for (auto& [token, complete] : d.waiting) complete();  // no-ops now: the disk forgot them
  EXPECT_FALSE(done);
  EXPECT_EQ(Store(d.disk, "store").size(), 0u);
}

// A later snapshot holds everything before it: when it lands first, the earlier syncs are done
// too, and their callbacks run in the order the syncs were asked for.
TEST(Store, SyncsReportDoneInTheOrderTheyWereAskedFor) {
  HandDisk d;
  Store s(d.disk, "store");
  std::vector<int> order;
  s.put("a", "1");
  s.sync([&] { order.push_back(1); });
  s.put("b", "2");
  s.sync([&] { order.push_back(2); });
  d.complete_all(s, /*reversed=*/true);
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_EQ(s.syncs_in_flight(), 0u);
  EXPECT_FALSE(s.on_fsync(12345)) << "a token that is not the store's";
}

// A power loss may tear the last unsynced write (and corrupt its last byte): the store drops
// the torn entry and reads every whole one before it.
TEST(Store, ATornWriteIsDroppedAtOpen) {
  int torn = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    HandDisk d({.torn_write_probability = 1.0, .torn_corrupt_probability = 0.5}, seed);
    {
      Store s(d.disk, "store");
      s.put("kept", "1");
      s.sync();
      d.complete_all(s);
      s.put("torn", std::string(200, 'x'));
    }
    d.disk.power_loss();
    const Store after(d.disk, "store");
    EXPECT_EQ(contents(after), (std::map<std::string, std::string>{{"kept", "1"}})) << "seed " << seed;
    EXPECT_EQ(d.disk.size("store"), d.disk.durable_size("store").value_or(0) - after.dropped_at_open()) << "seed " << seed;
    torn += after.dropped_at_open() > 0 ? 1 : 0;
  }
  EXPECT_GT(torn, 20) << "the disk tore few writes: the test did not test the store";
}

TEST(Store, AFlippedByteEndsTheStoreAtTheEntryItIsIn) {
  HandDisk d;
  {
    Store s(d.disk, "store");
    s.put("first", "1");
    s.put("second", "2");
  }
  std::string bytes = d.disk.read("store", 0, d.disk.size("store"));
  bytes.back() = static_cast<char>(bytes.back() ^ 0x20);  // in "second"'s value
  d.disk.remove("store");
  d.disk.append("store", bytes);
  const Store after(d.disk, "store");
  EXPECT_EQ(contents(after), (std::map<std::string, std::string>{{"first", "1"}}));
  EXPECT_GT(after.dropped_at_open(), 0u);
}

// A key written over and over: the file is rewritten with one entry a key when it is opened.
TEST(Store, AFileMuchLargerThanItsContentsIsCompactedAtOpen) {
  HandDisk d;
  {
    Store s(d.disk, "store");
    for (int i = 0; i < 5000; ++i) s.put("counter", std::to_string(i));
    s.put("other", "x");
  }
  const std::uint64_t before = d.disk.size("store");
  EXPECT_GT(before, 64u * 1024);
  Store s(d.disk, "store");
  EXPECT_LT(d.disk.size("store"), 100u);
  EXPECT_FALSE(d.disk.exists("store.compact"));
  EXPECT_EQ(contents(s), (std::map<std::string, std::string>{{"counter", "4999"}, {"other", "x"}}));
  // Compacted and not yet synced: a power loss brings back the old file, whose durable part is
  // none here (nothing was ever synced).
  s.sync();
  d.complete_all(s);
  d.disk.power_loss();
  EXPECT_EQ(contents(Store(d.disk, "store")), (std::map<std::string, std::string>{{"counter", "4999"}, {"other", "x"}}));
}

// ---- In runs

// What a node's store held at each start (for the diary test below).
std::vector<std::map<std::string, std::string>> g_seen_at_start;

// At each start: notes what its store holds, writes a<n> and syncs it, and 100 ms later writes
// b<n>, which it never syncs.
class Diary : public logsim::App {
 public:
  void on_start(AppContext& ctx) override {
    g_seen_at_start.push_back(contents(ctx.store()));
    const std::string n = std::to_string(g_seen_at_start.size());
    ctx.store().put("a" + n, "");
    ctx.store().sync();
    ctx.set_timer(logsim::millis(100), [&ctx, n] { ctx.store().put("b" + n, ""); });
  }
};

TEST(StoreInARun, SurvivesACrashWholeAndAPowerLossAsFarAsItWasSynced) {
  logsim::register_app("diary", [] { return std::make_unique<Diary>(); });
  g_seen_at_start.clear();
  const logsim::RunOutput out = logsim::run(logsim::scenario_from_json(nlohmann::json::parse(R"({
    "name": "diary", "duration": "5s", "quiesce": "1s",
    "topics": [{"name": "t"}],
    "producers": [{"name": "diary", "topic": "t", "app": "diary"}],
    "timeline": [
      {"at": "1s", "action": "crash", "target": "diary"},
      {"at": "2s", "action": "restart", "target": "diary"},
      {"at": "3s", "action": "power-loss", "target": "diary"},
      {"at": "4s", "action": "restart", "target": "diary"}
    ]})")));
  logsim::unregister_app("diary");
  EXPECT_TRUE(logsim::testing::Passed(out));
  using M = std::map<std::string, std::string>;
  // b2 was written after the second start's sync, and lost with the power.
  EXPECT_EQ(g_seen_at_start, (std::vector<M>{M{}, M{{"a1", ""}, {"b1", ""}}, M{{"a1", ""}, {"a2", ""}, {"b1", ""}}}));
}

// The book: a group member that posts each order it polls to the book in its durable store,
// and syncs the store every 300 ms; a posting counts as processed once its sync has completed,
// and then (the fix) its offset is committed. When partitions are revoked (inside a poll), the
// postings of theirs still waiting for a sync are handed over as they are: reported processed
// now, not committed, so their next owner reads them again from the committed offset.
//
// With `commit_on_poll` (the bug): it commits the positions after each poll, ahead of the
// store. A power loss loses the unsynced postings, and the group never reads those orders
// again.
class Book : public logsim::App {
 public:
  explicit Book(bool commit_on_poll) : commit_on_poll_(commit_on_poll) {}

  void on_start(AppContext& ctx) override {
    ctx_ = &ctx;
    const auto hand_over = [this](const std::vector<logsim::TopicPartition>& gone) {
      std::erase_if(waiting_, [&](const Posting& p) {
        if (std::find(gone.begin(), gone.end(), p.record.topic_partition()) == gone.end()) return false;
        ctx_->consumer().processed(p.record, "handed over at a rebalance");
        return true;
      });
    };
    ctx.consumer().subscribe(ctx.topics(), {.assigned = {}, .revoked = hand_over, .lost = hand_over});
    ctx.set_timer(0, [this] { poll(); });
    ctx.set_timer(kSyncEvery, [this] { sync(); });
  }

 private:
  static constexpr logsim::Nanos kSyncEvery = logsim::millis(300);
  struct Posting {
    ConsumedRecord record;
    std::uint64_t sync = 0;  // the sync that makes it durable (0: none asked for yet)
  };

  void poll() {
    const std::vector<ConsumedRecord> got = ctx_->consumer().poll();
    for (const ConsumedRecord& r : got) {
      ctx_->store().put(r.topic + "/" + std::to_string(r.partition.value()) + "/" + std::to_string(r.offset.value()),
                        std::to_string(r.value_id));
      waiting_.push_back({r, 0});
    }
    if (commit_on_poll_ && !got.empty()) ctx_->consumer().commit_async();  // THE BUG
    ctx_->set_timer(logsim::millis(20), [this] { poll(); });
  }

  void sync() {
    const std::uint64_t id = ++syncs_;
    for (Posting& p : waiting_) {
      if (p.sync == 0) p.sync = id;
    }
    ctx_->store().sync([this, id] { synced(id); });
    ctx_->set_timer(kSyncEvery, [this] { sync(); });
  }

  // Sync `id` completed: its postings (those still here) are durable.
  void synced(std::uint64_t id) {
    std::map<logsim::TopicPartition, logsim::Offset> upto;
    std::erase_if(waiting_, [&](const Posting& p) {
      if (p.sync == 0 || p.sync > id) return false;
      ctx_->consumer().processed(p.record);
      upto[p.record.topic_partition()] = logsim::Offset(p.record.offset.value() + 1);
      return true;
    });
    if (!commit_on_poll_ && !upto.empty()) ctx_->consumer().commit_async(upto);
  }

  bool commit_on_poll_;
  AppContext* ctx_ = nullptr;
  std::vector<Posting> waiting_;  // polled and posted, not yet reported, in poll order
  std::uint64_t syncs_ = 0;
};

// Orders at 400 a second for 11 s; a two-member group runs the book, from the start
// (group.initial.rebalance.delay.ms 0, as Kafka's own tests set it); member book-1 loses power
// at 9.15 s (between two of its syncs), or suffers `fault`, and comes back at 10 s.
nlohmann::json book_doc(const std::string& app, const std::string& fault = "power-loss") {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "name": "book", "duration": "12s", "quiesce": "20s",
    "cluster": {"brokers": 1, "config": {"offsets.topic.num.partitions": 1, "offsets.topic.replication.factor": 1,
                                         "group.initial.rebalance.delay.ms": 0}},
    "topics": [{"name": "orders", "partitions": 2}],
    "producers": [{"name": "shop", "topic": "orders", "rate_per_sec": 400, "for": "11s", "keys": {"uniform": 50},
                   "config": {"acks": "all"}}],
    "groups": [{"name": "book", "topics": ["orders"], "members": 2,
                "config": {"auto.offset.reset": "earliest", "session.timeout.ms": 6000, "heartbeat.interval.ms": 1000}}]
  })");
  doc["groups"][0]["app"] = app;
  if (!fault.empty()) {
    doc["timeline"] = nlohmann::json::array({{{"at", "9150ms"}, {"action", fault}, {"target", "book-1"}},
                                             {{"at", "10s"}, {"action", "restart"}, {"target", "book-1"}}});
  }
  return doc;
}

logsim::Scenario book_scenario(const std::string& app, const std::string& fault = "power-loss") {
  return logsim::scenario_from_json(book_doc(app, fault));
}

TEST(StoreInARun, CommittingAheadOfTheStoreLosesOrdersAtAPowerLossAndSyncThenCommitDoesNot) {
  logsim::register_app("book-commits-on-poll", [] { return std::make_unique<Book>(true); });
  logsim::register_app("book", [] { return std::make_unique<Book>(false); });
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    // The bug: every seed loses the orders book-1 had posted but not synced, whose offsets it
    // had committed.
    const logsim::RunOutput bad = logsim::run(book_scenario("book-commits-on-poll"), {.seed = seed});
    EXPECT_FALSE(logsim::passed(bad)) << "seed " << seed;
    for (const std::string& a : logsim::anomalies(bad)) {
      EXPECT_TRUE(a == "unseen" || a == "lost-commit") << "seed " << seed << ": " << a;
    }
    EXPECT_FALSE(logsim::missing_from(bad.history, "book", "orders").empty()) << "seed " << seed;
    // The fix: the same seeds pass, through the power loss and through a crash.
    for (const char* fault : {"power-loss", "crash"}) {
      const logsim::RunOutput good = logsim::run(book_scenario("book", fault), {.seed = seed});
      EXPECT_TRUE(logsim::testing::Passed(good)) << "seed " << seed << ", " << fault;
      EXPECT_TRUE(logsim::missing_from(good.history, "book", "orders").empty()) << "seed " << seed << ", " << fault;
      EXPECT_GT(logsim::stat(good, "records.processed.book-1"), 0) << "seed " << seed << ", " << fault;
    }
  }
  logsim::unregister_app("book-commits-on-poll");
  logsim::unregister_app("book");
}

// logsim fuzz --faults member-power-loss finds the bug by itself, and shrinks it to a scenario
// that still fails the same way; the fixed book passes the same seeds.
TEST(StoreInARun, FuzzingWithMemberPowerLossFindsTheBookThatCommitsAhead) {
  logsim::register_app("book-commits-on-poll", [] { return std::make_unique<Book>(true); });
  logsim::register_app("book", [] { return std::make_unique<Book>(false); });
  const auto campaign = [](const std::string& app) {
    logsim::fuzz::FuzzOptions o;
    o.template_doc = book_doc(app, "");
    o.template_file = "<store_test>";
    o.seeds = 40;
    o.shape.kinds = {logsim::scenarios::FaultKind::kMemberPowerLoss};
    o.shrink_max_runs = 60;
    o.user.apps = logsim::detail::registered_app_nodes();
    return logsim::fuzz::fuzz(o);
  };
  const logsim::fuzz::FuzzReport bad = campaign("book-commits-on-poll");
  const logsim::fuzz::FuzzReport good = campaign("book");
  logsim::unregister_app("book-commits-on-poll");
  logsim::unregister_app("book");
  ASSERT_TRUE(bad.failure.has_value()) << "40 seeds of member power losses did not find the bug";
  EXPECT_TRUE(bad.failure->anomaly == "unseen" || bad.failure->anomaly == "lost-commit") << bad.failure->anomaly;
  EXPECT_FALSE(logsim::passed(bad.failure->shrunk_run));
  EXPECT_NE(bad.failure->shrunk.dump().find("power-loss"), std::string::npos) << bad.failure->shrunk.dump();
  EXPECT_EQ(good.seeds_run, 40);
  EXPECT_TRUE(good.failing_seeds.empty());
}

}  // namespace

// The live world: timers, delivery, lifecycle, link faults and disks on a real io_context.
// Every test runs the io_context for a bounded time (run_for), so none can hang.
#include "live/live_world.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "live/disks.h"

namespace logsim::live {
namespace {

using namespace std::chrono_literals;

// Records what reaches it; on start it may send a hello or arm timers.
struct Probe final : Node {
  explicit Probe(Env& e, std::vector<std::string>& l) : env(e), log(l) {}
  void on_start() override { log.push_back(env_name() + " start"); }
  void on_message(NodeId from, const Message& msg) override {
    const auto* m = std::get_if<MetadataRequest>(&msg);
    if (const auto* r = std::get_if<MetadataResponse>(&msg)) {
      log.push_back(env_name() + " got answer " + std::to_string(r->correlation_id) + " from " + std::to_string(from.value()));
      return;
    }
    log.push_back(env_name() + " got " + std::to_string(m ? m->correlation_id : -1) + " from " + std::to_string(from.value()));
  }
  void on_timer(TimerId, std::uint64_t tag) override { log.push_back(env_name() + " timer " + std::to_string(tag)); }
  void on_fsync(std::uint64_t token) override { log.push_back(env_name() + " fsync " + std::to_string(token)); }
  void on_disconnect(NodeId peer) override { log.push_back(env_name() + " disconnect " + std::to_string(peer.value())); }
  std::string env_name() const { return "n" + std::to_string(env.self().value()); }
  Env& env;
  std::vector<std::string>& log;
};

struct Fixture : ::testing::Test {
  boost::asio::io_context io;
  LiveWorld world{io};
  std::vector<std::string> log;
  NodeId add() {
    return world.add_node("n", [this](Env& env) { return std::make_unique<Probe>(env, log); }, std::make_unique<MemDisk>());
  }
  Probe& probe(NodeId id) { return *static_cast<Probe*>(world.node(id)); }
  void run(std::chrono::milliseconds d = 50ms) {
    io.restart();
    io.run_for(d);
  }
  bool logged(const std::string& line) const { return std::find(log.begin(), log.end(), line) != log.end(); }
};

TEST_F(Fixture, TimersFireInDelayOrderAndACancelledOneNever) {
  const NodeId a = add();
  world.start(a);
  Env& env = probe(a).env;
  env.set_timer(millis(20), 2);
  const TimerId cancelled = env.set_timer(millis(5), 9);
  env.set_timer(millis(1), 1);
  env.cancel_timer(cancelled);
  run(100ms);
  EXPECT_EQ(log, (std::vector<std::string>{"n0 start", "n0 timer 1", "n0 timer 2"}));
  EXPECT_GE(world.now(), millis(20));
}

TEST_F(Fixture, AMessageIsDeliveredAfterTheSendersHandlerNeverInsideIt) {
  const NodeId a = add(), b = add();
  world.start(a);
  world.start(b);
  probe(a).env.send(b, MetadataRequest{7, {}});
  EXPECT_FALSE(logged("n1 got 7 from 0")) << "delivered synchronously";
  run();
  EXPECT_TRUE(logged("n1 got 7 from 0"));
}

TEST_F(Fixture, AMessageNeverCrossesARestartOfItsReceiverButOutlivesItsSender) {
  const NodeId a = add(), b = add();
  world.start(a);
  world.start(b);
  probe(a).env.send(b, MetadataRequest{1, {}});
  world.restart(b);  // the receiver restarted before delivery: the old connection is gone
  probe(b).env.send(a, MetadataRequest{2, {}});
  world.restart(b);  // the sender restarted before delivery: its bytes were on the wire
  run();
  EXPECT_FALSE(logged("n1 got 1 from 0"));
  EXPECT_TRUE(logged("n0 got 2 from 1")) << "a message was lost because its sender restarted after sending it";
  // a answers the incarnation of b that asked, which is gone: the new one never sees it.
  probe(a).env.send(b, MetadataResponse{2, {}, {}});
  probe(a).env.send(b, MetadataRequest{3, {}});
  run();
  EXPECT_FALSE(logged("n1 got answer 2 from 0"));
  EXPECT_TRUE(logged("n1 got 3 from 0"));
}

// Sends one last request from on_stop, as a consumer's LeaveGroup or final commit.
struct Leaver final : Node {
  Leaver(Env& e, NodeId to) : env(e), peer(to) {}
  void on_start() override {}
  void on_message(NodeId, const Message&) override {}
  void on_timer(TimerId, std::uint64_t) override {}
  void on_stop() override { env.send(peer, MetadataRequest{99, {}}); }
  Env& env;
  NodeId peer;
};

TEST_F(Fixture, AGracefulStopsLastMessageArrivesBeforeThePeerHearsTheDisconnect) {
  const NodeId b = add();
  const NodeId a = world.add_node("leaver", [b](Env& env) { return std::make_unique<Leaver>(env, b); },
                                  std::make_unique<MemDisk>());
  world.start(b);
  world.start(a);
  world.stop(a);
  run();
  const auto got = std::find(log.begin(), log.end(), "n0 got 99 from 1");
  const auto gone = std::find(log.begin(), log.end(), "n0 disconnect 1");
  ASSERT_NE(got, log.end()) << "the stop's last message was dropped";
  ASSERT_NE(gone, log.end());
  EXPECT_LT(got, gone);
  EXPECT_EQ(world.state(a), NodeState::kDown);
}

TEST_F(Fixture, AnAnswerSentAfterTheRequesterRestartedNeverReachesItsNewIncarnation) {
  const NodeId a = add(), b = add();
  world.start(a);
  world.start(b);
  probe(a).env.send(b, MetadataRequest{1, {}});
  run();
  ASSERT_TRUE(logged("n1 got 1 from 0"));
  world.restart(a);  // b still owes the first incarnation its answer
  probe(b).env.send(a, MetadataResponse{1, {}, {}});
  run();
  EXPECT_FALSE(logged("n0 got answer 1 from 1")) << "an answer crossed the requester's restart";
  probe(a).env.send(b, MetadataRequest{2, {}});
  run();
  probe(b).env.send(a, MetadataResponse{2, {}, {}});
  run();
  EXPECT_TRUE(logged("n0 got answer 2 from 1"));
}

TEST_F(Fixture, ACrashTellsThePeersAndASendToTheDeadNodeIsRefused) {
  const NodeId a = add(), b = add();
  world.start(a);
  world.start(b);
  probe(a).env.set_timer(millis(5), 4);
  world.crash(a);
  run();
  EXPECT_TRUE(logged("n1 disconnect 0"));
  EXPECT_FALSE(logged("n0 timer 4")) << "a dead incarnation's timer fired";
  probe(b).env.send(a, MetadataRequest{5, {}});
  run();
  EXPECT_EQ(std::count(log.begin(), log.end(), "n1 disconnect 0"), 2);
  EXPECT_EQ(world.state(a), NodeState::kCrashed);
}

// on_state hears each time a node starts running or stops (the server opens and closes a
// broker's port on it), in order, and never of an endpoint or a pause.
TEST_F(Fixture, EveryStartAndEndOfANodesProcessIsReportedButNotAnEndpointsOrAPause) {
  std::vector<std::string> states;
  world.on_state = [&](NodeId id, NodeState state) {
    states.push_back(std::to_string(id.value()) + " " + std::string(node_state_name(state)));
  };
  const NodeId a = add();
  const NodeId endpoint = world.add_node("c", [this](Env& env) { return std::make_unique<Probe>(env, log); },
                                         std::make_unique<MemDisk>(), /*endpoint=*/true);
  world.start(a);
  world.start(endpoint);
  world.pause(a);
  world.resume(a);
  world.crash(a);
  world.crash(a);  // already down: nothing
  world.restart(a);
  world.restart(a);  // a running node is crashed first
  world.power_loss(a);
  world.start(a);
  world.stop(a);
  world.start(a);
  world.remove(a);
  world.remove(endpoint);
  EXPECT_EQ(states, (std::vector<std::string>{"0 up", "0 crashed", "0 up", "0 crashed", "0 up", "0 crashed", "0 up",
                                              "0 down", "0 up", "0 removed"}));
}

TEST_F(Fixture, APausedNodeHandlesNothingUntilResumedThenAllInArrivalOrder) {
  const NodeId a = add(), b = add();
  world.start(a);
  world.start(b);
  world.pause(b);
  probe(b).env.set_timer(millis(1), 3);
  probe(a).env.send(b, MetadataRequest{1, {}});
  run(30ms);
  EXPECT_EQ(log, (std::vector<std::string>{"n0 start", "n1 start"}));
  world.resume(b);
  EXPECT_EQ(log, (std::vector<std::string>{"n0 start", "n1 start", "n1 got 1 from 0", "n1 timer 3"}));
}

TEST_F(Fixture, ACutLosesMessagesOneWayAndADelayHoldsThem) {
  const NodeId a = add(), b = add();
  world.start(a);
  world.start(b);
  world.cut(a, b);
  probe(a).env.send(b, MetadataRequest{1, {}});
  probe(b).env.send(a, MetadataRequest{2, {}});
  run();
  EXPECT_FALSE(logged("n1 got 1 from 0"));
  EXPECT_TRUE(logged("n0 got 2 from 1"));
  world.heal();
  world.delay(a, b, millis(40));
  const Nanos sent = world.now();
  probe(a).env.send(b, MetadataRequest{3, {}});
  run(20ms);
  EXPECT_FALSE(logged("n1 got 3 from 0"));
  run(100ms);
  EXPECT_TRUE(logged("n1 got 3 from 0"));
  EXPECT_GE(world.now() - sent, millis(40));
}

TEST_F(Fixture, AClogHoldsMessagesToAndFromTheNodeUntilItEnds) {
  const NodeId a = add(), b = add(), c = add();
  world.start(a);
  world.start(b);
  world.start(c);
  const Nanos until = world.now() + millis(40);
  world.clog(b, until);
  probe(a).env.send(b, MetadataRequest{1, {}});
  probe(b).env.send(c, MetadataRequest{2, {}});
  probe(a).env.send(c, MetadataRequest{3, {}});  // not through b: not held
  run(20ms);
  EXPECT_TRUE(logged("n2 got 3 from 0"));
  EXPECT_FALSE(logged("n1 got 1 from 0"));
  EXPECT_FALSE(logged("n2 got 2 from 1"));
  run(100ms);
  EXPECT_TRUE(logged("n1 got 1 from 0"));
  EXPECT_TRUE(logged("n2 got 2 from 1"));
  EXPECT_GE(world.now(), until);
  world.heal();
  EXPECT_EQ(world.node_count(), 3u);
}

// The correlation ids of the requests node `to` got from `from`, in arrival order.
std::vector<int> arrivals(const std::vector<std::string>& log, int to, int from) {
  std::vector<int> out;
  const std::string prefix = "n" + std::to_string(to) + " got ";
  const std::string suffix = " from " + std::to_string(from);
  for (const auto& line : log) {
    if (line.starts_with(prefix) && line.ends_with(suffix)) {
      out.push_back(std::stoi(line.substr(prefix.size(), line.size() - prefix.size() - suffix.size())));
    }
  }
  return out;
}

TEST_F(Fixture, AShapedLinkDelaysAndKeepsOrderUnlessItReorders) {
  const NodeId a = add(), b = add(), c = add();
  for (const NodeId n : {a, b, c}) world.start(n);
  world.shape(b, LinkShape{.latency_min = millis(15), .latency_mean = millis(10)});
  const Nanos sent = world.now();
  for (int i = 1; i <= 20; ++i) probe(a).env.send(b, MetadataRequest{i, {}});
  probe(a).env.send(c, MetadataRequest{99, {}});  // a link without b: not shaped
  run(10ms);
  EXPECT_TRUE(logged("n2 got 99 from 0"));
  EXPECT_TRUE(arrivals(log, 1, 0).empty()) << "arrived before latency_min";
  run(600ms);
  std::vector<int> in_order(20);
  std::iota(in_order.begin(), in_order.end(), 1);
  EXPECT_EQ(arrivals(log, 1, 0), in_order) << "one link delivers in send order";
  EXPECT_GE(world.now() - sent, millis(15));

  // Reordered: the same latencies drawn independently, so later messages overtake earlier ones.
  log.clear();
  world.shape(b, LinkShape{.latency_mean = millis(20), .reorder = true});
  for (int i = 1; i <= 30; ++i) probe(b).env.send(a, MetadataRequest{i, {}});
  run(1000ms);
  std::vector<int> got = arrivals(log, 0, 1);
  ASSERT_EQ(got.size(), 30u);
  EXPECT_FALSE(std::is_sorted(got.begin(), got.end()));
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got.front(), 1);
  EXPECT_EQ(std::adjacent_find(got.begin(), got.end()), got.end()) << "nothing twice";
}

TEST_F(Fixture, AShapedLinkLosesAndDuplicatesButNeverAClientConnections) {
  const NodeId a = add(), b = add();
  const NodeId client = world.add_node("gateway", [this](Env& env) { return std::make_unique<Probe>(env, log); },
                                       std::make_unique<MemDisk>(), /*endpoint=*/true);
  for (const NodeId n : {a, b, client}) world.start(n);
  world.shape(std::nullopt, LinkShape{.loss = 1});
  probe(a).env.send(b, MetadataRequest{1, {}});
  probe(client).env.send(b, MetadataRequest{2, {}});
  run();
  EXPECT_FALSE(logged("n1 got 1 from 0")) << "every message between brokers is lost";
  EXPECT_TRUE(logged("n1 got 2 from 2")) << "a client connection's link is never shaped";
  world.shape(std::nullopt, LinkShape{.duplicate = 1});
  probe(a).env.send(b, MetadataRequest{3, {}});
  run();
  EXPECT_EQ(arrivals(log, 1, 0), (std::vector<int>{3, 3}));
  world.shape(a, LinkShape{});  // a's links get a shape of their own, which adds nothing
  probe(a).env.send(b, MetadataRequest{4, {}});
  run();
  EXPECT_EQ(arrivals(log, 1, 0), (std::vector<int>{3, 3, 4}));
}

TEST_F(Fixture, ASkewedClockReadsAheadAndItsTimersFireByIt) {
  const NodeId a = add(), b = add();
  world.start(a);
  world.start(b);
  Env& env = probe(a).env;
  env.set_timer(millis(500), 5);  // armed before the skew: fires when the skewed clock reaches it
  const Nanos before = env.now();
  world.set_clock(a, seconds(1), 0);
  EXPECT_GE(env.now() - before, seconds(1));
  EXPECT_LT(probe(b).env.now(), seconds(1)) << "only a's clock moved";
  run(30ms);
  EXPECT_TRUE(logged("n0 timer 5")) << "the clock passed its deadline: it fires at once";

  // Running twice as fast: a 100 ms timer fires after about 50 ms.
  world.set_clock(a, 0, 1'000'000);
  const Nanos start = world.now();
  env.set_timer(millis(100), 6);
  run(75ms);
  EXPECT_TRUE(logged("n0 timer 6"));
  EXPECT_LT(world.now() - start, millis(100));
  world.crash(a);
  world.start(a);
  EXPECT_GT(probe(a).env.now(), world.now() + millis(1)) << "the clock is the machine's: it survives a restart";
}

TEST_F(Fixture, AnFsyncCompletesAfterTheCallAndAPowerLossKeepsOnlyWhatWasSynced) {
  const NodeId a = add();
  world.start(a);
  Disk& disk = probe(a).env.disk();
  disk.append("log", "synced");
  disk.fsync("log", 42);
  EXPECT_FALSE(logged("n0 fsync 42"));
  disk.append("log", "+lost");
  disk.append("other", "never synced");
  run();
  EXPECT_TRUE(logged("n0 fsync 42"));
  world.power_loss(a);
  world.start(a);
  Disk& after = probe(a).env.disk();
  EXPECT_EQ(after.read("log", 0, 100), "synced");
  EXPECT_FALSE(after.exists("other"));
}

// The in-memory disk shares pages: a follower's append_shared of its leader's slices and a
// fetch's read_shared copy nothing, and what was handed out never changes afterwards.
TEST(MemDisk, SharesPagesAndWhatItHandedOutNeverChanges) {
  MemDisk leader;
  MemDisk follower;
  const std::string big(200'000, 'a');
  leader.append("log", big);
  const SharedBytes fetched = leader.read_shared("log", 100, 150'000);
  ASSERT_EQ(fetched.size(), 150'000u);
  follower.append_shared("log", fetched);
  EXPECT_EQ(follower.size("log"), 150'000u);
  EXPECT_EQ(fetched.slices().front().data, follower.read_shared("log", 0, 10).slices().front().data);  // the same bytes
  leader.truncate("log", 10);
  leader.append("log", std::string(300'000, 'b'));
  std::string scratch;
  EXPECT_EQ(follower.read_view("log", 0, 150'000, scratch), big.substr(100, 150'000));
  EXPECT_EQ(leader.read("log", 0, 12), "aaaaaaaaaabb");
  follower.fsync("log", 1);
  follower.append("log", "tail");
  follower.power_loss();
  EXPECT_EQ(follower.size("log"), 150'000u);
}

TEST(FileDisk, KeepsFilesAcrossInstancesAndAPowerLossCutsToTheSyncedSize) {
  const std::string dir = (std::filesystem::temp_directory_path() / ("logsim-filedisk-" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(dir);
  {
    FileDisk d(dir);
    std::vector<std::uint64_t> done;
    d.on_fsync_done([&](std::uint64_t t) { done.push_back(t); });
    d.append("orders-0/00000.log", "abc");
    d.fsync("orders-0/00000.log", 1);
    d.append("orders-0/00000.log", "def");
    d.append("tmp", "x");
    EXPECT_EQ(done, std::vector<std::uint64_t>{1});
    EXPECT_EQ(d.read("orders-0/00000.log", 1, 4), "bcde");
    EXPECT_EQ(d.list(), (std::vector<std::string>{"orders-0/00000.log", "tmp"}));
    d.rename("tmp", "renamed");
    EXPECT_FALSE(d.exists("tmp"));
    EXPECT_EQ(d.read("renamed", 0, 10), "x");
    d.power_loss();
    EXPECT_EQ(d.read("orders-0/00000.log", 0, 10), "abc");
    EXPECT_FALSE(d.exists("renamed"));
  }
  FileDisk again(dir);  // what an earlier run left counts as synced
  EXPECT_EQ(again.read("orders-0/00000.log", 0, 10), "abc");
  again.power_loss();
  EXPECT_EQ(again.size("orders-0/00000.log"), 3u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace logsim::live

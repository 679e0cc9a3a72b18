// Transactions end to end on a simulated three-broker cluster: a transactional producer finds
// its coordinator (creating __transaction_state), commits and aborts transactions across two
// partitions led by different brokers, and a read_committed consumer sees exactly the committed
// records while a read_uncommitted one sees the aborted ones too; all of it again through a
// crash of every broker in turn, and the same seed gives the same run.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/broker/broker.h"
#include "engine/client/consumer.h"
#include "engine/client/producer.h"
#include "engine/controller/controller.h"
#include "scenarios/cluster.h"
#include "scenarios/loader.h"
#include "sim/world.h"

namespace logsim::scenarios {
namespace {

constexpr std::uint64_t kPollTag = 0xfeed;
constexpr std::uint64_t kStepTag = 0xfeee;
constexpr std::uint64_t kFeedTag = 0xfeef;

std::vector<std::string> values(const std::string& prefix, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

// The producing application's transactions, in order: 20 records each ("<prefix>0".."<prefix>19").
struct ScriptedTxn {
  std::string prefix;
  bool commit;
};

// An application with a consumer of topic "t" (partitions 0 and 1) polling every 10 ms, and,
// when `producing`, a transactional producer running the script: the first transaction begins
// at 8 s, each ends 2 s after it began, and the next begins 2 s after the last one ended.
// (One consumer per node: a consumer takes every FetchResponse its node gets.)
class TxnApp final : public Node {
  Env& env_;
  engine::TimerMux mux_;  // before the clients, which detach from it when they go

 public:
  TxnApp(Env& env, std::vector<NodeId> brokers, IsolationLevel isolation, std::vector<ScriptedTxn> script)
      : env_(env), mux_(env), brokers_(std::move(brokers)), isolation_(isolation), script_(std::move(script)) {}

  void on_start() override {
    engine::ProducerConfig pc;
    pc.bootstrap_servers = brokers_;
    pc.enable_idempotence = true;
    pc.transactional_id = "tx";
    pc.request_timeout_ms = 3000;
    pc.delivery_timeout_ms = 20000;
    if (!script_.empty()) {
      producer.emplace(env_, mux_, pc);
      producer->start();
      env_.set_timer(millis(8000), kStepTag);
    }
    engine::ConsumerConfig cc;
    cc.bootstrap_servers = brokers_;
    cc.auto_offset_reset = engine::OffsetReset::kEarliest;
    cc.isolation_level = isolation_;
    cc.request_timeout_ms = 3000;
    consumer.emplace(env_, mux_, cc);
    consumer->assign({TopicPartition{"t", PartitionId(0)}, TopicPartition{"t", PartitionId(1)}});
    env_.set_timer(millis(10), kPollTag);
  }
  void on_message(NodeId from, const Message& msg) override {
    if (producer && producer->on_message(from, msg)) return;
    consumer->on_message(from, msg);
  }
  void on_timer(TimerId id, std::uint64_t tag) override {
    if (tag == kPollTag) {
      for (const auto& r : consumer->poll()) read.push_back(*r.record.record.value);
      env_.set_timer(millis(10), kPollTag);
      return;
    }
    if (tag == kStepTag) {
      if (in_transaction.empty()) {
        begin(values(script_[next_].prefix, 20));
        env_.set_timer(millis(2000), kStepTag);
      } else {
        end(script_[next_].commit);
      }
      return;
    }
    mux_.on_timer(id, tag);
  }
  void on_disconnect(NodeId peer) override {
    if (producer) producer->on_disconnect(peer);
    consumer->on_disconnect(peer);
  }

  // Begins a transaction and sends `values` in it (keys spread them over both partitions).
  void begin(const std::vector<std::string>& values) {
    if (const ErrorCode e = producer->begin_transaction(); e != ErrorCode::NONE) {
      ADD_FAILURE() << "begin_transaction: " << error_name(e) << " in " << engine::txn_phase_name(producer->txn_phase());
      return;
    }
    for (const std::string& v : values) {
      producer->send("t", Record{v, v, 0}, std::nullopt, [this, v](const engine::SendResult& r) {
        if (r.outcome == engine::SendOutcome::kAcknowledged) acknowledged.insert(v);
      });
    }
    in_transaction = values;
  }
  // Commits or aborts it; `ended` gets the outcome.
  void end(bool commit) {
    const auto done = [this, values = in_transaction, commit](ErrorCode e) {
      ended.push_back(e);
      if (e == ErrorCode::NONE && commit) committed_values.insert(values.begin(), values.end());
      // A commit refused after a failed send: the application aborts, as Kafka's must.
      if (e != ErrorCode::NONE && producer->txn_phase() == engine::TxnPhase::kAbortableError) {
        producer->abort_transaction([this](ErrorCode abort) {
          aborts.push_back(abort);
          next();
        });
        return;
      }
      next();
    };
    if (commit) {
      producer->commit_transaction(done);
    } else {
      producer->abort_transaction(done);
    }
  }

  std::optional<engine::Producer> producer;
  std::optional<engine::Consumer> consumer;
  std::vector<std::string> read;
  std::vector<std::string> in_transaction;
  std::set<std::string> acknowledged;
  std::set<std::string> committed_values;
  std::vector<ErrorCode> ended;
  std::vector<ErrorCode> aborts;  // the application's own, after a failed commit

 private:
  void next() {
    in_transaction.clear();
    if (++next_ < script_.size()) env_.set_timer(millis(2000), kStepTag);
  }

  std::vector<NodeId> brokers_;
  IsolationLevel isolation_;
  std::vector<ScriptedTxn> script_;
  std::size_t next_ = 0;
};

struct TxnRun {
  std::vector<std::string> read_committed;
  std::vector<std::string> read_uncommitted;
  std::set<std::string> committed_values;
  std::set<std::string> acknowledged;
  std::vector<ErrorCode> ended;
  std::uint64_t trace_hash = 0;
  // Leaders of t's partitions at the end whose last stable offset is not their high watermark
  // (every transaction ended, so none should be).
  std::vector<std::string> unstable;
};

// Three transactions (commit, abort, commit) and, with `crashes`, each broker crashed and
// restarted in turn around them.
TxnRun run(std::uint64_t seed, bool crashes) {
  const Scenario scenario = parse_scenario(R"({
    "name": "txn", "duration": "60s",
    "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "min.insync.replicas": 2,
                                         "broker.session.timeout.ms": 3000, "broker.heartbeat.interval.ms": 500}},
    "topics": [{"name": "t", "partitions": 2}]})", "txn.json");
  sim::World world(seed);
  const ClusterIds ids = cluster_ids(scenario);
  engine::BrokerConfig bc = broker_config(scenario, ids);
  bc.transaction_state_log_num_partitions = 3;
  for (std::size_t b = 0; b < ids.brokers.size(); ++b) {
    world.add_node("broker-" + std::to_string(b + 1), [bc](Env& env) { return std::make_unique<engine::Broker>(env, bc); });
  }
  const engine::ControllerConfig cc = controller_config(scenario, ids);
  world.add_node("controller", [cc](Env& env) { return std::make_unique<engine::Controller>(env, cc); });
  const NodeId app_id = world.add_node("app", [&](Env& env) {
    return std::make_unique<TxnApp>(env, ids.brokers, IsolationLevel::kReadCommitted,
                                    std::vector<ScriptedTxn>{{"c", true}, {"a", false}, {"x", true}});
  });
  const NodeId reader_id = world.add_node("reader", [&](Env& env) {
    return std::make_unique<TxnApp>(env, ids.brokers, IsolationLevel::kReadUncommitted, std::vector<ScriptedTxn>{});
  });
  for (std::size_t i = 0; i < world.node_count(); ++i) world.start(NodeId(static_cast<std::int32_t>(i)));
  auto* app = dynamic_cast<TxnApp*>(world.node(app_id));
  auto* reader = dynamic_cast<TxnApp*>(world.node(reader_id));
  if (crashes) {
    // Broker b crashes at 8 s + 4b s (when the b-th transaction begins, if nothing is slow),
    // broker b+1 two seconds later (when it ends: two of three down at once, no ISR of two until
    // one is back); each is back 2.5 s later. A slow commit shifts the script, not the faults.
    for (std::size_t b = 0; b < ids.brokers.size(); ++b) {
      const std::int64_t begun = 8000 + 4000 * static_cast<std::int64_t>(b);
      for (const auto& [at, broker] : {std::pair{millis(begun + 5), ids.brokers[b]},
                                       std::pair{millis(begun + 2001), ids.brokers[(b + 1) % ids.brokers.size()]}}) {
        world.schedule(at, "crash", [&world, broker] { world.crash(broker); });
        world.schedule(at + millis(2500), "restart", [&world, broker] { world.restart(broker); });
      }
    }
  }
  world.run_until(millis(60000));
  std::vector<std::string> unstable;
  for (const NodeId b : ids.brokers) {
    const auto* broker = dynamic_cast<const engine::Broker*>(world.node(b));
    if (broker == nullptr) continue;
    for (const auto& [key, p] : broker->state().partitions) {
      if (key.topic == "t" && p.led_by(b) && p.last_stable_offset() != p.high_watermark) {
        unstable.push_back(key.topic + "-" + std::to_string(key.partition.value()));
      }
    }
  }
  return TxnRun{app->read, reader->read, app->committed_values, app->acknowledged, app->ended,
                world.trace().hash(), unstable};
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<std::string> sorted(const std::set<std::string>& s) { return {s.begin(), s.end()}; }

TEST(TxnCluster, ReadCommittedSeesExactlyTheCommittedTransactions) {
  const TxnRun r = run(1, false);
  ASSERT_EQ(r.ended, (std::vector<ErrorCode>{ErrorCode::NONE, ErrorCode::NONE, ErrorCode::NONE}));
  std::vector<std::string> expected = values("c", 20);
  const auto x = values("x", 20);
  expected.insert(expected.end(), x.begin(), x.end());
  EXPECT_EQ(sorted(r.read_committed), sorted(expected)) << "exactly the committed records, each once";
  EXPECT_EQ(r.read_uncommitted.size(), 60u) << "read_uncommitted sees the aborted transaction too";
  EXPECT_EQ(sorted(r.acknowledged).size(), 60u);
  EXPECT_TRUE(r.unstable.empty());
}

TEST(TxnCluster, ThroughBrokerCrashesNothingAbortedIsReadCommittedAndEveryCommitIsWhole) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const TxnRun r = run(seed, true);
    std::string ends;
    for (ErrorCode e : r.ended) ends += std::string(error_name(e)) + " ";
    SCOPED_TRACE("seed " + std::to_string(seed) + ": ended " + ends + ", " + std::to_string(r.committed_values.size()) +
                 " committed, " + std::to_string(r.read_committed.size()) + " read committed");
    ASSERT_EQ(r.ended.size(), 3u) << "a transaction never ended";
    std::multiset<std::string> seen(r.read_committed.begin(), r.read_committed.end());
    for (const std::string& v : r.read_committed) {
      EXPECT_NE(v[0], 'a') << "an aborted record was read committed: " << v;
      EXPECT_EQ(seen.count(v), 1u) << "read twice: " << v;
    }
    for (const std::string& v : r.committed_values) EXPECT_EQ(seen.count(v), 1u) << "a committed record is missing: " << v;
    EXPECT_FALSE(r.committed_values.empty()) << "nothing committed: the check above proves nothing";
    EXPECT_GE(r.read_uncommitted.size(), r.committed_values.size());
    EXPECT_TRUE(r.unstable.empty()) << "a partition's transaction never closed: " << r.unstable.front();
    EXPECT_EQ(sorted(r.read_committed), sorted(r.committed_values)) << "a transaction that did not commit is visible";
  }
}

TEST(TxnCluster, TheSameSeedGivesTheSameRun) {
  EXPECT_EQ(run(3, true).trace_hash, run(3, true).trace_hash);
}


// ------------------------------------------------------------------ consume-transform-produce

// Exactly-once processing (KIP-98's read-process-write loop): a feeder writes 60 records to
// "in", one every 250 ms; a processor reads them read_committed and copies each polled batch to "out" in one
// transaction together with its positions (sendOffsetsToTransaction, group "eos"); after an
// abort it goes back to the positions it last committed. At the end a consumer joining "eos"
// starts at the committed offsets: what it reads of "in" and what read_committed shows of
// "out" must be every input exactly once, whatever the brokers did meanwhile.
class EosApp final : public Node {
  Env& env_;
  engine::TimerMux mux_;

 public:
  enum class Role { kFeeder, kProcessor, kOutReader, kGroupReader };
  EosApp(Env& env, std::vector<NodeId> brokers, Role role) : env_(env), mux_(env), brokers_(std::move(brokers)), role_(role) {}

  void on_start() override {
    engine::ProducerConfig pc;
    pc.bootstrap_servers = brokers_;
    pc.enable_idempotence = true;
    pc.request_timeout_ms = 3000;
    pc.delivery_timeout_ms = 20000;
    if (role_ == Role::kFeeder) {
      producer.emplace(env_, mux_, pc);
      producer->start();
      env_.set_timer(millis(250), kFeedTag);
      return;
    }
    engine::ConsumerConfig cc;
    cc.bootstrap_servers = brokers_;
    cc.auto_offset_reset = engine::OffsetReset::kEarliest;
    cc.isolation_level = IsolationLevel::kReadCommitted;
    cc.request_timeout_ms = 3000;
    cc.enable_auto_commit = false;
    if (role_ == Role::kGroupReader) cc.group_id = "eos";
    consumer.emplace(env_, mux_, cc);
    if (role_ == Role::kGroupReader) {
      consumer->subscribe({"in"}, nullptr);
    } else {
      const std::string topic = role_ == Role::kOutReader ? "out" : "in";
      consumer->assign({TopicPartition{topic, PartitionId(0)}, TopicPartition{topic, PartitionId(1)}});
    }
    if (role_ == Role::kProcessor) {
      pc.transactional_id = "eos-tx";
      pc.transaction_timeout_ms = 10000;
      producer.emplace(env_, mux_, pc);
      producer->start();
      env_.set_timer(millis(300), kStepTag);
    }
    env_.set_timer(millis(10), kPollTag);
  }
  void on_message(NodeId from, const Message& msg) override {
    if (producer && producer->on_message(from, msg)) return;
    if (consumer) consumer->on_message(from, msg);
  }
  void on_timer(TimerId id, std::uint64_t tag) override {
    if (tag == kPollTag) {
      for (const auto& r : consumer->poll()) {
        read.push_back(*r.record.record.value);
        if (role_ == Role::kProcessor) buffered.push_back(*r.record.record.value);
      }
      env_.set_timer(millis(10), kPollTag);
      return;
    }
    if (tag == kFeedTag) {  // one record every 250 ms: "in0" at 250 ms .. "in59" at 15 s
      const std::string v = "in" + std::to_string(fed_++);
      producer->send("in", Record{v, v, 0}, std::nullopt, [](const engine::SendResult&) {});
      if (fed_ < 60) env_.set_timer(millis(250), kFeedTag);
      return;
    }
    if (tag == kStepTag) {
      step();
      env_.set_timer(millis(300), kStepTag);
      return;
    }
    mux_.on_timer(id, tag);
  }
  void on_disconnect(NodeId peer) override {
    if (producer) producer->on_disconnect(peer);
    if (consumer) consumer->on_disconnect(peer);
  }

  std::optional<engine::Producer> producer;
  std::optional<engine::Consumer> consumer;
  std::vector<std::string> read;
  std::vector<std::string> buffered;        // polled, not yet in a transaction
  std::set<std::string> committed_values;   // copied to "out" by a committed transaction
  int commits = 0;
  int aborts = 0;
  bool stopped = false;  // begins no more transactions (fenced, or told to stop)

 private:
  // Begins a transaction with everything polled since the last, if the producer is free.
  void step() {
    if (busy_ || stopped || buffered.empty() || producer->txn_phase() != engine::TxnPhase::kReady) return;
    if (producer->begin_transaction() != ErrorCode::NONE) return;
    busy_ = true;
    std::vector<std::string> batch = std::exchange(buffered, {});
    for (const std::string& v : batch) producer->send("out", Record{v, v, 0}, std::nullopt, [](const engine::SendResult&) {});
    std::vector<TxnOffsetCommitPartition> offsets;
    const std::map<TopicPartition, Offset> positions = consumer->consumed();
    for (const auto& [tp, at] : positions) offsets.push_back({tp, at, ""});
    producer->send_offsets_to_transaction(std::move(offsets), engine::ConsumerGroupMetadata{"eos", -1, "", std::nullopt},
                                          [](ErrorCode) {});
    producer->commit_transaction([this, batch, positions](ErrorCode e) {
      if (e == ErrorCode::NONE) {
        ++commits;
        committed_values.insert(batch.begin(), batch.end());
        committed_positions_ = positions;
        busy_ = false;
        return;
      }
      if (producer->txn_phase() != engine::TxnPhase::kAbortableError) {
        stopped = true;
        return;
      }
      producer->abort_transaction([this](ErrorCode abort) {
        ++aborts;
        if (abort != ErrorCode::NONE) stopped = true;
        rewind();
        busy_ = false;
      });
    });
  }
  // After an abort: back to the positions last committed (the start for partitions never committed).
  void rewind() {
    buffered.clear();
    for (const TopicPartition& tp : {TopicPartition{"in", PartitionId(0)}, TopicPartition{"in", PartitionId(1)}}) {
      auto it = committed_positions_.find(tp);
      consumer->seek(tp, it == committed_positions_.end() ? Offset(0) : it->second);
    }
  }

  std::vector<NodeId> brokers_;
  Role role_;
  bool busy_ = false;
  int fed_ = 0;
  std::map<TopicPartition, Offset> committed_positions_;
};

struct EosRun {
  std::vector<std::string> out;        // read_committed from "out"
  std::vector<std::string> remaining;  // read from "in" by the group, from its committed offsets
  std::set<std::string> committed_values;
  int commits = 0;
  int aborts = 0;
  std::uint64_t trace_hash = 0;
};

EosRun run_eos(std::uint64_t seed, bool crashes) {
  const Scenario scenario = parse_scenario(R"({
    "name": "eos", "duration": "60s",
    "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "min.insync.replicas": 2,
                                         "broker.session.timeout.ms": 3000, "broker.heartbeat.interval.ms": 500}},
    "topics": [{"name": "in", "partitions": 2}, {"name": "out", "partitions": 2}]})", "eos.json");
  sim::World world(seed);
  const ClusterIds ids = cluster_ids(scenario);
  engine::BrokerConfig bc = broker_config(scenario, ids);
  bc.transaction_state_log_num_partitions = 3;
  bc.offsets_topic_num_partitions = 3;
  for (std::size_t b = 0; b < ids.brokers.size(); ++b) {
    world.add_node("broker-" + std::to_string(b + 1), [bc](Env& env) { return std::make_unique<engine::Broker>(env, bc); });
  }
  const engine::ControllerConfig cc = controller_config(scenario, ids);
  world.add_node("controller", [cc](Env& env) { return std::make_unique<engine::Controller>(env, cc); });
  const auto app = [&](const std::string& name, EosApp::Role role) {
    return world.add_node(name, [&ids, role](Env& env) { return std::make_unique<EosApp>(env, ids.brokers, role); });
  };
  const NodeId feeder = app("feeder", EosApp::Role::kFeeder);
  const NodeId processor = app("processor", EosApp::Role::kProcessor);
  const NodeId out_reader = app("out-reader", EosApp::Role::kOutReader);
  const NodeId group_reader = app("group-reader", EosApp::Role::kGroupReader);
  for (const NodeId n : std::vector<NodeId>{ids.brokers[0], ids.brokers[1], ids.brokers[2], ids.controller, feeder,
                                            processor, out_reader}) {
    world.start(n);
  }
  if (crashes) {
    // Each broker in turn crashes for 2.5 s, from 6 s on, every 5 s: the processor is mid-way.
    for (std::size_t b = 0; b < ids.brokers.size(); ++b) {
      const Nanos at = millis(6000 + 5000 * static_cast<std::int64_t>(b) + static_cast<std::int64_t>(seed % 7) * 150);
      world.schedule(at, "crash", [&world, broker = ids.brokers[b]] { world.crash(broker); });
      world.schedule(at + millis(2500), "restart", [&world, broker = ids.brokers[b]] { world.restart(broker); });
    }
  }
  // The processor stops taking work at 40 s; the group reader starts at 45 s.
  world.schedule(millis(40000), "stop", [&world, processor] {
    dynamic_cast<EosApp*>(world.node(processor))->stopped = true;
  });
  world.schedule(millis(45000), "start", [&world, group_reader] { world.start(group_reader); });
  world.run_until(millis(60000));
  const auto* p = dynamic_cast<EosApp*>(world.node(processor));
  return EosRun{dynamic_cast<EosApp*>(world.node(out_reader))->read, dynamic_cast<EosApp*>(world.node(group_reader))->read,
                p->committed_values, p->commits, p->aborts, world.trace().hash()};
}

TEST(TxnEos, EveryInputIsEitherCopiedOnceOrLeftAfterTheCommittedOffsets) {
  for (const bool crashes : {false, true}) {
    for (std::uint64_t seed = 1; seed <= (crashes ? 4u : 1u); ++seed) {
      const EosRun r = run_eos(seed, crashes);
      SCOPED_TRACE("seed " + std::to_string(seed) + (crashes ? " with crashes" : "") + ": " + std::to_string(r.commits) +
                   " commits, " + std::to_string(r.aborts) + " aborts, " + std::to_string(r.out.size()) + " out, " +
                   std::to_string(r.remaining.size()) + " remaining");
      EXPECT_GT(r.commits, 0) << "nothing committed: the checks below prove nothing";
      std::vector<std::string> all = r.out;
      all.insert(all.end(), r.remaining.begin(), r.remaining.end());
      EXPECT_EQ(sorted(all), sorted(values("in", 60))) << "an input was copied twice, lost, or copied and left";
      EXPECT_EQ(sorted(r.out), sorted(r.committed_values)) << "\"out\" is not what the committed transactions wrote";
      if (!crashes) {
        EXPECT_TRUE(r.remaining.empty()) << "the processor had 40 s for 60 records";
      }
    }
  }
}

TEST(TxnEos, TheSameSeedGivesTheSameRun) { EXPECT_EQ(run_eos(2, true).trace_hash, run_eos(2, true).trace_hash); }

}  // namespace
}  // namespace logsim::scenarios

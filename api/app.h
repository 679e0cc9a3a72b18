// Your own application inside the simulation: a producer or a consumer-group member written
// by you, run by the world on simulated time with every fault, judged by the checkers.
//
//   class Billing : public logsim::App {
//     void on_start(logsim::AppContext& ctx) override {
//       ctx.consumer().subscribe(ctx.topics());
//       ctx.set_timer(0, [&ctx, this] { loop(ctx); });
//     }
//     ...
//   };
//   logsim::register_app("billing", [] { return std::make_unique<Billing>(); });
//
// and in the scenario file: {"name": "billing", "topics": ["orders"], "members": 3, "app": "billing"}
// (a group: each member's node runs one Billing) or {"name": "shop", "topic": "orders",
// "app": "shop"} (a producer's node). docs/api.md, "Your own application", has the whole story.
//
// The clients are thin wrappers over the engine's own producer and consumer (the ones logsim's
// own applications use), so every Kafka behaviour the engine models applies: batching,
// retries, idempotence, rebalances, fencing, commits refused outside a generation.
//
// What the checkers see: the wrappers record the history for you — every send and its outcome,
// every poll, assignment change and commit — and Consumer::processed() records that your
// handler finished with a record (call it when the record's work is done: at-least-once means
// every acknowledged record is processed by each group).
//
// Lifecycle: the world creates the App with its factory when the node starts, and destroys it
// when the node crashes or stops; a restart creates a new one. So an App's memory is lost at a
// crash, as a process's is: what must survive lives in Kafka (committed offsets, topics) or in
// the node's durable store (ctx.store(), api/store.h: lost only at a power loss, and then only
// what was not synced).
// on_stop() is a graceful stop (a `stop` or `remove-member` step): the last chance to commit;
// the consumer is closed after it (LeaveGroup) and no timer fires after it.
//
// Determinism: the App runs on the simulation's one thread, on simulated time. It must not read
// the wall clock (std::chrono::system_clock, steady_clock, time()), start threads or wait on
// anything, use a random source other than ctx.rng() (no rand(), std::random_device, or the
// standard distributions, whose results differ between standard libraries), or let the order
// of an unordered container (or of pointers) decide what it does. Same seed, same run.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/store.h"
#include "engine/base/topic_partition.h"
#include "engine/client/group_admin.h"
#include "engine/env/env.h"
#include "engine/env/rng.h"
#include "engine/protocol/messages.h"
#include "properties/history.h"

namespace logsim {

namespace detail {
class AppNode;
}

// One send's outcome. Exactly one of: acknowledged (written, at `partition`/`offset`), failed
// (surely not written), unknown (may or may not be in the log: a timeout, a lost answer).
struct SendResult {
  enum class Outcome : std::uint8_t { kAcknowledged, kFailed, kUnknown };
  Outcome outcome = Outcome::kUnknown;
  std::string topic;
  PartitionId partition{-1};
  Offset offset{-1};   // acknowledged with acks=0: -1 (the client cannot know)
  std::string error;   // Kafka's error name (NOT_ENOUGH_REPLICAS, REQUEST_TIMED_OUT, ...); empty: none
  bool acknowledged() const { return outcome == Outcome::kAcknowledged; }
};

// A record poll() returned, as the producer sent it (the harness's own header is removed).
struct ConsumedRecord {
  std::string topic;
  PartitionId partition{-1};
  Offset offset{-1};
  std::optional<std::string> key;
  std::optional<std::string> value;  // none: a tombstone
  std::vector<RecordHeader> headers;
  std::int64_t timestamp_ms = 0;
  std::uint64_t value_id = 0;  // the harness's id of the send that wrote it (0: none), as in the history
  TopicPartition topic_partition() const { return {topic, partition}; }
};

// The commit's outcome: empty on success, else Kafka's error name (REBALANCE_IN_PROGRESS,
// ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, REQUEST_TIMED_OUT, ...).
using CommitCallback = std::function<void(const std::string& error)>;

class Consumer;

// The node's producer: the scenario's producer "config" for a producer's node, Kafka's defaults
// on a group member's node. Created at the first producer() call.
class Producer {
 public:
  // Sends one record to `topic` (partitioned as Kafka does: by the key's murmur2, sticky for
  // none); `done` (optional) gets the outcome. Records send-invoke now and the outcome later.
  void send(const std::string& topic, std::optional<std::string> key, std::optional<std::string> value,
            std::vector<RecordHeader> headers = {}, std::function<void(const SendResult&)> done = {});
  // Sends not yet ended.
  std::size_t in_flight() const;

  // Transactions (Kafka's transactional producer, KIP-98), for a producer with a
  // transactional.id: a producer's node whose scenario "config" names one, or any node's
  // producer made by AppContext::transactional_producer(). initTransactions() is sent when the
  // producer is made (it fences older producers of the id); every send then belongs to the
  // transaction begun before it (a send outside one fails with INVALID_TXN_STATE). The history
  // records each transaction as logsim's own transactional producers do (txn-begin,
  // txn-commit-invoke, txn-commit / txn-abort / txn-info; docs/history.md), and offsets sent to a
  // transaction as the group's commit, made (commit-ok) only if the transaction commits.
  bool transactional() const;
  // Kafka's TransactionManager state: "UNINITIALIZED" (initTransactions under way), "READY" (no
  // transaction open: begin_transaction() may be called), "IN_TRANSACTION", "COMMITTING_TRANSACTION",
  // "ABORTING_TRANSACTION", "ABORTABLE_ERROR" (a send failed: abort it), "FATAL_ERROR" (fenced by
  // a newer producer of the id, or another fatal error: make no more calls); "NONE" for a
  // producer without a transactional.id.
  std::string transaction_state() const;
  bool ready() const { return transaction_state() == "READY"; }
  // beginTransaction(): empty on success, else the error (INVALID_TXN_STATE when not READY).
  std::string begin_transaction();
  // sendOffsetsToTransaction(offsets, consumer.groupMetadata()): these offsets of the consumer's
  // group (each the next offset to consume) become its committed offsets if, and only if, the
  // transaction commits; fenced like the member's own commits (KIP-447). `done` (optional) when
  // the group's coordinator holds them, or why not (the transaction is then abortable).
  void send_offsets_to_transaction(const std::map<TopicPartition, Offset>& offsets, const Consumer& consumer,
                                   CommitCallback done = {});
  // commitTransaction(): empty once the commit is decided; else the error, and the transaction
  // is abortable (ABORTABLE_ERROR: call abort_transaction()) or its outcome unknown.
  void commit_transaction(CommitCallback done);
  // abortTransaction(): empty once the abort is decided; else the error (outcome unknown).
  void abort_transaction(CommitCallback done);

 private:
  friend class AppContext;
  explicit Producer(detail::AppNode& node) : node_(node) {}
  detail::AppNode& node_;
};

// Kafka's rebalance callbacks (ConsumerRebalanceListener), called from inside poll() or close().
struct RebalanceCallbacks {
  std::function<void(const std::vector<TopicPartition>&)> assigned;
  std::function<void(const std::vector<TopicPartition>&)> revoked;
  // The generation was lost (session expired, fenced): the partitions may already be another
  // member's. None given: `revoked` is called, as Kafka's default does.
  std::function<void(const std::vector<TopicPartition>&)> lost;
};


// The run loop in KafkaJS's style (consumer.run({eachMessage}) / eachBatch). Your handler gets
// a record (or one partition's records from a poll) and a `done` to call when their work is
// done, at once or later (from a timer, after a send's callback, after a store's sync): the
// simulation's version of the promise your handler would return. Records of one poll are
// handed over one at a time, in order; each counts as processed (Consumer::processed) when its
// `done` is called (a second call does nothing). After all of a poll's records are done, the
// loop commits their offsets (with autoCommit; commitSync) and polls again at once; a poll that
// brings nothing is retried after `poll_interval`. A `done` that never comes stalls the loop, and
// the member leaves its group after max.poll.interval.ms, as KafkaJS's would.
using MessageHandler = std::function<void(const ConsumedRecord& record, std::function<void()> done)>;
using BatchHandler = std::function<void(const std::vector<ConsumedRecord>& batch, std::function<void()> done)>;
struct RunConfig {
  bool auto_commit = true;  // KafkaJS's autoCommit: commit each poll's records once all are done
  Nanos poll_interval = 10 * kNanosPerMilli;  // the wait after a poll that brought nothing
};

// A group member's consumer in librdkafka's poll style: group.id is the group's name, the
// rest of its configuration the group's "config"; enable.auto.commit is false (commit yourself).
// Only on a group member's node.
class Consumer {
 public:
  // Joins the group with these topics (the join happens as poll() is called).
  void subscribe(std::vector<std::string> topics, RebalanceCallbacks callbacks = {});
  // Returns at once what has been fetched (up to max.poll.records), like librdkafka's poll(0),
  // and drives the group: heartbeats go on by themselves, but a member that does not poll
  // within max.poll.interval.ms leaves the group. Poll again from a timer when it returns none.
  std::vector<ConsumedRecord> poll();
  // Records that your handler finished with `record` (a `process` event the checkers judge).
  void processed(const ConsumedRecord& record, const std::string& note = {});
  // commitSync of the positions of every assigned partition (past what poll() returned), or of
  // `offsets` (each the next offset to consume). It cannot block the simulation: `done` is called
  // when it has finished (after retrying retriable errors up to default.api.timeout.ms); go on
  // from there, as your code would after commitSync returns.
  void commit_sync(CommitCallback done = {});
  void commit_sync(std::map<TopicPartition, Offset> offsets, CommitCallback done = {});
  // commitAsync: the first error ends it; `done` gets the outcome.
  void commit_async(CommitCallback done = {});
  void commit_async(std::map<TopicPartition, Offset> offsets, CommitCallback done = {});
  // The next poll() of an assigned partition starts at `offset`. False, and nothing done, for a
  // partition not assigned now (Kafka's consumer throws IllegalStateException).
  bool seek(const TopicPartition& tp, Offset offset);
  // Kafka's pause/resume, for flow control: a paused partition is not fetched and poll()
  // returns none of its records, while the member goes on polling and stays in its group;
  // resume() goes on where it stopped (what was fetched before the pause comes first). False,
  // and nothing done, when a partition is not assigned now (Kafka's consumer throws
  // IllegalStateException). A partition a rebalance takes away and gives back is not paused.
  bool pause(const std::vector<TopicPartition>& partitions);
  bool resume(const std::vector<TopicPartition>& partitions);
  std::vector<TopicPartition> paused() const;
  const std::vector<TopicPartition>& assignment() const;
  std::int32_t generation() const;  // -1: not in a generation
  // Graceful close: revoke, LeaveGroup. Done for you after on_stop() if you have not.
  void close();
  // Starts the run loop (above) after subscribe(): KafkaJS's run({eachMessage}) and
  // run({eachBatch}). Once per App; poll() and the commits are then the loop's.
  void run_each_message(MessageHandler handler, RunConfig config = {});
  void run_each_batch(BatchHandler handler, RunConfig config = {});

 private:
  friend class AppContext;
  explicit Consumer(detail::AppNode& node) : node_(node) {}
  detail::AppNode& node_;
};

// An admin call's outcome: empty on success, else Kafka's error name (TOPIC_ALREADY_EXISTS,
// UNKNOWN_TOPIC_OR_PARTITION, INVALID_REPLICATION_FACTOR, REQUEST_TIMED_OUT, ...).
using AdminCallback = std::function<void(const std::string& error)>;
// A group as `kafka-consumer-groups --describe` shows it: state, generation, members, and per
// partition the committed offset, log end and lag (error NONE unless the call failed).
using GroupDescription = engine::DescribeGroupResult;

// The node's admin client (Kafka's Admin): topics are asked of the controller, groups of their
// coordinators; retried until default.api.timeout.ms (60 s), as Kafka's calls are. Each call's
// outcome is recorded in the history (an `admin` event, as a scenario's admin steps are), so
// the checkers know of a topic made compacted, or a group's offsets moved.
class Admin {
 public:
  // CreateTopics. partitions / replication_factor -1: the cluster's num.partitions and
  // default.replication.factor. `configs` by Kafka's names: cleanup.policy, retention.ms,
  // min.insync.replicas, ...
  void create_topic(const std::string& name, std::int32_t partitions = -1, std::int32_t replication_factor = -1,
                    std::map<std::string, std::string> configs = {}, AdminCallback done = {});
  void delete_topic(const std::string& name, AdminCallback done = {});
  // CreatePartitions: grows the topic to `count` partitions.
  void create_partitions(const std::string& topic, std::int32_t count, AdminCallback done = {});
  // DescribeGroups with the group's committed offsets and the partitions' log ends.
  void describe_group(const std::string& group, std::function<void(const GroupDescription&)> done);

 private:
  friend class AppContext;
  explicit Admin(detail::AppNode& node) : node_(node) {}
  detail::AppNode& node_;
};

using TimerCallback = std::function<void()>;

// What an application may use: the node's clock, timers and random stream, its clients, and
// the history. Valid from on_start() until the App is destroyed.
class AppContext {
 public:
  // The node's clock (simulated; skewed when a clock-skew step says so).
  Nanos now() const;
  // Calls `fn` after `delay` of simulated time (a sleep: continue your loop in `fn`). A timer of
  // a node that crashes or stops never fires.
  TimerId set_timer(Nanos delay, TimerCallback fn);
  void cancel_timer(TimerId id);
  // The node's own random stream, seeded from the run's seed: the only randomness an App may use.
  Rng& rng();

  const std::string& name() const;                // the node: "shop", "billing-2", ...
  const std::vector<std::string>& topics() const;  // the producer's topic, or the group's topics
  const std::string& group_id() const;            // the group (empty on a producer's node)

  Producer& producer();
  // The node's producer made transactional with `transactional_id` (enable.idempotence and
  // acks=all, as Kafka requires; the rest as producer() would have it): Kafka's consume-
  // transform-produce. Call it before the first producer() (the node has one producer).
  Producer& transactional_producer(const std::string& transactional_id);
  Consumer& consumer();  // only on a group member's node
  bool has_consumer() const;
  Admin& admin();
  // The node's durable store (api/store.h): what it held when the node last stopped, crashed
  // or lost power, as much of it as survives that; opened at the first call.
  Store& store();

  // Assertions in the style of Antithesis'. `always`: must hold every time it is evaluated; the
  // first time it does not in a run, an `assert` event is recorded and the run is violated
  // (assertion-failed, with the event and the replay command). `sometimes`: must hold at least
  // once somewhere in a fuzz campaign (that a rare path is reached at all); logsim fuzz reports
  // each that was evaluated but never held. The message names the assertion: keep it the same
  // every time (no offsets or times in it).
  void always(bool condition, const std::string& message);
  void sometimes(bool condition, const std::string& message);

  // A history event of this kind by this node (time, process, group and generation filled in),
  // and appending one: for what the wrappers do not record.
  properties::HistoryEvent event(properties::OpKind kind) const;
  void record(properties::HistoryEvent event);

 private:
  friend class detail::AppNode;
  void assertion(std::string_view what, const std::string& message);  // recorded once a run
  explicit AppContext(detail::AppNode& node) : node_(node), producer_(node), consumer_(node), admin_(node) {}
  detail::AppNode& node_;
  Producer producer_;
  Consumer consumer_;
  Admin admin_;
};

// Your application. One object per node incarnation (see the lifecycle above).
class App {
 public:
  virtual ~App() = default;
  // The node started (first start or restart): subscribe, arm the first timer.
  virtual void on_start(AppContext& ctx) = 0;
  // A graceful stop: commit what you processed. The consumer is closed after it.
  virtual void on_stop(AppContext& /*ctx*/) {}
};

using AppFactory = std::function<std::unique_ptr<App>()>;

// Registers `factory` under `name`, for the scenario key "app". Call it before loading a
// scenario that names the app (at the start of main or of a test); registering a name again
// replaces its factory. Not safe while runs are in progress on other threads.
void register_app(const std::string& name, AppFactory factory);
// Removes a registration (tests that register apps of their own).
void unregister_app(const std::string& name);
// The registered names, sorted.
std::vector<std::string> registered_apps();

}  // namespace logsim

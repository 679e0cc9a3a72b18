// A scenario: the cluster, topics, workloads and fault timeline of one run, as loaded from a
// scenario file (see docs/scenarios.md). Values are validated by the loader; this is plain
// data with Kafka's defaults filled in.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/client/consumer.h"
#include "engine/client/group_admin.h"
#include "engine/client/producer.h"
#include "engine/plants.h"
#include "engine/base/types.h"
#include "scenarios/faults.h"
#include "scenarios/timeline.h"
#include "scenarios/topic_spec.h"
#include "sim/disk.h"
#include "sim/network.h"

namespace logsim::scenarios {

// Broker and controller configuration, with Kafka's keys and defaults.
struct BrokerSettings {
  std::int32_t default_replication_factor = 1;       // default.replication.factor
  std::int32_t min_insync_replicas = 1;              // min.insync.replicas
  bool unclean_leader_election_enable = false;       // unclean.leader.election.enable
  std::int32_t replica_lag_time_max_ms = 30000;      // replica.lag.time.max.ms
  std::int32_t replica_fetch_wait_max_ms = 500;      // replica.fetch.wait.max.ms
  std::int32_t broker_session_timeout_ms = 9000;     // broker.session.timeout.ms
  std::int32_t broker_heartbeat_interval_ms = 2000;  // broker.heartbeat.interval.ms
  bool auto_leader_rebalance_enable = true;          // auto.leader.rebalance.enable
  std::int32_t leader_imbalance_check_interval_seconds = 300;  // leader.imbalance.check.interval.seconds
  std::int32_t log_retention_check_interval_ms = 300000;       // log.retention.check.interval.ms
  std::int32_t num_partitions = 1;                   // num.partitions (topics created at run time)
  // The group coordinator.
  std::int32_t offsets_topic_num_partitions = 50;    // offsets.topic.num.partitions
  std::int32_t offsets_topic_replication_factor = 3; // offsets.topic.replication.factor
  std::int32_t group_initial_rebalance_delay_ms = 3000;  // group.initial.rebalance.delay.ms
  std::int32_t group_min_session_timeout_ms = 6000;      // group.min.session.timeout.ms
  std::int32_t group_max_session_timeout_ms = 1800000;   // group.max.session.timeout.ms
  std::int32_t offsets_commit_timeout_ms = 5000;         // offsets.commit.timeout.ms
  std::int32_t offsets_retention_minutes = 10080;        // offsets.retention.minutes (7 days)
  std::int32_t offsets_retention_check_interval_ms = 600000;  // offsets.retention.check.interval.ms
  // The transaction coordinator.
  std::int32_t transaction_state_log_num_partitions = 50;      // transaction.state.log.num.partitions
  std::int32_t transaction_state_log_replication_factor = 3;   // transaction.state.log.replication.factor
  std::int32_t transaction_state_log_min_isr = 2;              // transaction.state.log.min.isr
  std::int32_t transaction_max_timeout_ms = 900000;            // transaction.max.timeout.ms
  // transaction.abort.timed.out.transaction.cleanup.interval.ms
  std::int32_t transaction_abort_timed_out_transaction_cleanup_interval_ms = 10000;
};

struct ClusterSpec {
  std::int32_t brokers = 1;      // named broker-1 .. broker-N; the controller is "controller"
  std::vector<std::string> racks;  // broker.rack of broker-1 .. broker-N (none: no racks)
  sim::LinkOptions network;      // every link's default
  sim::SimDiskOptions disk;      // the brokers' and the controller's disks
  BrokerSettings config;
};

// How a producer picks keys.
struct KeySpec {
  enum class Kind : std::uint8_t { kNone, kUniform, kList, kZipf } kind = Kind::kNone;
  std::int32_t uniform = 0;            // kUniform, kZipf: keys "key-0" .. "key-(N-1)"
  std::vector<std::string> list;       // kList: chosen uniformly
  double exponent = 1.0;               // kZipf: P(key-k) proportional to 1 / (k + 1)^exponent
  std::optional<std::string> hot;      // one hot key: chosen with probability hot_share, else the above
  double hot_share = 0;
};

// A transactional producer's workload (with a transactional.id): each transaction holds
// `records` sends, then commits, or aborts on purpose with probability `aborts`.
struct TransactionSpec {
  std::int64_t records = 10;
  double aborts = 0;
};

struct ProducerSpec {
  std::string name;
  std::string topic;
  double rate_per_sec = 100;          // records per simulated second
  std::int64_t count = 1000;          // records to send in all
  Nanos start = 0;                    // when the first record is sent
  KeySpec keys;
  std::int32_t value_bytes = 100;     // size of each value (see make_record)
  double tombstones = 0;              // the share of records sent with a null value (deletes)
  engine::ProducerConfig config;      // Kafka producer configs (bootstrap filled by the run)
  TransactionSpec transactions;       // with config.transactional_id: how it sends in transactions
  std::string app;                    // a user's registered application (api/app.h); empty: logsim's own
};

struct ConsumerSpec {
  std::string name;
  std::vector<std::string> topics;    // every partition of these is assigned (manual assign)
  Nanos poll_interval = millis(10);   // time between polls
  engine::ConsumerConfig config;      // Kafka consumer configs (bootstrap filled by the run)
};

// How a group member commits (the application's strategy, not a Kafka config).
enum class CommitStrategy : std::uint8_t {
  kAuto,               // enable.auto.commit: the client commits what earlier polls returned
  kAfterEachMessage,   // commitSync of offset + 1 after processing each record
  kAfterEachBatch,     // commitSync of the batch's positions after processing a poll's records
  kAfterEachBatchAsync,  // commitAsync of them (no wait, no retry), and a commitSync on close
  kBeforeProcessing,   // the anti-pattern: commitSync of the batch's end, then process
  kInTransaction,      // an exactly-once pipeline's: the batch's positions go into the
                       // transaction that holds its output (sendOffsetsToTransaction)
};

// An exactly-once pipeline (KIP-98's consume-transform-produce, with KIP-447's group
// fencing): each member of the group has a transactional producer (transactional.id: the
// member's name) and handles each poll's records in one transaction: it copies every record it
// processes to `to` (the copy names its input: source_value_id), then sends the batch's
// positions to the transaction with its group metadata, and commits. After an abort it goes
// back to the group's committed offsets; when the outcome is unknown or the producer failed for
// good, it first makes a new producer (whose InitProducerId ends the old transaction).
struct ExactlyOnceSpec {
  std::string to;                  // the output topic
  engine::ProducerConfig config;   // the members' producer configs (transactional.id: each member's name)
  // false: the offsets name only the group, as the deprecated sendOffsetsToTransaction(offsets,
  // groupId) overload does before KIP-447, so the coordinator cannot refuse a zombie member's
  // offsets (with per-member transactional.ids nothing else fences it).
  bool group_metadata = true;
};

// How a group member's handler fails, and what the application does about it (the seeds'
// stories: a throwing handler retried forever blocks its partition; retry a few times, then
// publish to a dead-letter topic; or log and skip).
struct FailureSpec {
  enum class Policy : std::uint8_t { kRetry, kDeadLetter, kSkip };
  double poison_probability = 0;     // a record that fails every attempt (the same for every member)
  double transient_probability = 0;  // an attempt that fails but may succeed when retried
  Policy on_failure = Policy::kRetry;
  std::int32_t retries = 3;          // dead-letter: attempts after the first before giving up
  Nanos retry_backoff = millis(100); // wait before the next attempt
  std::string dead_letter_topic;     // dead-letter: where failed records go
  bool enabled() const { return poison_probability > 0 || transient_probability > 0; }
};

// A consumer group: `members` application nodes named <name>-1 .. <name>-N, each subscribing
// to `topics` with group.id = name.
struct GroupSpec {
  std::string name;                   // the group.id
  std::vector<std::string> topics;
  std::int32_t members = 1;
  bool static_membership = false;     // group.instance.id = the member's node name
  Nanos start = 0;                    // when the members start
  Nanos poll_interval = millis(10);   // wait before polling again after an empty poll
  Nanos processing_min = 0;           // each record takes a uniform time in [min, max]
  Nanos processing_max = 0;
  CommitStrategy commit = CommitStrategy::kAuto;
  FailureSpec failures;
  std::optional<ExactlyOnceSpec> exactly_once;  // an exactly-once pipeline (commit is kInTransaction)
  engine::ConsumerConfig config;      // Kafka consumer configs (bootstrap, group.id filled by the run)
  std::string app;                    // a user's registered application (api/app.h); empty: logsim's own

  // add-member steps, in time order: member members + 1 + i starts at added_at[i].
  std::vector<Nanos> added_at;

  std::string member_name(std::int32_t i) const { return name + "-" + std::to_string(i); }  // from 1
  // Every member the run has: the first `members`, then those add-member steps start.
  std::int32_t member_count() const { return members + static_cast<std::int32_t>(added_at.size()); }
};

struct Expectation {
  std::string verdict = "pass";       // pass | violated | liveness
  std::vector<std::string> anomalies; // for a scenario that demonstrates a known failure
};

// What `logsim fuzz` saw when it saved this scenario as a failure; `logsim replay` runs it
// again and confirms the same verdict, anomalies and trace hash.
struct Found {
  std::string verdict;                // violated | liveness | internal-error
  std::vector<std::string> anomalies; // in the order first seen
  std::string trace_hash;             // 16 hex digits (absent for internal-error)
  std::string by;                     // the command that found it
};

struct Scenario {
  std::string file;                   // where it was loaded from
  std::string name;
  std::string description;
  Nanos duration = seconds(60);
  // After `duration` (the fault phase), a quiet period of this length: the network heals,
  // paused nodes resume, crashed brokers and the controller restart, no more timeline steps;
  // then every group must have processed every record acknowledged during the fault phase
  // (unseen / liveness). 0: no quiet period and no such check.
  Nanos quiesce = 0;
  std::uint64_t seed = 1;             // used when the command line gives none
  ClusterSpec cluster;
  std::vector<TopicSpec> topics;
  std::vector<std::string> created_topics;  // names of the topics create-topic steps make
  std::vector<ProducerSpec> producers;
  std::vector<ConsumerSpec> consumers;
  std::vector<GroupSpec> groups;
  std::vector<TimelineStep> timeline;
  std::optional<FaultSchedule> faults;  // a random fault schedule, drawn from the run's seed
  Expectation expect;
  // "properties": {"max_realtime_lag": "10s"}: the longest an acknowledged record may wait before
  // a group first processes it (the realtime-lag checker); none: the figure only.
  std::optional<Nanos> max_realtime_lag;
  // "properties": {"write_isolation": true}: transactions promise isolated writes (int-send-skip
  // is a violation); by default only measured, as Kafka does not isolate them.
  bool write_isolation = false;
  std::set<std::string> ignored;      // anomalies "properties" turns off: not checked, not reported
  Plants plants;                      // planted bugs ("plant", or --plant): none by default
  std::optional<Found> found;         // a saved failure (written by logsim fuzz)
};

}  // namespace logsim::scenarios

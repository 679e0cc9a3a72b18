// The producer client: what a simulated application uses to send records.
//
// Kafka's producer, as far as a user can observe it:
// - Partitioning (Kafka 3.3+'s built-in partitioner, partitioner.h): an explicit partition; or
//   murmur2 of the key; or, for null keys (and for every key with partitioner.ignore.keys),
//   sticky partitioning (KIP-480): one partition until batch.size bytes went to it. The next
//   sticky partition is drawn uniformly among the partitions with a leader, or with
//   partitioner.adaptive.partitioning.enable (the default, KIP-794) weighted towards short
//   queues of waiting batches, leaving out, with partitioner.availability.timeout.ms, the
//   partitions of a broker that has had batches waiting for it, unable to take them, that long.
// - Batching: records for one partition gather in a batch until it holds batch.size bytes or
//   linger.ms has passed since its first record; at most max.in.flight.requests.per.connection
//   requests are in flight to one broker.
// - Retries: a batch that failed with a retriable error is sent again after retry.backoff.ms,
//   until delivery.timeout.ms after its first record was handed over; request.timeout.ms bounds
//   each attempt. Without idempotence a retried batch can land after a later one (reordering)
//   and twice (a duplicate after a lost response) — the real behaviour.
// - Idempotence (enable.idempotence, Kafka's default since 3.0 when acks=all): the producer
//   gets a producer id and epoch (InitProducerId) and numbers each partition's records; the
//   broker drops duplicates and refuses gaps. Batches of one partition are then sent strictly in
//   order: a batch waits while an earlier one is backing off, and a numbered batch is retried
//   only while no earlier one is in flight (Kafka retries a partition's first in-flight
//   sequence alone; the batches behind it wait for its outcome).
// - Sequence gaps (KIP-360, Kafka 2.5+): a numbered batch that fails or expires may leave a hole
//   in its partition's sequences that no later batch can cross. The producer then bumps its
//   epoch (InitProducerId naming its id and epoch) and numbers every partition from 0 again:
//   batches already numbered under the old epoch finish under it, and a partition moves to the
//   new epoch once none of them is left; batches the broker refused behind the hole are
//   numbered again. A failed batch that holds a partition's newest numbers, and was surely not
//   written, just gives them back instead (no gap). Kafka's idempotent producer bumps the epoch
//   locally; the InitProducerId round trip is the path its transactional producer takes, and
//   the broker sees the same thing either way: a new epoch starting at sequence 0.
// Every send ends in exactly one of: acknowledged (with its offset), failed (definitely not
// written), or unknown (it may or may not be in the log).
//
// Its requests go through its ClientChannel (client_channel.h), its metadata comes from its
// MetadataRefresh (metadata.h). An application node hosts one client. Not thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "engine/base/topic_partition.h"
#include "engine/client/client_channel.h"
#include "engine/client/metadata.h"
#include "engine/client/partitioner.h"
#include "engine/env/env.h"
#include "engine/protocol/record_batch.h"
#include "engine/timer_mux.h"
#include "engine/timer_tags.h"

namespace logsim::engine {

struct ProducerConfig {
  std::vector<NodeId> bootstrap_servers;       // bootstrap.servers
  std::int16_t acks = -1;                      // acks: -1 (all), 1, 0
  std::int32_t retries = 2147483647;           // retries
  std::int32_t retry_backoff_ms = 100;         // retry.backoff.ms
  std::int32_t request_timeout_ms = 30000;     // request.timeout.ms
  std::int32_t delivery_timeout_ms = 120000;   // delivery.timeout.ms
  std::int32_t batch_size = 16384;             // batch.size, bytes of values
  std::int32_t linger_ms = 0;                  // linger.ms
  std::int32_t max_in_flight = 5;              // max.in.flight.requests.per.connection
  bool enable_idempotence = true;              // enable.idempotence (the loader resolves Kafka's rules)
  std::int32_t metadata_max_age_ms = 300000;   // metadata.max.age.ms: refresh metadata this often
                                               // (so partitions added to a topic come into use)
  bool partitioner_ignore_keys = false;        // partitioner.ignore.keys: keyed records go sticky too
  bool partitioner_adaptive = true;            // partitioner.adaptive.partitioning.enable (KIP-794)
  std::int32_t partitioner_availability_timeout_ms = 0;  // partitioner.availability.timeout.ms (0: off;
                                                         // only with adaptive partitioning, as in Kafka)
  std::optional<std::string> transactional_id;  // transactional.id (needs enable.idempotence)
  std::int32_t transaction_timeout_ms = 60000;  // transaction.timeout.ms
};

// What a consumer's groupMetadata() gives a transactional producer (KIP-447): its group and,
// to fence a consumer that lost its partitions, its generation, member id and instance id
// (generation -1 and no member id: not checked).
struct ConsumerGroupMetadata {
  std::string group_id;
  std::int32_t generation_id = -1;
  std::string member_id;
  std::optional<std::string> group_instance_id;
};

// A transactional producer's phase, as Kafka's TransactionManager names its states.
enum class TxnPhase : std::uint8_t {
  kUninitialized,   // getting its id from the transaction coordinator
  kReady,           // no transaction open
  kInTransaction,
  kCommitting,      // waiting for its sends, then for EndTxn(COMMIT)
  kAborting,        // waiting for its sends in flight, then for EndTxn(ABORT)
  kAbortableError,  // a send failed: the transaction can only be aborted
  kFatalError,      // fenced (or refused for good): the producer is unusable
};
std::string_view txn_phase_name(TxnPhase phase);

enum class SendOutcome : std::uint8_t { kAcknowledged, kFailed, kUnknown };

struct SendResult {
  SendOutcome outcome = SendOutcome::kUnknown;
  PartitionId partition{-1};
  Offset offset{-1};  // when acknowledged (acks=0: -1, the client cannot know)
  ErrorCode error = ErrorCode::NONE;
};

using SendCallback = std::function<void(const SendResult&)>;

class Producer {
 public:
  // Arms its timers on the node's `timers`, which hands them back.
  Producer(Env& env, TimerMux& timers, ProducerConfig config);
  // Not copyable: it keeps pointers into its own map of partitions.
  Producer(const Producer&) = delete;
  Producer& operator=(const Producer&) = delete;

  // Fetches metadata (and a producer id when idempotent); sends wait for them.
  void start();
  // Sends one record to `topic`, to `partition` if given, else to the partitioner's choice.
  // Its key, value, timestamp and headers (Record::headers) are stored and fetched as given.
  void send(const std::string& topic, Record record, std::optional<PartitionId> partition, SendCallback done);

  // Route a message to the client; false when it is not the client's.
  bool on_message(NodeId from, const Message& msg);
  // The connection to a broker broke: requests in flight to it fail (maybe written) and retry.
  // A request that times out closes its connection the same way (as Kafka's NetworkClient).
  void on_disconnect(NodeId peer);

  // Transactions (producer_transactions.cc): with transactional.id, start() gets the producer's
  // id from its transaction coordinator, and every send belongs to the transaction begun
  // before it (a send outside one fails with INVALID_TXN_STATE). commit_transaction and
  // abort_transaction report NONE once the coordinator has the decision, or why not; a commit
  // after a failed send reports that send's error, and the transaction must be aborted.
  bool transactional() const { return config_.transactional_id.has_value(); }
  ErrorCode begin_transaction();
  void commit_transaction(std::function<void(ErrorCode)> done);
  void abort_transaction(std::function<void(ErrorCode)> done);
  // sendOffsetsToTransaction: a consumer's positions (the next offset to consume of each
  // partition) become the group's committed offsets if, and only if, the transaction commits
  // (AddOffsetsToTxn to the transaction coordinator, then TxnOffsetCommit to the group's).
  // `done` reports NONE once the group coordinator holds them, or the error: UNKNOWN_MEMBER_ID,
  // ILLEGAL_GENERATION or FENCED_INSTANCE_ID (the consumer lost its partitions) make the
  // transaction abortable; fencing is fatal. A commit waits for it.
  void send_offsets_to_transaction(std::vector<TxnOffsetCommitPartition> offsets, ConsumerGroupMetadata group,
                                   std::function<void(ErrorCode)> done);
  TxnPhase txn_phase() const { return txn_.phase; }

  std::size_t in_flight() const { return sends_pending_; }
  ProducerId producer_id() const { return producer_id_; }
  ProducerEpoch producer_epoch() const { return producer_epoch_; }

 private:
  // Fails every request in flight to `peer` as a disconnect (without draining).
  void close_connection(NodeId peer);
  void on_timer(TimerId id, ProducerTimer tag);
  void on_request_timeout(TimerId id);

  struct PendingSend {
    std::string topic;
    Record record;
    std::optional<PartitionId> partition;
    SendCallback done;
    Nanos deadline = 0;  // delivery.timeout.ms after send()
  };
  struct Batch {
    std::uint64_t id = 0;
    // The records, encoded into the batch as each is sent (as Kafka's MemoryRecordsBuilder
    // does), until the first attempt makes the batch; then the batch (`encoded`) is sent again
    // as it is by every retry. Its header names the id, epoch and base sequence below.
    BatchBuilder records;
    SharedBytes encoded;
    std::vector<SendCallback> callbacks;  // one per record, in order
    std::int32_t count() const { return static_cast<std::int32_t>(callbacks.size()); }
    std::int64_t bytes = 0;
    Nanos created = 0;
    Nanos deadline = 0;                // of its earliest send
    std::int32_t attempts = 0;
    Sequence base_sequence{-1};        // fixed at the first attempt when idempotent
    ProducerId producer_id{-1};        // the id and epoch base_sequence counts under
    ProducerEpoch producer_epoch{-1};
    void drop_numbers() {
      base_sequence = Sequence(-1);
      producer_id = ProducerId(-1);
      producer_epoch = ProducerEpoch(-1);
    }
    RequestSlot attempt;               // the Produce in flight (no waits: drain() backs off)
    Nanos retry_at = 0;                // backing off until then
    bool maybe_written = false;
    bool closed = false;               // no more records join it
  };
  // One partition's batches, in send order, and what the last drain pass over them found.
  //
  // A pass that completes no batch (and finds a leader) leaves the partition so that another
  // pass, until something it reads changes, would send nothing and only re-arm the drain timer
  // at times no earlier than the earliest it armed (`wake`): each comparison with the clock it
  // made flips exactly at a time it armed. So drain() skips the partition while it is clean
  // (clean_generation == drain_generation_), the clock is in [walked_at, wake), and the drain
  // timer is armed no later than `wake` (the skipped re-arms would have been no-ops). A change
  // to its batches marks the partition dirty; a metadata update, a new epoch or a bump asked
  // for marks every partition (++drain_generation_); a freed in-flight slot marks the partitions
  // whose clean pass stopped at that broker's full slots (slot_broker). A send then costs a
  // pass over its own partition, not over every partition's batches, with the same requests,
  // timers and callbacks in the same order. And while every partition is clean (SkipAll),
  // drain() looks only at the partitions marked dirty since, not at every partition.
  struct Partition {
    std::deque<Batch> batches;
    std::uint64_t clean_generation = 0;  // 0: dirty
    Nanos walked_at = 0;                 // the clean pass's clock
    Nanos wake = 0;                      // the earliest drain time it armed
    NodeId slot_broker{-1};              // the broker whose in-flight count the clean pass read
  };
  using Partitions = std::map<TopicPartition, Partition>;
  using PartitionEntry = Partitions::value_type;
  // When every partition but the ones listed in `dirtied_` may be skipped, so that drain()
  // walks those alone (in key order, as the full walk would reach them): while the drain
  // generation is `generation`, the clock is in [at, wake) and the drain timer is armed no later
  // than `wake`. A full walk that leaves every partition skippable sets it; a partition marked
  // dirty, or walked and left dirty, goes on the list; a walk remembered clean lowers `wake` to
  // its own and raises `at` to its clock. generation 0: it does not hold.
  struct SkipAll {
    std::uint64_t generation = 0;
    Nanos at = 0;
    Nanos wake = 0;
  };
  // The run of sequence numbers a partition's batches take, and the id and epoch it counts
  // under. A run under an older epoch than the producer's is stale: it restarts from 0.
  struct SequenceRun {
    ProducerId producer_id{-1};
    ProducerEpoch producer_epoch{-1};
    Sequence next{0};
  };

  // A batch: its partition and id.
  using BatchRef = std::pair<TopicPartition, std::uint64_t>;

  void request_producer_id();
  void request_epoch_bump();
  // Transactions (producer_transactions.cc).
  enum class TxnRequest : std::uint8_t {
    kFindCoordinator,
    kInitProducerId,
    kAddPartitions,
    kAddOffsets,
    kFindGroupCoordinator,
    kTxnOffsetCommit,
    kEndTxn
  };
  // One send_offsets_to_transaction call, until the group coordinator holds its offsets.
  struct TxnOffsets {
    std::vector<TxnOffsetCommitPartition> offsets;
    ConsumerGroupMetadata group;
    std::function<void(ErrorCode)> done;
    bool added = false;              // AddOffsetsToTxn answered
    NodeId group_coordinator{-1};    // -1: to be found
  };
  struct Transaction {
    TxnPhase phase = TxnPhase::kUninitialized;
    ErrorCode error = ErrorCode::NONE;      // the abortable or fatal error
    NodeId coordinator{-1};                 // -1: to be found
    std::set<TopicPartition> added;         // in the transaction, as the coordinator confirmed
    std::set<TopicPartition> adding;        // in the AddPartitionsToTxn in flight
    std::set<TopicPartition> pending;       // sent to, to be added next
    bool bump_epoch = false;                // take the next epoch once the abort is done
    std::deque<TxnOffsets> offsets;         // send_offsets_to_transaction calls, oldest first
    bool offsets_added = false;             // a group's offsets are in the transaction
    std::function<void(ErrorCode)> end_done;  // the commit's or abort's report
  };
  ErrorCode txn_send_error() const;
  void txn_note_partition(const TopicPartition& key);
  bool txn_may_send(const TopicPartition& key) const;
  void txn_on_send_failed(ErrorCode error);
  void txn_abortable(ErrorCode error);
  void txn_fatal(ErrorCode error);
  // After a fatal error: every send still pending fails, those never sent definitely and those
  // in flight with an unknown outcome (Kafka's Sender.maybeAbortBatches).
  void txn_fail_pending_sends();
  void txn_next();
  void txn_ended();
  void txn_requeue_adding();
  bool txn_retry(ErrorCode error);
  bool txn_on_message(const Message& msg);
  // The next request of the oldest send_offsets_to_transaction call; false if none is due.
  bool txn_next_offsets();
  void txn_on_offsets_answer(TxnRequest kind, const Message& msg);
  // Ends every send_offsets_to_transaction call still waiting, with `error`.
  void txn_fail_offsets(ErrorCode error);
  void txn_on_timer(TimerId timer);
  void txn_on_disconnect(NodeId peer);
  bool is_current(const Batch& b) const;
  bool may_number(const std::deque<Batch>& batches) const;
  void renumber_behind_refused(std::deque<Batch>& batches);
  void release_sequences(const TopicPartition& key, const Batch& b);
  void place(PendingSend&& s);
  PartitionId choose_partition(const PendingSend& s);
  PartitionId next_sticky_partition(const std::string& topic, std::int32_t partition_count);
  std::optional<PartitionLoadStats> load_stats(const std::string& topic, std::int32_t partition_count) const;
  void note_broker_drained(NodeId broker);
  bool broker_unavailable(NodeId broker) const;
  void drain();
  void drain_all(const std::vector<PartitionEntry*>& order, std::size_t from, Nanos now);
  void drain_dirtied(Nanos now);
  bool skip_all_holds(Nanos now) const;
  bool drain_partition(PartitionEntry& entry);
  bool drain_batches(const TopicPartition& key, std::deque<Batch>& batches);
  bool may_skip(const Partition& partition, Nanos now) const;
  void mark_all_dirty() { ++drain_generation_; }
  void mark_dirty(PartitionEntry& entry);
  void send_batch(const TopicPartition& key, Batch& b, NodeId leader);
  void encode(Batch& b);
  void on_produce_response(const BatchRef& ref, const ProduceResponse& resp);
  void end_attempt(const TopicPartition& key, Batch& batch);
  void retry_or_fail(const TopicPartition& key, std::uint64_t batch_id, ErrorCode error, bool ambiguous);
  void complete(const TopicPartition& key, std::uint64_t batch_id, SendOutcome outcome, Offset base, ErrorCode error);
  Batch* find_batch(const TopicPartition& key, std::uint64_t batch_id);
  void arm_drain(Nanos at);
  bool ready() const;

  Env& env_;
  Timers<ProducerTimer> timers_;
  ProducerConfig config_;
  ClientChannel channel_;
  MetadataRefresh metadata_;
  RequestTable<BatchRef, ProducerTimer> produce_;  // the Produce requests in flight, by batch
  // Idempotence.
  ProducerId producer_id_{-1};
  ProducerEpoch producer_epoch_{-1};
  RequestTable<std::monostate, ProducerTimer> init_;  // InitProducerId
  RequestSlot init_slot_;
  bool epoch_bump_pending_ = false;  // a gap was found; the next epoch is being asked for
  RequestTable<TxnRequest, ProducerTimer> txn_requests_;  // one transactional request at a time
  RequestSlot txn_slot_;
  Transaction txn_;
  std::map<TopicPartition, SequenceRun> sequences_;
  // Sends and batches.
  std::uint64_t next_batch_ = 0;
  std::size_t last_batch_bytes_ = 0;  // the size of the last batch made (0: none yet), to size the next
  std::size_t sends_pending_ = 0;    // sends without an outcome yet: unplaced or in a batch
  std::vector<PendingSend> unplaced_;  // waiting for metadata, in order
  // Whether unplaced_'s deadlines are nondecreasing (always, unless the clock was set back).
  // Removing sends keeps them so; it is set again when unplaced_ starts anew.
  bool unplaced_sorted_ = true;
  Partitions batches_;
  // batches_'s entries in key order; replaced (never changed in place) when a partition is
  // added, so a drain pass can walk the entries that existed when it began, as a snapshot.
  std::shared_ptr<const std::vector<PartitionEntry*>> partition_order_ =
      std::make_shared<const std::vector<PartitionEntry*>>();
  // The entries of the topic sent to last, by partition number (null: none yet), so that keyed
  // sends spread over its partitions find theirs without a lookup by name.
  std::string placed_topic_;
  std::vector<PartitionEntry*> placed_entries_;
  std::uint64_t drain_generation_ = 1;
  SkipAll skip_all_;
  std::vector<PartitionEntry*> dirtied_;  // dirty since skip_all_ was set (may repeat)
  std::vector<PartitionEntry*> walking_;  // drain_dirtied's list (kept for its capacity)
  std::uint64_t marks_ = 0;               // partitions marked dirty so far
  std::uint64_t full_walks_ = 0;          // drain_all calls so far
  Nanos walk_wake_ = 0;    // the earliest drain time armed by the pass in progress
  bool walk_memo_ = false;  // whether the pass in progress may be remembered as clean
  NodeId walk_slot_broker_{-1};    // the broker whose in-flight count the pass in progress read
  std::uint64_t slots_freed_ = 0;  // in-flight slots freed so far (a pass that saw one is not clean)
  std::map<NodeId, std::int32_t> in_flight_;          // requests in flight per broker
  TimerId drain_timer_ = 0;
  Nanos drain_at_ = -1;
  std::map<std::string, std::int32_t> sticky_partition_;  // null-key partition per topic
  std::map<std::string, std::int64_t> sticky_bytes_;
  // When a batch last went to each broker (partitioner.availability.timeout.ms; kept only
  // while that is on).
  std::map<NodeId, Nanos> drained_at_;
};

}  // namespace logsim::engine

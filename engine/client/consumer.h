// The consumer client: manual assignment or group membership (subscribe), positions, seeks,
// commits, and fetching from each partition's leader up to its high watermark.
//
// Kafka's semantics kept here: the position is the offset of the next record to hand out;
// poll() hands out at most max.poll.records buffered records and advances positions past
// them; a partition without a position is reset by auto.offset.reset (earliest, latest, or
// none: the partition reports OFFSET_OUT_OF_RANGE and stays idle); OFFSET_OUT_OF_RANGE from
// the broker is handled the same way. The broker holds an empty fetch up to fetch.max.wait.ms
// (the long poll), so an empty answer is followed by the next fetch at once.
//
// Group membership (consumer_group.cc) is Kafka's ConsumerCoordinator over the classic
// protocol: FindCoordinator, JoinGroup (MEMBER_ID_REQUIRED first for a dynamic member), the
// leader's assignment by partition.assignment.strategy, SyncGroup, heartbeats every
// heartbeat.interval.ms (while syncing and stable), commits (OffsetCommit with the generation
// and member id), and the committed offsets of new partitions (OffsetFetch). As in Kafka,
// what the application sees happens inside poll(): auto-commit of what earlier polls returned
// (every auto.commit.interval.ms), joining when a rebalance is needed (first the auto-commit,
// then onPartitionsRevoked — every partition under EAGER, none under COOPERATIVE — or
// onPartitionsLost when the generation was lost), and applying a new assignment
// (onPartitionsRevoked for what COOPERATIVE moved away, which triggers one more rebalance,
// then onPartitionsAssigned). A member that does not poll for max.poll.interval.ms leaves the
// group (static members only drop their generation) and rejoins at its next poll.
// One client per application node.
#pragma once

#include <compare>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/client/assignors/assignor.h"
#include "engine/client/metadata.h"
#include "engine/base/topic_partition.h"
#include "engine/env/env.h"
#include "engine/plants.h"
#include "engine/timer_mux.h"
#include "engine/timer_tags.h"

namespace logsim::engine {

enum class OffsetReset : std::uint8_t { kEarliest, kLatest, kNone };

struct ConsumerConfig {
  std::vector<NodeId> bootstrap_servers;           // bootstrap.servers
  std::int32_t max_poll_records = 500;             // max.poll.records
  OffsetReset auto_offset_reset = OffsetReset::kLatest;  // auto.offset.reset
  std::int32_t fetch_max_wait_ms = 500;            // fetch.max.wait.ms
  std::int32_t request_timeout_ms = 30000;         // request.timeout.ms
  std::int32_t retry_backoff_ms = 100;             // retry.backoff.ms
  // Group membership (subscribe).
  std::string group_id;                            // group.id
  std::optional<std::string> group_instance_id;    // group.instance.id: a static member
  std::string client_id = "consumer";              // client.id
  std::int32_t session_timeout_ms = 45000;         // session.timeout.ms
  std::int32_t heartbeat_interval_ms = 3000;       // heartbeat.interval.ms
  std::int32_t max_poll_interval_ms = 300000;      // max.poll.interval.ms (the rebalance timeout)
  std::vector<std::string> partition_assignment_strategy{"range", "cooperative-sticky"};
  bool enable_auto_commit = true;                  // enable.auto.commit
  std::int32_t auto_commit_interval_ms = 5000;     // auto.commit.interval.ms
  std::int32_t default_api_timeout_ms = 60000;     // default.api.timeout.ms (commitSync's bound)
  Plants plants;                                   // planted bugs (none by default)
};

// A commit the client sent or finished (for the application's history).
struct CommitEvent {
  enum class Phase : std::uint8_t { kRequested, kCompleted } phase = Phase::kRequested;
  std::uint64_t id = 0;                            // pairs a request with its completion
  std::map<TopicPartition, Offset> offsets;
  std::int32_t generation = -1;
  std::string member_id;
  bool automatic = false;                          // auto-commit (including before a rebalance and on close)
  ErrorCode error = ErrorCode::NONE;               // kCompleted only
};

// Kafka's ConsumerRebalanceListener, plus commit notifications. Called from inside poll() (and
// close()), like Kafka's callbacks; a callback may call commit().
class RebalanceListener {
 public:
  virtual ~RebalanceListener() = default;
  virtual void on_partitions_revoked(const std::vector<TopicPartition>& /*partitions*/) {}
  virtual void on_partitions_assigned(const std::vector<TopicPartition>& /*partitions*/) {}
  // The generation was lost (fenced, session expired, poll timeout): the partitions may
  // already belong to someone else, so committing is pointless. Kafka's default: revoked.
  virtual void on_partitions_lost(const std::vector<TopicPartition>& partitions) { on_partitions_revoked(partitions); }
  virtual void on_commit(const CommitEvent& /*event*/) {}
  // The member cannot go on (FENCED_INSTANCE_ID, INCONSISTENT_GROUP_PROTOCOL, ...).
  virtual void on_fatal(ErrorCode /*error*/) {}
};

using CommitCallback = std::function<void(ErrorCode)>;

struct ConsumerRecord {
  TopicPartition tp;
  StoredRecord record;
};

class Consumer {
 public:
  // Arms its timers on the node's `timers`, which hands them back.
  Consumer(Env& env, TimerMux& timers, ConsumerConfig config);
  Consumer(const Consumer&) = delete;
  Consumer& operator=(const Consumer&) = delete;

  // Replaces the assignment. Partitions kept keep their positions; new ones start without.
  void assign(const std::vector<TopicPartition>& partitions);
  const std::vector<TopicPartition>& assignment() const { return assignment_; }
  // Sets the next offset poll() hands out for an assigned partition; drops what is buffered.
  void seek(const TopicPartition& tp, Offset offset);
  // Kafka's seekToBeginning (timestamp kListOffsetsEarliest), seekToEnd (kListOffsetsLatest),
  // or offsetsForTimes then seek (a timestamp in ms: the first offset whose record is at or
  // after it, or the end when there is none) for an assigned partition: the position is asked
  // of the leader with ListOffsets, and take_resets() says where it landed.
  void seek_to(const TopicPartition& tp, std::int64_t timestamp_ms);
  std::optional<Offset> position(const TopicPartition& tp) const;
  // The error that stopped a partition (auto.offset.reset=none), if any.
  std::optional<ErrorCode> partition_error(const TopicPartition& tp) const;

  // Up to max.poll.records buffered records, in offset order per partition. With a
  // subscription, also drives the group (see the top of this file).
  std::vector<ConsumerRecord> poll();
  // The positions ListOffsets moved since the last call: auto.offset.reset (a fetch found its
  // offset out of range: below the log start after retention, or above the log end after
  // truncation), or a seek_to. Kafka only logs the first; an application that keeps a history
  // records both as seeks.
  struct AutoReset {
    TopicPartition tp;
    Offset from;  // the position that was out of range (-1 after a seek_to)
    Offset to;    // where auto.offset.reset or the seek_to put it
    std::optional<std::int64_t> seek_to;  // the seek_to's timestamp; none for auto.offset.reset
    // auto.offset.reset: the log start offset and high watermark in the out-of-range answer
    // (Kafka keeps log start <= high watermark; -1 after a seek_to).
    Offset log_start_offset{-1};
    Offset high_watermark{-1};
  };
  std::vector<AutoReset> take_resets() { return std::exchange(resets_, {}); }

  // ---- Group membership (consumer_group.cc).
  // Joins group.id with these topics. The listener (may be null) must outlive the consumer.
  void subscribe(std::vector<std::string> topics, RebalanceListener* listener);
  // Commits offsets (each the next offset to consume). `sync` retries retriable errors until
  // default.api.timeout.ms (commitSync); otherwise the first error ends it (commitAsync).
  // Outside a stable generation it fails at once: REBALANCE_IN_PROGRESS while rebalancing,
  // ILLEGAL_GENERATION when the member has no generation (Kafka's CommitFailedException).
  void commit(std::map<TopicPartition, Offset> offsets, bool sync, CommitCallback done = {});
  // The positions of the assigned partitions that have one (Kafka's allConsumed).
  std::map<TopicPartition, Offset> consumed() const;
  // Graceful close: auto-commit (if enabled), onPartitionsRevoked, then LeaveGroup (dynamic
  // members). Sends without waiting; the application stops next.
  void close();
  std::int32_t generation() const { return group_.generation; }
  const std::string& member_id() const { return group_.member_id; }
  const std::string& group_id() const { return config_.group_id; }

  // (Group responses are routed from on_message to on_group_message.)
  bool on_message(NodeId from, const Message& msg);
  // The connection to a broker broke: requests in flight to it are retried after a backoff.
  void on_disconnect(NodeId peer);

 private:
  // A fetch answered OFFSET_OUT_OF_RANGE: where it asked, and the log's bounds in the answer.
  struct OutOfRange {
    Offset from;
    Offset log_start_offset;
    Offset high_watermark;
  };
  // Fetched records not yet handed out, oldest first: a vector read from `head`, so a fetch
  // decodes straight onto its end and handing out moves records without shifting any; and
  // where the batches fetched end (`fetched_to`, the next fetch's offset, as Kafka's consumer
  // keeps its batches' nextOffset: compaction can leave a batch's last offsets without records).
  struct RecordBuffer {
    std::vector<StoredRecord> records;
    std::size_t head = 0;
    Offset fetched_to{-1};  // -1: nothing fetched since the position was set
    bool empty() const { return head == records.size(); }
    std::size_t size() const { return records.size() - head; }
    StoredRecord& front() { return records[head]; }
    const StoredRecord& back() const { return records.back(); }
    void pop_front() {
      if (++head == records.size()) {
        records.clear();
        head = 0;
      }
    }
    // Makes room before more records are appended: drops the records already handed out once
    // they are at least half the vector (so each record is moved at most once more).
    void compact() {
      if (head == 0 || 2 * head < records.size()) return;
      records.erase(records.begin(), records.begin() + static_cast<std::ptrdiff_t>(head));
      head = 0;
    }
    // Forgets everything fetched (a seek, a reset, a new assignment).
    void clear() {
      records.clear();
      head = 0;
      fetched_to = Offset(-1);
    }
  };
  struct PartitionState {
    std::optional<Offset> position;  // next offset to hand out
    bool awaiting_committed = false; // newly assigned in a group: waiting for OffsetFetch
    RecordBuffer buffer;             // fetched, not yet handed out
    CorrelationId in_flight = 0;     // Fetch or ListOffsets awaiting a response
    Offset fetch_offset{-1};         // what the Fetch in flight asked for
    NodeId target{-1};               // where the request in flight went
    TimerId timer = 0;               // request timeout or next-fetch delay
    bool waiting = false;            // timer is a delay, not a request timeout
    std::optional<ErrorCode> error;
    std::optional<OutOfRange> reset_from;  // out of range: auto.offset.reset is under way
    std::optional<std::int64_t> seek_to;  // a seek_to is under way: what ListOffsets asks for
  };

  void request_metadata();
  void pump(const TopicPartition& tp);
  void send_request(const TopicPartition& tp, PartitionState& st, NodeId leader, bool list_offsets);
  void delay(PartitionState& st, const TopicPartition& tp, Nanos after);
  void reset_position(const TopicPartition& tp, PartitionState& st, const FetchResponse& out_of_range);
  // Fails the Fetch, ListOffsets and Metadata requests in flight to `peer` as a disconnect.
  void close_connection(NodeId peer);
  void drop_fetching(PartitionState& st);
  void on_fetch(const FetchResponse& resp);
  void on_list_offsets(const ListOffsetsResponse& resp);
  PartitionState* state_for(CorrelationId id, TopicPartition& tp);
  void on_timer(TimerId id, ConsumerTimer tag);
  void on_partition_timer(TimerId id);
  std::vector<std::string> metadata_topics() const;

  // ---- The group (consumer_group.cc).
  enum class MemberState : std::uint8_t {
    kUnjoined,   // not in the group (yet, or again)
    kPreparing,  // onJoinPrepare: waiting for its commits before JoinGroup
    kJoining,    // JoinGroup in flight
    kAssigning,  // the leader waits for metadata to compute the assignment
    kSyncing,    // SyncGroup in flight
    kStable,
    kFatal,      // fenced or misconfigured: nothing more
  };
  struct PendingCommit {
    std::uint64_t id = 0;
    std::map<TopicPartition, Offset> offsets;
    bool sync = false;
    bool automatic = false;
    Nanos deadline = 0;   // sync: retry until
    CommitCallback done;
    CorrelationId in_flight = 0;
    Nanos sent = 0;
    std::int32_t generation = -1;
    std::string member_id;
    bool announced = false;  // on_commit(kRequested) was called
    // Its kCommit timers (deadline, and the request in flight), disarmed when it finishes:
    // a finished commit's timers would only wake the sweep for nothing, and a commit after
    // every batch would keep tens of thousands of them armed (request.timeout.ms apart).
    TimerId deadline_timer = 0;
    TimerId request_timer = 0;
  };
  struct GroupState {
    bool subscribed = false;
    std::vector<std::string> topics;
    RebalanceListener* listener = nullptr;
    std::vector<PartitionAssignor> assignors;
    RebalanceProtocol protocol = RebalanceProtocol::kEager;
    MemberState state = MemberState::kUnjoined;
    bool rejoin_needed = false;
    bool join_started = false;          // a poll asked to (re)join and the join is not yet sent
    NodeId coordinator{-1};
    CorrelationId find_in_flight = 0;
    NodeId find_target{-1};
    Nanos find_backoff_until = 0;
    std::string member_id;
    std::int32_t generation = -1;
    std::string protocol_name;
    CorrelationId join_in_flight = 0;   // JoinGroup or SyncGroup
    Nanos join_sent = 0;
    JoinGroupResponse leader_join;      // kAssigning: what the leader assigns from
    std::optional<std::vector<TopicPartition>> pending_assignment;  // from SyncGroup, applied at poll
    std::vector<TopicPartition> owned;  // what the application was given
    // EAGER revokes everything before it joins, so the sticky assignor carries the last
    // assignment and its generation in its userData instead (Kafka's AbstractStickyAssignor
    // memberAssignment): kept through the revocation, replaced by the next assignment.
    std::vector<TopicPartition> last_assignment;
    std::int32_t last_assignment_generation = -1;
    CorrelationId heartbeat_in_flight = 0;
    Nanos last_heartbeat_ok = 0;
    TimerId heartbeat_timer = 0;
    TimerId poll_timer = 0;             // max.poll.interval.ms since the last poll
    TimerId retry_timer = 0;            // a backoff before the next group step
    Nanos last_poll = 0;
    Nanos next_auto_commit = 0;
    std::uint64_t next_commit_id = 0;
    std::map<std::uint64_t, PendingCommit> commits;
    std::uint64_t prepare_commit = 0;   // kPreparing: the auto-commit it waits for (0: none)
    bool prepare_revoked = false;       // kPreparing: the revoke/lost callback has run
    bool in_poll = false;               // inside poll(): the application's callbacks may run
    CorrelationId offset_fetch_in_flight = 0;
  };
  void drive_group();
  void find_coordinator();
  void coordinator_lost();
  void start_prepare();
  void continue_prepare();
  void send_join();
  void send_sync(std::vector<SyncGroupAssignment> assignments);
  void try_assign();
  void apply_assignment();
  void fetch_committed();
  void send_heartbeat();
  void arm_heartbeat();
  void reset_generation(bool keep_member_id);
  void request_rejoin();
  void group_retry_later();
  std::uint64_t add_commit(std::map<TopicPartition, Offset> offsets, bool sync, bool automatic, CommitCallback done);
  void send_commit(std::uint64_t id);
  void finish_commit(std::uint64_t id, ErrorCode error);
  void on_poll_timeout();
  bool on_group_message(const Message& msg);
  void on_group_timer(TimerId id, ConsumerGroupTimer tag);
  void set_assignment(const std::vector<TopicPartition>& partitions, bool from_group);
  GroupState group_;

  Env& env_;
  Timers<ConsumerTimer> timers_;
  Timers<ConsumerGroupTimer> group_timers_;
  ConsumerConfig config_;
  MetadataCache metadata_;
  std::vector<TopicPartition> assignment_;
  std::map<TopicPartition, PartitionState> partitions_;
  std::vector<AutoReset> resets_;  // for take_resets()
  std::map<CorrelationId, TopicPartition> by_correlation_;
  std::map<TimerId, TopicPartition> by_timer_;
  CorrelationId next_correlation_ = 0;
  CorrelationId metadata_correlation_ = 0;
  NodeId metadata_target_{-1};
  TimerId metadata_timer_ = 0;
  Nanos last_metadata_request_ = -1;
  std::size_t next_poll_partition_ = 0;  // round-robin start of poll()
};

}  // namespace logsim::engine

// The consumer's group half: Kafka's ConsumerCoordinator over the classic protocol.
//
// FindCoordinator, JoinGroup (MEMBER_ID_REQUIRED first for a dynamic member), the leader's
// assignment by partition.assignment.strategy, SyncGroup, heartbeats every
// heartbeat.interval.ms (while syncing and stable), commits (OffsetCommit with the generation
// and member id), and the committed offsets of new partitions (OffsetFetch). What the
// application sees happens inside the consumer's poll() (on_poll): auto-commit of what earlier
// polls returned (every auto.commit.interval.ms), joining when a rebalance is needed (first the
// auto-commit, then onPartitionsRevoked — every partition under EAGER, none under COOPERATIVE
// — or onPartitionsLost when the generation was lost), and applying a new assignment
// (onPartitionsRevoked for what COOPERATIVE moved away, which triggers one more rebalance,
// then onPartitionsAssigned). A member that does not poll for max.poll.interval.ms leaves the
// group (static members only drop their generation) and rejoins at its next poll.
//
// The coordinator knows nothing of fetching: what it needs of its consumer (positions, the
// assignment, metadata, the channel its requests go through) it asks through GroupHost, which
// the Consumer implements. The consumer routes group responses, disconnects and metadata to it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/client/assignors/assignor.h"
#include "engine/client/client_channel.h"
#include "engine/client/metadata.h"
#include "engine/base/topic_partition.h"
#include "engine/env/env.h"
#include "engine/plants.h"
#include "engine/timer_mux.h"
#include "engine/timer_tags.h"

namespace logsim::engine {

struct ConsumerConfig;

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

// What the group half needs of the consumer it serves.
class GroupHost {
 public:
  virtual ~GroupHost() = default;
  // The positions of the assigned partitions that have one (Kafka's allConsumed).
  virtual std::map<TopicPartition, Offset> consumed() const = 0;
  // Past the last record fetched, for each partition with records fetched and not handed out.
  virtual std::map<TopicPartition, Offset> fetched_ends() const = 0;
  // The group's assignment replaces the consumer's; new partitions wait for their committed
  // offsets (awaiting_committed, then committed()).
  virtual void assign_from_group(const std::vector<TopicPartition>& partitions) = 0;
  virtual std::vector<TopicPartition> awaiting_committed() const = 0;
  // The committed offset of a partition that awaited it (none: auto.offset.reset decides).
  virtual void committed(const TopicPartition& tp, std::optional<Offset> offset) = 0;
  virtual void refresh_metadata() = 0;
  virtual const MetadataCache& metadata() const = 0;
  // The consumer's channel: one sequence of correlation ids for all its requests.
  virtual ClientChannel& channel() = 0;
};

class ConsumerCoordinator {
 public:
  // `config` and `host` must outlive the coordinator; it arms its timers on `timers`.
  ConsumerCoordinator(Env& env, TimerMux& timers, const ConsumerConfig& config, GroupHost& host);
  ConsumerCoordinator(const ConsumerCoordinator&) = delete;
  ConsumerCoordinator& operator=(const ConsumerCoordinator&) = delete;

  // Joins group.id with these topics. The listener (may be null) must outlive the consumer.
  void subscribe(std::vector<std::string> topics, RebalanceListener* listener);
  bool subscribed() const { return group_.subscribed; }
  // See Consumer::commit.
  void commit(std::map<TopicPartition, Offset> offsets, bool sync, CommitCallback done);
  void close();
  std::int32_t generation() const { return group_.generation; }
  const std::string& member_id() const { return group_.member_id; }

  // The poll-time part: what the application thread does in Kafka (from Consumer::poll).
  void on_poll();
  // The topics whose metadata the group needs: its own, and (the leader) every member's.
  void add_metadata_topics(const std::function<void(const std::string&)>& add) const;
  // New metadata arrived: a leader waiting for it assigns.
  void on_metadata();
  // A group response (true), or not one of the group's messages (false).
  bool on_message(const Message& msg);
  void on_disconnect(NodeId peer);
  // The committed offsets of partitions newly assigned (after a new assignment).
  void fetch_committed();

 private:
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
    // The leader: the partition counts of the topics it last assigned (Kafka's
    // assignmentSnapshot). When metadata shows another count, it rejoins, so partitions added
    // to a topic are assigned without waiting for some other rebalance.
    std::map<std::string, std::int32_t> assigned_counts;
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
    TimerId offset_fetch_timer = 0;     // the backoff after UNSTABLE_OFFSET_COMMIT
  };

  // A group request failed because of the coordinator (or the way to it): find it again.
  static bool coordinator_error(ErrorCode e);
  void find_coordinator();
  void coordinator_lost();
  void start_prepare();
  void continue_prepare();
  void send_join();
  void send_sync(std::vector<SyncGroupAssignment> assignments);
  void try_assign();
  void apply_assignment();
  void send_heartbeat();
  void arm_heartbeat();
  void reset_generation(bool keep_member_id);
  void request_rejoin();
  void rejoin_after(ErrorCode error);
  void group_retry_later();
  void fail(ErrorCode error);
  std::uint64_t add_commit(std::map<TopicPartition, Offset> offsets, bool sync, bool automatic, CommitCallback done);
  void send_commit(std::uint64_t id);
  void finish_commit(std::uint64_t id, ErrorCode error);
  void on_poll_timeout();
  void on_find_coordinator(const FindCoordinatorResponse& resp);
  void on_join(const JoinGroupResponse& resp);
  void on_sync(const SyncGroupResponse& resp);
  void on_heartbeat(const HeartbeatResponse& resp);
  void on_offset_commit(const OffsetCommitResponse& resp);
  void on_offset_fetch(const OffsetFetchResponse& resp);
  void on_timer(TimerId id, ConsumerGroupTimer tag);
  void on_commit_timer(TimerId id);

  Env& env_;
  const ConsumerConfig& config_;
  GroupHost& host_;
  Timers<ConsumerGroupTimer> timers_;
  GroupState group_;
};

}  // namespace logsim::engine

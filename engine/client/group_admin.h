// The group admin client: what Kafka's Admin client offers for consumer groups (list,
// describe, delete) and what `kafka-consumer-groups.sh --reset-offsets` does with it.
//
// Every call is a short sequence of steps, each one request (an "exchange") with its own
// retries: FindCoordinator -> DescribeGroups -> OffsetFetch -> Metadata -> ListOffsets (one per
// partition and offset spec, in parallel) -> OffsetCommit. An exchange goes to a bootstrap
// broker (round robin), a named broker, the group's coordinator, or a partition's leader. An
// attempt that times out (request.timeout.ms), loses its connection, or is answered with a
// retriable error is retried after retry.backoff.ms:
//   - to the coordinator: NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, a timeout or a broken
//     connection forget the coordinator, so the next attempt first asks FindCoordinator again;
//     COORDINATOR_LOAD_IN_PROGRESS retries the same coordinator;
//   - to a leader (ListOffsets): NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE and other
//     retriable errors refresh the call's metadata before the next attempt;
//   - to a broker: any retriable error retries (the next bootstrap broker, for FindCoordinator
//     and Metadata).
// A call that has not ended default.api.timeout.ms after it began ends with REQUEST_TIMED_OUT,
// as Kafka's calls end with a TimeoutException. Like Kafka's, a retried DeleteGroups whose
// first attempt did delete the group ends with GROUP_ID_NOT_FOUND: the client cannot tell.
//
// Determinism: brokers are chosen round robin over the configured list; results are sorted
// (groups by id, rows by topic and partition); nothing reads a clock but env.now().
//
// Attempts go through the client's ClientChannel (client_channel.h). Correlation ids start at
// kFirstCorrelationId so that they do not collide with those of a producer or consumer on the
// same node: on_message returns true only for answers to this client's own requests. The host
// node forwards messages and disconnects. reset_offsets's steps are in group_admin_reset.cc,
// the other calls' in group_admin.cc. Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/client/client_channel.h"
#include "engine/client/metadata.h"
#include "engine/base/topic_partition.h"
#include "engine/env/env.h"
#include "engine/timer_mux.h"
#include "engine/timer_tags.h"

namespace logsim::engine {

struct GroupAdminConfig {
  std::vector<NodeId> bootstrap_servers;        // bootstrap.servers; must not be empty
  std::int32_t request_timeout_ms = 30000;      // request.timeout.ms: one attempt
  std::int32_t default_api_timeout_ms = 60000;  // default.api.timeout.ms: a whole call
  std::int32_t retry_backoff_ms = 100;          // retry.backoff.ms
};

// ---- list_groups (Admin.listConsumerGroups; `kafka-consumer-groups --list --state`)

struct GroupListing {
  std::string group_id;
  std::string protocol_type;  // "consumer" for consumer groups
  std::string state;          // "Empty", "Stable", ...
  bool operator==(const GroupListing&) const = default;
};

struct ListGroupsResult {
  ErrorCode error = ErrorCode::NONE;
  std::string message;               // Kafka-style text when error != NONE
  std::vector<GroupListing> groups;  // sorted by group id, each group once
};

// ---- describe_group (Admin.describeConsumerGroups + listConsumerGroupOffsets + listOffsets;
// `kafka-consumer-groups --describe`)

struct GroupMemberDescription {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string assignment;  // the member's assignment bytes (engine/client/consumer_protocol.h)
};

// One line of `kafka-consumer-groups --describe`.
struct GroupOffsetRow {
  std::string topic;
  PartitionId partition;
  Offset committed{-1};    // CURRENT-OFFSET; -1: none committed
  Offset log_end{-1};      // LOG-END-OFFSET (the high watermark); -1: unknown
  std::int64_t lag = -1;   // LAG = log_end - committed; -1 when either is unknown
  std::string member_id;   // CONSUMER-ID of the member assigned it; "" (Kafka prints "-") if none
};

struct DescribeGroupResult {
  ErrorCode error = ErrorCode::NONE;
  std::string message;
  std::string group_id;
  std::string state;  // "Dead" for a group that does not exist, as Kafka answers
  std::string protocol_type;
  std::string protocol_name;  // the assignor, for a Stable group
  std::int32_t generation_id = -1;
  std::vector<GroupMemberDescription> members;
  // Every partition with a committed offset or in a member's (decodable) assignment, sorted.
  std::vector<GroupOffsetRow> rows;
};

// ---- delete_group (Admin.deleteConsumerGroups)

struct DeleteGroupResult {
  ErrorCode error = ErrorCode::NONE;  // the coordinator's: NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND, ...
  std::string message;
};

// ---- delete_offsets (Admin.deleteConsumerGroupOffsets; `kafka-consumer-groups --delete-offsets`)
struct DeleteOffsetsResult {
  ErrorCode error = ErrorCode::NONE;  // the request's (GROUP_ID_NOT_FOUND, ...), else the first partition's
  std::string message;
  std::vector<std::pair<TopicPartition, ErrorCode>> partitions;  // GROUP_SUBSCRIBED_TO_TOPIC while active
};

// ---- remove_members (Admin.removeMembersFromConsumerGroup, KIP-345): one LeaveGroup (v3+)
// naming static members by group.instance.id, as an operator removes members that will not
// come back without waiting for their session timeouts.
struct RemoveMembersResult {
  // The request's (COORDINATOR_NOT_AVAILABLE, ...), else the first member's: UNKNOWN_MEMBER_ID
  // for an instance id no member holds.
  ErrorCode error = ErrorCode::NONE;
  std::string message;
  std::vector<std::pair<std::string, ErrorCode>> members;  // by group.instance.id, in the call's order
};

// ---- reset_offsets (`kafka-consumer-groups --reset-offsets`)

// The modes of --reset-offsets, by Kafka's option names. E = the log start offset (ListOffsets
// earliest), L = the high watermark (ListOffsets latest), clamp(x) = L if x > L, else E if
// x < E, else x (Kafka's checkOffsetsRange).
enum class ResetMode : std::uint8_t {
  kToEarliest,  // --to-earliest: E
  kToLatest,    // --to-latest: L
  kToOffset,    // --to-offset N: clamp(N)
  kShiftBy,     // --shift-by n: clamp(committed + n). Without a committed offset Kafka's tool
                // refuses the whole reset; we shift from E instead (where a consumer with
                // auto.offset.reset=earliest would start): clamp(E + n).
  kToDatetime,  // --to-datetime T (ms since the epoch): the first offset whose timestamp >= T,
                // else L (Kafka's fallback for a partition with no such record). A negative T is
                // taken as 0 (-1 and -2 mean latest and earliest to ListOffsets).
  kByDuration,  // --by-duration D (ms): --to-datetime with T = now - D, now = env.now() in ms
  kToCurrent,   // --to-current: the committed offset; L for a partition without one (as
                // Kafka's tool does: it resets those to the log end offset)
};

std::string_view reset_mode_name(ResetMode mode);  // "to-earliest", "shift-by", ...

struct ResetTopic {
  std::string topic;
  std::vector<PartitionId> partitions;  // empty: every partition of the topic (from Metadata)
};

struct ResetOffsetsRequest {
  std::string group_id;
  // --topic t / --topic t:0,1. Empty: --all-topics, i.e. every partition the group has a
  // committed offset for.
  std::vector<ResetTopic> topics;
  ResetMode mode = ResetMode::kToEarliest;
  // The mode's argument: N for to-offset, n for shift-by, T (ms) for to-datetime, D (ms) for
  // by-duration; unused by the others.
  std::int64_t value = 0;
  bool execute = false;  // --execute; false: --dry-run (the default), nothing is committed
};

struct ResetOffsetsRow {
  std::string topic;
  PartitionId partition;
  Offset previous{-1};    // the committed offset before the reset; -1: none
  Offset new_offset{-1};  // NEW-OFFSET
  ErrorCode error = ErrorCode::NONE;  // the OffsetCommit's answer for this partition (execute)
};

struct ResetOffsetsResult {
  // NON_EMPTY_GROUP when the group is active (nothing planned, nothing committed);
  // UNKNOWN_TOPIC_OR_PARTITION for partitions that do not exist; with execute, the first
  // partition's commit error (e.g. UNKNOWN_MEMBER_ID when the group became active meanwhile).
  ErrorCode error = ErrorCode::NONE;
  std::string message;
  std::vector<ResetOffsetsRow> rows;  // the plan, sorted by topic and partition
  bool executed = false;  // the plan was committed: execute, and every partition accepted
};

using ListGroupsCallback = std::function<void(const ListGroupsResult&)>;
using DescribeGroupCallback = std::function<void(const DescribeGroupResult&)>;
using DeleteGroupCallback = std::function<void(const DeleteGroupResult&)>;
using DeleteOffsetsCallback = std::function<void(const DeleteOffsetsResult&)>;
using ResetOffsetsCallback = std::function<void(const ResetOffsetsResult&)>;
using RemoveMembersCallback = std::function<void(const RemoveMembersResult&)>;

class GroupAdmin {
 public:
  // Arms its timers on the node's `timers`, which hands them back.
  GroupAdmin(Env& env, TimerMux& timers, GroupAdminConfig config);
  ~GroupAdmin();
  GroupAdmin(const GroupAdmin&) = delete;
  GroupAdmin& operator=(const GroupAdmin&) = delete;

  // Metadata for the live brokers, then ListGroups to each (each lists the groups it
  // coordinates); merged, one listing per group, sorted by group id.
  void list_groups(ListGroupsCallback done);
  // DescribeGroups, the committed offsets (OffsetFetch), and the log end offset of each
  // partition (ListOffsets latest to its leader), giving each row's lag.
  void describe_group(const std::string& group_id, DescribeGroupCallback done);
  // DeleteGroups; the coordinator's answer.
  void delete_group(const std::string& group_id, DeleteGroupCallback done);
  // OffsetDelete: forgets the group's committed offsets of these partitions.
  void delete_offsets(const std::string& group_id, std::vector<TopicPartition> partitions, DeleteOffsetsCallback done);
  // LeaveGroup for these group.instance.ids (no member ids): the coordinator removes each
  // static member now and rebalances the group.
  void remove_members(const std::string& group_id, std::vector<std::string> instance_ids, RemoveMembersCallback done);
  // Plans new committed offsets by `request.mode` and, with execute, commits them in one
  // OffsetCommit with generation -1 and no member id. Refused unless the group is Empty or Dead.
  void reset_offsets(ResetOffsetsRequest request, ResetOffsetsCallback done);

  // Calls not yet ended.
  std::size_t in_flight() const { return calls_.size(); }

  // True when the message answered an attempt of this client's still in flight.
  bool on_message(NodeId from, const Message& msg);
  void on_disconnect(NodeId peer);

  static constexpr CorrelationId kFirstCorrelationId = 0x47410000;

 private:
  using CallId = std::uint64_t;
  using ExchangeId = std::uint64_t;
  using FailFn = std::function<void(ErrorCode, const std::string&)>;
  using AnswerFn = std::function<void(const Message&)>;

  // Where an exchange's attempts go.
  enum class Route : std::uint8_t { kAnyBroker, kBroker, kCoordinator, kLeader };
  struct Destination {
    Route route = Route::kAnyBroker;
    NodeId broker{-1};         // kBroker
    TopicPartition partition;  // kLeader
    static Destination any_broker() { return {Route::kAnyBroker, NodeId(-1), {}}; }
    static Destination broker_node(NodeId id) { return {Route::kBroker, id, {}}; }
    static Destination coordinator() { return {Route::kCoordinator, NodeId(-1), {}}; }
    static Destination leader(TopicPartition tp) { return {Route::kLeader, NodeId(-1), std::move(tp)}; }
  };

  // What a call's exchanges may wait for (its coordinator, its metadata): one lookup in flight
  // at a time, which every exchange parked meanwhile waits for.
  struct Lookup {
    std::optional<ExchangeId> in_flight;
    std::vector<ExchangeId> parked;
    // The lookup answered: the exchanges it held back.
    std::vector<ExchangeId> answered() {
      in_flight.reset();
      return std::exchange(parked, {});
    }
  };

  // One public call: its deadline and what its exchanges share (coordinator, metadata).
  struct Call {
    std::string name;      // Kafka's call name, for the timeout message
    std::string group_id;  // "" for list_groups
    FailFn fail;           // ends the call with an error, through the caller's callback
    TimerId deadline_timer = 0;
    std::int32_t attempts = 0;
    std::string last_api;                    // of the latest attempt, for the timeout message
    ErrorCode last_error = ErrorCode::NONE;  // of the latest failed attempt
    std::optional<NodeId> coordinator;
    Lookup coordinator_lookup;  // FindCoordinator
    MetadataCache metadata;
    std::vector<std::string> metadata_topics;  // what a metadata refresh asks for
    Lookup metadata_refresh;
    std::set<ExchangeId> exchanges;  // not yet answered
  };

  // One request of a call, with its retries.
  struct Exchange {
    CallId call = 0;
    Message request;
    Destination to;
    std::size_t answer_index = 0;   // the Message alternative that answers it
    AnswerFn on_answer;             // the final (non-retriable) answer
    RequestSlot attempt;            // the attempt in flight, or the backoff before the next
    bool refresh_leader = false;  // kLeader: refresh metadata before the next attempt
  };

  struct ListOp;
  struct DescribeOp;
  struct ResetOp;

  // Calls and exchanges.
  CallId begin_call(std::string name, std::string group_id, FailFn fail);
  void end_call(CallId id);
  void fail_call(CallId id, ErrorCode error, const std::string& message);
  // A new exchange of `call`, answered by a `Response`; its first attempt goes out at once (or
  // once its route is known).
  template <typename Response>
  ExchangeId request(CallId call, Destination to, Message message, std::function<void(const Response&)> on_answer) {
    return add_exchange(call, std::move(to), std::move(message), Message(Response{}).index(),
                        [fn = std::move(on_answer)](const Message& m) { fn(std::get<Response>(m)); });
  }
  ExchangeId add_exchange(CallId call, Destination to, Message message, std::size_t answer_index, AnswerFn on_answer);
  void dispatch(ExchangeId x);
  void transmit(ExchangeId x, NodeId to);
  void attempt_failed(ExchangeId x, ErrorCode error);
  void retry_later(ExchangeId x, ErrorCode error);
  void drop_exchange(ExchangeId x);
  void await_coordinator(ExchangeId x);
  void await_metadata(ExchangeId x);
  void park(ExchangeId x, Lookup& lookup, const std::function<ExchangeId()>& start);
  bool retriable_for(Route route, ErrorCode error) const;
  void on_timer(TimerId id, GroupAdminTimer tag);
  void on_deadline(TimerId id);

  // Steps that more than one call takes. Each ends the call on the coordinator's error.
  template <typename Response>
  void coordinator_step(CallId call, const std::string& group_id, Message message, std::function<void(const Response&)> then);
  using Committed = std::map<TopicPartition, Offset>;
  void describe_step(CallId call, const std::string& group_id, std::function<void(const DescribeGroupsResponse&)> then);
  // The group's committed offsets (OffsetFetch of every partition).
  void committed_step(CallId call, const std::string& group_id, std::function<void(Committed)> then);

  // list_groups
  void list_each_broker(const std::shared_ptr<ListOp>& op, std::vector<NodeId> brokers);
  // describe_group
  void describe_fetch_offsets(const std::shared_ptr<DescribeOp>& op);
  void describe_log_ends(const std::shared_ptr<DescribeOp>& op);
  void describe_finish(const std::shared_ptr<DescribeOp>& op);
  // reset_offsets
  void reset_check_state(const std::shared_ptr<ResetOp>& op);
  void reset_fetch_offsets(const std::shared_ptr<ResetOp>& op);
  void reset_resolve_partitions(const std::shared_ptr<ResetOp>& op);
  void reset_list_offsets(const std::shared_ptr<ResetOp>& op);
  void reset_plan(const std::shared_ptr<ResetOp>& op);
  void reset_commit(const std::shared_ptr<ResetOp>& op);

  Env& env_;
  Timers<GroupAdminTimer> timers_;
  GroupAdminConfig config_;
  ClientChannel channel_;
  RequestTable<ExchangeId, GroupAdminTimer> requests_;  // request timeouts and backoffs
  CallId next_call_ = 0;
  ExchangeId next_exchange_ = 0;
  std::map<CallId, Call> calls_;
  std::map<ExchangeId, Exchange> exchanges_;
  std::map<TimerId, CallId> deadline_timers_;
};

}  // namespace logsim::engine

// Tests of the consumer's group membership against a scripted coordinator: FindCoordinator,
// MEMBER_ID_REQUIRED, the leader's assignment, SyncGroup, the committed offsets of new
// partitions, heartbeats, eager and cooperative rebalances, auto-commit timing, commit fencing
// and the poll timeout. The Env is the clients' fake (client_fake_env.h).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/client/consumer.h"
#include "engine/client/consumer_protocol.h"
#include "engine/tests/client/client_fake_env.h"

namespace logsim::engine {
namespace {

const NodeId kB1(1);
const NodeId kCoord(2);
const std::string kTopic = "orders";
TopicPartition tp(std::int32_t p) { return {kTopic, PartitionId(p)}; }

using clienttest::FakeEnv;
using clienttest::metadata_response;
using clienttest::Sent;

// Records what the consumer tells its application.
struct Recorder final : RebalanceListener {
  std::vector<std::string> calls;  // "revoked:0,1", "assigned:2", "lost:0", "commit-requested", "commit:NONE"
  static std::string list(const std::vector<TopicPartition>& ps) {
    std::string s;
    for (const auto& p : ps) s += (s.empty() ? "" : ",") + std::to_string(p.partition.value());
    return s;
  }
  void on_partitions_revoked(const std::vector<TopicPartition>& ps) override { calls.push_back("revoked:" + list(ps)); }
  void on_partitions_assigned(const std::vector<TopicPartition>& ps) override { calls.push_back("assigned:" + list(ps)); }
  void on_partitions_lost(const std::vector<TopicPartition>& ps) override { calls.push_back("lost:" + list(ps)); }
  void on_commit(const CommitEvent& e) override {
    if (e.phase == CommitEvent::Phase::kRequested) {
      calls.push_back(std::string(e.automatic ? "auto-" : "") + "commit-requested");
    } else {
      calls.push_back("commit:" + std::string(error_name(e.error)));
    }
  }
};

class ConsumerGroupTest : public ::testing::Test {
 protected:
  static ConsumerConfig config() {
    ConsumerConfig c;
    c.bootstrap_servers = {kB1};
    c.auto_offset_reset = OffsetReset::kEarliest;
    c.group_id = "g";
    c.client_id = "c";
    c.session_timeout_ms = 10000;
    c.heartbeat_interval_ms = 3000;
    c.max_poll_interval_ms = 60000;
    c.auto_commit_interval_ms = 5000;
    return c;
  }

  void make(ConsumerConfig c = config()) {
    consumer.emplace(env, mux, std::move(c));
    consumer->subscribe({kTopic}, &rec);
  }

  template <typename T>
  std::vector<T> sent_of() const {
    std::vector<T> out;
    for (const Sent& s : env.sent) {
      if (const auto* m = std::get_if<T>(&s.msg)) out.push_back(*m);
    }
    return out;
  }
  template <typename T>
  T last() const {
    auto all = sent_of<T>();
    EXPECT_FALSE(all.empty());
    return all.empty() ? T{} : all.back();
  }

  void advance_to(Nanos t) {
    while (auto timer = env.pop_due(t)) {
      env.set_now(timer->deadline);
      mux.on_timer(timer->id, timer->tag);
    }
    env.set_now(t);
  }

  void answer_metadata(std::int32_t partitions) {
    consumer->on_message(kB1, metadata_response(last<MetadataRequest>().correlation_id, kTopic,
                                                std::vector<NodeId>(static_cast<std::size_t>(partitions), kB1),
                                                {kB1, kCoord}));
  }

  void answer_find() {
    consumer->on_message(kB1, FindCoordinatorResponse{last<FindCoordinatorRequest>().correlation_id, ErrorCode::NONE, kCoord});
  }

  // Joins as the only member and leader, assigned `partitions` of a topic of `total`.
  void join_alone(std::int32_t total, std::int32_t generation = 1) {
    answer_metadata(total);
    answer_find();
    consumer->poll();
    const JoinGroupRequest join = last<JoinGroupRequest>();
    JoinGroupResponse resp{join.correlation_id, ErrorCode::NONE, generation, "range", "c-1", "c-1", {}};
    resp.members.push_back({"c-1", std::nullopt, join.protocols.front().metadata});
    consumer->on_message(kCoord, resp);
    const SyncGroupRequest sync = last<SyncGroupRequest>();
    std::string mine;
    for (const auto& a : sync.assignments) {
      if (a.member_id == "c-1") mine = a.assignment;
    }
    consumer->on_message(kCoord, SyncGroupResponse{sync.correlation_id, ErrorCode::NONE, "range", mine});
    consumer->poll();  // applies the assignment
  }

  void join_with_manual_commits();
  void answer_offset_fetch(std::vector<std::pair<std::int32_t, std::int64_t>> committed) {
    OffsetFetchResponse resp{last<OffsetFetchRequest>().correlation_id, ErrorCode::NONE, {}};
    for (auto [p, o] : committed) resp.partitions.push_back({kTopic, PartitionId(p), Offset(o), {}, ErrorCode::NONE});
    consumer->on_message(kCoord, resp);
  }

  FakeEnv env;
  TimerMux mux{env};
  Recorder rec;
  std::optional<Consumer> consumer;
};

TEST(ConsumerProtocol, SubscriptionAndAssignmentRoundTrip) {
  ConsumerSubscription s{{"a", "b;7|x"}, {{"a", PartitionId(3)}, {"b;7|x", PartitionId(0)}}, 4};
  EXPECT_EQ(decode_subscription(encode_subscription(s)), s);
  ConsumerAssignment a{{{"t", PartitionId(1)}, {"t", PartitionId(2)}}};
  EXPECT_EQ(decode_assignment(encode_assignment(a)), a);
  EXPECT_FALSE(decode_subscription("").has_value());
  EXPECT_FALSE(decode_subscription("1x;").has_value());
  EXPECT_FALSE(decode_assignment(encode_assignment(a) + "junk").has_value());
  EXPECT_FALSE(decode_assignment("19999999999;").has_value());
}

TEST_F(ConsumerGroupTest, NewMemberRejoinsWithTheMemberIdItWasGiven) {
  make();
  ASSERT_EQ(sent_of<FindCoordinatorRequest>().size(), 1u);
  EXPECT_EQ(last<FindCoordinatorRequest>().key, "g");
  answer_metadata(2);
  answer_find();
  EXPECT_TRUE(sent_of<JoinGroupRequest>().empty()) << "joining happens inside poll()";
  consumer->poll();
  const JoinGroupRequest first = last<JoinGroupRequest>();
  EXPECT_EQ(first.member_id, "");
  EXPECT_EQ(first.rebalance_timeout_ms, 60000);  // max.poll.interval.ms
  ASSERT_EQ(first.protocols.size(), 2u);         // Kafka's default: range, cooperative-sticky
  EXPECT_EQ(first.protocols[0].name, "range");
  EXPECT_EQ(first.protocols[1].name, "cooperative-sticky");
  auto sub = decode_subscription(first.protocols[0].metadata);
  ASSERT_TRUE(sub.has_value());
  EXPECT_EQ(sub->topics, std::vector<std::string>{kTopic});
  consumer->on_message(kCoord, JoinGroupResponse{first.correlation_id, ErrorCode::MEMBER_ID_REQUIRED, -1, "", "", "c-77", {}});
  ASSERT_EQ(sent_of<JoinGroupRequest>().size(), 2u);
  EXPECT_EQ(last<JoinGroupRequest>().member_id, "c-77");
}

TEST_F(ConsumerGroupTest, LeaderAssignsByRangeAndFollowersSyncEmpty) {
  make();
  answer_metadata(4);
  answer_find();
  consumer->poll();
  const JoinGroupRequest join = last<JoinGroupRequest>();
  const std::string other = encode_subscription({{kTopic}, {}, -1});
  JoinGroupResponse resp{join.correlation_id, ErrorCode::NONE, 3, "range", "c-1", "c-1", {}};
  resp.members = {{"c-1", std::nullopt, join.protocols[0].metadata}, {"c-2", std::nullopt, other}};
  consumer->on_message(kCoord, resp);
  const SyncGroupRequest sync = last<SyncGroupRequest>();
  EXPECT_EQ(sync.generation_id, 3);
  ASSERT_EQ(sync.assignments.size(), 2u);
  EXPECT_EQ(sync.assignments[0].member_id, "c-1");
  EXPECT_EQ(decode_assignment(sync.assignments[0].assignment)->partitions, (std::vector<TopicPartition>{tp(0), tp(1)}));
  EXPECT_EQ(decode_assignment(sync.assignments[1].assignment)->partitions, (std::vector<TopicPartition>{tp(2), tp(3)}));

  // A follower sends SyncGroup with no assignments.
  FakeEnv env2;
  TimerMux mux2(env2);
  Consumer follower(env2, mux2, config());
  follower.subscribe({kTopic}, nullptr);
  follower.on_message(kB1, FindCoordinatorResponse{std::get<FindCoordinatorRequest>(env2.sent.back().msg).correlation_id,
                                                   ErrorCode::NONE, kCoord});
  follower.poll();
  CorrelationId join2 = 0;
  for (const auto& s : env2.sent) {
    if (const auto* j = std::get_if<JoinGroupRequest>(&s.msg)) join2 = j->correlation_id;
  }
  ASSERT_NE(join2, 0);
  follower.on_message(kCoord, JoinGroupResponse{join2, ErrorCode::NONE, 3, "range", "c-1", "c-2", {}});
  const auto* fsync = std::get_if<SyncGroupRequest>(&env2.sent.back().msg);
  ASSERT_NE(fsync, nullptr);
  EXPECT_TRUE(fsync->assignments.empty());
  EXPECT_EQ(fsync->member_id, "c-2");
}

TEST_F(ConsumerGroupTest, NewPartitionsStartFromTheCommittedOffsetElseTheResetPolicy) {
  make();
  join_alone(2);
  EXPECT_EQ(rec.calls, std::vector<std::string>{"assigned:0,1"});
  const OffsetFetchRequest fetch = last<OffsetFetchRequest>();
  ASSERT_TRUE(fetch.partitions.has_value());
  EXPECT_EQ(fetch.partitions->size(), 2u);
  EXPECT_TRUE(sent_of<FetchRequest>().empty()) << "no fetch before the committed offsets are known";
  answer_offset_fetch({{0, 5}, {1, -1}});
  const auto fetches = sent_of<FetchRequest>();
  ASSERT_EQ(fetches.size(), 1u);
  EXPECT_EQ(fetches[0].partition, PartitionId(0));
  EXPECT_EQ(fetches[0].fetch_offset, Offset(5));
  const auto lists = sent_of<ListOffsetsRequest>();
  ASSERT_EQ(lists.size(), 1u);
  EXPECT_EQ(lists[0].partition, PartitionId(1));
  EXPECT_EQ(lists[0].timestamp_ms, kListOffsetsEarliest);
}

// KIP-447: a read_committed consumer asks for stable offsets; a partition a transaction still
// has offsets pending on is answered UNSTABLE_OFFSET_COMMIT, and the consumer takes none of the
// answer (no reset to auto.offset.reset) but asks again after retry.backoff.ms.
TEST_F(ConsumerGroupTest, AReadCommittedConsumerWaitsForStableOffsets) {
  ConsumerConfig c = config();
  c.isolation_level = IsolationLevel::kReadCommitted;
  c.retry_backoff_ms = 100;
  make(c);
  join_alone(2);
  const OffsetFetchRequest first = last<OffsetFetchRequest>();
  EXPECT_TRUE(first.require_stable);
  OffsetFetchResponse unstable{first.correlation_id, ErrorCode::NONE, {}};
  unstable.partitions.push_back({kTopic, PartitionId(0), Offset(-1), {}, ErrorCode::UNSTABLE_OFFSET_COMMIT});
  unstable.partitions.push_back({kTopic, PartitionId(1), Offset(3), {}, ErrorCode::NONE});
  consumer->on_message(kCoord, unstable);
  consumer->poll();
  EXPECT_TRUE(sent_of<FetchRequest>().empty()) << "no partition is fetched from an unstable answer";
  EXPECT_TRUE(sent_of<ListOffsetsRequest>().empty()) << "an unstable offset is not a missing one";
  EXPECT_EQ(sent_of<OffsetFetchRequest>().size(), 1u);
  advance_to(env.now() + millis(99));
  EXPECT_EQ(sent_of<OffsetFetchRequest>().size(), 1u) << "not before retry.backoff.ms";
  advance_to(env.now() + millis(1));
  ASSERT_EQ(sent_of<OffsetFetchRequest>().size(), 2u);
  const OffsetFetchRequest again = last<OffsetFetchRequest>();
  EXPECT_TRUE(again.require_stable);
  ASSERT_TRUE(again.partitions.has_value());
  EXPECT_EQ(again.partitions->size(), 2u);
  answer_offset_fetch({{0, 5}, {1, 3}});
  const auto fetches = sent_of<FetchRequest>();
  ASSERT_EQ(fetches.size(), 2u);
  EXPECT_EQ(fetches[0].fetch_offset, Offset(5));
  EXPECT_EQ(fetches[1].fetch_offset, Offset(3));
}

TEST_F(ConsumerGroupTest, AReadUncommittedConsumerDoesNotAskForStableOffsets) {
  make();
  join_alone(1);
  EXPECT_FALSE(last<OffsetFetchRequest>().require_stable);
}

TEST_F(ConsumerGroupTest, HeartbeatsCarryTheGenerationAndARebalanceRevokesEverythingUnderEager) {
  make();
  join_alone(2, 4);
  answer_offset_fetch({{0, 10}, {1, 20}});
  advance_to(millis(3000));
  const HeartbeatRequest hb = last<HeartbeatRequest>();
  EXPECT_EQ(hb.generation_id, 4);
  EXPECT_EQ(hb.member_id, "c-1");
  consumer->on_message(kCoord, HeartbeatResponse{hb.correlation_id, ErrorCode::REBALANCE_IN_PROGRESS});
  const std::size_t joins = sent_of<JoinGroupRequest>().size();
  consumer->poll();
  // First the auto-commit of the positions (a commitSync), then revoke, then JoinGroup.
  const OffsetCommitRequest commit = last<OffsetCommitRequest>();
  EXPECT_EQ(commit.generation_id, 4);
  ASSERT_EQ(commit.partitions.size(), 2u);
  EXPECT_EQ(commit.partitions[0].committed_offset, Offset(10));
  EXPECT_EQ(commit.partitions[1].committed_offset, Offset(20));
  EXPECT_EQ(sent_of<JoinGroupRequest>().size(), joins) << "JoinGroup waits for the auto-commit";
  OffsetCommitResponse ok{commit.correlation_id, {{kTopic, PartitionId(0), ErrorCode::NONE}, {kTopic, PartitionId(1), ErrorCode::NONE}}};
  consumer->on_message(kCoord, ok);
  // The revocation runs on the application's thread, inside the next poll(): never while the
  // application is still processing what the last poll returned.
  EXPECT_EQ(sent_of<JoinGroupRequest>().size(), joins) << "the revoke waits for the next poll";
  EXPECT_EQ(rec.calls, (std::vector<std::string>{"assigned:0,1", "auto-commit-requested", "commit:NONE"}));
  EXPECT_FALSE(consumer->assignment().empty());
  consumer->poll();
  EXPECT_EQ(sent_of<JoinGroupRequest>().size(), joins + 1);
  EXPECT_EQ(last<JoinGroupRequest>().member_id, "c-1");
  EXPECT_EQ(rec.calls, (std::vector<std::string>{"assigned:0,1", "auto-commit-requested", "commit:NONE", "revoked:0,1"}));
  EXPECT_TRUE(consumer->assignment().empty());
}

TEST_F(ConsumerGroupTest, CooperativeRevokesOnlyWhatMovedAndRejoins) {
  ConsumerConfig c = config();
  c.partition_assignment_strategy = {"cooperative-sticky"};
  c.enable_auto_commit = false;
  make(c);
  answer_metadata(2);
  answer_find();
  consumer->poll();
  JoinGroupRequest join = last<JoinGroupRequest>();
  EXPECT_EQ(join.protocols.size(), 1u);
  consumer->on_message(kCoord, JoinGroupResponse{join.correlation_id, ErrorCode::NONE, 1, "cooperative-sticky", "other", "c-1", {}});
  SyncGroupRequest sync = last<SyncGroupRequest>();
  consumer->on_message(kCoord, SyncGroupResponse{sync.correlation_id, ErrorCode::NONE, "cooperative-sticky",
                                                 encode_assignment({{tp(0), tp(1)}})});
  consumer->poll();
  // A rebalance: cooperative keeps its partitions while rejoining, and reports them owned.
  advance_to(millis(3000));
  consumer->on_message(kCoord, HeartbeatResponse{last<HeartbeatRequest>().correlation_id, ErrorCode::REBALANCE_IN_PROGRESS});
  consumer->poll();
  join = last<JoinGroupRequest>();
  EXPECT_EQ(consumer->assignment().size(), 2u);
  auto sub = decode_subscription(join.protocols[0].metadata);
  ASSERT_TRUE(sub.has_value());
  EXPECT_EQ(sub->owned_partitions, (std::vector<TopicPartition>{tp(0), tp(1)}));
  EXPECT_EQ(sub->generation_id, 1);
  consumer->on_message(kCoord, JoinGroupResponse{join.correlation_id, ErrorCode::NONE, 2, "cooperative-sticky", "other", "c-1", {}});
  sync = last<SyncGroupRequest>();
  consumer->on_message(kCoord, SyncGroupResponse{sync.correlation_id, ErrorCode::NONE, "cooperative-sticky",
                                                 encode_assignment({{tp(0)}})});
  const std::size_t joins = sent_of<JoinGroupRequest>().size();
  consumer->poll();
  EXPECT_EQ(rec.calls, (std::vector<std::string>{"assigned:0,1", "revoked:1", "assigned:"}));
  EXPECT_EQ(consumer->assignment(), std::vector<TopicPartition>{tp(0)});
  EXPECT_EQ(sent_of<JoinGroupRequest>().size(), joins + 1) << "a revocation triggers the follow-up rebalance";
}

// PLANTED BUG cooperative-double-ownership (KAFKA-12984): the leader's cooperative-sticky
// assignment gives c-2 a partition c-1 still owns, instead of withholding it for a rebalance.
TEST_F(ConsumerGroupTest, CooperativeDoubleOwnershipPlantMovesAPartitionItsOwnerStillHolds) {
  for (const bool planted : {false, true}) {
    SCOPED_TRACE(planted ? "planted" : "correct");
    env.sent.clear();
    ConsumerConfig c = config();
    c.partition_assignment_strategy = {"cooperative-sticky"};
    if (planted) c.plants.add(Plant::kCooperativeDoubleOwnership);
    make(c);
    answer_metadata(2);
    answer_find();
    consumer->poll();
    const JoinGroupRequest join = last<JoinGroupRequest>();
    JoinGroupResponse resp{join.correlation_id, ErrorCode::NONE, 2, "cooperative-sticky", "c-1", "c-1", {}};
    resp.members = {{"c-1", std::nullopt, encode_subscription({{kTopic}, {tp(0), tp(1)}, 1})},
                    {"c-2", std::nullopt, encode_subscription({{kTopic}, {}, -1})}};
    consumer->on_message(kCoord, resp);
    const SyncGroupRequest sync = last<SyncGroupRequest>();
    ASSERT_EQ(sync.assignments.size(), 2u);
    ASSERT_EQ(sync.assignments[1].member_id, "c-2");
    EXPECT_EQ(decode_assignment(sync.assignments[0].assignment)->partitions, std::vector<TopicPartition>{tp(0)});
    EXPECT_EQ(decode_assignment(sync.assignments[1].assignment)->partitions,
              planted ? std::vector<TopicPartition>{tp(1)} : std::vector<TopicPartition>{})
        << "c-1 still owns partition 1 until it revokes it";
  }
}

TEST_F(ConsumerGroupTest, AutoCommitCommitsWhatEarlierPollsReturned) {
  make();
  join_alone(1);
  answer_offset_fetch({{0, 0}});
  FetchRequest f = last<FetchRequest>();
  FetchResponse resp{f.correlation_id, kTopic, PartitionId(0), ErrorCode::NONE, Offset(3), Offset(0)};
  std::vector<StoredRecord> records;
  for (std::int64_t o = 0; o < 3; ++o) {
    StoredRecord r;
    r.offset = Offset(o);
    records.push_back(r);
  }
  resp.records = clienttest::batches_of(records);
  consumer->on_message(kB1, resp);
  advance_to(millis(1000));
  EXPECT_EQ(consumer->poll().size(), 3u);
  EXPECT_TRUE(sent_of<OffsetCommitRequest>().empty()) << "before auto.commit.interval.ms nothing is committed";
  advance_to(millis(5000));
  consumer->poll();
  const OffsetCommitRequest commit = last<OffsetCommitRequest>();
  ASSERT_EQ(commit.partitions.size(), 1u);
  EXPECT_EQ(commit.partitions[0].committed_offset, Offset(3));  // the position after the earlier poll
  EXPECT_EQ(commit.member_id, "c-1");
}

TEST_F(ConsumerGroupTest, AFencedCommitFailsAndTheMemberRejoinsWithItsPartitionsLost) {
  ConsumerConfig c = config();
  c.enable_auto_commit = false;
  make(c);
  join_alone(1, 2);
  answer_offset_fetch({{0, 0}});
  std::optional<ErrorCode> outcome;
  consumer->commit({{tp(0), Offset(1)}}, false, [&](ErrorCode e) { outcome = e; });
  const OffsetCommitRequest commit = last<OffsetCommitRequest>();
  EXPECT_EQ(commit.generation_id, 2);
  consumer->on_message(kCoord, OffsetCommitResponse{commit.correlation_id, {{kTopic, PartitionId(0), ErrorCode::ILLEGAL_GENERATION}}});
  ASSERT_TRUE(outcome.has_value());
  EXPECT_EQ(*outcome, ErrorCode::ILLEGAL_GENERATION);
  EXPECT_EQ(consumer->generation(), -1);
  // A commit now fails without being sent: the member has no generation.
  const std::size_t commits = sent_of<OffsetCommitRequest>().size();
  consumer->commit({{tp(0), Offset(1)}}, false, [&](ErrorCode e) { outcome = e; });
  EXPECT_EQ(sent_of<OffsetCommitRequest>().size(), commits);
  consumer->poll();
  EXPECT_EQ(rec.calls.back(), "lost:0");
  EXPECT_EQ(last<JoinGroupRequest>().member_id, "c-1") << "ILLEGAL_GENERATION keeps the member id";
}

TEST_F(ConsumerGroupTest, NoPollForMaxPollIntervalLeavesTheGroup) {
  make();
  join_alone(1);
  answer_offset_fetch({{0, 0}});
  // Heartbeats go on while the application does not poll; then the poll timeout ends it.
  for (Nanos t = millis(3000); t < millis(60000); t += millis(3000)) {
    advance_to(t);
    consumer->on_message(kCoord, HeartbeatResponse{last<HeartbeatRequest>().correlation_id, ErrorCode::NONE});
  }
  EXPECT_TRUE(sent_of<LeaveGroupRequest>().empty());
  advance_to(millis(60001));
  const LeaveGroupRequest leave = last<LeaveGroupRequest>();
  ASSERT_EQ(leave.members.size(), 1u);
  EXPECT_EQ(leave.members[0].member_id, "c-1");
  EXPECT_EQ(leave.members[0].reason, "consumer poll timeout has expired");
  const std::size_t heartbeats = sent_of<HeartbeatRequest>().size();
  advance_to(millis(70000));
  EXPECT_EQ(sent_of<HeartbeatRequest>().size(), heartbeats) << "no heartbeats after leaving";
  consumer->poll();
  EXPECT_EQ(rec.calls.back(), "lost:0");
  EXPECT_EQ(last<JoinGroupRequest>().member_id, "") << "a member that left joins as a new one";
}

TEST_F(ConsumerGroupTest, CloseCommitsRevokesAndLeaves) {
  make();
  join_alone(1);
  answer_offset_fetch({{0, 7}});
  consumer->close();
  const OffsetCommitRequest commit = last<OffsetCommitRequest>();
  EXPECT_EQ(commit.partitions[0].committed_offset, Offset(7));
  EXPECT_EQ(last<LeaveGroupRequest>().members[0].member_id, "c-1");
  EXPECT_EQ(rec.calls.back(), "revoked:0");
  // The leave goes after the commit, on the same connection.
  std::size_t commit_at = 0, leave_at = 0;
  for (std::size_t i = 0; i < env.sent.size(); ++i) {
    if (std::holds_alternative<OffsetCommitRequest>(env.sent[i].msg)) commit_at = i;
    if (std::holds_alternative<LeaveGroupRequest>(env.sent[i].msg)) leave_at = i;
  }
  EXPECT_LT(commit_at, leave_at);
}

TEST_F(ConsumerGroupTest, StaticMemberNeverSendsLeaveGroup) {
  ConsumerConfig c = config();
  c.group_instance_id = "instance-a";
  make(c);
  join_alone(1);
  EXPECT_EQ(last<JoinGroupRequest>().group_instance_id, std::optional<std::string>("instance-a"));
  consumer->close();
  EXPECT_TRUE(sent_of<LeaveGroupRequest>().empty());
}

// A static member restarts (same node) while the coordinator still holds its previous
// incarnation's JoinGroup; its rejoin replaces that member, and the coordinator answers the
// held join FENCED_INSTANCE_ID. In Kafka that answer goes to the old, closed connection; here
// it reaches the same node, and the new incarnation must not take it for its own answer
// (found by logsim fuzz as a liveness failure: the restarted member went fatal).
TEST_F(ConsumerGroupTest, ARestartedStaticMemberIgnoresTheFenceMeantForItsPreviousIncarnation) {
  struct FatalRecorder final : RebalanceListener {
    std::vector<ErrorCode> fatal;
    void on_fatal(ErrorCode e) override { fatal.push_back(e); }
  } first_rec, second_rec;
  ConsumerConfig c = config();
  c.group_instance_id = "instance-a";
  auto start = [&](RebalanceListener* listener) {
    consumer.emplace(env, mux, c);
    consumer->subscribe({kTopic}, listener);
    answer_metadata(1);
    answer_find();
    consumer->poll();
    return last<JoinGroupRequest>();
  };
  const JoinGroupRequest old_join = start(&first_rec);  // held by the coordinator; then stopped
  const JoinGroupRequest new_join = start(&second_rec);  // the same node, restarted
  consumer->on_message(kCoord, JoinGroupResponse{old_join.correlation_id, ErrorCode::FENCED_INSTANCE_ID, -1, "", "",
                                                 "c-old", {}});
  EXPECT_TRUE(second_rec.fatal.empty()) << "the fence answered the previous incarnation's join";
  // Its own answer still completes the join.
  consumer->on_message(kCoord, JoinGroupResponse{new_join.correlation_id, ErrorCode::NONE, 2, "range", "c-old", "c-new", {}});
  EXPECT_EQ(consumer->generation(), 2);
  EXPECT_EQ(last<SyncGroupRequest>().member_id, "c-new");
}

TEST_F(ConsumerGroupTest, CoordinatorErrorsSendTheMemberToFindANewOne) {
  make();
  join_alone(1);
  answer_offset_fetch({{0, 0}});
  advance_to(millis(3000));
  const std::size_t finds = sent_of<FindCoordinatorRequest>().size();
  consumer->on_message(kCoord, HeartbeatResponse{last<HeartbeatRequest>().correlation_id, ErrorCode::NOT_COORDINATOR});
  advance_to(millis(3200));
  EXPECT_EQ(sent_of<FindCoordinatorRequest>().size(), finds + 1);
  EXPECT_EQ(consumer->generation(), 1) << "the generation survives a coordinator move";
}

TEST_F(ConsumerGroupTest, AnAsyncCommitAnsweredNotCoordinatorEndsAndASyncOneWaitsForTheNewCoordinator) {
  ConsumerConfig c = config();
  c.enable_auto_commit = false;
  make(c);
  join_alone(1);
  answer_offset_fetch({{0, 0}});
  std::vector<ErrorCode> outcomes;
  consumer->commit({{tp(0), Offset(3)}}, false, [&](ErrorCode e) { outcomes.push_back(e); });
  consumer->commit({{tp(0), Offset(4)}}, true, [&](ErrorCode e) { outcomes.push_back(e); });
  const auto commits = sent_of<OffsetCommitRequest>();
  ASSERT_EQ(commits.size(), 2u);
  const std::size_t finds = sent_of<FindCoordinatorRequest>().size();
  consumer->on_message(kCoord, OffsetCommitResponse{commits[0].correlation_id, {{kTopic, PartitionId(0), ErrorCode::NOT_COORDINATOR}}});
  EXPECT_EQ(outcomes, std::vector<ErrorCode>{ErrorCode::NOT_COORDINATOR}) << "commitAsync is not retried";
  advance_to(millis(200));
  EXPECT_EQ(sent_of<FindCoordinatorRequest>().size(), finds + 1);
  answer_find();
  // The sync commit (its first attempt went to the old coordinator) is sent again.
  const auto again = sent_of<OffsetCommitRequest>();
  ASSERT_EQ(again.size(), 3u);
  EXPECT_EQ(again[2].partitions[0].committed_offset, Offset(4));
  consumer->on_message(kCoord, OffsetCommitResponse{again[2].correlation_id, {{kTopic, PartitionId(0), ErrorCode::NONE}}});
  EXPECT_EQ(outcomes, (std::vector<ErrorCode>{ErrorCode::NOT_COORDINATOR, ErrorCode::NONE}));
}

constexpr std::uint64_t kCommitTag = 23;  // ConsumerGroupTimer::kCommit (timer_tags.h)

// The only member of a group, assigned partition 0 at offset 0, committing by hand, with
// requests timing out after a second and commitSync trying for a minute.
void ConsumerGroupTest::join_with_manual_commits() {
  ConsumerConfig c = config();
  c.enable_auto_commit = false;
  c.request_timeout_ms = 1000;
  c.default_api_timeout_ms = 60000;
  make(c);
  join_alone(1);
  answer_offset_fetch({{0, 0}});
}

// A finished commit leaves none of its timers armed (its deadline, its request's timeout);
// a commit after every batch would otherwise keep request.timeout.ms worth of them. A commit
// still waiting keeps exactly its deadline and the timeout of the request in flight, also
// after a resend.
TEST_F(ConsumerGroupTest, AFinishedCommitLeavesNoTimerArmedAndAResendReplacesItsTimeout) {
  join_with_manual_commits();
  const auto armed = [&] {
    std::size_t n = 0;
    for (const auto& t : env.timers) n += t.cancelled ? 0 : 1;
    return n;
  };
  const std::size_t before = armed();
  std::vector<ErrorCode> outcomes;
  consumer->commit({{tp(0), Offset(3)}}, true, [&](ErrorCode e) { outcomes.push_back(e); });
  consumer->commit({{tp(0), Offset(4)}}, false, [&](ErrorCode e) { outcomes.push_back(e); });
  EXPECT_EQ(armed(), before + 4) << "each: a deadline and a request timeout";
  auto commits = sent_of<OffsetCommitRequest>();
  ASSERT_EQ(commits.size(), 2u);
  consumer->on_message(kCoord, OffsetCommitResponse{commits[1].correlation_id, {{kTopic, PartitionId(0), ErrorCode::NONE}}});
  EXPECT_EQ(outcomes, std::vector<ErrorCode>{ErrorCode::NONE});
  EXPECT_EQ(armed(), before + 2);
  // The sync commit's request goes unanswered: at request.timeout.ms it is sent again, and
  // only the new request's timeout is armed beside its deadline.
  advance_to(millis(1000) + env.now());
  commits = sent_of<OffsetCommitRequest>();
  ASSERT_EQ(commits.size(), 3u);
  EXPECT_EQ(commits[2].partitions[0].committed_offset, Offset(3));
  consumer->on_message(kCoord, OffsetCommitResponse{commits[2].correlation_id, {{kTopic, PartitionId(0), ErrorCode::NONE}}});
  EXPECT_EQ(outcomes, (std::vector<ErrorCode>{ErrorCode::NONE, ErrorCode::NONE}));
  std::size_t commit_timers = 0;
  for (const auto& t : env.timers) commit_timers += !t.cancelled && t.tag == kCommitTag ? 1 : 0;
  EXPECT_EQ(commit_timers, 0u) << "kCommitTag timers left armed";
}

// A commit's timer that fires before its time on the local clock (the clock was stepped back
// after it was armed) is armed again for what is left: the unanswered request is still sent
// again when request.timeout.ms has passed on the local clock.
TEST_F(ConsumerGroupTest, ACommitTimerFiringEarlyAfterAClockStepIsArmedAgain) {
  join_with_manual_commits();
  const Nanos start = env.now();
  consumer->commit({{tp(0), Offset(3)}}, true, [](ErrorCode) {});
  ASSERT_EQ(sent_of<OffsetCommitRequest>().size(), 1u);
  std::optional<clienttest::FakeEnv::Timer> request_timeout;
  for (auto& t : env.timers) {
    if (!t.cancelled && t.tag == kCommitTag && t.deadline == start + millis(1000)) request_timeout = t;
  }
  ASSERT_TRUE(request_timeout.has_value());
  // It fires when the local clock reads only 600 ms later.
  for (auto& t : env.timers) {
    if (t.id == request_timeout->id) t.cancelled = true;
  }
  env.set_now(start + millis(600));
  mux.on_timer(request_timeout->id, kCommitTag);
  EXPECT_EQ(sent_of<OffsetCommitRequest>().size(), 1u) << "not yet unanswered for request.timeout.ms";
  advance_to(start + millis(1000));
  EXPECT_EQ(sent_of<OffsetCommitRequest>().size(), 2u) << "sent again once the local clock says so";
}

}  // namespace
}  // namespace logsim::engine

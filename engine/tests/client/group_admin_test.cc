// The group admin client: list, describe (with lag), delete, and kafka-consumer-groups
// --reset-offsets in every mode, against a scripted cluster that answers each request as the
// brokers would; plus the retries (NOT_COORDINATOR, NOT_LEADER_OR_FOLLOWER) and the deadline.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/client/consumer_protocol.h"
#include "engine/client/group_admin.h"
#include "engine/tests/client/client_fake_env.h"

namespace logsim::engine {
namespace {

using clienttest::FakeEnv;
using clienttest::Sent;

const NodeId kBroker1(1);
const NodeId kBroker2(2);
const NodeId kBroker3(3);
const std::string kGroup = "orders-app";

// One partition's log: offsets [earliest, latest) are readable; the record at offset o has the
// timestamp first_timestamp_ms + (o - earliest) * 10.
struct PartitionLog {
  NodeId leader;
  std::int64_t earliest = 0;
  std::int64_t latest = 0;
  std::int64_t first_timestamp_ms = 0;
};

// The cluster as the brokers would answer it. It checks that coordinator requests go to the
// coordinator and ListOffsets to the partition's leader.
struct Cluster {
  NodeId coordinator = kBroker2;
  std::string state = "Empty";
  std::vector<DescribedGroupMember> members;
  std::map<TopicPartition, Offset> committed;
  std::map<std::string, std::vector<PartitionLog>> topics;
  std::map<NodeId, std::vector<ListedGroup>> listed;  // ListGroups answers by broker
  ErrorCode commit_error = ErrorCode::NONE;
  ErrorCode delete_error = ErrorCode::NONE;
  std::vector<OffsetCommitRequest> commits;

  std::optional<Message> answer(const Sent& s) {
    if (const auto* m = std::get_if<FindCoordinatorRequest>(&s.msg)) {
      EXPECT_EQ(m->key, kGroup);
      return FindCoordinatorResponse{m->correlation_id, ErrorCode::NONE, coordinator};
    }
    if (const auto* m = std::get_if<DescribeGroupsRequest>(&s.msg)) {
      EXPECT_EQ(s.to, coordinator);
      return DescribeGroupsResponse{m->correlation_id, ErrorCode::NONE, m->group_id, state, "consumer", "range", 3, members};
    }
    if (const auto* m = std::get_if<OffsetFetchRequest>(&s.msg)) {
      EXPECT_EQ(s.to, coordinator);
      EXPECT_FALSE(m->partitions.has_value()) << "asks for every committed offset";
      OffsetFetchResponse r{m->correlation_id, ErrorCode::NONE, {}};
      for (const auto& [tp, offset] : committed) r.partitions.push_back({tp.topic, tp.partition, offset, "", ErrorCode::NONE});
      return r;
    }
    if (const auto* m = std::get_if<MetadataRequest>(&s.msg)) return metadata(*m);
    if (const auto* m = std::get_if<ListOffsetsRequest>(&s.msg)) return list_offsets(s.to, *m);
    if (const auto* m = std::get_if<OffsetCommitRequest>(&s.msg)) {
      EXPECT_EQ(s.to, coordinator);
      commits.push_back(*m);
      OffsetCommitResponse r{m->correlation_id, {}};
      for (const OffsetCommitPartition& p : m->partitions) {
        r.partitions.push_back({p.topic, p.partition, commit_error});
        if (commit_error == ErrorCode::NONE) committed[{p.topic, p.partition}] = p.committed_offset;
      }
      return r;
    }
    if (const auto* m = std::get_if<ListGroupsRequest>(&s.msg)) {
      return ListGroupsResponse{m->correlation_id, ErrorCode::NONE, listed[s.to]};
    }
    if (const auto* m = std::get_if<DeleteGroupsRequest>(&s.msg)) {
      EXPECT_EQ(s.to, coordinator);
      return DeleteGroupsResponse{m->correlation_id, m->group_id, delete_error};
    }
    if (const auto* m = std::get_if<OffsetDeleteRequest>(&s.msg)) {
      EXPECT_EQ(s.to, coordinator);
      OffsetDeleteResponse resp{m->correlation_id, ErrorCode::NONE, {}};
      const ErrorCode each = state == "Empty" ? ErrorCode::NONE : ErrorCode::GROUP_SUBSCRIBED_TO_TOPIC;
      for (const auto& p : m->partitions) resp.partitions.push_back({p.topic, p.partition, each});
      return resp;
    }
    ADD_FAILURE() << "unexpected " << message_name(s.msg);
    return std::nullopt;
  }

  MetadataResponse metadata(const MetadataRequest& m) {
    MetadataResponse r{m.correlation_id, {kBroker1, kBroker2, kBroker3}, {}};
    std::vector<std::string> names = m.topics;
    if (names.empty()) {
      for (const auto& [name, logs] : topics) names.push_back(name);
    }
    for (const std::string& name : names) {
      TopicMetadata t{name, ErrorCode::NONE, {}};
      auto it = topics.find(name);
      if (it == topics.end()) t.error = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
      for (std::size_t p = 0; it != topics.end() && p < it->second.size(); ++p) {
        const NodeId leader = it->second[p].leader;
        t.partitions.push_back({PartitionId(static_cast<std::int32_t>(p)), ErrorCode::NONE, leader, LeaderEpoch(0), {leader}, {leader}});
      }
      r.topics.push_back(std::move(t));
    }
    return r;
  }

  ListOffsetsResponse list_offsets(NodeId to, const ListOffsetsRequest& m) {
    const PartitionLog& log = topics.at(m.topic).at(static_cast<std::size_t>(m.partition.value()));
    ListOffsetsResponse r{m.correlation_id, m.topic, m.partition, ErrorCode::NONE, Offset(-1)};
    if (to != log.leader) {
      r.error = ErrorCode::NOT_LEADER_OR_FOLLOWER;
    } else if (m.timestamp_ms == kListOffsetsEarliest) {
      r.offset = Offset(log.earliest);
    } else if (m.timestamp_ms == kListOffsetsLatest) {
      r.offset = Offset(log.latest);
    } else {
      for (std::int64_t o = log.earliest; o < log.latest; ++o) {
        if (log.first_timestamp_ms + (o - log.earliest) * 10 >= m.timestamp_ms) {
          r.offset = Offset(o);
          break;
        }
      }
    }
    return r;
  }
};

GroupAdminConfig test_config() {
  GroupAdminConfig c;
  c.bootstrap_servers = {kBroker1, kBroker2, kBroker3};
  return c;  // request.timeout.ms 30000, default.api.timeout.ms 60000, retry.backoff.ms 100
}

struct Fixture {
  FakeEnv env;
  TimerMux mux{env};
  GroupAdmin admin{env, mux, test_config()};
  std::size_t served = 0;  // env.sent entries already answered

  // Answers, from the cluster, every request not yet answered, including those the answers
  // cause, until none is left.
  void serve(Cluster& cluster) {
    while (served < env.sent.size()) {
      const Sent s = env.sent[served++];
      if (auto reply = cluster.answer(s)) {
        EXPECT_TRUE(admin.on_message(s.to, *reply)) << message_name(*reply);
      }
    }
  }
  // Fires every timer due up to `t`, moving the clock.
  void advance_to(Nanos t) {
    while (auto timer = env.pop_due(t)) {
      env.set_now(timer->deadline);
      mux.on_timer(timer->id, timer->tag);
    }
    env.set_now(t);
  }
  template <typename T>
  std::vector<std::pair<NodeId, T>> sent_of() const {
    std::vector<std::pair<NodeId, T>> out;
    for (const Sent& s : env.sent) {
      if (const T* m = std::get_if<T>(&s.msg)) out.emplace_back(s.to, *m);
    }
    return out;
  }
  ResetOffsetsResult reset(Cluster& cluster, ResetOffsetsRequest request) {
    std::optional<ResetOffsetsResult> got;
    admin.reset_offsets(std::move(request), [&](const ResetOffsetsResult& r) { got = r; });
    serve(cluster);
    EXPECT_TRUE(got.has_value()) << "the call did not end";
    EXPECT_EQ(admin.in_flight(), 0u);
    return got.value_or(ResetOffsetsResult{});
  }
};

// "orders" with three partitions, each led by another broker:
//   0: offsets [10, 50), committed 20, timestamps 1000, 1010, ... (offset o at 1000 + 10 (o - 10))
//   1: offsets [0, 5),   committed 4,  timestamps 500 .. 540
//   2: empty at 100 (everything deleted by retention), nothing committed
Cluster orders_cluster() {
  Cluster c;
  c.topics["orders"] = {PartitionLog{kBroker1, 10, 50, 1000}, PartitionLog{kBroker2, 0, 5, 500},
                        PartitionLog{kBroker3, 100, 100, 0}};
  c.committed[{"orders", PartitionId(0)}] = Offset(20);
  c.committed[{"orders", PartitionId(1)}] = Offset(4);
  return c;
}

ResetOffsetsRequest reset_request(ResetMode mode, std::int64_t value = 0, bool execute = false) {
  return ResetOffsetsRequest{kGroup, {ResetTopic{"orders", {}}}, mode, value, execute};
}

std::vector<std::int64_t> new_offsets(const ResetOffsetsResult& r) {
  std::vector<std::int64_t> out;
  for (const ResetOffsetsRow& row : r.rows) out.push_back(row.new_offset.value());
  return out;
}

using Offsets = std::vector<std::int64_t>;

// ---------------------------------------------------------------- reset-offsets

TEST(GroupAdminReset, RefusedWhileTheGroupIsActiveWithKafkasMessage) {
  for (const std::string state : {"Stable", "PreparingRebalance", "CompletingRebalance"}) {
    Fixture f;
    Cluster c = orders_cluster();
    c.state = state;
    const ResetOffsetsResult r = f.reset(c, reset_request(ResetMode::kToEarliest, 0, /*execute=*/true));
    EXPECT_EQ(r.error, ErrorCode::NON_EMPTY_GROUP) << state;
    EXPECT_EQ(r.message, "Assignments can only be reset if the group 'orders-app' is inactive, but the current state is " +
                             state + ".");
    EXPECT_TRUE(r.rows.empty());
    EXPECT_FALSE(r.executed);
    EXPECT_TRUE(c.commits.empty()) << "nothing committed";
    EXPECT_TRUE(f.sent_of<OffsetCommitRequest>().empty());
    EXPECT_TRUE(f.sent_of<ListOffsetsRequest>().empty()) << "refused before planning";
  }
}

TEST(GroupAdminReset, AllowedForAnEmptyOrDeadGroup) {
  for (const std::string state : {"Empty", "Dead"}) {
    Fixture f;
    Cluster c = orders_cluster();
    c.state = state;
    const ResetOffsetsResult r = f.reset(c, reset_request(ResetMode::kToEarliest));
    EXPECT_EQ(r.error, ErrorCode::NONE) << state << ": " << r.message;
    EXPECT_EQ(new_offsets(r), (Offsets{10, 0, 100}));
  }
}

TEST(GroupAdminReset, ToEarliestAndToLatestAskEachLeader) {
  Fixture f;
  Cluster c = orders_cluster();
  const ResetOffsetsResult earliest = f.reset(c, reset_request(ResetMode::kToEarliest));
  ASSERT_EQ(earliest.rows.size(), 3u);
  EXPECT_EQ(new_offsets(earliest), (Offsets{10, 0, 100}));
  EXPECT_EQ(earliest.rows[0].topic, "orders");
  EXPECT_EQ(earliest.rows[2].partition, PartitionId(2));
  EXPECT_EQ(earliest.rows[0].previous, Offset(20));
  EXPECT_EQ(earliest.rows[1].previous, Offset(4));
  EXPECT_EQ(earliest.rows[2].previous, Offset(-1)) << "nothing committed";
  const auto asked = f.sent_of<ListOffsetsRequest>();
  ASSERT_EQ(asked.size(), 3u) << "to-earliest needs only the log start offsets";
  for (const auto& [to, req] : asked) {
    EXPECT_EQ(req.timestamp_ms, kListOffsetsEarliest);
    EXPECT_EQ(to, c.topics["orders"][static_cast<std::size_t>(req.partition.value())].leader);
  }
  EXPECT_EQ(new_offsets(f.reset(c, reset_request(ResetMode::kToLatest))), (Offsets{50, 5, 100}));
}

TEST(GroupAdminReset, ToOffsetIsClampedIntoTheLogAtBothEnds) {
  Fixture f;
  Cluster c = orders_cluster();
  EXPECT_EQ(new_offsets(f.reset(c, reset_request(ResetMode::kToOffset, 30))), (Offsets{30, 5, 100}));
  EXPECT_EQ(new_offsets(f.reset(c, reset_request(ResetMode::kToOffset, 3))), (Offsets{10, 3, 100}));
  EXPECT_EQ(new_offsets(f.reset(c, reset_request(ResetMode::kToOffset, 1000))), (Offsets{50, 5, 100}));
}

TEST(GroupAdminReset, ShiftByMovesTheCommittedOffsetClampedAtBothEnds) {
  Fixture f;
  Cluster c = orders_cluster();
  // Partition 2 has no committed offset: it shifts from the log start (our choice; Kafka refuses).
  EXPECT_EQ(new_offsets(f.reset(c, reset_request(ResetMode::kShiftBy, -5))), (Offsets{15, 0, 100}));
  EXPECT_EQ(new_offsets(f.reset(c, reset_request(ResetMode::kShiftBy, 3))), (Offsets{23, 5, 100}));
  EXPECT_EQ(new_offsets(f.reset(c, reset_request(ResetMode::kShiftBy, -15))), (Offsets{10, 0, 100}));
  EXPECT_EQ(new_offsets(f.reset(c, reset_request(ResetMode::kShiftBy, 1000))), (Offsets{50, 5, 100}));
  c.topics["orders"][2] = PartitionLog{kBroker3, 100, 110, 0};
  EXPECT_EQ(new_offsets(f.reset(c, reset_request(ResetMode::kShiftBy, 4))), (Offsets{24, 5, 104}));
  // Extreme shifts saturate rather than overflow.
  EXPECT_EQ(new_offsets(f.reset(c, reset_request(ResetMode::kShiftBy, std::numeric_limits<std::int64_t>::max()))),
            (Offsets{50, 5, 110}));
  EXPECT_EQ(new_offsets(f.reset(c, reset_request(ResetMode::kShiftBy, std::numeric_limits<std::int64_t>::min()))),
            (Offsets{10, 0, 100}));
}

TEST(GroupAdminReset, ToDatetimeTakesTheFirstOffsetAtOrAfterTElseLatest) {
  Fixture f;
  Cluster c = orders_cluster();
  // Partition 0: offset 31 is the first with timestamp >= 1205 (1210). Partition 1's records are
  // all older (500..540) and partition 2 has none: both go to the log end.
  const ResetOffsetsResult r = f.reset(c, reset_request(ResetMode::kToDatetime, 1205));
  EXPECT_EQ(new_offsets(r), (Offsets{31, 5, 100}));
  bool asked_t = false;
  for (const auto& [to, req] : f.sent_of<ListOffsetsRequest>()) asked_t = asked_t || req.timestamp_ms == 1205;
  EXPECT_TRUE(asked_t);
  // Exactly on a record's timestamp: that record.
  EXPECT_EQ(new_offsets(f.reset(c, reset_request(ResetMode::kToDatetime, 1200))), (Offsets{30, 5, 100}));
  // Before every record: the first one of each non-empty log.
  EXPECT_EQ(new_offsets(f.reset(c, reset_request(ResetMode::kToDatetime, 0))), (Offsets{10, 0, 100}));
}

TEST(GroupAdminReset, ByDurationIsToDatetimeOfNowMinusD) {
  Fixture f;
  Cluster c = orders_cluster();
  f.env.set_now(millis(2000));
  const ResetOffsetsResult r = f.reset(c, reset_request(ResetMode::kByDuration, 795));
  EXPECT_EQ(new_offsets(r), (Offsets{31, 5, 100}));
  std::vector<std::int64_t> timestamps;
  for (const auto& [to, req] : f.sent_of<ListOffsetsRequest>()) {
    if (req.timestamp_ms >= 0) timestamps.push_back(req.timestamp_ms);
  }
  EXPECT_EQ(timestamps, (std::vector<std::int64_t>{1205, 1205, 1205})) << "T = now (2000 ms) - D (795 ms)";
}

TEST(GroupAdminReset, ToCurrentKeepsCommittedOffsetsAndSendsTheOthersToTheLogEnd) {
  Fixture f;
  Cluster c = orders_cluster();
  c.topics["orders"][2] = PartitionLog{kBroker3, 100, 120, 0};
  const ResetOffsetsResult r = f.reset(c, reset_request(ResetMode::kToCurrent));
  EXPECT_EQ(new_offsets(r), (Offsets{20, 4, 120}));
  const auto asked = f.sent_of<ListOffsetsRequest>();
  ASSERT_EQ(asked.size(), 1u) << "only the partition without a committed offset";
  EXPECT_EQ(asked[0].second.partition, PartitionId(2));
}

TEST(GroupAdminReset, NamedPartitionsAndAllTopics) {
  Fixture f;
  Cluster c = orders_cluster();
  c.topics["payments"] = {PartitionLog{kBroker1, 0, 9, 0}};
  c.committed[{"payments", PartitionId(0)}] = Offset(3);
  ResetOffsetsRequest named = reset_request(ResetMode::kToLatest);
  named.topics = {ResetTopic{"orders", {PartitionId(2), PartitionId(0)}}};
  const ResetOffsetsResult r = f.reset(c, named);
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0].partition, PartitionId(0));
  EXPECT_EQ(r.rows[1].partition, PartitionId(2));
  EXPECT_EQ(new_offsets(r), (Offsets{50, 100}));
  // --all-topics: every partition with a committed offset, of every topic.
  ResetOffsetsRequest all = reset_request(ResetMode::kToLatest);
  all.topics.clear();
  const ResetOffsetsResult everything = f.reset(c, all);
  ASSERT_EQ(everything.rows.size(), 3u);
  EXPECT_EQ(everything.rows[2].topic, "payments");
  EXPECT_EQ(new_offsets(everything), (Offsets{50, 5, 9}));
}

TEST(GroupAdminReset, UnknownPartitionsAndTopicsAreRefused) {
  Fixture f;
  Cluster c = orders_cluster();
  ResetOffsetsRequest req = reset_request(ResetMode::kToLatest, 0, true);
  req.topics = {ResetTopic{"orders", {PartitionId(1), PartitionId(7)}}};
  ResetOffsetsResult r = f.reset(c, req);
  EXPECT_EQ(r.error, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  EXPECT_EQ(r.message, "The partitions \"orders-7\" do not exist");
  req.topics = {ResetTopic{"ghost", {}}};
  r = f.reset(c, req);
  EXPECT_EQ(r.error, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  EXPECT_TRUE(c.commits.empty());
}

TEST(GroupAdminReset, DryRunCommitsNothing) {
  Fixture f;
  Cluster c = orders_cluster();
  const ResetOffsetsResult r = f.reset(c, reset_request(ResetMode::kToEarliest));
  EXPECT_EQ(r.error, ErrorCode::NONE);
  EXPECT_FALSE(r.executed);
  EXPECT_EQ(new_offsets(r), (Offsets{10, 0, 100}));
  EXPECT_TRUE(f.sent_of<OffsetCommitRequest>().empty());
  EXPECT_EQ(c.committed.at({"orders", PartitionId(0)}), Offset(20)) << "unchanged";
}

TEST(GroupAdminReset, ExecuteCommitsThePlanOnceAsAnAdmin) {
  Fixture f;
  Cluster c = orders_cluster();
  const ResetOffsetsResult r = f.reset(c, reset_request(ResetMode::kShiftBy, -5, /*execute=*/true));
  EXPECT_EQ(r.error, ErrorCode::NONE) << r.message;
  EXPECT_TRUE(r.executed);
  ASSERT_EQ(c.commits.size(), 1u);
  const OffsetCommitRequest& commit = c.commits[0];
  EXPECT_EQ(commit.group_id, kGroup);
  EXPECT_EQ(commit.generation_id, -1);
  EXPECT_EQ(commit.member_id, "");
  EXPECT_FALSE(commit.group_instance_id.has_value());
  ASSERT_EQ(commit.partitions.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(commit.partitions[i].topic, "orders");
    EXPECT_EQ(commit.partitions[i].partition, r.rows[i].partition);
    EXPECT_EQ(commit.partitions[i].committed_offset, r.rows[i].new_offset);
  }
  EXPECT_EQ(new_offsets(r), (Offsets{15, 0, 100}));
  EXPECT_EQ(c.committed.at({"orders", PartitionId(2)}), Offset(100));
}

TEST(GroupAdminReset, ExecuteReportsPerPartitionCommitErrors) {
  Fixture f;
  Cluster c = orders_cluster();
  c.commit_error = ErrorCode::UNKNOWN_MEMBER_ID;  // the group became active meanwhile
  const ResetOffsetsResult r = f.reset(c, reset_request(ResetMode::kToLatest, 0, /*execute=*/true));
  EXPECT_EQ(r.error, ErrorCode::UNKNOWN_MEMBER_ID);
  EXPECT_FALSE(r.executed);
  ASSERT_EQ(r.rows.size(), 3u);
  for (const ResetOffsetsRow& row : r.rows) EXPECT_EQ(row.error, ErrorCode::UNKNOWN_MEMBER_ID);
  EXPECT_NE(r.message.find("orders-0"), std::string::npos) << r.message;
  EXPECT_EQ(c.commits.size(), 1u) << "not retried";
}

// ---------------------------------------------------------------- retries and the deadline

TEST(GroupAdminRetry, NotCoordinatorRediscoversTheCoordinator) {
  Fixture f;
  Cluster c = orders_cluster();
  std::optional<ResetOffsetsResult> got;
  f.admin.reset_offsets(reset_request(ResetMode::kToLatest, 0, true), [&](const ResetOffsetsResult& r) { got = r; });
  // The first FindCoordinator names broker 1, which has since lost the group.
  ASSERT_EQ(f.env.sent.size(), 1u);
  const auto find = std::get<FindCoordinatorRequest>(f.env.sent[0].msg);
  f.served = 1;
  f.admin.on_message(f.env.sent[0].to, FindCoordinatorResponse{find.correlation_id, ErrorCode::NONE, kBroker1});
  ASSERT_EQ(f.env.sent.size(), 2u);
  EXPECT_EQ(f.env.sent[1].to, kBroker1);
  const auto describe = std::get<DescribeGroupsRequest>(f.env.sent[1].msg);
  f.served = 2;
  f.admin.on_message(kBroker1, DescribeGroupsResponse{describe.correlation_id, ErrorCode::NOT_COORDINATOR, kGroup, "Dead",
                                                      "", "", -1, {}});
  EXPECT_EQ(f.env.sent.size(), 2u) << "waits retry.backoff.ms";
  f.advance_to(millis(100));
  ASSERT_EQ(f.env.sent.size(), 3u);
  EXPECT_TRUE(std::holds_alternative<FindCoordinatorRequest>(f.env.sent[2].msg)) << "looks the coordinator up again";
  f.serve(c);  // now broker 2
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->error, ErrorCode::NONE) << got->message;
  EXPECT_TRUE(got->executed);
  EXPECT_EQ(f.sent_of<FindCoordinatorRequest>().size(), 2u);
  const auto describes = f.sent_of<DescribeGroupsRequest>();
  ASSERT_EQ(describes.size(), 2u);
  EXPECT_EQ(describes[1].first, kBroker2);
  EXPECT_EQ(c.commits.size(), 1u);
}

TEST(GroupAdminRetry, ABrokenConnectionToTheCoordinatorRetriesTheCommitElsewhere) {
  Fixture f;
  Cluster c = orders_cluster();
  std::optional<ResetOffsetsResult> got;
  f.admin.reset_offsets(reset_request(ResetMode::kToEarliest, 0, true), [&](const ResetOffsetsResult& r) { got = r; });
  // Serve everything but the commit, then the coordinator crashes.
  while (f.served < f.env.sent.size()) {
    const Sent s = f.env.sent[f.served];
    if (std::holds_alternative<OffsetCommitRequest>(s.msg)) break;
    ++f.served;
    f.admin.on_message(s.to, *c.answer(s));
  }
  ASSERT_TRUE(std::holds_alternative<OffsetCommitRequest>(f.env.sent.back().msg));
  f.served = f.env.sent.size();
  f.admin.on_disconnect(kBroker2);
  c.coordinator = kBroker3;
  f.advance_to(millis(100));
  f.serve(c);
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(got->executed) << got->message;
  ASSERT_EQ(c.commits.size(), 1u);
  EXPECT_EQ(f.sent_of<OffsetCommitRequest>().back().first, kBroker3);
}

TEST(GroupAdminRetry, NotLeaderRefreshesMetadataAndAsksTheNewLeader) {
  Fixture f;
  Cluster c = orders_cluster();
  std::optional<ResetOffsetsResult> got;
  f.admin.reset_offsets(reset_request(ResetMode::kToLatest), [&](const ResetOffsetsResult& r) { got = r; });
  f.serve(c);
  ASSERT_TRUE(got.has_value());
  // Leadership of partition 0 moves after the metadata was read.
  Fixture g;
  std::optional<ResetOffsetsResult> moved;
  g.admin.reset_offsets(reset_request(ResetMode::kToLatest), [&](const ResetOffsetsResult& r) { moved = r; });
  while (g.served < g.env.sent.size()) {
    const Sent s = g.env.sent[g.served++];
    auto reply = c.answer(s);
    if (std::holds_alternative<MetadataRequest>(s.msg)) c.topics["orders"][0].leader = kBroker3;
    g.admin.on_message(s.to, *reply);
  }
  EXPECT_FALSE(moved.has_value()) << "partition 0 answered NOT_LEADER_OR_FOLLOWER";
  g.advance_to(millis(100));
  g.serve(c);
  ASSERT_TRUE(moved.has_value());
  EXPECT_EQ(moved->error, ErrorCode::NONE) << moved->message;
  EXPECT_EQ(new_offsets(*moved), new_offsets(*got));
  EXPECT_EQ(g.sent_of<MetadataRequest>().size(), 2u) << "refreshed once";
  const auto asked = g.sent_of<ListOffsetsRequest>();
  EXPECT_EQ(asked.back().first, kBroker3);
  EXPECT_EQ(asked.back().second.partition, PartitionId(0));
}

TEST(GroupAdminRetry, ACallNeverAnsweredEndsAtTheDefaultApiTimeout) {
  Fixture f;
  std::optional<DescribeGroupResult> got;
  f.admin.describe_group(kGroup, [&](const DescribeGroupResult& r) { got = r; });
  f.advance_to(millis(60000) - 1);
  EXPECT_FALSE(got.has_value());
  // FindCoordinator at 0, again after request.timeout.ms + retry.backoff.ms, to the next broker.
  const auto finds = f.sent_of<FindCoordinatorRequest>();
  ASSERT_EQ(finds.size(), 2u);
  EXPECT_EQ(finds[0].first, kBroker1);
  EXPECT_EQ(finds[1].first, kBroker2);
  EXPECT_EQ(f.env.sent[1].at, millis(30100));
  f.advance_to(millis(60000));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->error, ErrorCode::REQUEST_TIMED_OUT);
  EXPECT_NE(got->message.find("callName=describeConsumerGroups"), std::string::npos) << got->message;
  EXPECT_EQ(f.admin.in_flight(), 0u);
  f.advance_to(millis(200000));
  EXPECT_EQ(f.env.sent.size(), 2u) << "nothing after the call ended";
  // A late answer is not taken.
  EXPECT_FALSE(f.admin.on_message(kBroker2, FindCoordinatorResponse{finds[1].second.correlation_id, ErrorCode::NONE, kBroker2}));
}

TEST(GroupAdminRetry, CorrelationIdsDoNotCollideWithOtherClients) {
  Fixture f;
  f.admin.list_groups([](const ListGroupsResult&) {});
  const auto metadata = f.sent_of<MetadataRequest>();
  ASSERT_EQ(metadata.size(), 1u);
  EXPECT_GE(metadata[0].second.correlation_id, GroupAdmin::kFirstCorrelationId);
  // Another client's answer (a consumer's MetadataResponse with its own id) is not taken.
  EXPECT_FALSE(f.admin.on_message(kBroker1, MetadataResponse{1, {}, {}}));
  EXPECT_FALSE(f.admin.on_message(kBroker1, FetchResponse{}));
}

// ---------------------------------------------------------------- describe, list, delete

TEST(GroupAdminDescribe, ComputesLagPerPartition) {
  Fixture f;
  Cluster c = orders_cluster();
  c.state = "Stable";
  c.members = {
      {"consumer-1-aaa", std::nullopt, "consumer-1", "",
       encode_assignment({{{"orders", PartitionId(0)}, {"orders", PartitionId(1)}}})},
      {"consumer-2-bbb", std::string("static-2"), "consumer-2", "", encode_assignment({{{"orders", PartitionId(2)}}})},
  };
  c.committed[{"retired", PartitionId(0)}] = Offset(7);  // a deleted topic
  std::optional<DescribeGroupResult> got;
  f.admin.describe_group(kGroup, [&](const DescribeGroupResult& r) { got = r; });
  f.serve(c);
  ASSERT_TRUE(got.has_value());
  const DescribeGroupResult& r = *got;
  EXPECT_EQ(r.error, ErrorCode::NONE) << r.message;
  EXPECT_EQ(r.state, "Stable");
  EXPECT_EQ(r.protocol_name, "range");
  EXPECT_EQ(r.generation_id, 3);
  ASSERT_EQ(r.members.size(), 2u);
  EXPECT_EQ(r.members[1].group_instance_id, std::optional<std::string>("static-2"));
  EXPECT_EQ(r.members[1].client_id, "consumer-2");
  ASSERT_EQ(r.rows.size(), 4u);
  auto check = [&](std::size_t i, const std::string& topic, std::int32_t p, std::int64_t committed, std::int64_t end,
                   std::int64_t lag, const std::string& member) {
    SCOPED_TRACE(i);
    EXPECT_EQ(r.rows[i].topic, topic);
    EXPECT_EQ(r.rows[i].partition, PartitionId(p));
    EXPECT_EQ(r.rows[i].committed, Offset(committed));
    EXPECT_EQ(r.rows[i].log_end, Offset(end));
    EXPECT_EQ(r.rows[i].lag, lag);
    EXPECT_EQ(r.rows[i].member_id, member);
  };
  check(0, "orders", 0, 20, 50, 30, "consumer-1-aaa");
  check(1, "orders", 1, 4, 5, 1, "consumer-1-aaa");
  check(2, "orders", 2, -1, 100, -1, "consumer-2-bbb");  // nothing committed: lag unknown
  check(3, "retired", 0, 7, -1, -1, "");                 // no such topic any more: end unknown
  for (const auto& [to, req] : f.sent_of<ListOffsetsRequest>()) EXPECT_EQ(req.timestamp_ms, kListOffsetsLatest);
}

TEST(GroupAdminList, MergesEveryBrokerSortedByGroupId) {
  Fixture f;
  Cluster c;
  c.listed[kBroker1] = {{"zeta", "consumer", "Empty"}, {"beta", "consumer", "Stable"}};
  c.listed[kBroker2] = {};
  c.listed[kBroker3] = {{"alpha", "consumer", "PreparingRebalance"}, {"beta", "consumer", "Stable"}};
  std::optional<ListGroupsResult> got;
  f.admin.list_groups([&](const ListGroupsResult& r) { got = r; });
  f.serve(c);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->error, ErrorCode::NONE);
  EXPECT_EQ(got->groups, (std::vector<GroupListing>{{"alpha", "consumer", "PreparingRebalance"},
                                                     {"beta", "consumer", "Stable"},
                                                     {"zeta", "consumer", "Empty"}}));
  std::vector<NodeId> asked;
  for (const auto& [to, req] : f.sent_of<ListGroupsRequest>()) asked.push_back(to);
  EXPECT_EQ(asked, (std::vector<NodeId>{kBroker1, kBroker2, kBroker3}));
}

TEST(GroupAdminDelete, PassesTheCoordinatorsErrorThrough) {
  Fixture f;
  Cluster c;
  c.delete_error = ErrorCode::NON_EMPTY_GROUP;
  std::optional<DeleteGroupResult> got;
  f.admin.delete_group(kGroup, [&](const DeleteGroupResult& r) { got = r; });
  f.serve(c);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->error, ErrorCode::NON_EMPTY_GROUP);
  EXPECT_NE(got->message.find("NON_EMPTY_GROUP"), std::string::npos) << got->message;
  EXPECT_EQ(f.sent_of<DeleteGroupsRequest>().size(), 1u) << "not retried";
  c.delete_error = ErrorCode::NONE;
  got.reset();
  f.admin.delete_group(kGroup, [&](const DeleteGroupResult& r) { got = r; });
  f.serve(c);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->error, ErrorCode::NONE);
  EXPECT_EQ(f.sent_of<DeleteGroupsRequest>().back().second.group_id, kGroup);
}

TEST(GroupAdminDeleteOffsets, RefusedPerPartitionWhileTheGroupIsActive) {
  Fixture f;
  Cluster c;
  c.state = "Stable";
  std::optional<DeleteOffsetsResult> got;
  const std::vector<TopicPartition> tps{{"orders", PartitionId(0)}, {"orders", PartitionId(1)}};
  f.admin.delete_offsets(kGroup, tps, [&](const DeleteOffsetsResult& r) { got = r; });
  f.serve(c);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->error, ErrorCode::GROUP_SUBSCRIBED_TO_TOPIC);
  ASSERT_EQ(got->partitions.size(), 2u);
  EXPECT_EQ(got->partitions[1].first, tps[1]);
  EXPECT_EQ(got->partitions[1].second, ErrorCode::GROUP_SUBSCRIBED_TO_TOPIC);
  c.state = "Empty";
  got.reset();
  f.admin.delete_offsets(kGroup, tps, [&](const DeleteOffsetsResult& r) { got = r; });
  f.serve(c);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->error, ErrorCode::NONE);
  EXPECT_EQ(f.sent_of<OffsetDeleteRequest>().back().second.partitions.size(), 2u);
}

}  // namespace
}  // namespace logsim::engine

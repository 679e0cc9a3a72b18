// Tests of the group coordinator's offsets (OffsetCommit, OffsetFetch), loading on failover,
// unloading, and the admin APIs (list, describe, delete groups, delete offsets). The fixture
// is group_coordinator_fixture.h.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/tests/coordinator/group_coordinator_fixture.h"
#include "engine/timer_tags.h"

namespace logsim::engine {
namespace {

using coordtest::Coordinator;
using coordtest::FakeEnv;
using coordtest::FakeHost;
using coordtest::kA;
using coordtest::kAdmin;
using coordtest::kB;
using coordtest::kC;
using coordtest::kGroup;
using coordtest::kPartitions;
using coordtest::range;

// ------------------------------------------------------------------ OffsetCommit, OffsetFetch

TEST(OffsetCommit, AcceptedFromTheCurrentGenerationDuringPreparingRebalance) {
  Coordinator c;
  const auto [a, b] = c.stable_group_of_two();
  c.rejoin(kA, a);
  ASSERT_EQ(c.coord.group_state(kGroup), "PreparingRebalance");
  c.commit(kB, b, 1, 42);
  EXPECT_FALSE(c.take<OffsetCommitResponse>(kB).has_value()) << "answered only once appended";
  EXPECT_EQ(c.fetch(), -1) << "not visible before the append completes";
  c.host.complete_next();
  EXPECT_EQ(c.commit_error(kB), ErrorCode::NONE);
  EXPECT_EQ(c.fetch(), 42);
}

TEST(OffsetCommit, GenerationAndStateRules) {
  Coordinator c;
  c.commit(kA, "m", 1, 5);  // unknown group, a member's generation
  EXPECT_EQ(c.commit_error(kA), ErrorCode::ILLEGAL_GENERATION);
  const auto [a, b] = c.stable_group_of_two();
  c.commit(kAdmin, "", -1, 5);  // an admin commit while the group has members
  EXPECT_EQ(c.commit_error(kAdmin), ErrorCode::UNKNOWN_MEMBER_ID);
  c.commit(kA, "nobody", 1, 5);
  EXPECT_EQ(c.commit_error(kA), ErrorCode::UNKNOWN_MEMBER_ID);
  c.rejoin(kA, a);
  c.rejoin(kB, b);  // generation 2, CompletingRebalance
  c.expect<JoinGroupResponse>(kA);
  c.expect<JoinGroupResponse>(kB);
  c.commit(kB, b, 2, 5);
  EXPECT_EQ(c.commit_error(kB), ErrorCode::REBALANCE_IN_PROGRESS);
  c.commit(kB, b, 1, 5);  // a stale generation
  EXPECT_EQ(c.commit_error(kB), ErrorCode::ILLEGAL_GENERATION);
  EXPECT_TRUE(c.host.pending.empty()) << "no rejected commit reaches the log";
}

TEST(OffsetCommit, GenerationMinusOneAcceptedOnlyWhenEmpty) {
  Coordinator c;
  c.commit(kAdmin, "", -1, 7);  // creates the group
  c.host.complete_all();
  EXPECT_EQ(c.commit_error(kAdmin), ErrorCode::NONE);
  EXPECT_EQ(c.coord.group_state(kGroup), "Empty");
  EXPECT_EQ(c.fetch(), 7);
  c.commit(kAdmin, "", -1, 8);  // the group exists and is Empty
  c.host.complete_all();
  EXPECT_EQ(c.commit_error(kAdmin), ErrorCode::NONE);
  EXPECT_EQ(c.fetch(), 8);
}

TEST(OffsetCommit, AppendErrorsAreMappedAsKafkaDoes) {
  Coordinator c;
  c.commit(kAdmin, "", -1, 7);
  c.host.complete_next(ErrorCode::NOT_LEADER_OR_FOLLOWER);
  EXPECT_EQ(c.commit_error(kAdmin), ErrorCode::NOT_COORDINATOR);
  c.commit(kAdmin, "", -1, 7);
  c.host.complete_next(ErrorCode::REQUEST_TIMED_OUT);
  EXPECT_EQ(c.commit_error(kAdmin), ErrorCode::COORDINATOR_NOT_AVAILABLE);
  c.commit(kAdmin, "", -1, 7);
  c.host.complete_next(ErrorCode::NOT_ENOUGH_REPLICAS);
  EXPECT_EQ(c.commit_error(kAdmin), ErrorCode::COORDINATOR_NOT_AVAILABLE);
  c.commit(kAdmin, "", -1, 7);
  c.host.complete_next(ErrorCode::CORRUPT_MESSAGE);
  EXPECT_EQ(c.commit_error(kAdmin), ErrorCode::UNKNOWN_SERVER_ERROR);
  EXPECT_EQ(c.fetch(), -1) << "no failed commit is visible";
}

TEST(OffsetFetch, AllPartitionsSortedByTopicThenPartition) {
  Coordinator c;
  c.commit(kAdmin, "", -1, 1, "b", 0);
  c.commit(kAdmin, "", -1, 2, "a", 10);
  c.commit(kAdmin, "", -1, 3, "a", 2);
  c.host.complete_all();
  OffsetFetchRequest r;
  r.group_id = kGroup;
  c.coord.handle(kAdmin, r);
  const OffsetFetchResponse resp = c.expect<OffsetFetchResponse>(kAdmin);
  ASSERT_EQ(resp.partitions.size(), 3u);
  EXPECT_EQ(resp.partitions[0].topic, "a");
  EXPECT_EQ(resp.partitions[0].partition, PartitionId(2));
  EXPECT_EQ(resp.partitions[1].partition, PartitionId(10));
  EXPECT_EQ(resp.partitions[2].topic, "b");
  EXPECT_EQ(resp.partitions[2].committed_offset, Offset(1));
}

// ------------------------------------------------------------------ loading, failover, unloading

TEST(Failover, ANewCoordinatorResumesTheGroupFromTheLog) {
  Coordinator first;
  const auto [a, b] = first.stable_group_of_two();
  first.commit(kB, b, 1, 99);
  first.host.complete_all();
  EXPECT_EQ(first.commit_error(kB), ErrorCode::NONE);

  Coordinator second(GroupCoordinatorConfig{}, /*lead_all=*/false);
  second.host.logs = first.host.logs;
  EXPECT_EQ(second.coord.group_state(kGroup), "Dead");
  const std::int32_t p = GroupCoordinator::partition_for(kGroup, kPartitions).value();
  second.coord.on_leadership({p}, kPartitions);
  EXPECT_EQ(second.coord.group_state(kGroup), "Stable");
  EXPECT_EQ(second.coord.group_generation(kGroup), 1);
  EXPECT_EQ(second.heartbeat(kA, a, 1), ErrorCode::NONE);
  EXPECT_EQ(second.heartbeat(kB, b, 1), ErrorCode::NONE);
  EXPECT_EQ(second.fetch(), 99);
  second.sync(kB, b, 1);
  EXPECT_EQ(second.expect<SyncGroupResponse>(kB).assignment, "pb");

  // The old coordinator gives the partition up.
  first.coord.on_leadership({}, kPartitions);
  EXPECT_EQ(first.heartbeat(kA, a, 1), ErrorCode::NOT_COORDINATOR);
  EXPECT_EQ(first.coord.group_state(kGroup), "Dead");
}

TEST(Failover, LoadedMembersExpireIfTheyNeverReturn) {
  Coordinator first;
  first.stable_group_of_two();
  Coordinator second(GroupCoordinatorConfig{}, false);
  second.host.logs = first.host.logs;
  second.coord.on_leadership({0, 1, 2, 3}, kPartitions);
  second.advance_ms(30000);
  EXPECT_EQ(second.coord.group_state(kGroup), "Empty");
}

TEST(Unload, HeldJoinsAreAnsweredNotCoordinatorAndLateCallbacksAreHarmless) {
  Coordinator c;
  c.commit(kAdmin, "", -1, 3);  // accepted from the Empty group; its append stays pending
  c.join_new_member(kA);
  c.coord.on_leadership({}, kPartitions);
  EXPECT_EQ(c.expect<JoinGroupResponse>(kA).error, ErrorCode::NOT_COORDINATOR);
  EXPECT_EQ(c.coord.group_state(kGroup), "Dead");
  c.advance_ms(60000);  // stale timers fire into nothing
  c.host.complete_all();
  EXPECT_EQ(c.commit_error(kAdmin), ErrorCode::NOT_COORDINATOR);
  EXPECT_TRUE(c.env.sent.empty());
}

TEST(NotCoordinator, GroupsOfPartitionsNotLed) {
  Coordinator c(GroupCoordinatorConfig{}, false);
  c.coord.handle(kA, c.join_request(""));
  EXPECT_EQ(c.expect<JoinGroupResponse>(kA).error, ErrorCode::NOT_COORDINATOR) << "nothing led yet";
  const std::int32_t p = GroupCoordinator::partition_for(kGroup, kPartitions).value();
  c.coord.on_leadership({(p + 1) % kPartitions}, kPartitions);
  c.coord.handle(kA, c.join_request(""));
  EXPECT_EQ(c.expect<JoinGroupResponse>(kA).error, ErrorCode::NOT_COORDINATOR);
  OffsetCommitRequest commit;
  commit.group_id = kGroup;
  commit.partitions = {{"t", PartitionId(0), Offset(1), ""}, {"t", PartitionId(1), Offset(1), ""}};
  c.coord.handle(kA, commit);
  const OffsetCommitResponse cr = c.expect<OffsetCommitResponse>(kA);
  ASSERT_EQ(cr.partitions.size(), 2u);
  EXPECT_EQ(cr.partitions[0].error, ErrorCode::NOT_COORDINATOR);
  EXPECT_EQ(cr.partitions[1].error, ErrorCode::NOT_COORDINATOR);
  OffsetFetchRequest fetch;
  fetch.group_id = kGroup;
  c.coord.handle(kA, fetch);
  EXPECT_EQ(c.expect<OffsetFetchResponse>(kA).error, ErrorCode::NOT_COORDINATOR);
  EXPECT_EQ(c.heartbeat(kA, "m", 1), ErrorCode::NOT_COORDINATOR);
  c.coord.handle(kA, DescribeGroupsRequest{1, kGroup});
  EXPECT_EQ(c.expect<DescribeGroupsResponse>(kA).error, ErrorCode::NOT_COORDINATOR);
  EXPECT_TRUE(c.host.pending.empty());
}

TEST(Timers, TimersTheCoordinatorDidNotArmAreNotItsTimers) {
  Coordinator c;
  EXPECT_FALSE(c.mux.on_timer(12345, static_cast<std::uint64_t>(CoordinatorTimer::kSession)));
}

// ------------------------------------------------------------------ admin APIs

TEST(Admin, ListAndDescribe) {
  Coordinator c;
  const auto [a, b] = c.stable_group_of_two();
  c.coord.handle(kAdmin, ListGroupsRequest{1});
  const ListGroupsResponse list = c.expect<ListGroupsResponse>(kAdmin);
  ASSERT_EQ(list.groups.size(), 1u);
  EXPECT_EQ(list.groups[0].group_id, kGroup);
  EXPECT_EQ(list.groups[0].protocol_type, "consumer");
  EXPECT_EQ(list.groups[0].state, "Stable");

  c.coord.handle(kAdmin, DescribeGroupsRequest{2, kGroup});
  const DescribeGroupsResponse d = c.expect<DescribeGroupsResponse>(kAdmin);
  EXPECT_EQ(d.state, "Stable");
  EXPECT_EQ(d.protocol_name, "range");
  ASSERT_EQ(d.members.size(), 2u);
  EXPECT_EQ(d.members[1].member_id, b);
  EXPECT_EQ(d.members[1].assignment, "pb");
  EXPECT_EQ(d.members[1].metadata, "sub");

  c.coord.handle(kAdmin, DescribeGroupsRequest{3, "unknown"});
  const DescribeGroupsResponse unknown = c.expect<DescribeGroupsResponse>(kAdmin);
  EXPECT_EQ(unknown.error, ErrorCode::NONE);
  EXPECT_EQ(unknown.state, "Dead");
  EXPECT_TRUE(unknown.members.empty());
}

TEST(Admin, DeleteGroupsOnlyWhenEmpty) {
  Coordinator c;
  c.coord.handle(kAdmin, DeleteGroupsRequest{1, kGroup});
  EXPECT_EQ(c.expect<DeleteGroupsResponse>(kAdmin).error, ErrorCode::GROUP_ID_NOT_FOUND);
  const auto [a, b] = c.stable_group_of_two();
  c.coord.handle(kAdmin, DeleteGroupsRequest{2, kGroup});
  EXPECT_EQ(c.expect<DeleteGroupsResponse>(kAdmin).error, ErrorCode::NON_EMPTY_GROUP);
  c.commit(kA, a, 1, 11);
  c.host.complete_all();
  c.expect<OffsetCommitResponse>(kA);
  c.leave(kA, {{a, std::nullopt, ""}, {b, std::nullopt, ""}});
  c.host.complete_all();  // the Empty group's record
  ASSERT_EQ(c.coord.group_state(kGroup), "Empty");

  c.coord.handle(kAdmin, DeleteGroupsRequest{3, kGroup});
  EXPECT_FALSE(c.take<DeleteGroupsResponse>(kAdmin).has_value());
  ASSERT_EQ(c.host.pending.size(), 1u);
  ASSERT_EQ(c.host.pending[0].records.size(), 2u);  // the group and its one offset
  for (const Record& r : c.host.pending[0].records) EXPECT_FALSE(r.value.has_value());
  c.host.complete_all();
  EXPECT_EQ(c.expect<DeleteGroupsResponse>(kAdmin).error, ErrorCode::NONE);
  EXPECT_EQ(c.coord.group_state(kGroup), "Dead");
  EXPECT_EQ(c.fetch(), -1);

  // Replaying the log (with its tombstones) finds nothing either.
  Coordinator reloaded(GroupCoordinatorConfig{}, false);
  reloaded.host.logs = c.host.logs;
  reloaded.coord.on_leadership({0, 1, 2, 3}, kPartitions);
  EXPECT_EQ(reloaded.coord.group_state(kGroup), "Dead");
  EXPECT_EQ(reloaded.fetch(), -1);
}

TEST(Admin, OffsetDeleteRefusedWhileMembersExist) {
  Coordinator c;
  const auto [a, b] = c.stable_group_of_two();
  c.commit(kA, a, 1, 11);
  c.host.complete_all();
  c.expect<OffsetCommitResponse>(kA);
  OffsetDeleteRequest del;
  del.group_id = kGroup;
  del.partitions = {{"t", PartitionId(0)}};
  c.coord.handle(kAdmin, del);
  const OffsetDeleteResponse refused = c.expect<OffsetDeleteResponse>(kAdmin);
  ASSERT_EQ(refused.partitions.size(), 1u);
  EXPECT_EQ(refused.partitions[0].error, ErrorCode::GROUP_SUBSCRIBED_TO_TOPIC);
  c.leave(kA, {{a, std::nullopt, ""}, {b, std::nullopt, ""}});
  c.host.complete_all();
  c.coord.handle(kAdmin, del);
  EXPECT_FALSE(c.take<OffsetDeleteResponse>(kAdmin).has_value());
  c.host.complete_all();
  const OffsetDeleteResponse done = c.expect<OffsetDeleteResponse>(kAdmin);
  EXPECT_EQ(done.error, ErrorCode::NONE);
  EXPECT_EQ(done.partitions[0].error, ErrorCode::NONE);
  EXPECT_EQ(c.fetch(), -1);
}

}  // namespace
}  // namespace logsim::engine

// ------------------------------------------------------------------ offsets.retention.minutes

namespace logsim::engine {
namespace {

// Retention of one minute, checked every 10 s (from the coordinator's first leadership, t=0).
GroupCoordinatorConfig short_retention() {
  GroupCoordinatorConfig config;
  config.offsets_retention_minutes = 1;
  config.offsets_retention_check_interval_ms = 10000;
  return config;
}

// The tombstones among the log's records for the group's keys.
int tombstones(const FakeHost& host) {
  int n = 0;
  for (const auto& [p, log] : host.logs) {
    for (const StoredRecord& r : log) n += r.record.value ? 0 : 1;
  }
  return n;
}

TEST(OffsetsRetention, AnEmptyGroupsOffsetsExpireRetentionAfterItBecameEmptyAndTheGroupGoes) {
  Coordinator c(short_retention());
  const auto [a, b] = c.stable_group_of_two();  // at 6 s
  c.commit(kA, a, 1, 42);
  c.host.complete_all();
  ASSERT_EQ(c.commit_error(kA), ErrorCode::NONE);
  for (int i = 0; i < 3; ++i) {  // a group with members keeps its offsets, however old
    c.advance_ms(20000);
    ASSERT_EQ(c.heartbeat(kA, a, 1), ErrorCode::NONE);
    ASSERT_EQ(c.heartbeat(kB, b, 1), ErrorCode::NONE);
  }
  EXPECT_EQ(c.fetch(), 42);
  c.leave(kA, {{a, std::nullopt, ""}, {b, std::nullopt, ""}});  // Empty at 66 s
  c.host.complete_all();
  ASSERT_EQ(c.coord.group_state(kGroup), "Empty");
  c.advance_ms(59000);  // 125 s: Empty for 59 s
  EXPECT_EQ(c.fetch(), 42);
  EXPECT_EQ(tombstones(c.host), 0);
  c.advance_ms(10000);  // the check at 130 s: Empty for 64 s
  EXPECT_EQ(c.fetch(), -1);
  c.host.complete_all();
  EXPECT_EQ(tombstones(c.host), 2) << "the offset's and the group record's";
  EXPECT_EQ(c.coord.group_state(kGroup), "Dead");
}

TEST(OffsetsRetention, StandaloneCommitsExpireEachByItsCommitTime) {
  Coordinator c(short_retention());
  c.commit(kAdmin, "", -1, 7, "t", 0);  // at 0 s
  c.host.complete_all();
  ASSERT_EQ(c.commit_error(kAdmin), ErrorCode::NONE);
  c.advance_ms(30000);
  c.commit(kAdmin, "", -1, 9, "t", 1);  // at 30 s
  c.host.complete_all();
  ASSERT_EQ(c.commit_error(kAdmin), ErrorCode::NONE);
  c.advance_ms(35000);  // the check at 60 s expired t-0 only
  EXPECT_EQ(c.fetch("t", 0), -1);
  EXPECT_EQ(c.fetch("t", 1), 9);
  c.advance_ms(30000);  // and the one at 90 s t-1
  EXPECT_EQ(c.fetch("t", 1), -1);
}

TEST(OffsetsRetention, TheDefaultIsSevenDaysCheckedEveryTenMinutes) {
  const GroupCoordinatorConfig config;
  EXPECT_EQ(config.offsets_retention_minutes, 10080);
  EXPECT_EQ(config.offsets_retention_check_interval_ms, 600000);
  Coordinator c;
  c.commit(kAdmin, "", -1, 7);
  c.host.complete_all();
  ASSERT_EQ(c.commit_error(kAdmin), ErrorCode::NONE);
  c.advance_ms(std::int64_t{10079} * 60000);
  EXPECT_EQ(c.fetch(), 7);
  c.advance_ms(std::int64_t{11} * 60000);
  EXPECT_EQ(c.fetch(), -1);
}

}  // namespace
}  // namespace logsim::engine

// Tests of the group coordinator (Kafka's classic group protocol): membership (JoinGroup,
// SyncGroup, Heartbeat, sessions, LeaveGroup, static membership) transition by transition, the
// Group model, and the __consumer_offsets record encoding. Offsets, loading and the admin APIs
// are in group_offsets_test.cc; the fixture is group_coordinator_fixture.h.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/tests/coordinator/group_coordinator_fixture.h"

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

// ------------------------------------------------------------------ partition_for

TEST(PartitionFor, MatchesJavaStringHashCode) {
  // "".hashCode() == 0, "a" == 97, "ab" == 3105, "hello" == 99162322.
  EXPECT_EQ(GroupCoordinator::partition_for("", 50), PartitionId(0));
  EXPECT_EQ(GroupCoordinator::partition_for("a", 50), PartitionId(47));
  EXPECT_EQ(GroupCoordinator::partition_for("ab", 50), PartitionId(5));
  EXPECT_EQ(GroupCoordinator::partition_for("hello", 50), PartitionId(22));
  // "polygenelubricants".hashCode() == Integer.MIN_VALUE, whose Kafka abs is 0.
  EXPECT_EQ(GroupCoordinator::partition_for("polygenelubricants", 50), PartitionId(0));
  EXPECT_EQ(GroupCoordinator::partition_for("polygenelubricants", 7), PartitionId(0));
}

// ------------------------------------------------------------------ offsets records

TEST(OffsetsRecords, RoundTripWithOddBytes) {
  const std::string odd("a\0|b\xff\n", 6);
  const OffsetCommitKey ck{odd, "topic|" + odd, PartitionId(-7)};
  const OffsetCommitValue cv{Offset(-1), odd, -123456789012345};
  const auto ck2 = decode_key(encode_key(ck));
  ASSERT_TRUE(ck2.has_value());
  EXPECT_EQ(std::get<OffsetCommitKey>(*ck2), ck);
  EXPECT_EQ(decode_offset_commit_value(encode_value(cv)), cv);

  GroupMetadataValue gv{"consumer", 42, "range", "m1", {}};
  gv.members.push_back({"m1", std::nullopt, "c\0", 6000, 300000, odd, ""});
  gv.members.push_back({"m2|x", std::string("inst\0", 5), "c2", 45000, 1, "", odd});
  const GroupMetadataKey gk{odd};
  const auto gk2 = decode_key(encode_key(gk));
  ASSERT_TRUE(gk2.has_value());
  EXPECT_EQ(std::get<GroupMetadataKey>(*gk2), gk);
  EXPECT_EQ(decode_group_metadata_value(encode_value(gv)), gv);
  EXPECT_EQ(decode_group_metadata_value(encode_value(GroupMetadataValue{})), GroupMetadataValue{});
}

TEST(OffsetsRecords, KeysOfTheTwoKindsNeverCollide) {
  EXPECT_NE(encode_key(GroupMetadataKey{"g"}), encode_key(OffsetCommitKey{"g", "", PartitionId(0)}));
  EXPECT_NE(encode_key(OffsetCommitKey{"g", "t", PartitionId(0)}), encode_key(OffsetCommitKey{"g", "t", PartitionId(1)}));
  EXPECT_NE(encode_key(OffsetCommitKey{"g", "t1", PartitionId(0)}), encode_key(OffsetCommitKey{"g", "t", PartitionId(10)}));
  EXPECT_NE(encode_key(GroupMetadataKey{"g1"}), encode_key(GroupMetadataKey{"g"}));
}

TEST(OffsetsRecords, MalformedDataDecodesToNothing) {
  const std::string value = encode_value(GroupMetadataValue{"consumer", 1, "range", "m", {{"m", {}, "c", 1, 2, "s", "a"}}});
  for (std::size_t n = 0; n < value.size(); ++n) {
    EXPECT_FALSE(decode_group_metadata_value(value.substr(0, n)).has_value()) << "prefix " << n;
  }
  EXPECT_FALSE(decode_group_metadata_value(value + "x").has_value());
  // A member count far beyond the bytes present.
  std::string huge = encode_value(GroupMetadataValue{});
  huge[huge.size() - 4] = '\x7f';
  EXPECT_FALSE(decode_group_metadata_value(huge).has_value());
  const std::string offset = encode_value(OffsetCommitValue{Offset(5), "m", 1});
  EXPECT_FALSE(decode_offset_commit_value(offset.substr(0, offset.size() - 1)).has_value());
  EXPECT_FALSE(decode_key("").has_value());
  EXPECT_FALSE(decode_key(std::string("\0\x09garbage", 9)).has_value());
  EXPECT_FALSE(decode_key(encode_key(GroupMetadataKey{"g"}) + "!").has_value());
}

// ------------------------------------------------------------------ the Group model

Member member(std::string id, std::vector<JoinGroupProtocol> protocols) {
  Member m;
  m.member_id = std::move(id);
  m.protocols = std::move(protocols);
  m.rebalance_timeout_ms = 1000;
  return m;
}

TEST(GroupModel, ProtocolVoteMajorityThenLeaderPreference) {
  Group g("g", 1);
  g.add(member("a", {{"range", ""}, {"rr", ""}}), "consumer");
  g.add(member("b", {{"rr", ""}, {"range", ""}}), "consumer");
  EXPECT_EQ(g.select_protocol(), "range");  // one vote each: the leader (a) prefers range
  g.add(member("c", {{"rr", ""}, {"range", ""}}), "consumer");
  EXPECT_EQ(g.select_protocol(), "rr");  // two votes to one
  EXPECT_TRUE(g.supports_protocols("consumer", {{"sticky", ""}, {"rr", ""}}));
  EXPECT_FALSE(g.supports_protocols("consumer", {{"sticky", ""}}));
  EXPECT_FALSE(g.supports_protocols("connect", {{"rr", ""}}));
}

TEST(GroupModel, LeaderMovesToFirstRemainingMember) {
  Group g("g", 1);
  g.add(member("a", {{"range", ""}}), "consumer");
  g.add(member("b", {{"range", ""}}), "consumer");
  g.add(member("c", {{"range", ""}}), "consumer");
  EXPECT_EQ(g.leader(), "a");
  g.remove("a");
  EXPECT_EQ(g.leader(), "b");
  g.remove("c");
  EXPECT_EQ(g.leader(), "b");
}

TEST(GroupModel, IllegalTransitionIsAnInvariantError) {
  Group g("g", 1);
  EXPECT_THROW(g.transition_to(GroupState::kStable), InvariantError);
  g.transition_to(GroupState::kPreparingRebalance);
  EXPECT_THROW(g.transition_to(GroupState::kStable), InvariantError);
}

// ------------------------------------------------------------------ JoinGroup

TEST(JoinGroup, NewDynamicMemberGetsMemberIdRequiredThenJoins) {
  Coordinator c;
  c.coord.handle(kA, c.join_request(""));
  const JoinGroupResponse first = c.expect<JoinGroupResponse>(kA);
  EXPECT_EQ(first.error, ErrorCode::MEMBER_ID_REQUIRED);
  EXPECT_EQ(first.member_id.rfind("client-", 0), 0u) << first.member_id;
  EXPECT_EQ(c.coord.group_state(kGroup), "Empty");

  c.coord.handle(kA, c.join_request(first.member_id));
  EXPECT_FALSE(c.take<JoinGroupResponse>(kA).has_value()) << "held until the initial delay ends";
  EXPECT_EQ(c.coord.group_state(kGroup), "PreparingRebalance");
  c.advance_ms(2999);
  EXPECT_FALSE(c.take<JoinGroupResponse>(kA).has_value());
  c.advance_ms(1);
  const JoinGroupResponse joined = c.expect<JoinGroupResponse>(kA);
  EXPECT_EQ(joined.error, ErrorCode::NONE);
  EXPECT_EQ(joined.generation_id, 1);
  EXPECT_EQ(joined.member_id, first.member_id);
  EXPECT_EQ(joined.leader, first.member_id);
  EXPECT_EQ(joined.protocol_name, "range");
  ASSERT_EQ(joined.members.size(), 1u);
  EXPECT_EQ(joined.members[0].metadata, "sub");
  EXPECT_EQ(c.coord.group_state(kGroup), "CompletingRebalance");
}

// A client of JoinGroup v0 to v3 (before KIP-394) is never answered MEMBER_ID_REQUIRED: its first
// JoinGroup adds it with a new id, as Kafka's coordinator does (Sarama 1.22 stops otherwise).
TEST(JoinGroup, AMemberOfAnOlderVersionJoinsWithoutTheMemberIdRound) {
  Coordinator c;
  JoinGroupRequest first = c.join_request("");
  first.require_known_member_id = false;
  c.coord.handle(kA, first);
  EXPECT_FALSE(c.take<JoinGroupResponse>(kA).has_value()) << "held until the initial delay ends, as a member";
  EXPECT_EQ(c.coord.group_state(kGroup), "PreparingRebalance");
  c.advance_ms(3000);
  const JoinGroupResponse joined = c.expect<JoinGroupResponse>(kA);
  EXPECT_EQ(joined.error, ErrorCode::NONE);
  EXPECT_EQ(joined.generation_id, 1);
  EXPECT_EQ(joined.member_id.rfind("client-", 0), 0u) << joined.member_id;
  EXPECT_EQ(joined.leader, joined.member_id);
  EXPECT_EQ(c.coord.group_state(kGroup), "CompletingRebalance");
}

TEST(JoinGroup, MemberIdsAreDeterministicAndDistinct) {
  Coordinator c1;
  Coordinator c2;
  const std::string a1 = c1.join_new_member(kA);
  const std::string b1 = c1.join_new_member(kB);
  EXPECT_EQ(a1, c2.join_new_member(kA));
  EXPECT_EQ(b1, c2.join_new_member(kB));
  EXPECT_NE(a1, b1);
}

TEST(JoinGroup, UnknownMemberIdOfAPendingMemberIsForgottenAfterItsSession) {
  Coordinator c;
  c.coord.handle(kA, c.join_request(""));
  const std::string id = c.expect<JoinGroupResponse>(kA).member_id;
  c.advance_ms(30000);
  c.coord.handle(kA, c.join_request(id));
  EXPECT_EQ(c.expect<JoinGroupResponse>(kA).error, ErrorCode::UNKNOWN_MEMBER_ID);
}

TEST(JoinGroup, SecondMemberDuringInitialDelayLandsInGenerationOne) {
  Coordinator c;
  const std::string a = c.join_new_member(kA);
  c.advance_ms(2000);
  const std::string b = c.join_new_member(kB);  // extends the delay by another 3 s
  c.advance_ms(1000);                           // t = 3 s: the first delay ends
  EXPECT_FALSE(c.take<JoinGroupResponse>(kA).has_value());
  c.advance_ms(3000);  // t = 6 s
  const JoinGroupResponse ra = c.expect<JoinGroupResponse>(kA);
  const JoinGroupResponse rb = c.expect<JoinGroupResponse>(kB);
  EXPECT_EQ(ra.generation_id, 1);
  EXPECT_EQ(rb.generation_id, 1);
  EXPECT_EQ(ra.leader, a);
  EXPECT_EQ(rb.leader, a);
  ASSERT_EQ(ra.members.size(), 2u) << "the leader gets every member";
  EXPECT_EQ(ra.members[0].member_id, a);
  EXPECT_EQ(ra.members[1].member_id, b);
  EXPECT_TRUE(rb.members.empty()) << "followers get no members";
}

TEST(JoinGroup, InitialDelayNeverPassesTheRebalanceTimeout) {
  Coordinator c;
  JoinGroupRequest r = c.join_request("");
  r.rebalance_timeout_ms = 4000;
  c.coord.handle(kA, r);
  r.member_id = c.expect<JoinGroupResponse>(kA).member_id;
  r.correlation_id = c.next_correlation++;
  c.coord.handle(kA, r);
  c.advance_ms(1000);
  c.join_new_member(kB);  // would extend to 6 s, but the rebalance timeout caps it at 4 s
  c.advance_ms(2999);
  EXPECT_FALSE(c.take<JoinGroupResponse>(kA).has_value());
  c.advance_ms(1);
  EXPECT_EQ(c.expect<JoinGroupResponse>(kA).generation_id, 1);
}

TEST(JoinGroup, RebalanceOfANonEmptyGroupCompletesWhenAllMembersRejoin) {
  Coordinator c;
  const auto [a, b] = c.stable_group_of_two();
  c.rejoin(kA, a);  // the leader rejoining starts a rebalance
  EXPECT_EQ(c.coord.group_state(kGroup), "PreparingRebalance");
  EXPECT_FALSE(c.take<JoinGroupResponse>(kA).has_value());
  EXPECT_EQ(c.heartbeat(kB, b, 1), ErrorCode::REBALANCE_IN_PROGRESS);
  c.rejoin(kB, b);  // no timer needed: everyone is in
  EXPECT_EQ(c.expect<JoinGroupResponse>(kA).generation_id, 2);
  EXPECT_EQ(c.expect<JoinGroupResponse>(kB).generation_id, 2);
  EXPECT_EQ(c.coord.group_state(kGroup), "CompletingRebalance");
}

TEST(JoinGroup, FollowerRejoiningAStableGroupWithSameProtocolsIsAnsweredAtOnce) {
  Coordinator c;
  const auto [a, b] = c.stable_group_of_two();
  c.rejoin(kB, b);
  const JoinGroupResponse r = c.expect<JoinGroupResponse>(kB);
  EXPECT_EQ(r.error, ErrorCode::NONE);
  EXPECT_EQ(r.generation_id, 1);
  EXPECT_EQ(r.leader, a);
  EXPECT_EQ(c.coord.group_state(kGroup), "Stable");
}

TEST(JoinGroup, RequestErrors) {
  GroupCoordinatorConfig config;
  config.group_max_size = 1;
  Coordinator c(config);
  JoinGroupRequest r = c.join_request("");
  r.session_timeout_ms = 5999;
  c.coord.handle(kA, r);
  EXPECT_EQ(c.expect<JoinGroupResponse>(kA).error, ErrorCode::INVALID_SESSION_TIMEOUT);
  r = c.join_request("");
  r.group_id = "";
  c.coord.handle(kA, r);
  EXPECT_EQ(c.expect<JoinGroupResponse>(kA).error, ErrorCode::INVALID_GROUP_ID);
  c.coord.handle(kA, c.join_request("someone"));
  EXPECT_EQ(c.expect<JoinGroupResponse>(kA).error, ErrorCode::UNKNOWN_MEMBER_ID);

  c.join_new_member(kA);
  c.coord.handle(kB, c.join_request("", std::nullopt, {{"roundrobin", ""}}));
  EXPECT_EQ(c.expect<JoinGroupResponse>(kB).error, ErrorCode::INCONSISTENT_GROUP_PROTOCOL);
  r = c.join_request("");
  r.protocol_type = "connect";
  c.coord.handle(kB, r);
  EXPECT_EQ(c.expect<JoinGroupResponse>(kB).error, ErrorCode::INCONSISTENT_GROUP_PROTOCOL);
  c.coord.handle(kB, c.join_request(""));
  EXPECT_EQ(c.expect<JoinGroupResponse>(kB).error, ErrorCode::GROUP_MAX_SIZE_REACHED);
}

// ------------------------------------------------------------------ SyncGroup

TEST(SyncGroup, LeaderAssignmentIsPersistedBeforeAnyMemberGetsIt) {
  Coordinator c;
  const std::string a = c.join_new_member(kA);
  const std::string b = c.join_new_member(kB);
  c.advance_ms(6000);
  c.expect<JoinGroupResponse>(kA);
  c.expect<JoinGroupResponse>(kB);
  c.sync(kB, b, 1);
  c.sync(kA, a, 1, {{a, "pa"}, {b, "pb"}});
  EXPECT_FALSE(c.take<SyncGroupResponse>(kA).has_value());
  EXPECT_FALSE(c.take<SyncGroupResponse>(kB).has_value());
  EXPECT_EQ(c.coord.group_state(kGroup), "CompletingRebalance");
  ASSERT_EQ(c.host.pending.size(), 1u);
  ASSERT_EQ(c.host.pending[0].records.size(), 1u);
  EXPECT_EQ(c.host.pending[0].partition, GroupCoordinator::partition_for(kGroup, kPartitions));
  const Record& rec = c.host.pending[0].records[0];
  ASSERT_TRUE(rec.key && rec.value);
  EXPECT_EQ(std::get<GroupMetadataKey>(*decode_key(*rec.key)).group_id, kGroup);
  const auto stored = decode_group_metadata_value(*rec.value);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->generation, 1);
  EXPECT_EQ(stored->leader, a);
  ASSERT_EQ(stored->members.size(), 2u);
  EXPECT_EQ(stored->members[1].assignment, "pb");

  c.host.complete_next();
  EXPECT_EQ(c.expect<SyncGroupResponse>(kA).assignment, "pa");
  const SyncGroupResponse rb = c.expect<SyncGroupResponse>(kB);
  EXPECT_EQ(rb.error, ErrorCode::NONE);
  EXPECT_EQ(rb.assignment, "pb");
  EXPECT_EQ(rb.protocol_name, "range");
  EXPECT_EQ(c.coord.group_state(kGroup), "Stable");
  // A late sync in Stable is answered at once.
  c.sync(kB, b, 1);
  EXPECT_EQ(c.expect<SyncGroupResponse>(kB).assignment, "pb");
}

TEST(SyncGroup, FailedPersistAnswersHeldSyncsAndRebalances) {
  Coordinator c;
  const std::string a = c.join_new_member(kA);
  c.advance_ms(3000);
  c.expect<JoinGroupResponse>(kA);
  c.sync(kA, a, 1, {{a, "pa"}});
  c.host.complete_next(ErrorCode::NOT_LEADER_OR_FOLLOWER);
  EXPECT_EQ(c.expect<SyncGroupResponse>(kA).error, ErrorCode::NOT_COORDINATOR);
  EXPECT_EQ(c.coord.group_state(kGroup), "PreparingRebalance");
}

TEST(SyncGroup, Errors) {
  Coordinator c;
  c.sync(kA, "nobody", 1);
  EXPECT_EQ(c.expect<SyncGroupResponse>(kA).error, ErrorCode::UNKNOWN_MEMBER_ID);
  const auto [a, b] = c.stable_group_of_two();
  c.sync(kA, a, 7);
  EXPECT_EQ(c.expect<SyncGroupResponse>(kA).error, ErrorCode::ILLEGAL_GENERATION);
  c.rejoin(kA, a);
  c.sync(kB, b, 1);
  EXPECT_EQ(c.expect<SyncGroupResponse>(kB).error, ErrorCode::REBALANCE_IN_PROGRESS);
}

TEST(SyncGroup, HeldSyncIsAnsweredRebalanceInProgressWhenARebalanceStarts) {
  Coordinator c;
  const std::string a = c.join_new_member(kA);
  const std::string b = c.join_new_member(kB);
  c.advance_ms(6000);
  c.expect<JoinGroupResponse>(kA);
  c.expect<JoinGroupResponse>(kB);
  c.sync(kB, b, 1);
  c.coord.handle(kA, c.join_request(a, std::nullopt, {range("changed")}));
  EXPECT_EQ(c.expect<SyncGroupResponse>(kB).error, ErrorCode::REBALANCE_IN_PROGRESS);
  EXPECT_EQ(c.coord.group_state(kGroup), "PreparingRebalance");
}

// ------------------------------------------------------------------ Heartbeat and sessions

TEST(Heartbeat, ErrorsInEachState) {
  Coordinator c;
  EXPECT_EQ(c.heartbeat(kA, "nobody", 0), ErrorCode::UNKNOWN_MEMBER_ID);  // unknown group
  const std::string a = c.join_new_member(kA);
  const std::string b = c.join_new_member(kB);
  EXPECT_EQ(c.heartbeat(kA, a, 0), ErrorCode::REBALANCE_IN_PROGRESS);  // PreparingRebalance
  c.advance_ms(6000);
  EXPECT_EQ(c.heartbeat(kA, a, 1), ErrorCode::NONE);  // CompletingRebalance
  EXPECT_EQ(c.heartbeat(kA, a, 0), ErrorCode::ILLEGAL_GENERATION);
  EXPECT_EQ(c.heartbeat(kA, "nobody", 1), ErrorCode::UNKNOWN_MEMBER_ID);
  c.sync(kA, a, 1, {{a, "pa"}, {b, "pb"}});
  c.host.complete_all();
  EXPECT_EQ(c.heartbeat(kB, b, 1), ErrorCode::NONE);  // Stable
  c.leave(kA, {{a, std::nullopt, ""}, {b, std::nullopt, ""}});
  EXPECT_EQ(c.coord.group_state(kGroup), "Empty");
  EXPECT_EQ(c.heartbeat(kB, b, 2), ErrorCode::UNKNOWN_MEMBER_ID);  // Empty
}

TEST(Session, ExpiryRemovesTheMemberAndRebalances) {
  Coordinator c;
  const auto [a, b] = c.stable_group_of_two();
  for (int i = 0; i < 10; ++i) {  // b heartbeats every 3 s; a is silent
    c.advance_ms(3000);
    if (c.coord.group_state(kGroup) != "Stable") break;
    ASSERT_EQ(c.heartbeat(kB, b, 1), ErrorCode::NONE);
  }
  EXPECT_EQ(c.coord.group_state(kGroup), "PreparingRebalance");
  EXPECT_EQ(c.heartbeat(kB, b, 1), ErrorCode::REBALANCE_IN_PROGRESS);
  c.rejoin(kB, b);  // the only member left has rejoined: the join completes
  const JoinGroupResponse r = c.expect<JoinGroupResponse>(kB);
  EXPECT_EQ(r.generation_id, 2);
  EXPECT_EQ(r.leader, b);
  ASSERT_EQ(r.members.size(), 1u);
  EXPECT_EQ(c.heartbeat(kA, a, 2), ErrorCode::UNKNOWN_MEMBER_ID);
}

TEST(Session, MemberWithAHeldJoinOutlivesItsSession) {
  Coordinator c;
  const auto [a, b] = c.stable_group_of_two();
  c.rejoin(kA, a);           // held: the rebalance timeout (60 s) is longer than the session (30 s)
  c.advance_ms(30000);       // b's session ends; a waits on us and is kept
  const JoinGroupResponse r = c.expect<JoinGroupResponse>(kA);
  EXPECT_EQ(r.generation_id, 2);
  ASSERT_EQ(r.members.size(), 1u);
  EXPECT_EQ(r.members[0].member_id, a);
  EXPECT_EQ(c.heartbeat(kB, b, 1), ErrorCode::UNKNOWN_MEMBER_ID);
}

TEST(Session, LastMemberExpiringEmptiesTheGroupAndPersistsIt) {
  Coordinator c;
  const auto [a, b] = c.stable_group_of_two();
  c.advance_ms(30000);
  EXPECT_EQ(c.coord.group_state(kGroup), "Empty");
  EXPECT_EQ(c.coord.group_generation(kGroup), 2);
  ASSERT_EQ(c.host.pending.size(), 1u);
  const auto stored = decode_group_metadata_value(*c.host.pending[0].records[0].value);
  ASSERT_TRUE(stored.has_value());
  EXPECT_TRUE(stored->members.empty());
  EXPECT_EQ(stored->generation, 2);
}

// ------------------------------------------------------------------ LeaveGroup

TEST(LeaveGroup, RemovesMembersAndRebalances) {
  Coordinator c;
  const auto [a, b] = c.stable_group_of_two();
  c.coord.handle(kC, c.join_request(""));
  const std::string pending = c.expect<JoinGroupResponse>(kC).member_id;
  EXPECT_EQ(c.leave(kB, {{b, std::nullopt, "bye"}, {"nobody", std::nullopt, ""}, {pending, std::nullopt, ""}}),
            (std::vector<ErrorCode>{ErrorCode::NONE, ErrorCode::UNKNOWN_MEMBER_ID, ErrorCode::NONE}));
  EXPECT_EQ(c.coord.group_state(kGroup), "PreparingRebalance");
  c.rejoin(kA, a);
  const JoinGroupResponse r = c.expect<JoinGroupResponse>(kA);
  EXPECT_EQ(r.generation_id, 2);
  EXPECT_EQ(r.members.size(), 1u);
}

// ------------------------------------------------------------------ static membership

TEST(StaticMembership, RejoinKeepsAssignmentWithoutRebalanceAndFencesTheOldId) {
  Coordinator c;
  c.coord.handle(kA, c.join_request("", std::string("inst-a")));
  c.coord.handle(kB, c.join_request("", std::string("inst-b")));
  c.advance_ms(6000);
  const JoinGroupResponse ja = c.expect<JoinGroupResponse>(kA);
  const JoinGroupResponse jb = c.expect<JoinGroupResponse>(kB);
  ASSERT_EQ(ja.error, ErrorCode::NONE) << "static members need no MEMBER_ID_REQUIRED round";
  const std::string a = ja.member_id;
  const std::string b = jb.member_id;
  c.sync(kA, a, 1, {{a, "pa"}, {b, "pb"}}, std::string("inst-a"));
  c.host.complete_all();
  c.expect<SyncGroupResponse>(kA);

  // b restarts and rejoins with its instance id and no member id.
  c.coord.handle(kC, c.join_request("", std::string("inst-b")));
  EXPECT_FALSE(c.take<JoinGroupResponse>(kC).has_value()) << "answered once the new id is persisted";
  ASSERT_EQ(c.host.pending.size(), 1u);
  c.host.complete_next();
  const JoinGroupResponse rejoined = c.expect<JoinGroupResponse>(kC);
  EXPECT_EQ(rejoined.error, ErrorCode::NONE);
  EXPECT_EQ(rejoined.generation_id, 1);
  EXPECT_NE(rejoined.member_id, b);
  EXPECT_EQ(rejoined.leader, a);
  EXPECT_EQ(c.coord.group_state(kGroup), "Stable");
  EXPECT_EQ(c.coord.group_generation(kGroup), 1);

  c.sync(kC, rejoined.member_id, 1, {}, std::string("inst-b"));
  EXPECT_EQ(c.expect<SyncGroupResponse>(kC).assignment, "pb");
  EXPECT_EQ(c.heartbeat(kB, b, 1, std::string("inst-b")), ErrorCode::FENCED_INSTANCE_ID);
  c.sync(kB, b, 1, {}, std::string("inst-b"));
  EXPECT_EQ(c.expect<SyncGroupResponse>(kB).error, ErrorCode::FENCED_INSTANCE_ID);
  OffsetCommitRequest commit;
  commit.group_id = kGroup;
  commit.generation_id = 1;
  commit.member_id = b;
  commit.group_instance_id = "inst-b";
  commit.partitions.push_back({"t", PartitionId(0), Offset(1), ""});
  c.coord.handle(kB, commit);
  EXPECT_EQ(c.commit_error(kB), ErrorCode::FENCED_INSTANCE_ID);
  EXPECT_EQ(c.leave(kB, {{b, std::string("inst-b"), ""}}), std::vector<ErrorCode>{ErrorCode::FENCED_INSTANCE_ID});
  EXPECT_EQ(c.heartbeat(kC, rejoined.member_id, 1, std::string("inst-b")), ErrorCode::NONE);

  // The leader restarts too: it is told the old leader id, so it does not take itself for the
  // leader and compute an assignment the Stable group would ignore.
  c.coord.handle(kA, c.join_request("", std::string("inst-a")));
  c.host.complete_next();
  const JoinGroupResponse leader_back = c.expect<JoinGroupResponse>(kA);
  EXPECT_EQ(leader_back.error, ErrorCode::NONE);
  EXPECT_NE(leader_back.member_id, a);
  EXPECT_EQ(leader_back.leader, a);
  EXPECT_TRUE(leader_back.members.empty());
  EXPECT_EQ(c.coord.group_generation(kGroup), 1);
  c.sync(kA, leader_back.member_id, 1, {}, std::string("inst-a"));
  EXPECT_EQ(c.expect<SyncGroupResponse>(kA).assignment, "pa");
}

TEST(StaticMembership, FailedPersistOfARejoinKeepsTheOldMemberId) {
  Coordinator c;
  c.coord.handle(kA, c.join_request("", std::string("inst-a")));
  c.advance_ms(3000);
  const std::string a = c.expect<JoinGroupResponse>(kA).member_id;
  c.sync(kA, a, 1, {{a, "pa"}}, std::string("inst-a"));
  c.host.complete_all();
  c.expect<SyncGroupResponse>(kA);
  c.coord.handle(kC, c.join_request("", std::string("inst-a")));
  c.host.complete_next(ErrorCode::REQUEST_TIMED_OUT);
  EXPECT_EQ(c.expect<JoinGroupResponse>(kC).error, ErrorCode::REBALANCE_IN_PROGRESS);
  EXPECT_EQ(c.heartbeat(kA, a, 1, std::string("inst-a")), ErrorCode::NONE);
  EXPECT_EQ(c.coord.group_state(kGroup), "Stable");
}

TEST(StaticMembership, NewInstanceJoiningAStableGroupRebalances) {
  Coordinator c;
  const auto [a, b] = c.stable_group_of_two();
  c.coord.handle(kC, c.join_request("", std::string("inst-c")));
  EXPECT_EQ(c.coord.group_state(kGroup), "PreparingRebalance");
  c.rejoin(kA, a);
  c.rejoin(kB, b);
  const JoinGroupResponse r = c.expect<JoinGroupResponse>(kC);
  EXPECT_EQ(r.generation_id, 2);
  EXPECT_EQ(c.expect<JoinGroupResponse>(kA).members.size(), 3u);
}

}  // namespace
}  // namespace logsim::engine

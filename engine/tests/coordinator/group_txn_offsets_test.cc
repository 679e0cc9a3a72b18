// Tests of transactional offset commits in the group coordinator (TxnOffsetCommit, and the
// markers that end a transaction's offsets): Kafka's GroupMetadataManager rules, live and as
// replayed from the log. The fixture is group_coordinator_fixture.h.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/tests/coordinator/group_coordinator_fixture.h"

namespace logsim::engine {
namespace {

using coordtest::Coordinator;
using coordtest::kA;
using coordtest::kB;
using coordtest::kGroup;
using coordtest::kPartitions;

const NodeId kProducer(7);
const ProducerId kPid(1000);
const ProducerId kOtherPid(2000);
const std::int32_t kOffsetsPartition = GroupCoordinator::partition_for(kGroup, kPartitions).value();

TxnOffsetCommitRequest txn_commit(std::int64_t offset, ProducerId pid = kPid, std::string member_id = "",
                                  std::int32_t generation = -1, std::optional<std::string> instance = std::nullopt) {
  TxnOffsetCommitRequest r;
  r.correlation_id = 77;
  r.transactional_id = "tx";
  r.group_id = kGroup;
  r.producer_id = pid;
  r.producer_epoch = ProducerEpoch(0);
  r.generation_id = generation;
  r.member_id = std::move(member_id);
  r.group_instance_id = std::move(instance);
  r.partitions.push_back({TopicPartition{"t", PartitionId(0)}, Offset(offset), "txn"});
  return r;
}

ErrorCode txn_commit_error(Coordinator& c) {
  const TxnOffsetCommitResponse r = c.expect<TxnOffsetCommitResponse>(kProducer);
  EXPECT_EQ(r.results.size(), 1u);
  return r.results.empty() ? ErrorCode::UNKNOWN_SERVER_ERROR : r.results[0].error;
}

// Sends a TxnOffsetCommit, lets its append complete, and returns the answer.
ErrorCode commit_in_txn(Coordinator& c, std::int64_t offset, ProducerId pid = kPid) {
  c.coord.handle(kProducer, txn_commit(offset, pid));
  c.host.complete_all();
  return txn_commit_error(c);
}

// As the broker does: the marker enters the log, then the coordinator hears of it.
void end_txn(Coordinator& c, ProducerId pid, bool commit) {
  c.host.write_marker(kOffsetsPartition, pid, commit);
  c.coord.on_txn_completed(pid, PartitionId(kOffsetsPartition), commit);
}

// A second coordinator replaying the first one's log.
std::int64_t fetch_after_reload(Coordinator& c) {
  Coordinator reloaded(GroupCoordinatorConfig{}, false);
  reloaded.host.logs = c.host.logs;
  reloaded.host.markers = c.host.markers;
  reloaded.coord.on_leadership({0, 1, 2, 3}, kPartitions);
  return reloaded.fetch();
}

TEST(TxnOffsetCommit, OffsetsAreWrittenAsTheProducersTransactionalBatchAndAnsweredOnceAppended) {
  Coordinator c;
  c.coord.handle(kProducer, txn_commit(5));
  EXPECT_FALSE(c.take<TxnOffsetCommitResponse>(kProducer).has_value());  // waits for the log
  ASSERT_EQ(c.host.pending.size(), 1u);
  ASSERT_TRUE(c.host.pending[0].writer.has_value());
  EXPECT_EQ(c.host.pending[0].writer->producer_id, kPid);
  EXPECT_EQ(c.host.pending[0].partition.value(), kOffsetsPartition);
  c.host.complete_all();
  EXPECT_EQ(txn_commit_error(c), ErrorCode::NONE);
}

TEST(TxnOffsetCommit, InvisibleUntilTheCommitMarkerAndDroppedByAnAbort) {
  Coordinator c;
  ASSERT_EQ(commit_in_txn(c, 5), ErrorCode::NONE);
  EXPECT_EQ(c.fetch(), -1);  // pending: OffsetFetch does not see it
  end_txn(c, kPid, true);
  EXPECT_EQ(c.fetch(), 5);

  ASSERT_EQ(commit_in_txn(c, 9), ErrorCode::NONE);
  end_txn(c, kPid, false);
  EXPECT_EQ(c.fetch(), 5);  // aborted: the committed offset stands
  end_txn(c, kPid, true);   // a later marker finds nothing of the aborted transaction
  EXPECT_EQ(c.fetch(), 5);
}

// KIP-447: OffsetFetch with require_stable answers UNSTABLE_OFFSET_COMMIT for a partition whose
// offset a transaction (or a plain commit being appended) may still change, by name and in a
// fetch of every partition; other partitions, and fetches without it, are answered as before.
OffsetFetchResponse fetch_stable(Coordinator& c, std::optional<std::vector<OffsetFetchPartitionRef>> partitions) {
  OffsetFetchRequest r;
  r.correlation_id = 99;
  r.group_id = kGroup;
  r.partitions = std::move(partitions);
  r.require_stable = true;
  c.coord.handle(kA, r);
  return c.expect<OffsetFetchResponse>(kA);
}

TEST(TxnOffsetCommit, RequireStableRefusesAPartitionWithOffsetsPending) {
  Coordinator c;
  c.commit(kB, "", -1, 4, "t", 0);
  c.commit(kB, "", -1, 6, "t", 1);
  c.host.complete_all();
  ASSERT_EQ(c.commit_error(kB), ErrorCode::NONE);
  ASSERT_EQ(c.commit_error(kB), ErrorCode::NONE);
  ASSERT_EQ(commit_in_txn(c, 5), ErrorCode::NONE);  // t-0 pending in the transaction

  const std::vector<OffsetFetchPartitionRef> both{{"t", PartitionId(0)}, {"t", PartitionId(1)}};
  OffsetFetchResponse r = fetch_stable(c, both);
  ASSERT_EQ(r.partitions.size(), 2u);
  EXPECT_EQ(r.partitions[0].error, ErrorCode::UNSTABLE_OFFSET_COMMIT);
  EXPECT_EQ(r.partitions[0].committed_offset.value(), -1);
  EXPECT_EQ(r.partitions[1].error, ErrorCode::NONE);
  EXPECT_EQ(r.partitions[1].committed_offset.value(), 6);
  r = fetch_stable(c, std::nullopt);  // every committed partition
  ASSERT_EQ(r.partitions.size(), 2u);
  EXPECT_EQ(r.partitions[0].error, ErrorCode::UNSTABLE_OFFSET_COMMIT);
  EXPECT_EQ(r.partitions[1].committed_offset.value(), 6);
  EXPECT_EQ(c.fetch(), 4);  // without require_stable: the committed offset

  // A plain commit still being appended is unstable too.
  c.commit(kB, "", -1, 8, "t", 1);
  r = fetch_stable(c, both);
  EXPECT_EQ(r.partitions[1].error, ErrorCode::UNSTABLE_OFFSET_COMMIT);
  c.host.complete_all();
  ASSERT_EQ(c.commit_error(kB), ErrorCode::NONE);

  end_txn(c, kPid, true);
  r = fetch_stable(c, both);
  ASSERT_EQ(r.partitions.size(), 2u);
  EXPECT_EQ(r.partitions[0].error, ErrorCode::NONE);
  EXPECT_EQ(r.partitions[0].committed_offset.value(), 5);
  EXPECT_EQ(r.partitions[1].committed_offset.value(), 8);
}

TEST(TxnOffsetCommit, AMarkerEndsOnlyItsOwnProducersOffsets) {
  Coordinator c;
  ASSERT_EQ(commit_in_txn(c, 5, kPid), ErrorCode::NONE);
  ASSERT_EQ(commit_in_txn(c, 8, kOtherPid), ErrorCode::NONE);
  end_txn(c, kOtherPid, false);
  EXPECT_EQ(c.fetch(), -1);
  end_txn(c, kPid, true);
  EXPECT_EQ(c.fetch(), 5);
}

TEST(TxnOffsetCommit, APlainCommitAppendedAfterTheTransactionsRecordWins) {
  Coordinator c;
  ASSERT_EQ(commit_in_txn(c, 5), ErrorCode::NONE);
  c.commit(kB, "", -1, 7);  // a standalone commit, later in the log
  c.host.complete_all();
  ASSERT_EQ(c.commit_error(kB), ErrorCode::NONE);
  EXPECT_EQ(c.fetch(), 7);
  end_txn(c, kPid, true);
  EXPECT_EQ(c.fetch(), 7);  // the transaction's record is older
  EXPECT_EQ(fetch_after_reload(c), 7);

  // And the other way round: a transaction's record after the plain commit wins.
  ASSERT_EQ(commit_in_txn(c, 3), ErrorCode::NONE);
  end_txn(c, kPid, true);
  EXPECT_EQ(c.fetch(), 3);
  EXPECT_EQ(fetch_after_reload(c), 3);
}

TEST(TxnOffsetCommit, AFailedAppendLeavesNothingPending) {
  Coordinator c;
  c.coord.handle(kProducer, txn_commit(5));
  c.host.complete_next(ErrorCode::NOT_ENOUGH_REPLICAS);
  EXPECT_EQ(txn_commit_error(c), ErrorCode::COORDINATOR_NOT_AVAILABLE);
  end_txn(c, kPid, true);
  EXPECT_EQ(c.fetch(), -1);

  // The producer's fencing reaches it as it is.
  c.coord.handle(kProducer, txn_commit(6));
  c.host.complete_next(ErrorCode::INVALID_PRODUCER_EPOCH);
  EXPECT_EQ(txn_commit_error(c), ErrorCode::INVALID_PRODUCER_EPOCH);
  c.coord.handle(kProducer, txn_commit(6));
  c.host.complete_next(ErrorCode::NOT_LEADER_OR_FOLLOWER);
  EXPECT_EQ(txn_commit_error(c), ErrorCode::NOT_COORDINATOR);
}

TEST(TxnOffsetCommit, LoadingReplaysPendingCommittedAndAbortedTransactions) {
  Coordinator c;
  ASSERT_EQ(commit_in_txn(c, 5, kPid), ErrorCode::NONE);
  end_txn(c, kPid, true);
  ASSERT_EQ(commit_in_txn(c, 9, kPid), ErrorCode::NONE);
  end_txn(c, kPid, false);
  ASSERT_EQ(commit_in_txn(c, 12, kOtherPid), ErrorCode::NONE);  // still open when leadership moves

  Coordinator next(GroupCoordinatorConfig{}, false);
  next.host.logs = c.host.logs;
  next.host.markers = c.host.markers;
  next.coord.on_leadership({0, 1, 2, 3}, kPartitions);
  EXPECT_EQ(next.fetch(), 5);  // committed kept, aborted dropped, open one pending
  // The new coordinator ends the open transaction when its marker comes.
  next.host.write_marker(kOffsetsPartition, kOtherPid, true);
  next.coord.on_txn_completed(kOtherPid, PartitionId(kOffsetsPartition), true);
  EXPECT_EQ(next.fetch(), 12);
  EXPECT_EQ(fetch_after_reload(next), 12);
}

TEST(TxnOffsetCommit, AMarkerForAPartitionNotLedChangesNothing) {
  Coordinator c;
  ASSERT_EQ(commit_in_txn(c, 5), ErrorCode::NONE);
  c.coord.on_txn_completed(kPid, PartitionId((kOffsetsPartition + 1) % kPartitions), true);
  EXPECT_EQ(c.fetch(), -1);
}

TEST(TxnOffsetCommit, KIP447ChecksOnlyWhatTheRequestNames) {
  Coordinator c;
  const auto [a, b] = c.stable_group_of_two();
  // Neither member id nor generation: accepted (a producer not tied to the group's members).
  c.coord.handle(kProducer, txn_commit(1));
  c.host.complete_all();
  EXPECT_EQ(txn_commit_error(c), ErrorCode::NONE);
  c.coord.handle(kProducer, txn_commit(1, kPid, "nobody"));
  EXPECT_EQ(txn_commit_error(c), ErrorCode::UNKNOWN_MEMBER_ID);
  c.coord.handle(kProducer, txn_commit(1, kPid, a, 2));
  EXPECT_EQ(txn_commit_error(c), ErrorCode::ILLEGAL_GENERATION);
  c.coord.handle(kProducer, txn_commit(1, kPid, "", 2));
  EXPECT_EQ(txn_commit_error(c), ErrorCode::ILLEGAL_GENERATION);
  c.coord.handle(kProducer, txn_commit(1, kPid, a, 1));
  c.host.complete_all();
  EXPECT_EQ(txn_commit_error(c), ErrorCode::NONE);
  EXPECT_TRUE(c.host.pending.empty());
}

TEST(TxnOffsetCommit, AStaticMembersOldIncarnationIsFenced) {
  Coordinator c;
  c.coord.handle(kA, c.join_request("", std::string("static-a")));
  c.advance_ms(3000);
  const JoinGroupResponse joined = c.expect<JoinGroupResponse>(kA);
  ASSERT_EQ(joined.error, ErrorCode::NONE);
  c.coord.handle(kProducer, txn_commit(1, kPid, "old-member-id", joined.generation_id, std::string("static-a")));
  EXPECT_EQ(txn_commit_error(c), ErrorCode::FENCED_INSTANCE_ID);
  c.coord.handle(kProducer, txn_commit(1, kPid, joined.member_id, joined.generation_id, std::string("static-a")));
  c.host.complete_all();
  EXPECT_EQ(txn_commit_error(c), ErrorCode::NONE);
}

TEST(TxnOffsetCommit, NotCoordinatorAndInvalidRequests) {
  Coordinator c(GroupCoordinatorConfig{}, false);
  c.coord.handle(kProducer, txn_commit(1));
  EXPECT_EQ(txn_commit_error(c), ErrorCode::NOT_COORDINATOR);
  c.coord.on_leadership({0, 1, 2, 3}, kPartitions);
  c.coord.handle(kProducer, txn_commit(1, ProducerId(-1)));
  EXPECT_EQ(txn_commit_error(c), ErrorCode::INVALID_REQUEST);
  TxnOffsetCommitRequest no_group = txn_commit(1);
  no_group.group_id = "";
  c.coord.handle(kProducer, no_group);
  EXPECT_EQ(txn_commit_error(c), ErrorCode::INVALID_GROUP_ID);
}

TEST(TxnOffsetCommit, DeletingTheOffsetForgetsThePendingOneToo) {
  Coordinator c;
  c.commit(kB, "", -1, 4);
  c.host.complete_all();
  ASSERT_EQ(c.commit_error(kB), ErrorCode::NONE);
  ASSERT_EQ(commit_in_txn(c, 5), ErrorCode::NONE);
  OffsetDeleteRequest del;
  del.group_id = kGroup;
  del.partitions = {{"t", PartitionId(0)}};
  c.coord.handle(kA, del);
  c.host.complete_all();
  ASSERT_EQ(c.expect<OffsetDeleteResponse>(kA).error, ErrorCode::NONE);
  end_txn(c, kPid, true);
  EXPECT_EQ(c.fetch(), -1);
  EXPECT_EQ(fetch_after_reload(c), -1);  // the tombstone drops it when replayed as well
}

TEST(TxnOffsetCommit, ATransactionsOffsetWrittenAfterTheTombstoneSurvivesIt) {
  Coordinator c;
  c.commit(kB, "", -1, 4);
  c.host.complete_all();
  ASSERT_EQ(c.commit_error(kB), ErrorCode::NONE);
  OffsetDeleteRequest del;
  del.group_id = kGroup;
  del.partitions = {{"t", PartitionId(0)}};
  c.coord.handle(kA, del);
  c.coord.handle(kProducer, txn_commit(5));  // appended after the tombstone
  c.host.complete_all();
  ASSERT_EQ(c.expect<OffsetDeleteResponse>(kA).error, ErrorCode::NONE);
  ASSERT_EQ(txn_commit_error(c), ErrorCode::NONE);
  end_txn(c, kPid, true);
  EXPECT_EQ(c.fetch(), 5);
  EXPECT_EQ(fetch_after_reload(c), 5);
}

TEST(TxnOffsetCommit, RetentionKeepsAnOffsetWithATransactionPending) {
  GroupCoordinatorConfig config;
  config.offsets_retention_minutes = 1;
  config.offsets_retention_check_interval_ms = 10000;
  Coordinator c(config);
  c.commit(kB, "", -1, 4);
  c.host.complete_all();
  ASSERT_EQ(c.commit_error(kB), ErrorCode::NONE);
  ASSERT_EQ(commit_in_txn(c, 5), ErrorCode::NONE);
  c.advance_ms(120000);
  c.host.complete_all();
  EXPECT_EQ(c.coord.group_state(kGroup), "Empty");  // not deleted: an offset is pending
  end_txn(c, kPid, true);
  EXPECT_EQ(c.fetch(), 5);
  EXPECT_EQ(fetch_after_reload(c), 5);  // no tombstone took the key from the transaction
}

}  // namespace
}  // namespace logsim::engine

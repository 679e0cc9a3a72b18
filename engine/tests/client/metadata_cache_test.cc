// The client's metadata cache: leaders and partition counts as the latest answers give them,
// looked up by topic name through a one-topic memo that must never answer for another topic,
// nor for another cache after a copy.
#include "engine/client/metadata.h"

#include <gtest/gtest.h>

namespace logsim::engine {
namespace {

PartitionMetadata led(std::int32_t p, std::int32_t leader, std::int32_t epoch) {
  PartitionMetadata m;
  m.partition = PartitionId(p);
  m.leader = NodeId(leader);
  m.leader_epoch = LeaderEpoch(epoch);
  return m;
}

MetadataResponse answer(std::vector<TopicMetadata> topics) {
  MetadataResponse r;
  r.topics = std::move(topics);
  return r;
}

TEST(MetadataCache, AnswersEachTopicForItselfWhateverWasAskedLast) {
  MetadataCache cache;
  cache.update(answer({TopicMetadata{"orders", ErrorCode::NONE, {led(0, 1, 3), led(1, 2, 4)}},
                       TopicMetadata{"audit", ErrorCode::NONE, {led(0, 2, 7)}}}));
  for (int round = 0; round < 2; ++round) {  // in turn, so that each lookup follows the other's
    EXPECT_EQ(cache.partition_count("orders"), 2);
    EXPECT_EQ(cache.leader("orders", PartitionId(1)), NodeId(2));
    EXPECT_EQ(cache.partition_count("audit"), 1);
    EXPECT_EQ(cache.leader("audit", PartitionId(0)), NodeId(2));
    EXPECT_EQ(cache.leader_epoch("audit", PartitionId(0)), LeaderEpoch(7));
    EXPECT_EQ(cache.leader("audit", PartitionId(1)), std::nullopt);
    EXPECT_EQ(cache.leader("orders", PartitionId(0)), NodeId(1));
    EXPECT_EQ(cache.leader_epoch("orders", PartitionId(0)), LeaderEpoch(3));
  }
  EXPECT_EQ(cache.partition_count("ord"), 0);
  EXPECT_FALSE(cache.knows("unknown"));
  EXPECT_EQ(cache.leader("unknown", PartitionId(0)), std::nullopt);
  EXPECT_EQ(cache.leader_epoch("unknown", PartitionId(0)), LeaderEpoch(-1));
  EXPECT_EQ(cache.leader("orders", PartitionId(-1)), std::nullopt);
}

TEST(MetadataCache, ALaterAnswerMovesOrRemovesLeadersAndAnErrorChangesNothing) {
  MetadataCache cache;
  cache.update(answer({TopicMetadata{"t", ErrorCode::NONE, {led(0, 1, 1), led(1, 2, 1)}}}));
  ASSERT_EQ(cache.leader("t", PartitionId(0)), NodeId(1));  // (and the memo now holds "t")
  PartitionMetadata leaderless = led(1, -1, 2);
  PartitionMetadata failed = led(0, 3, 2);
  failed.error = ErrorCode::LEADER_NOT_AVAILABLE;
  cache.update(answer({TopicMetadata{"t", ErrorCode::NONE, {failed, leaderless, led(2, 3, 1)}}}));
  EXPECT_EQ(cache.partition_count("t"), 3);
  EXPECT_EQ(cache.leader("t", PartitionId(0)), std::nullopt);
  EXPECT_EQ(cache.leader_epoch("t", PartitionId(0)), LeaderEpoch(-1));
  EXPECT_EQ(cache.leader("t", PartitionId(1)), std::nullopt);
  EXPECT_EQ(cache.leader("t", PartitionId(2)), NodeId(3));
  cache.update(answer({TopicMetadata{"t", ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, {}}}));
  EXPECT_EQ(cache.partition_count("t"), 3);
  EXPECT_EQ(cache.leader("t", PartitionId(2)), NodeId(3));
}

TEST(MetadataCache, ACopyAnswersFromItsOwnTopicsNotTheOriginals) {
  auto original = std::make_unique<MetadataCache>();
  original->update(answer({TopicMetadata{"t", ErrorCode::NONE, {led(0, 1, 1)}}}));
  ASSERT_EQ(original->leader("t", PartitionId(0)), NodeId(1));  // the memo points into original
  MetadataCache copy = *original;
  original->update(answer({TopicMetadata{"t", ErrorCode::NONE, {led(0, 2, 2), led(1, 2, 2)}}}));
  EXPECT_EQ(copy.partition_count("t"), 1);
  EXPECT_EQ(copy.leader("t", PartitionId(0)), NodeId(1));
  original.reset();  // a memo left pointing into it would now read freed memory (ASan)
  EXPECT_EQ(copy.leader_epoch("t", PartitionId(0)), LeaderEpoch(1));
}

// KIP-320: a broker whose metadata is behind (a deposed leader cut off from the controller)
// answers with an older leader epoch; the client keeps the newer leader it knows, even after an
// answer without a leader. A re-created topic (a new topic id) starts its epochs again.
TEST(MetadataCache, AnOlderLeaderEpochIsIgnoredWithinOneIncarnationOfTheTopic) {
  MetadataCache cache;
  const auto topic = [](std::vector<PartitionMetadata> ps, std::int64_t id) {
    TopicMetadata t{"t", ErrorCode::NONE, std::move(ps)};
    t.topic_id = id;
    return t;
  };
  cache.update(answer({topic({led(0, 2, 5)}, 7)}));
  cache.update(answer({topic({led(0, 1, 4)}, 7)}));  // stale: broker 1 led in epoch 4
  EXPECT_EQ(cache.leader("t", PartitionId(0)), NodeId(2));
  EXPECT_EQ(cache.leader_epoch("t", PartitionId(0)), LeaderEpoch(5));
  cache.update(answer({topic({led(0, -1, 6)}, 7)}));  // epoch 6: no leader for now
  EXPECT_EQ(cache.leader("t", PartitionId(0)), std::nullopt);
  cache.update(answer({topic({led(0, 2, 5)}, 7)}));  // stale again
  EXPECT_EQ(cache.leader("t", PartitionId(0)), std::nullopt);
  cache.update(answer({topic({led(0, 3, 6)}, 7)}));  // the same epoch, its leader now known
  EXPECT_EQ(cache.leader("t", PartitionId(0)), NodeId(3));
  cache.update(answer({topic({led(0, 1, 0)}, 8)}));  // deleted and created again
  EXPECT_EQ(cache.leader("t", PartitionId(0)), NodeId(1));
  EXPECT_EQ(cache.leader_epoch("t", PartitionId(0)), LeaderEpoch(0));
}

}  // namespace
}  // namespace logsim::engine

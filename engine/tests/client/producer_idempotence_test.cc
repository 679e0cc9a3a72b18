// Tests of the idempotent producer against scripted broker answers: its producer id, base
// sequences per partition, order while a batch backs off, epoch bumps after an expired or failed
// batch, and de-duplicated retries (the fixture is in producer_test_fixture.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/broker/producer_state.h"
#include "engine/tests/client/producer_test_fixture.h"

namespace logsim::engine {
namespace {

using namespace producer_testing;

// ---- Idempotence.

TEST_F(ProducerTest, IdempotentProducerWaitsForItsIdAndNumbersEachPartition) {
  ProducerConfig c = base_config();
  c.enable_idempotence = true;
  make(c);
  producer->start();
  ASSERT_EQ(sent_of<InitProducerIdRequest>().size(), 1u);
  answer_metadata({kB1, kB1});
  send("a", PartitionId(0));
  send("b", PartitionId(0));
  send("c", PartitionId(1));
  EXPECT_TRUE(produces().empty()) << "nothing is produced before InitProducerId is answered";
  advance_to(millis(500));
  EXPECT_TRUE(produces().empty());

  answer_init(ProducerId(7), ProducerEpoch(3));
  EXPECT_EQ(producer->producer_id(), ProducerId(7));
  auto reqs = produces();
  ASSERT_EQ(reqs.size(), 2u);
  for (const auto& r : reqs) {
    EXPECT_EQ(r.producer_id, ProducerId(7));
    EXPECT_EQ(r.producer_epoch, ProducerEpoch(3));
    EXPECT_EQ(r.base_sequence, Sequence(0)) << "each partition counts from 0: partition " << r.partition;
  }
  EXPECT_EQ(reqs[0].partition, PartitionId(0));
  EXPECT_EQ(values(reqs[0]), (Strings{"a", "b"}));
  EXPECT_EQ(values(reqs[1]), Strings{"c"});

  send("d", PartitionId(0));
  send("e", PartitionId(0));
  send("f", PartitionId(1));
  reqs = produces();
  ASSERT_EQ(reqs.size(), 5u);
  EXPECT_EQ(reqs[2].base_sequence, Sequence(2)) << "after a batch of 2 records";
  EXPECT_EQ(reqs[3].base_sequence, Sequence(3));
  EXPECT_EQ(reqs[4].partition, PartitionId(1));
  EXPECT_EQ(reqs[4].base_sequence, Sequence(1));
}

TEST_F(ProducerTest, IdempotentLaterBatchWaitsBehindABackingOffOne) {
  ProducerConfig c = base_config();
  c.enable_idempotence = true;
  start_ready(c);
  send("a", PartitionId(0));
  send("b", PartitionId(0));
  const auto first = produces();
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].base_sequence, Sequence(0));
  EXPECT_EQ(first[1].base_sequence, Sequence(1));

  advance_to(millis(10));
  ASSERT_TRUE(respond(first[0], ErrorCode::NOT_ENOUGH_REPLICAS));  // a backs off until 110 ms
  advance_to(millis(20));
  // The broker saw b's sequence 1 without 0: a gap, expected while a is retried.
  ASSERT_TRUE(respond(first[1], ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER));  // b backs off until 120 ms
  EXPECT_TRUE(results.empty()) << "OUT_OF_ORDER_SEQUENCE_NUMBER behind a pending batch is retried";
  advance_to(millis(30));
  send("c", PartitionId(0));
  EXPECT_EQ(produces().size(), 2u) << "c must not overtake a, which is backing off";

  advance_to(millis(110) - 1);
  EXPECT_EQ(produces().size(), 2u);
  advance_to(millis(200));
  EXPECT_EQ(produces().size(), 3u) << "a alone is retried (Kafka's first in-flight sequence); b, a retry too, waits for it";
  EXPECT_EQ(values(produces().back()), Strings{"a"});
  EXPECT_EQ(sent_with<ProduceRequest>().back().at, millis(110));
  advance_to(millis(250));
  ASSERT_TRUE(respond(produces()[2], ErrorCode::NONE, 0));
  const auto with = sent_with<ProduceRequest>();
  ASSERT_EQ(with.size(), 5u);
  std::vector<std::pair<std::string, std::int32_t>> order;
  for (std::size_t i = 2; i < with.size(); ++i) {
    const auto& r = Produced(std::get<ProduceRequest>(with[i].msg));
    order.emplace_back(values(r).at(0), r.base_sequence.value());
  }
  EXPECT_EQ(order, (std::vector<std::pair<std::string, std::int32_t>>{{"a", 0}, {"b", 1}, {"c", 2}}))
      << "per-partition order and sequences are kept through the retry";
  EXPECT_EQ(with[3].at, millis(250)) << "b goes once a is acknowledged";
  EXPECT_EQ(with[4].at, millis(250)) << "and c, new, right behind it";

  const auto reqs = produces();
  ASSERT_TRUE(respond(reqs[3], ErrorCode::NONE, 1));
  ASSERT_TRUE(respond(reqs[4], ErrorCode::NONE, 2));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(result_of("a")->result.offset, Offset(0));
  EXPECT_EQ(result_of("b")->result.offset, Offset(1));
  EXPECT_EQ(result_of("c")->result.offset, Offset(2));
}

// Regression (scenarios/grow-topic-at-run-time.json, seeds 125, 144, 170, ...: nonmonotonic-send
// on a partition added at run time whose leader had crashed). Every batch of the partition
// failed at the dead leader again and again, and all of them were retried together; when the
// leader moved while they were in flight to the old one, the next new batch went to the new
// leader, which had no state for the producer and so took its sequence; the earlier batches
// were then refused (OUT_OF_ORDER_SEQUENCE_NUMBER) and written behind it under a new epoch.
// Kafka retries only a partition's first unresolved batch (the batch whose sequence is
// TransactionManager.firstInFlightSequence); the rest wait for it.
TEST_F(ProducerTest, IdempotentRetriesGoOneAtATimeSoNoNewBatchOvertakesThemAtANewLeader) {
  ProducerConfig c = base_config();
  c.enable_idempotence = true;
  start_ready(c);  // partition 0 led by broker 1
  send("a", PartitionId(0));     // sequence 0
  producer->on_disconnect(kB1);  // broker 1 is down: a backs off until 100 ms
  advance_to(millis(50));
  send("b", PartitionId(0));
  EXPECT_EQ(produces().size(), 1u) << "b waits behind a, which is backing off";
  advance_to(millis(100));
  ASSERT_EQ(produces().size(), 3u) << "a again, and b (sequence 1) behind it";
  EXPECT_EQ(produces()[2].base_sequence, Sequence(1));
  producer->on_disconnect(kB1);  // both fail again: both are retries now
  send("c", PartitionId(0));
  advance_to(millis(200));
  auto reqs = produces();
  EXPECT_EQ(reqs.size(), 4u) << "only a, the first unresolved batch, is retried; b waits for it, c behind b";
  EXPECT_EQ(values(reqs.back()), Strings{"a"});

  // The leader moves to broker 2 while a is in flight to broker 1.
  answer_metadata({kB2});
  send("d", PartitionId(0));
  EXPECT_EQ(produces().size(), reqs.size()) << "nothing overtakes a at the new leader";

  // Broker 1 never answers; broker 2 answers by the broker's rules, with no state for this
  // producer at first (nothing of it was ever written there).
  ProducerStateTable table;
  std::int64_t log_end = 0;
  std::size_t seen = 0;
  for (int round = 0; round < 40 && results.size() < 4; ++round) {
    if (!sent_of<InitProducerIdRequest>().empty() && producer->producer_epoch() == ProducerEpoch(3)) {
      answer_init(ProducerId(7), ProducerEpoch(4));
    }
    const auto with = sent_with<ProduceRequest>();
    bool to_dead = false;
    for (; seen < with.size(); ++seen) {
      const Produced req(std::get<ProduceRequest>(with[seen].msg));
      if (with[seen].to == kB1) {
        to_dead = true;
        continue;
      }
      const auto check = table.check(ProducerBatchInfo{req.producer_id, req.producer_epoch, req.base_sequence},
                                     static_cast<std::int32_t>(req.records.size()));
      if (check.error != ErrorCode::NONE) {
        EXPECT_TRUE(respond(req, check.error, -1, kB2));
        continue;
      }
      std::int64_t base = log_end;
      if (check.duplicate) {
        base = check.duplicate_base.value();
      } else {
        BatchHeader written;
        written.base_offset = Offset(base);
        written.last_offset_delta = static_cast<std::int32_t>(req.records.size()) - 1;
        written.record_count = static_cast<std::int32_t>(req.records.size());
        written.producer_id = req.producer_id;
        written.producer_epoch = req.producer_epoch;
        written.base_sequence = req.base_sequence;
        table.record(written);
        log_end += static_cast<std::int64_t>(req.records.size());
      }
      EXPECT_TRUE(respond(req, ErrorCode::NONE, base, kB2));
    }
    if (to_dead) producer->on_disconnect(kB1);
    advance_to(env.now() + millis(50));
  }
  ASSERT_EQ(results.size(), 4u);
  std::int64_t last = -1;
  for (const char* v : {"a", "b", "c", "d"}) {
    const Result* r = result_of(v);
    ASSERT_NE(r, nullptr) << v;
    EXPECT_EQ(r->result.outcome, SendOutcome::kAcknowledged) << v;
    EXPECT_GT(r->result.offset.value(), last) << v << " landed before an earlier send: the order of sends is lost";
    last = r->result.offset.value();
  }
}

// Since KIP-360 a gap that no earlier pending batch explains is closed with a new epoch, not
// by failing the batch: the refused batch is numbered again from 0.
TEST_F(ProducerTest, OutOfOrderSequenceWithNothingEarlierPendingBumpsTheEpoch) {
  ProducerConfig c = base_config();
  c.enable_idempotence = true;
  start_ready(c);
  send("a", PartitionId(0));
  send("b", PartitionId(0));
  ASSERT_TRUE(respond(produces()[0], ErrorCode::NONE, 0));
  ASSERT_TRUE(respond(produces()[1], ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER));  // e.g. the broker lost a's record
  EXPECT_EQ(result_of("b"), nullptr) << "retried under a new epoch";
  const auto inits = sent_of<InitProducerIdRequest>();
  ASSERT_EQ(inits.size(), 1u);
  EXPECT_EQ(inits[0].producer_id, ProducerId(7)) << "the bump names the id it has";
  EXPECT_EQ(inits[0].producer_epoch, ProducerEpoch(3)) << "and its current epoch";
  answer_init(ProducerId(7), ProducerEpoch(4));
  advance_to(millis(100));
  ASSERT_EQ(produces().size(), 3u);
  const Produced retry = produces()[2];
  EXPECT_EQ(values(retry), Strings{"b"});
  EXPECT_EQ(retry.producer_id, ProducerId(7));
  EXPECT_EQ(retry.producer_epoch, ProducerEpoch(4));
  EXPECT_EQ(retry.base_sequence, Sequence(0));
  ASSERT_TRUE(respond(retry, ErrorCode::NONE, 1));
  EXPECT_EQ(result_of("b")->result.outcome, SendOutcome::kAcknowledged);
}

// ---- KIP-360: sequence gaps and epoch bumps.

// Regression: with idempotence a numbered batch that failed kept its numbers and the next
// sequence never went back, so every later batch of its partition got
// OUT_OF_ORDER_SEQUENCE_NUMBER forever. Here the broker's own rules (ProducerStateTable) answer.
TEST_F(ProducerTest, AfterAFailedBatchLaterBatchesAreAcceptedUnderANewEpoch) {
  ProducerConfig c = base_config();
  c.enable_idempotence = true;
  start_ready(c);
  ProducerStateTable table;  // one partition's idempotence state, as its leader keeps it
  std::int64_t log_end = 0;
  std::size_t answered = 0;
  // Answers every request sent so far as the broker would; returns how many it answered.
  const auto broker_answers = [&] {
    const auto reqs = produces();
    const std::size_t before = answered;
    for (; answered < reqs.size(); ++answered) {
      const Produced& req = reqs[answered];
      const ProducerBatchInfo info{req.producer_id, req.producer_epoch, req.base_sequence};
      const auto check = table.check(info, static_cast<std::int32_t>(req.records.size()));
      if (check.error != ErrorCode::NONE) {
        EXPECT_TRUE(respond(req, check.error));
        continue;
      }
      EXPECT_FALSE(check.duplicate);
      const std::int64_t base = log_end;
      BatchHeader written;
      written.base_offset = Offset(base);
      written.last_offset_delta = static_cast<std::int32_t>(req.records.size()) - 1;
      written.record_count = static_cast<std::int32_t>(req.records.size());
      written.producer_id = req.producer_id;
      written.producer_epoch = req.producer_epoch;
      written.base_sequence = req.base_sequence;
      table.record(written);
      log_end += static_cast<std::int64_t>(req.records.size());
      EXPECT_TRUE(respond(req, ErrorCode::NONE, base));
    }
    return answered - before;
  };

  send("a", PartitionId(0));
  ASSERT_EQ(broker_answers(), 1u);
  send("b", PartitionId(0));
  send("c", PartitionId(0));
  ASSERT_EQ(produces().size(), 3u);
  // b is refused for good (nothing written); c, numbered behind it, meets the hole.
  ASSERT_TRUE(respond(produces()[1], ErrorCode::MESSAGE_TOO_LARGE));
  ++answered;
  EXPECT_EQ(result_of("b")->result.outcome, SendOutcome::kFailed);
  for (int round = 0; round < 20 && results.size() < 5; ++round) {
    if (!sent_of<InitProducerIdRequest>().empty() && producer->producer_epoch() == ProducerEpoch(3)) {
      answer_init(ProducerId(7), ProducerEpoch(4));
    }
    broker_answers();
    if (round == 5) {
      send("d", PartitionId(0));
      send("e", PartitionId(0));
    }
    advance_to(env.now() + millis(50));
  }
  EXPECT_EQ(producer->producer_epoch(), ProducerEpoch(4)) << "the gap moved the producer to the next epoch";
  ASSERT_EQ(results.size(), 5u);
  std::int64_t last = -1;
  for (const char* v : {"a", "c", "d", "e"}) {
    const Result* r = result_of(v);
    ASSERT_NE(r, nullptr) << v;
    EXPECT_EQ(r->result.outcome, SendOutcome::kAcknowledged) << v << " is not stuck behind b's hole";
    EXPECT_GT(r->result.offset.value(), last) << v << " keeps the order of sends";
    last = r->result.offset.value();
  }
  // The new epoch restarted the partition's numbers at 0.
  const auto reqs = produces();
  EXPECT_EQ(reqs.back().producer_epoch, ProducerEpoch(4));
  bool restarted = false;
  for (const Produced& r : reqs) {
    if (r.producer_epoch == ProducerEpoch(4) && r.base_sequence == Sequence(0)) restarted = true;
  }
  EXPECT_TRUE(restarted);
}

TEST_F(ProducerTest, AnExpiredBatchBumpsTheEpochAndEveryPartitionCountsFromZero) {
  ProducerConfig c = base_config();
  c.enable_idempotence = true;
  c.request_timeout_ms = 1000;
  c.delivery_timeout_ms = 1500;
  start_ready(c, {kB1, kB2});
  send("a", PartitionId(0));  // sequence 0; delivery deadline 1500 ms
  advance_to(millis(400));
  send("b", PartitionId(0));  // sequence 1; deadline 1900 ms
  send("p", PartitionId(1));
  auto reqs = produces();
  ASSERT_EQ(reqs.size(), 3u);
  ASSERT_TRUE(respond(reqs[2], ErrorCode::NONE, 0, kB2));                  // partition 1 used epoch 3
  ASSERT_TRUE(respond(reqs[1], ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER));  // behind a: retried as is
  advance_to(millis(1500));  // no attempt of a is ever answered: it expires, maybe written
  ASSERT_NE(result_of("a"), nullptr);
  EXPECT_EQ(result_of("a")->result.outcome, SendOutcome::kUnknown);
  const auto inits = sent_of<InitProducerIdRequest>();
  ASSERT_EQ(inits.size(), 1u) << "a's numbers may be a hole: ask for the next epoch";
  EXPECT_EQ(inits[0].producer_id, ProducerId(7));
  EXPECT_EQ(inits[0].producer_epoch, ProducerEpoch(3));
  answer_init(ProducerId(7), ProducerEpoch(4));
  EXPECT_EQ(producer->producer_epoch(), ProducerEpoch(4));

  send("q", PartitionId(1));  // partition 1 has nothing of epoch 3 pending: it starts over at once
  reqs = produces();
  EXPECT_EQ(values(reqs.back()), Strings{"q"});
  EXPECT_EQ(reqs.back().producer_epoch, ProducerEpoch(4));
  EXPECT_EQ(reqs.back().base_sequence, Sequence(0));

  // When a's first request timed out (1000 ms) the connection to broker 1 closed and cut b's
  // retry in flight; b was sent again at 1100 ms and keeps epoch 3's numbers: a may be in the
  // log after all.
  advance_to(millis(1600));
  reqs = produces();
  std::optional<Produced> b_retry;
  for (const auto& r : reqs) {
    if (values(r) == Strings{"b"}) b_retry = r;
  }
  ASSERT_TRUE(b_retry.has_value());
  EXPECT_EQ(b_retry->producer_epoch, ProducerEpoch(3));
  EXPECT_EQ(b_retry->base_sequence, Sequence(1));
  ASSERT_TRUE(respond(*b_retry, ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER));  // it was not
  EXPECT_EQ(sent_of<InitProducerIdRequest>().size(), 1u) << "b is behind the hole already closed";
  advance_to(millis(1700));
  reqs = produces();
  EXPECT_EQ(values(reqs.back()), Strings{"b"});
  EXPECT_EQ(reqs.back().producer_epoch, ProducerEpoch(4));
  EXPECT_EQ(reqs.back().base_sequence, Sequence(0)) << "numbered again from 0 under the new epoch";
  ASSERT_TRUE(respond(reqs.back(), ErrorCode::NONE, 5));
  EXPECT_EQ(result_of("b")->result.outcome, SendOutcome::kAcknowledged);
}

TEST_F(ProducerTest, OldEpochBatchesFinishBeforeTheirPartitionCountsFromZero) {
  ProducerConfig c = base_config();
  c.enable_idempotence = true;
  start_ready(c, {kB1, kB2});
  send("a", PartitionId(0));
  send("b", PartitionId(0));
  send("x", PartitionId(1));  // in flight under epoch 3 while the epoch changes
  auto reqs = produces();
  ASSERT_EQ(reqs.size(), 3u);
  ASSERT_TRUE(respond(reqs[0], ErrorCode::MESSAGE_TOO_LARGE));  // a hole under b
  answer_init(ProducerId(7), ProducerEpoch(4));
  send("y", PartitionId(1));
  EXPECT_EQ(produces().size(), 3u)
      << "y may not take sequence 0 of the new epoch before x, numbered under the old, is resolved";
  ASSERT_TRUE(respond(reqs[2], ErrorCode::NONE, 10, kB2));
  reqs = produces();
  ASSERT_EQ(reqs.size(), 4u);
  EXPECT_EQ(values(reqs[3]), Strings{"y"});
  EXPECT_EQ(reqs[3].producer_epoch, ProducerEpoch(4));
  EXPECT_EQ(reqs[3].base_sequence, Sequence(0));
  // b, numbered under epoch 3 behind the hole, is refused and numbered again.
  ASSERT_TRUE(respond(reqs[1], ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER));
  EXPECT_EQ(sent_of<InitProducerIdRequest>().size(), 1u) << "one bump for one hole";
  advance_to(millis(100));
  reqs = produces();
  ASSERT_EQ(reqs.size(), 5u);
  EXPECT_EQ(values(reqs[4]), Strings{"b"});
  EXPECT_EQ(reqs[4].producer_epoch, ProducerEpoch(4));
  EXPECT_EQ(reqs[4].base_sequence, Sequence(0));
}

TEST_F(ProducerTest, AFailedBatchHoldingTheNewestNumbersGivesThemBack) {
  ProducerConfig c = base_config();
  c.enable_idempotence = true;
  start_ready(c);
  send("a", PartitionId(0));
  ASSERT_TRUE(respond(produces()[0], ErrorCode::NONE, 0));
  send("b", PartitionId(0));
  ASSERT_EQ(produces()[1].base_sequence, Sequence(1));
  ASSERT_TRUE(respond(produces()[1], ErrorCode::MESSAGE_TOO_LARGE));  // surely not written, nothing behind it
  EXPECT_EQ(result_of("b")->result.outcome, SendOutcome::kFailed);
  send("c", PartitionId(0));
  ASSERT_EQ(produces().size(), 3u);
  EXPECT_EQ(produces()[2].base_sequence, Sequence(1)) << "b's number is reused: no hole";
  EXPECT_EQ(produces()[2].producer_epoch, ProducerEpoch(3));
  EXPECT_TRUE(sent_of<InitProducerIdRequest>().empty()) << "no gap, no new epoch";
}

TEST_F(ProducerTest, DuplicateSequenceCountsAsAcknowledged) {
  ProducerConfig c = base_config();
  c.enable_idempotence = true;
  start_ready(c);
  send("a", PartitionId(0));
  ASSERT_TRUE(respond(produces()[0], ErrorCode::DUPLICATE_SEQUENCE_NUMBER, 17));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].result.outcome, SendOutcome::kAcknowledged) << "the batch is in the log already";
  EXPECT_EQ(results[0].result.error, ErrorCode::NONE);
  advance_to(seconds(5));
  EXPECT_EQ(produces().size(), 1u) << "not retried";
}

}  // namespace
}  // namespace logsim::engine

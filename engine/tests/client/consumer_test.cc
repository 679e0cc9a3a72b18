// Tests of the consumer client's fetch path against scripted broker answers: manual
// assignment, the first position from ListOffsets by auto.offset.reset, fetching from the
// leader, poll() and max.poll.records, seek, OFFSET_OUT_OF_RANGE, leader changes, empty long
// polls, request timeouts and broken connections. The Env is a small fake: it records what the
// consumer sends and the timers it arms; tests answer requests by hand and move the clock with
// advance_to(), which fires the due timers in deadline order.
#include "engine/client/consumer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "engine/env/env.h"
#include "engine/env/rng.h"
#include "engine/tests/client/client_fake_env.h"

namespace logsim::engine {
namespace {

const NodeId kB1(1);
const NodeId kB2(2);
const NodeId kB3(3);
const std::string kTopic = "t";
const TopicPartition kP0{kTopic, PartitionId(0)};
const TopicPartition kP1{kTopic, PartitionId(1)};

using clienttest::FakeEnv;
using clienttest::kApp;
using clienttest::metadata_response;
using clienttest::Sent;

StoredRecord stored(std::int64_t offset) {
  StoredRecord r;
  r.offset = Offset(offset);
  r.record.value = "v" + std::to_string(offset);
  return r;
}

std::vector<StoredRecord> range(std::int64_t from, std::int64_t to) {
  std::vector<StoredRecord> out;
  for (std::int64_t o = from; o < to; ++o) out.push_back(stored(o));
  return out;
}

class ConsumerTest : public ::testing::Test {
 protected:
  static ConsumerConfig base_config() {
    ConsumerConfig c;
    c.bootstrap_servers = {kB1};  // one server: the consumer's choice of it draws nothing
    c.auto_offset_reset = OffsetReset::kEarliest;
    c.retry_backoff_ms = 100;
    c.request_timeout_ms = 30000;
    return c;
  }

  void make(ConsumerConfig c) { consumer.emplace(env, mux, std::move(c)); }

  // The requests of type T sent so far, in order, with their destination and time.
  template <typename T>
  std::vector<std::pair<Sent, T>> sent_of() const {
    std::vector<std::pair<Sent, T>> out;
    for (const Sent& s : env.sent) {
      if (const auto* m = std::get_if<T>(&s.msg)) out.emplace_back(s, *m);
    }
    return out;
  }
  std::vector<FetchRequest> fetches(const TopicPartition& tp) const {
    std::vector<FetchRequest> out;
    for (const auto& [s, f] : sent_of<FetchRequest>()) {
      if (f.topic == tp.topic && f.partition == tp.partition) out.push_back(f);
    }
    return out;
  }
  std::vector<ListOffsetsRequest> list_offsets(const TopicPartition& tp) const {
    std::vector<ListOffsetsRequest> out;
    for (const auto& [s, l] : sent_of<ListOffsetsRequest>()) {
      if (l.topic == tp.topic && l.partition == tp.partition) out.push_back(l);
    }
    return out;
  }

  // Answers the latest MetadataRequest: kTopic with one partition per entry of `leaders`.
  void answer_metadata(const std::vector<NodeId>& leaders) {
    const auto reqs = sent_of<MetadataRequest>();
    ASSERT_FALSE(reqs.empty()) << "no MetadataRequest was sent";
    EXPECT_TRUE(
        consumer->on_message(kB1, metadata_response(reqs.back().second.correlation_id, kTopic, leaders, {kB1, kB2, kB3})));
  }

  void answer_list_offsets(const ListOffsetsRequest& req, std::int64_t offset, ErrorCode error = ErrorCode::NONE) {
    ListOffsetsResponse resp;
    resp.correlation_id = req.correlation_id;
    resp.topic = req.topic;
    resp.partition = req.partition;
    resp.error = error;
    resp.offset = Offset(offset);
    consumer->on_message(kB2, resp);
  }

  void answer_fetch(const FetchRequest& req, std::vector<StoredRecord> records, ErrorCode error = ErrorCode::NONE) {
    FetchResponse resp;
    resp.correlation_id = req.correlation_id;
    resp.topic = req.topic;
    resp.partition = req.partition;
    resp.error = error;
    resp.high_watermark = Offset(records.empty() ? req.fetch_offset.value() : records.back().offset.value() + 1);
    resp.log_start_offset = Offset(0);
    resp.records = clienttest::batches_of(records);
    consumer->on_message(kB2, resp);
  }
  // OFFSET_OUT_OF_RANGE, with the log's bounds as the broker reports them.
  void answer_out_of_range(const FetchRequest& req, std::int64_t log_start, std::int64_t high_watermark) {
    FetchResponse resp;
    resp.correlation_id = req.correlation_id;
    resp.topic = req.topic;
    resp.partition = req.partition;
    resp.error = ErrorCode::OFFSET_OUT_OF_RANGE;
    resp.high_watermark = Offset(high_watermark);
    resp.log_start_offset = Offset(log_start);
    consumer->on_message(kB2, resp);
  }

  // Assigns `tps` (all led by broker 2), answers Metadata and each ListOffsets with `start`.
  void assign_at(const std::vector<TopicPartition>& tps, std::int64_t start, ConsumerConfig c = base_config()) {
    make(std::move(c));
    consumer->assign(tps);
    answer_metadata(std::vector<NodeId>(2, kB2));
    for (const auto& tp : tps) {
      const auto lists = list_offsets(tp);
      ASSERT_EQ(lists.size(), 1u);
      answer_list_offsets(lists.back(), start);
    }
  }

  // Moves the clock to `t`, firing every timer due by then in deadline order. Bounded, so a
  // client that re-arms a timer for "now" forever fails the test instead of hanging it.
  void advance_to(Nanos t) {
    ASSERT_GE(t, env.now());
    constexpr int kFiringsMax = 10000;
    int firings = 0;
    while (auto timer = env.pop_due(t)) {
      ASSERT_LT(++firings, kFiringsMax) << "timers keep firing at " << env.now() << " ns";
      env.set_now(timer->deadline);
      mux.on_timer(timer->id, timer->tag);
    }
    env.set_now(t);
  }

  static std::vector<std::int64_t> offsets_of(const std::vector<ConsumerRecord>& records, const TopicPartition& tp) {
    std::vector<std::int64_t> out;
    for (const ConsumerRecord& r : records) {
      if (r.tp == tp) out.push_back(r.record.offset.value());
    }
    return out;
  }

  FakeEnv env;
  TimerMux mux{env};
  std::optional<Consumer> consumer;
};

using Offsets = std::vector<std::int64_t>;

// ---- Assignment, the first position, fetching.

TEST_F(ConsumerTest, AssignListsEarliestOffsetThenFetchesFromIt) {
  ConsumerConfig c = base_config();
  c.max_poll_records = 7;
  make(c);
  consumer->assign({kP0});
  const auto metas = sent_of<MetadataRequest>();
  ASSERT_EQ(metas.size(), 1u);
  EXPECT_EQ(metas[0].second.topics, std::vector<std::string>{kTopic});
  EXPECT_TRUE(list_offsets(kP0).empty()) << "the leader is not known before metadata";
  EXPECT_EQ(consumer->position(kP0), std::nullopt);

  answer_metadata({kB2});
  const auto lists = sent_of<ListOffsetsRequest>();
  ASSERT_EQ(lists.size(), 1u);
  EXPECT_EQ(lists[0].first.to, kB2) << "ListOffsets goes to the leader";
  EXPECT_EQ(lists[0].second.timestamp_ms, kListOffsetsEarliest);
  EXPECT_TRUE(fetches(kP0).empty()) << "no fetch without a position";

  answer_list_offsets(lists[0].second, 5);
  EXPECT_EQ(consumer->position(kP0), Offset(5));
  const auto fs = sent_of<FetchRequest>();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].first.to, kB2);
  EXPECT_EQ(fs[0].second.fetch_offset, Offset(5));
  EXPECT_EQ(fs[0].second.max_records, 7);
  EXPECT_EQ(fs[0].second.replica_id, NodeId(-1)) << "a consumer, not a follower: reads up to the HW";

  answer_fetch(fs[0].second, range(5, 7));
  const auto got = consumer->poll();
  EXPECT_EQ(offsets_of(got, kP0), (Offsets{5, 6}));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].record.record.value, std::optional<std::string>("v5"));
  EXPECT_EQ(consumer->position(kP0), Offset(7));
  ASSERT_EQ(fetches(kP0).size(), 2u);
  EXPECT_EQ(fetches(kP0).back().fetch_offset, Offset(7)) << "the next fetch continues after the last record";
}

TEST_F(ConsumerTest, AutoOffsetResetLatestListsLatest) {
  ConsumerConfig c = base_config();
  c.auto_offset_reset = OffsetReset::kLatest;
  make(c);
  consumer->assign({kP0});
  answer_metadata({kB2});
  const auto lists = list_offsets(kP0);
  ASSERT_EQ(lists.size(), 1u);
  EXPECT_EQ(lists[0].timestamp_ms, kListOffsetsLatest);
  answer_list_offsets(lists[0], 42);
  ASSERT_EQ(fetches(kP0).size(), 1u);
  EXPECT_EQ(fetches(kP0)[0].fetch_offset, Offset(42));
}

TEST_F(ConsumerTest, PollReturnsAtMostMaxPollRecordsAndAdvancesPositions) {
  ConsumerConfig c = base_config();
  c.max_poll_records = 3;
  assign_at({kP0, kP1}, 0, c);
  answer_fetch(fetches(kP0).back(), range(0, 2));
  answer_fetch(fetches(kP1).back(), range(0, 2));

  const auto first = consumer->poll();
  ASSERT_EQ(first.size(), 3u) << "four records buffered, max.poll.records=3";
  const auto second = consumer->poll();
  ASSERT_EQ(second.size(), 1u);
  EXPECT_TRUE(consumer->poll().empty());
  // Every record exactly once, each partition in offset order.
  std::vector<ConsumerRecord> all = first;
  all.insert(all.end(), second.begin(), second.end());
  EXPECT_EQ(offsets_of(all, kP0), (Offsets{0, 1}));
  EXPECT_EQ(offsets_of(all, kP1), (Offsets{0, 1}));
  EXPECT_EQ(consumer->position(kP0), Offset(2));
  EXPECT_EQ(consumer->position(kP1), Offset(2));
}

TEST_F(ConsumerTest, AFullBufferStopsFetchingUntilPoll) {
  ConsumerConfig c = base_config();
  c.max_poll_records = 3;
  assign_at({kP0}, 10, c);
  answer_fetch(fetches(kP0).back(), range(10, 13));
  EXPECT_EQ(fetches(kP0).size(), 1u) << "max.poll.records buffered: no more fetching";
  EXPECT_EQ(consumer->position(kP0), Offset(10)) << "the position moves at poll, not at fetch";
  const auto got = consumer->poll();
  EXPECT_EQ(offsets_of(got, kP0), (Offsets{10, 11, 12}));
  EXPECT_EQ(consumer->position(kP0), Offset(13));
  ASSERT_EQ(fetches(kP0).size(), 2u);
  EXPECT_EQ(fetches(kP0).back().fetch_offset, Offset(13));
}

// ---- pause and resume.

TEST_F(ConsumerTest, APausedPartitionIsNeitherFetchedNorHandedOutAndResumesWhereItWas) {
  assign_at({kP0, kP1}, 0);
  answer_fetch(fetches(kP0).back(), range(0, 2));  // buffered; the next fetch (from 2) goes at once
  consumer->pause({kP0});
  EXPECT_EQ(consumer->paused(), (std::vector<TopicPartition>{kP0}));
  answer_fetch(fetches(kP0).back(), range(2, 3));  // in flight when paused: kept in the buffer too
  const std::size_t fetches_of_p0 = fetches(kP0).size();
  answer_fetch(fetches(kP1).back(), range(0, 2));
  const auto while_paused = consumer->poll();
  EXPECT_EQ(offsets_of(while_paused, kP0), Offsets{}) << "a paused partition hands out nothing";
  EXPECT_EQ(offsets_of(while_paused, kP1), (Offsets{0, 1}));
  answer_fetch(fetches(kP1).back(), range(2, 3));
  consumer->poll();
  EXPECT_EQ(fetches(kP0).size(), fetches_of_p0) << "a paused partition is not fetched";
  EXPECT_EQ(consumer->position(kP0), Offset(0));

  consumer->resume({kP0});
  EXPECT_TRUE(consumer->paused().empty());
  const auto resumed = consumer->poll();
  EXPECT_EQ(offsets_of(resumed, kP0), (Offsets{0, 1, 2})) << "what was buffered comes first, in order";
  ASSERT_GT(fetches(kP0).size(), fetches_of_p0);
  EXPECT_EQ(fetches(kP0).back().fetch_offset, Offset(3));
}

TEST_F(ConsumerTest, PauseIgnoresPartitionsNotAssignedAndANewAssignmentIsNotPaused) {
  assign_at({kP0}, 0);
  consumer->pause({kP0, kP1});
  EXPECT_EQ(consumer->paused(), (std::vector<TopicPartition>{kP0}));
  consumer->assign({kP0, kP1});  // kP0 stays assigned: still paused; kP1 is new
  EXPECT_EQ(consumer->paused(), (std::vector<TopicPartition>{kP0}));
  consumer->assign({kP1});
  consumer->assign({kP0, kP1});  // kP0 assigned afresh
  EXPECT_TRUE(consumer->paused().empty());
  consumer->resume({kP0});  // not paused: nothing happens
  EXPECT_TRUE(consumer->paused().empty());
}

TEST_F(ConsumerTest, EmptyFetchIsFollowedByTheNextFetchAtOnce) {
  assign_at({kP0}, 3);
  advance_to(millis(500));  // the broker held the long poll for fetch.max.wait.ms
  answer_fetch(fetches(kP0).back(), {});
  const auto fs = sent_of<FetchRequest>();
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_EQ(fs[1].second.fetch_offset, Offset(3));
  EXPECT_EQ(fs[1].first.at, millis(500)) << "no delay after an empty answer";
  EXPECT_TRUE(consumer->poll().empty());
}

TEST_F(ConsumerTest, RecordsBelowTheFetchOffsetAreNotHandedOutAgain) {
  assign_at({kP0}, 0);
  answer_fetch(fetches(kP0).back(), range(0, 3));
  EXPECT_EQ(offsets_of(consumer->poll(), kP0), (Offsets{0, 1, 2}));
  const FetchRequest next = fetches(kP0).back();
  ASSERT_EQ(next.fetch_offset, Offset(3));
  // A broker may answer with whole batches that begin below the offset asked for.
  answer_fetch(next, range(1, 6));
  EXPECT_EQ(offsets_of(consumer->poll(), kP0), (Offsets{3, 4, 5}));
  EXPECT_EQ(consumer->position(kP0), Offset(6));
}

// Compaction can leave a batch's last offsets without records: the next fetch asks from the
// batch's end, not from its last record's next offset (which would get the same batch back for
// ever), and the position moves there once the batch is handed out, as Kafka's consumer moves
// to a batch's nextOffset.
TEST_F(ConsumerTest, TheNextFetchStartsWhereTheLastBatchEndsNotAfterItsLastRecord) {
  assign_at({kP0}, 0);
  const FetchRequest first = fetches(kP0).back();
  std::string bytes;
  encode_stored_batch(range(0, 2), bytes, Offset(6));  // records 0 and 1 of a batch spanning 0..6
  FetchResponse resp{first.correlation_id, kP0.topic, kP0.partition, ErrorCode::NONE, Offset(7), Offset(0)};
  resp.records = SharedBytes(std::move(bytes));
  consumer->on_message(kB2, resp);
  EXPECT_EQ(fetches(kP0).back().fetch_offset, Offset(7));
  EXPECT_EQ(offsets_of(consumer->poll(), kP0), (Offsets{0, 1}));
  EXPECT_EQ(consumer->position(kP0), Offset(7)) << "past the offsets the batch holds no record at";
}

// ---- Seek.

TEST_F(ConsumerTest, SeekDropsBufferedRecordsAndFetchesFromTheNewOffset) {
  ConsumerConfig c = base_config();
  c.max_poll_records = 3;
  assign_at({kP0}, 0, c);
  answer_fetch(fetches(kP0).back(), range(0, 3));  // buffer full, no fetch in flight
  ASSERT_EQ(fetches(kP0).size(), 1u);
  consumer->seek(kP0, Offset(100));
  EXPECT_EQ(consumer->position(kP0), Offset(100));
  ASSERT_EQ(fetches(kP0).size(), 2u);
  EXPECT_EQ(fetches(kP0).back().fetch_offset, Offset(100));
  EXPECT_TRUE(consumer->poll().empty()) << "the records buffered before the seek are dropped";
  answer_fetch(fetches(kP0).back(), range(100, 102));
  EXPECT_EQ(offsets_of(consumer->poll(), kP0), (Offsets{100, 101}));
}

TEST_F(ConsumerTest, LateAnswerToAFetchFromBeforeASeekIsIgnored) {
  assign_at({kP0}, 0);
  const FetchRequest old = fetches(kP0).back();
  consumer->seek(kP0, Offset(50));
  answer_fetch(old, range(0, 5));
  EXPECT_TRUE(consumer->poll().empty()) << "records fetched for the old position are not handed out";
  EXPECT_EQ(consumer->position(kP0), Offset(50));
  // However long it takes, the next fetch asks for the new position (never the old one).
  advance_to(millis(30000));
  const auto fs = fetches(kP0);
  ASSERT_GE(fs.size(), 2u);
  for (std::size_t i = 1; i < fs.size(); ++i) EXPECT_EQ(fs[i].fetch_offset, Offset(50));
}

// Regression: seek() used to forget the request in flight but leave its request-timeout timer
// armed, so pump() returned and nothing was fetched until request.timeout.ms (30 s) fired.
TEST_F(ConsumerTest, SeekWhileAFetchIsInFlightFetchesAtOnce) {
  assign_at({kP0}, 0);
  advance_to(millis(10));
  consumer->seek(kP0, Offset(50));
  const auto fs = sent_of<FetchRequest>();
  ASSERT_EQ(fs.size(), 2u) << "the seek fetches from the new offset without waiting for the old fetch";
  EXPECT_EQ(fs[1].second.fetch_offset, Offset(50));
  EXPECT_EQ(fs[1].first.at, millis(10));
}

// seekToBeginning / seekToEnd / offsetsForTimes: the position comes from ListOffsets.
TEST_F(ConsumerTest, SeekToAsksTheLeaderAndReportsWhereItLanded) {
  assign_at({kP0}, 0);
  answer_fetch(fetches(kP0).back(), range(0, 3));
  const std::size_t fetched = fetches(kP0).size();
  consumer->seek_to(kP0, kListOffsetsLatest);
  EXPECT_EQ(consumer->position(kP0), std::nullopt) << "unknown until the leader answers";
  EXPECT_TRUE(consumer->poll().empty()) << "the records buffered before the seek are dropped";
  const auto lists = list_offsets(kP0);
  ASSERT_EQ(lists.size(), 2u);
  EXPECT_EQ(lists.back().timestamp_ms, kListOffsetsLatest);
  EXPECT_EQ(fetches(kP0).size(), fetched) << "no fetch until the new position is known";
  answer_list_offsets(lists.back(), 40);
  EXPECT_EQ(consumer->position(kP0), Offset(40));
  EXPECT_EQ(fetches(kP0).back().fetch_offset, Offset(40));
  const auto resets = consumer->take_resets();
  ASSERT_EQ(resets.size(), 1u);
  EXPECT_EQ(resets[0].to, Offset(40));
  EXPECT_EQ(resets[0].seek_to, kListOffsetsLatest) << "told apart from auto.offset.reset";
}

TEST_F(ConsumerTest, SeekToATimestampWithNoRecordAtOrAfterItGoesToTheEnd) {
  assign_at({kP0}, 0);
  consumer->seek_to(kP0, 123'456);
  ASSERT_EQ(list_offsets(kP0).back().timestamp_ms, 123'456);
  answer_list_offsets(list_offsets(kP0).back(), -1);  // Kafka's null: nothing that late
  EXPECT_EQ(consumer->position(kP0), std::nullopt);
  ASSERT_EQ(list_offsets(kP0).back().timestamp_ms, kListOffsetsLatest);
  answer_list_offsets(list_offsets(kP0).back(), 9);
  EXPECT_EQ(consumer->position(kP0), Offset(9));
  const auto resets = consumer->take_resets();
  ASSERT_EQ(resets.size(), 1u);
  EXPECT_EQ(resets[0].to, Offset(9));
}

TEST_F(ConsumerTest, SeekToWorksWithAutoOffsetResetNone) {
  ConsumerConfig c = base_config();
  c.auto_offset_reset = OffsetReset::kNone;
  make(c);
  consumer->assign({kP0});
  consumer->seek_to(kP0, kListOffsetsEarliest);
  answer_metadata({kB2});
  ASSERT_EQ(list_offsets(kP0).size(), 1u) << "an explicit seek is not auto.offset.reset: none does not stop it";
  EXPECT_EQ(list_offsets(kP0).back().timestamp_ms, kListOffsetsEarliest);
  answer_list_offsets(list_offsets(kP0).back(), 5);
  EXPECT_EQ(consumer->partition_error(kP0), std::nullopt);
  EXPECT_EQ(fetches(kP0).back().fetch_offset, Offset(5));
}

TEST_F(ConsumerTest, ASeekOverridesASeekToStillUnderWay) {
  assign_at({kP0}, 0);
  consumer->seek_to(kP0, kListOffsetsEarliest);
  const ListOffsetsRequest pending = list_offsets(kP0).back();
  consumer->seek(kP0, Offset(70));
  answer_list_offsets(pending, 2);  // the answer to the abandoned seek_to
  EXPECT_EQ(consumer->position(kP0), Offset(70));
  EXPECT_TRUE(consumer->take_resets().empty());
}

// ---- Errors, timeouts, disconnects.

TEST_F(ConsumerTest, OffsetOutOfRangeResetsByPolicyEarliest) {
  assign_at({kP0}, 20);
  answer_fetch(fetches(kP0).back(), range(20, 22));
  ASSERT_EQ(fetches(kP0).size(), 2u);
  EXPECT_EQ(fetches(kP0).back().fetch_offset, Offset(22));
  // Retention deleted everything below 30 meanwhile.
  answer_out_of_range(fetches(kP0).back(), 30, 41);
  const auto lists = list_offsets(kP0);
  ASSERT_EQ(lists.size(), 2u) << "OFFSET_OUT_OF_RANGE resets through ListOffsets";
  EXPECT_EQ(lists.back().timestamp_ms, kListOffsetsEarliest);
  EXPECT_EQ(fetches(kP0).size(), 2u) << "no fetch until the new position is known";
  EXPECT_EQ(consumer->partition_error(kP0), std::nullopt);
  EXPECT_TRUE(consumer->take_resets().empty()) << "not reset until the new position is known";
  answer_list_offsets(lists.back(), 30);
  EXPECT_EQ(consumer->position(kP0), Offset(30));
  ASSERT_EQ(fetches(kP0).size(), 3u);
  EXPECT_EQ(fetches(kP0).back().fetch_offset, Offset(30));
  // The application learns of the reset once (to record it as a seek), with where it came from.
  const auto resets = consumer->take_resets();
  ASSERT_EQ(resets.size(), 1u);
  EXPECT_EQ(resets[0].tp, kP0);
  EXPECT_EQ(resets[0].from, Offset(22));
  EXPECT_EQ(resets[0].to, Offset(30));
  // ... and with the bounds the out-of-range answer carried (the checkers hold Kafka to
  // log start <= high watermark).
  EXPECT_EQ(resets[0].log_start_offset, Offset(30));
  EXPECT_EQ(resets[0].high_watermark, Offset(41));
  EXPECT_TRUE(consumer->take_resets().empty()) << "each reset is told once";
}

TEST_F(ConsumerTest, TheFirstPositionFromAutoOffsetResetIsNotAReset) {
  assign_at({kP0}, 20);
  answer_fetch(fetches(kP0).back(), range(20, 22));
  EXPECT_TRUE(consumer->take_resets().empty()) << "a partition without a position starts by policy: not a move";
}

TEST_F(ConsumerTest, OffsetOutOfRangeWithResetNoneStopsThePartition) {
  ConsumerConfig c = base_config();
  c.auto_offset_reset = OffsetReset::kNone;
  make(c);
  consumer->assign({kP0});
  consumer->seek(kP0, Offset(7));  // reset=none needs a position from somewhere
  answer_metadata({kB2});
  ASSERT_EQ(fetches(kP0).size(), 1u);
  EXPECT_EQ(fetches(kP0)[0].fetch_offset, Offset(7));
  answer_fetch(fetches(kP0).back(), {}, ErrorCode::OFFSET_OUT_OF_RANGE);
  EXPECT_EQ(consumer->partition_error(kP0), ErrorCode::OFFSET_OUT_OF_RANGE);
  EXPECT_EQ(consumer->position(kP0), std::nullopt);
  const std::size_t sent = env.sent.size();
  advance_to(seconds(60));
  EXPECT_TRUE(consumer->poll().empty());
  EXPECT_EQ(env.sent.size(), sent) << "a stopped partition fetches nothing more";
  // The application decides: a seek clears the error and fetching resumes.
  consumer->seek(kP0, Offset(3));
  EXPECT_EQ(consumer->partition_error(kP0), std::nullopt);
  ASSERT_GT(env.sent.size(), sent);
  EXPECT_EQ(fetches(kP0).back().fetch_offset, Offset(3));
}

// Regression: a partition without a position used to send ListOffsets(LATEST) under
// auto.offset.reset=none, silently skipping to the end; Kafka raises
// NoOffsetForPartitionException, and consumer.h promises OFFSET_OUT_OF_RANGE and an idle partition.
TEST_F(ConsumerTest, ResetNoneWithoutAPositionReportsInsteadOfListingOffsets) {
  ConsumerConfig c = base_config();
  c.auto_offset_reset = OffsetReset::kNone;
  make(c);
  consumer->assign({kP0});
  answer_metadata({kB2});
  EXPECT_TRUE(list_offsets(kP0).empty()) << "reset=none never picks a position by itself";
  EXPECT_EQ(consumer->partition_error(kP0), ErrorCode::OFFSET_OUT_OF_RANGE);
  EXPECT_TRUE(fetches(kP0).empty());
}

// ---- KIP-320: the position is validated against the new leader after a leader change.

class ConsumerTruncationTest : public ConsumerTest {
 protected:
  // Answers the latest MetadataRequest: kTopic's one partition led by `leader` in `epoch`.
  void answer_metadata_epoch(NodeId leader, std::int32_t epoch) {
    const auto reqs = sent_of<MetadataRequest>();
    ASSERT_FALSE(reqs.empty());
    MetadataResponse resp = metadata_response(reqs.back().second.correlation_id, kTopic, {leader}, {kB1, kB2, kB3});
    resp.topics[0].partitions[0].leader_epoch = LeaderEpoch(epoch);
    EXPECT_TRUE(consumer->on_message(kB1, resp));
  }
  std::vector<OffsetsForLeaderEpochRequest> validations() const {
    std::vector<OffsetsForLeaderEpochRequest> out;
    for (const auto& [s, r] : sent_of<OffsetsForLeaderEpochRequest>()) out.push_back(r);
    return out;
  }
  void answer_validation(const OffsetsForLeaderEpochRequest& req, std::int32_t epoch, std::int64_t end,
                         ErrorCode error = ErrorCode::NONE) {
    OffsetsForLeaderEpochResponse resp{req.correlation_id, req.topic, req.partition, error, LeaderEpoch(epoch), Offset(end)};
    EXPECT_TRUE(consumer->on_message(kB3, resp));
  }
  // Reads offsets 0-9 (leader epoch 0) from broker 2, then broker 2 stops leading and the
  // metadata names broker 3 in leader epoch 1.
  void read_ten_then_leader_changes(OffsetReset policy) {
    ConsumerConfig c = base_config();
    c.auto_offset_reset = policy;
    make(c);
    consumer->assign({kP0});
    consumer->seek(kP0, Offset(0));
    answer_metadata({kB2});
    ASSERT_EQ(fetches(kP0).back().current_leader_epoch, LeaderEpoch(0)) << "a fetch names the leader epoch it expects";
    answer_fetch(fetches(kP0).back(), range(0, 10));
    ASSERT_EQ(consumer->poll().size(), 10u);
    // Broker 2 answers NOT_LEADER_OR_FOLLOWER until the consumer has the new metadata (its
    // refresh waits out retry.backoff.ms); bounded.
    std::size_t answered_fetches = 0;
    std::size_t metadata_answered = sent_of<MetadataRequest>().size();
    for (int round = 0; round < 10 && validations().empty(); ++round) {
      const auto sent = fetches(kP0);
      for (; answered_fetches < sent.size(); ++answered_fetches) {
        answer_fetch(sent[answered_fetches], {}, ErrorCode::NOT_LEADER_OR_FOLLOWER);
      }
      if (sent_of<MetadataRequest>().size() > metadata_answered) {
        metadata_answered = sent_of<MetadataRequest>().size();
        answer_metadata_epoch(kB3, 1);
      }
      advance_to(env.now() + millis(200));
    }
    ASSERT_FALSE(validations().empty()) << "no OffsetsForLeaderEpoch after the leader change";
  }
};

TEST_F(ConsumerTruncationTest, APositionPastTheNewLeadersEpochEndMovesBackToTheDivergencePoint) {
  read_ten_then_leader_changes(OffsetReset::kLatest);  // under latest too: not auto.offset.reset
  const std::size_t fetched = fetches(kP0).size();
  ASSERT_EQ(validations().size(), 1u) << "the new leader is asked before it is fetched from";
  EXPECT_EQ(validations()[0].current_leader_epoch, LeaderEpoch(1));
  EXPECT_EQ(validations()[0].leader_epoch, LeaderEpoch(0)) << "the epoch of the last record handed out";
  EXPECT_EQ(fetches(kP0).size(), fetched);
  answer_validation(validations()[0], 0, 7);  // the new leader's epoch 0 ends at 7: 7-9 diverged
  EXPECT_EQ(consumer->position(kP0), Offset(7));
  ASSERT_EQ(fetches(kP0).size(), fetched + 1);
  EXPECT_EQ(fetches(kP0).back().fetch_offset, Offset(7));
  EXPECT_EQ(fetches(kP0).back().current_leader_epoch, LeaderEpoch(1));
  EXPECT_TRUE(list_offsets(kP0).empty()) << "no auto.offset.reset: the divergence point is known";
  const auto moves = consumer->take_resets();
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_EQ(moves[0].why, Consumer::AutoReset::Why::kTruncation);
  EXPECT_EQ(moves[0].from, Offset(10));
  EXPECT_EQ(moves[0].to, Offset(7));
  EXPECT_EQ(moves[0].epoch, LeaderEpoch(0));
}

TEST_F(ConsumerTruncationTest, APositionWithinTheEpochIsKept) {
  read_ten_then_leader_changes(OffsetReset::kEarliest);
  ASSERT_EQ(validations().size(), 1u);
  answer_validation(validations()[0], 0, 12);
  EXPECT_EQ(consumer->position(kP0), Offset(10));
  EXPECT_EQ(fetches(kP0).back().fetch_offset, Offset(10));
  EXPECT_TRUE(consumer->take_resets().empty());
  // Validated once: the next fetch goes straight on.
  answer_fetch(fetches(kP0).back(), range(10, 11));
  EXPECT_EQ(validations().size(), 1u);
}

TEST_F(ConsumerTruncationTest, WithResetNoneATruncationStopsThePartition) {
  read_ten_then_leader_changes(OffsetReset::kNone);
  ASSERT_EQ(validations().size(), 1u);
  answer_validation(validations()[0], 0, 4);
  EXPECT_EQ(consumer->partition_error(kP0), ErrorCode::OFFSET_OUT_OF_RANGE);
  const auto moves = consumer->take_resets();
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_EQ(moves[0].why, Consumer::AutoReset::Why::kTruncationNoReset);
  EXPECT_EQ(moves[0].from, Offset(10));
}

TEST_F(ConsumerTruncationTest, AFencedValidationRefreshesMetadataAndAsksAgain) {
  read_ten_then_leader_changes(OffsetReset::kEarliest);
  const auto metas = sent_of<MetadataRequest>().size();
  answer_validation(validations()[0], -1, -1, ErrorCode::FENCED_LEADER_EPOCH);
  ASSERT_EQ(sent_of<MetadataRequest>().size(), metas + 1);
  answer_metadata_epoch(kB3, 2);
  EXPECT_EQ(validations().size(), 1u) << "asked again only after retry.backoff.ms";
  advance_to(env.now() + millis(200));
  ASSERT_EQ(validations().size(), 2u);
  EXPECT_EQ(validations()[1].current_leader_epoch, LeaderEpoch(2));
}

TEST_F(ConsumerTest, AFetchFencedByANewerEpochRefreshesMetadata) {
  assign_at({kP0}, 0);
  const auto metas = sent_of<MetadataRequest>().size();
  answer_fetch(fetches(kP0).back(), {}, ErrorCode::FENCED_LEADER_EPOCH);
  advance_to(env.now() + millis(150));  // the refresh waits out retry.backoff.ms since the last
  EXPECT_EQ(sent_of<MetadataRequest>().size(), metas + 1);
}

TEST_F(ConsumerTest, ResetNoneWithoutAPositionIsToldOnce) {
  ConsumerConfig c = base_config();
  c.auto_offset_reset = OffsetReset::kNone;
  make(c);
  consumer->assign({kP0});
  answer_metadata({kB2});
  const auto moves = consumer->take_resets();
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_EQ(moves[0].why, Consumer::AutoReset::Why::kNoOffset);
  EXPECT_EQ(moves[0].from, Offset(-1));
  EXPECT_EQ(moves[0].to, Offset(-1));
  advance_to(seconds(10));
  consumer->poll();
  EXPECT_TRUE(consumer->take_resets().empty());
}

TEST_F(ConsumerTest, MetadataIsRefreshedEveryMetadataMaxAge) {
  ConsumerConfig c = base_config();
  c.metadata_max_age_ms = 60000;
  c.request_timeout_ms = 1'000'000;  // the fetch below is never answered: no timeout in the way
  assign_at({kP0}, 0, c);
  const auto metas = sent_of<MetadataRequest>().size();
  advance_to(seconds(59));
  EXPECT_EQ(sent_of<MetadataRequest>().size(), metas);
  advance_to(seconds(61));
  EXPECT_EQ(sent_of<MetadataRequest>().size(), metas + 1);
  answer_metadata({kB2});
  advance_to(seconds(121));
  EXPECT_EQ(sent_of<MetadataRequest>().size(), metas + 2);
}

TEST_F(ConsumerTest, NotLeaderRefreshesMetadataAndFetchesFromTheNewLeader) {
  assign_at({kP0}, 8);
  advance_to(seconds(1));
  const auto metas_before = sent_of<MetadataRequest>().size();
  answer_fetch(fetches(kP0).back(), {}, ErrorCode::NOT_LEADER_OR_FOLLOWER);
  ASSERT_EQ(sent_of<MetadataRequest>().size(), metas_before + 1) << "NOT_LEADER_OR_FOLLOWER refreshes metadata";
  answer_metadata({kB3});
  EXPECT_EQ(fetches(kP0).size(), 1u) << "the next fetch waits out retry.backoff.ms";
  advance_to(seconds(1) + millis(100));
  const auto fs = sent_of<FetchRequest>();
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_EQ(fs[1].first.to, kB3) << "to the new leader";
  EXPECT_EQ(fs[1].second.fetch_offset, Offset(8)) << "from the same position";
}

// As Kafka's NetworkClient, a request that times out closes its connection: it is sent again
// after a backoff, and its late answer is dropped.
TEST_F(ConsumerTest, RequestTimeoutRefetchesAndDropsTheLateAnswer) {
  ConsumerConfig c = base_config();
  c.request_timeout_ms = 1000;
  assign_at({kP0}, 4, c);
  const FetchRequest old = fetches(kP0).back();
  advance_to(millis(999));
  EXPECT_EQ(fetches(kP0).size(), 1u);
  const auto metas_before = sent_of<MetadataRequest>().size();
  advance_to(millis(1000));
  EXPECT_EQ(fetches(kP0).size(), 1u) << "not again before the backoff";
  EXPECT_GT(sent_of<MetadataRequest>().size(), metas_before) << "a closed connection asks for metadata";
  advance_to(millis(1000 + c.retry_backoff_ms));
  ASSERT_EQ(fetches(kP0).size(), 2u) << "request.timeout.ms and the backoff passed: fetch again";
  const FetchRequest again = fetches(kP0).back();
  EXPECT_EQ(again.fetch_offset, Offset(4));
  EXPECT_NE(again.correlation_id, old.correlation_id);
  answer_fetch(old, range(4, 6));
  EXPECT_TRUE(consumer->poll().empty()) << "the timed-out request's answer is dropped";
  answer_fetch(again, range(4, 6));
  EXPECT_EQ(offsets_of(consumer->poll(), kP0), (Offsets{4, 5}));
}

TEST_F(ConsumerTest, ARequestTimeoutFailsEveryFetchInFlightToThatBroker) {
  ConsumerConfig c = base_config();
  c.request_timeout_ms = 1000;
  assign_at({kP0, kP1}, 0, c);  // both led by broker 2
  advance_to(millis(300));
  answer_fetch(fetches(kP1).back(), range(0, 2));
  const FetchRequest p1 = fetches(kP1).back();  // sent at 300 ms: 300 ms left at 1000 ms
  ASSERT_EQ(p1.fetch_offset, Offset(2));
  advance_to(millis(1000));  // partition 0's first fetch times out: the connection closes
  answer_fetch(p1, range(2, 4));
  const auto polled = consumer->poll();
  EXPECT_EQ(offsets_of(polled, kP1), (Offsets{0, 1})) << "the answer on the closed connection was read";
  advance_to(millis(1000 + c.retry_backoff_ms));
  EXPECT_EQ(fetches(kP1).back().fetch_offset, Offset(2));
  EXPECT_NE(fetches(kP1).back().correlation_id, p1.correlation_id) << "partition 1 fetches again";
}

TEST_F(ConsumerTest, DisconnectRetriesAfterBackoff) {
  assign_at({kP0}, 6);
  advance_to(seconds(1));
  const FetchRequest old = fetches(kP0).back();
  const auto metas_before = sent_of<MetadataRequest>().size();
  consumer->on_disconnect(kB3);  // nothing in flight there
  EXPECT_EQ(fetches(kP0).size(), 1u);
  EXPECT_EQ(sent_of<MetadataRequest>().size(), metas_before);

  consumer->on_disconnect(kB2);
  EXPECT_EQ(fetches(kP0).size(), 1u) << "not at once: after retry.backoff.ms";
  EXPECT_EQ(sent_of<MetadataRequest>().size(), metas_before + 1) << "the leader may have moved";
  answer_fetch(old, range(6, 8));
  EXPECT_TRUE(consumer->poll().empty()) << "an answer on the broken connection does not count";
  answer_metadata({kB2});
  advance_to(seconds(1) + millis(100) - 1);
  EXPECT_EQ(fetches(kP0).size(), 1u);
  advance_to(seconds(1) + millis(100));
  ASSERT_EQ(fetches(kP0).size(), 2u);
  EXPECT_EQ(fetches(kP0).back().fetch_offset, Offset(6));
}

}  // namespace
}  // namespace logsim::engine

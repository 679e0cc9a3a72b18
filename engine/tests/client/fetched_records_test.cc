// What a consumer takes from fetched batches: never a marker, and under read_committed no
// record of an aborted transaction (Kafka's CompletedFetch algorithm).
#include "engine/client/fetched_records.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/protocol/record_batch.h"

namespace logsim::engine {
namespace {

// Batches laid out as a leader's log holds them, each at the next offset.
class Log {
 public:
  // A transactional batch of `pid` holding `value` (or a plain one: pid -1).
  Log& data(std::int64_t pid, const std::string& value, bool transactional = true) {
    std::string b = encode_batch(std::vector<Record>{Record{std::nullopt, value, 0}},
                                 BatchMeta{next_, LeaderEpoch(0), ProducerId(pid), ProducerEpoch(pid < 0 ? -1 : 0),
                                           Sequence(pid < 0 ? -1 : seq_++), transactional && pid >= 0});
    return put(std::move(b));
  }
  Log& marker(std::int64_t pid, ControlType type) {
    std::string b = encode_control_batch(TxnMarker{ProducerId(pid), ProducerEpoch(0), type, 0}, 0);
    BatchHeader h = *parse_batch_header(b);
    h.base_offset = next_;
    write_batch_header(h, b.data());  // the base offset is outside the CRC
    return put(std::move(b));
  }
  SharedBytes bytes() const { return SharedBytes(std::string(bytes_)); }

 private:
  Log& put(std::string b) {
    bytes_ += b;
    next_ = next_ + 1;
    return *this;
  }
  std::string bytes_;
  Offset next_{0};
  std::int32_t seq_ = 0;
};

std::vector<std::string> values(const SharedBytes& batches, IsolationLevel isolation,
                                const std::vector<AbortedTransaction>& aborted, Offset from = Offset(0)) {
  std::vector<StoredRecord> out;
  decode_fetched(batches, from, isolation, aborted, out);
  std::vector<std::string> v;
  for (const StoredRecord& r : out) v.push_back(r.record.value.value_or("<null>"));
  return v;
}

TEST(FetchedRecords, ReadCommittedDropsAbortedTransactionsAndEveryMarker) {
  Log log;
  log.data(1, "a1")                         // 0: producer 1's first transaction, aborted at 4
      .data(2, "b1")                        // 1: producer 2's, committed at 5
      .data(-1, "plain")                    // 2: not transactional
      .data(1, "a2")                        // 3
      .marker(1, ControlType::kAbort)       // 4
      .marker(2, ControlType::kCommit)      // 5
      .data(1, "a3")                        // 6: producer 1's second transaction, committed at 7
      .marker(1, ControlType::kCommit);     // 7
  const std::vector<AbortedTransaction> aborted{{ProducerId(1), Offset(0)}};
  EXPECT_EQ(values(log.bytes(), IsolationLevel::kReadCommitted, aborted),
            (std::vector<std::string>{"b1", "plain", "a3"}));
  EXPECT_EQ(values(log.bytes(), IsolationLevel::kReadUncommitted, aborted),
            (std::vector<std::string>{"a1", "b1", "plain", "a2", "a3"}))
      << "read_uncommitted sees aborted records, never markers";
  EXPECT_EQ(values(log.bytes(), IsolationLevel::kReadCommitted, {}),
            (std::vector<std::string>{"a1", "b1", "plain", "a2", "a3"}))
      << "without the broker's list nothing is known to be aborted";
  EXPECT_EQ(values(log.bytes(), IsolationLevel::kReadCommitted, aborted, Offset(2)),
            (std::vector<std::string>{"plain", "a3"})) << "from an offset inside the batches";
}

// The aborted list names where each transaction began; a producer's later transaction after
// its abort marker is read again (the marker ends the abort).
TEST(FetchedRecords, AProducersAbortEndsAtItsMarker) {
  Log log;
  log.data(1, "x1").marker(1, ControlType::kAbort).data(1, "x2").marker(1, ControlType::kAbort).data(1, "x3");
  const std::vector<AbortedTransaction> both{{ProducerId(1), Offset(2)}, {ProducerId(1), Offset(0)}};  // any order
  EXPECT_EQ(values(log.bytes(), IsolationLevel::kReadCommitted, both), (std::vector<std::string>{"x3"}));
  const std::vector<AbortedTransaction> second{{ProducerId(1), Offset(2)}};
  EXPECT_EQ(values(log.bytes(), IsolationLevel::kReadCommitted, second), (std::vector<std::string>{"x1", "x3"}));
}

}  // namespace
}  // namespace logsim::engine

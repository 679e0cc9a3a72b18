// `poll-skip` (Jepsen's name): within one assignment, with no seek or reset in between, the
// offsets one consumer processes from one partition skip no record that exists. A hole between
// two records of one poll is `int-poll-skip` (the history's `poll` events say where each poll's
// records begin; a history without them reports every hole as `poll-skip`).
//
// What is recorded (scenarios/apps): a consumer appends `process` when it has finished with a
// record (handler failures that skip or dead-letter a record still end in a `process`), `seek`
// when auto.offset.reset moved its position (appended at the poll that hands out the first
// records after the reset, before them) and `assign` whenever its assignment changes (group
// members: each revocation, loss and assignment; manual consumers: at each start). A run is the
// offsets one process processed from one partition since its last `assign` or its last `seek`
// of that partition; the first offset of a run is a start (a committed offset, a reset, a kept
// position), never a skip. Offsets processed again after a rebalance start a new run.
//
// Why a hole in a run is a skip. A partition's log is contiguous from its log start to its log
// end at every moment: appends take the next offset, truncation (acks=1 failover, unclean
// election) removes a suffix whose offsets the next appends reuse, retention removes a prefix.
// So when a consumer's position was p and its next record was o > p, every offset in [p, o)
// held a record when it fetched, unless (a) retention removed it (then p was below the log start
// and the fetch was out of range: the consumer reset, which is a `seek` and ends the run) or
// (b) compaction removed it (cleanup.policy compact: a record is removed only when a later
// record with the same key is in the log, or it is a tombstone past delete.retention.ms).
// Records lost to truncation leave no hole (their offsets are reused: that is `lost-write` /
// `inconsistent-offsets`, not reported again here). Transactions leave holes a consumer may
// skip: their markers (control records, never acknowledged sends, so never judged) and, under
// read_committed, the records of aborted transactions (excused, with those of transactions
// whose outcome is unknown; txn_witness.h).
// One reset is judged too: a reset whose out-of-range answer's high watermark is below the
// offset the reader had read to (its position was truncated away) and which lands above that
// high watermark (auto.offset.reset=latest) skips the records the new leader was acknowledged
// for at those offsets after the reader's last record: `poll-skip` at the reset. A consumer with
// KIP-320's truncation detection moves back to the divergence point instead.
//
// What is judged. Only offsets the history proves were written: an offset in a hole is judged
// when an acknowledged send (`send-ok`) put a record there. On a topic that may be compacted,
// such a record is excused when compaction could have removed it before the fetch that passed
// it: it had a key and another record with the same key could have been in the log at
// a higher offset by then, i.e. an acknowledged send of that key to a higher offset of the
// partition, or a send of that key whose outcome is unknown (`send-info`, or none by the end),
// was invoked before the `process` that shows the hole (the fetch came before that event, the
// write after the invoke); or it carried no value id (possibly a tombstone). Which topics may
// be compacted: every topic by default (the history does not record topic configs), or the
// topics given to the constructor plus any an `admin` alter-config made compacted.
//
// Found at the end (acknowledgements can arrive after a consumer read the record); the first
// event is the `process` just past the hole. One violation per hole, naming its first skipped
// offset and how many acknowledged records it skipped.
//
// State: integers only (interned ids, see symbols.h). Per process, its runs as a small vector
// sorted by topic-partition id (an `assign` empties it); per partition, its acknowledgements in
// history order (32 bytes each), sorted only at the end and only for partitions with a hole;
// what compaction may have removed (compaction.h); holes in history order, so violations come
// out in that order.
//
// Cost: O(log p) per event (p: partitions one process reads; amortized O(1) for the rest, with
// no allocation once the containers have grown); the end sorts the acknowledgements of each
// partition with a hole by offset and by key: O(n log n), plus the total width of the holes.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "properties/checker.h"
#include "properties/compaction.h"
#include "properties/txn_witness.h"

namespace logsim::properties {

class PollSkipChecker final : public Checker {
 public:
  struct Options {
    // The topics whose cleanup.policy includes compact; nullopt: unknown, any topic may be.
    std::optional<std::set<std::string>> compacted_topics;
  };
  PollSkipChecker() = default;
  explicit PollSkipChecker(Options options) : compaction_(std::move(options.compacted_topics)) {}

  std::string_view name() const override { return "no-skips"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;
  KindSet kinds() const override {
    return kinds_of({OpKind::kAssign, OpKind::kSeek, OpKind::kSendOk, OpKind::kProcess, OpKind::kPoll}) |
           CompactionWitness::kKinds | TxnWitness::kKinds;
  }
  void finish() override;

 private:
  static constexpr std::int64_t kNoRun = INT64_MIN;  // a run ended by a seek: the next offset starts one
  struct Run {
    Id tp;
    std::int64_t offset;  // the last offset processed, or kNoRun
    std::uint64_t event;
    std::uint32_t poll;  // the process's poll count when it processed `offset`
  };
  struct Hole {
    Id process;
    Id tp;
    std::int64_t from;  // first offset skipped
    std::int64_t to;    // the offset processed after the hole (exclusive end)
    std::uint64_t event;
    Nanos at;
    std::uint64_t previous_event;
    bool one_poll;  // both sides of the hole came from one poll: int-poll-skip
    bool after_truncation = false;  // a reset past a truncated log end (from: that end)
    std::int64_t from_position = 0;  // after_truncation: the reader's position before the reset
  };
  // One acknowledgement (send-ok with an offset) of a partition, in history order.
  struct Ack {
    std::int64_t offset;
    std::uint64_t event;
    std::uint64_t value_id;
    Id key;                 // kNoId: no key
    Id process;
  };

  void note_reset_past_truncation(const HistoryEvent& e, const EventIds& ids, const Run& run);

  CompactionWitness compaction_;
  TxnWitness txns_;
  std::vector<std::vector<Run>> runs_;             // process id -> its runs, sorted by tp
  std::vector<std::uint32_t> polls_;               // process id -> how many polls it has recorded
  std::vector<Hole> holes_;
  std::vector<std::deque<Ack>> acks_;              // tp id -> every acknowledgement, in history order
};

}  // namespace logsim::properties

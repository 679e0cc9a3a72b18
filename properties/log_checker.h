// Log integrity, after Jepsen's Kafka checker, over sends and processed records:
// - `inconsistent-offsets`: one (topic, partition, offset) holds two different values, as seen
//   by acknowledgements and by consumers together. Found online, at the second value.
// - `lost-write`: an acknowledged value that no consumer ever processed, although a consumer
//   read its partition through its offset after the acknowledgement: in one continuous read
//   (no new assignment, no seek or reset in between) it started at or below the offset and
//   processed at or past it. A reader that started above it (auto.offset.reset=latest, a
//   seek) says nothing about it. Each reader is judged by its own read: a group member whose
//   own group's committed offset passed the record, where nobody processed anything, may have
//   skipped it itself (the group's `lost-commit` says so), which says nothing about the log;
//   another group's commits excuse nobody (a commit is not a read). On a topic that may be
//   compacted, a record compaction could have removed before the read passed it is no loss
//   (compaction.h). Nor is a record of a transaction that aborted or whose outcome is unknown
//   (txn_witness.h): a read_committed reader skips it. Found at the end; the first event is
//   the first processing that shows it.
//   Also a `lost-write`: an acknowledged value at an offset that a leader deleted while it was
//   still above the high watermark. A consumer whose fetch was out of range records the log
//   start offset and high watermark of that answer on its auto.offset.reset `seek`; Kafka
//   keeps log start <= high watermark (retention and DeleteRecords stop at it), so an answer
//   with log start L above high watermark h shows offsets [h, L) deleted before they were
//   committed. An acknowledged value there that nobody processed was lost. The first event is
//   the later of that seek and the acknowledgement.
// Records are told apart by their value ids (each send's value is unique in a run).
//
// State: per topic-partition (indexed by its id), the value first seen at each offset
// (OffsetTable). Per acknowledged value not (yet) processed, its acknowledgement (a paged table
// by value id, an entry erased when the value is processed, so only the unprocessed ones stay).
// The first processing that shows an acknowledged value missing is found online: each
// partition keeps the acknowledgements no read has yet passed, sorted by offset, and a
// processing at offset o in a read that began at f claims those in [f, o] (it is the first
// processing in history order that passed them; the end reports those still unprocessed).
// O(log n) per event plus the acknowledgements claimed (each once), linear memory in the
// offsets and the values still unprocessed. Ranges deleted above the high watermark exist only
// when a broker broke Kafka's rule; each new one costs O(ranges so far), and the end one pass
// over the unprocessed acknowledgements per partition's ranges.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "properties/checker.h"
#include "engine/base/flat_map.h"
#include "properties/compaction.h"
#include "properties/offset_table.h"
#include "properties/txn_witness.h"

namespace logsim::properties {

class LogChecker final : public Checker {
 public:
  // compacted_topics: the topics whose cleanup.policy includes compact (nullopt: any may be).
  explicit LogChecker(std::optional<std::set<std::string>> compacted_topics = std::nullopt)
      : compaction_(std::move(compacted_topics)) {}
  std::string_view name() const override { return "log-integrity"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;
  KindSet kinds() const override {
    return kinds_of({OpKind::kAssign, OpKind::kSeek, OpKind::kCommitOk, OpKind::kSendOk, OpKind::kProcess}) |
           CompactionWitness::kKinds | TxnWitness::kKinds;
  }
  void finish() override;

 private:
  struct Seen {
    std::uint64_t value = 0;
    std::uint64_t event = 0;
    Id process = kNoId;
    bool conflicted = false;  // reported once per offset
    bool processed = false;   // some consumer processed this offset (any value)
  };
  // A read that passed an acknowledged offset without processing its value: the first processing
  // past it of one reader's group (kNoId: a reader without a group).
  struct Showing {
    Id reader = kNoId;
    Id group = kNoId;
    std::int64_t read_from = -1;  // where that read began
    std::int64_t offset = -1;     // the offset it processed past the acknowledged one
    std::uint64_t event = 0;
    Nanos at = 0;
  };
  // The acknowledgement of a value not processed (yet), and the reads that passed it.
  struct Ack {
    std::uint64_t value = 0;
    Id tp = kNoId;
    Id key = kNoId;
    Id process = kNoId;
    std::int64_t offset = -1;
    std::uint64_t event = 0;
    Nanos at = 0;
    std::uint64_t order = 0;       // the value's first acknowledgement among all (reports' order)
    std::uint64_t number = 0;      // this acknowledgement among all (a later one replaces it)
    std::vector<Showing> showings; // in history order, one per group
  };
  // An acknowledgement no read has passed yet (stale once its value is processed or acknowledged
  // again: `number` no longer matches).
  struct Pending {
    std::int64_t offset;
    std::uint64_t value;
    std::uint64_t number;
  };
  // Offsets [from, to) of a partition deleted above the high watermark (a seek's answer).
  struct DeletedAboveHw {
    Id tp;
    std::int64_t from;
    std::int64_t to;
    std::uint64_t event;
    Nanos at;
    Id process;
  };
  struct Partition {
    OffsetTable<Seen> at;            // the first value seen at each offset
    std::vector<Pending> pending;    // sorted by offset from `head` on; [0, head) is spent
    std::size_t head = 0;
    std::vector<Pending> shown;      // shown by group members only so far, sorted by offset
  };
  // One reader's continuous read of a partition: where it began, and how far it has looked at
  // the partition's `shown` list.
  struct Read {
    std::int64_t from;
    std::int64_t looked;
  };

  Partition& partition(Id tp);
  void note(Partition& p, const HistoryEvent& e, const EventIds& ids, bool processed);
  void add_pending(Partition& p, const Pending& pending);
  // A processing at `e.offset` by a read: claims the pending acknowledgements in
  // [read.from, e.offset] acknowledged before it, and adds its group's showing to those shown
  // by other groups only.
  void claim(Partition& p, const HistoryEvent& e, const EventIds& ids, Read& read);
  void show_again(Partition& p, const HistoryEvent& e, const EventIds& ids, Read& read);
  static Showing showing(const HistoryEvent& e, const EventIds& ids, const Read& read);
  // The first showing of `a` that is not excused, or nullptr.
  const Showing* judged(const Ack& a);
  void report_deleted_above_hw(const std::vector<const Ack*>& unprocessed, const OffsetSet& reported);

  std::vector<Partition> partitions_;                 // by topic-partition id
  // Tables by value id (a run numbers values 1, 2, ...: dense, so paged tables beat hashing).
  OffsetTable<Ack> acks_;                             // acknowledged values not processed (yet)
  OffsetSet processed_;                               // values some consumer processed
  std::uint64_t acks_seen_ = 0;                       // acknowledgements so far (numbers them)
  std::vector<DeletedAboveHw> deleted_above_hw_;      // in history order (none when Kafka's rule holds)
  // Per process, per partition, its current continuous read; a new assignment ends every read
  // of the process. (Hash maps: looked up and cleared, never iterated.)
  std::vector<FlatMap<Id, Read>> reads_;
  // The highest offset each group's commits were accepted at, per partition: pack(group, tp).
  FlatMap<std::uint64_t, std::int64_t> committed_;
  CompactionWitness compaction_;
  TxnWitness txns_;
};

}  // namespace logsim::properties

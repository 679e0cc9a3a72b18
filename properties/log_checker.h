// Log integrity, after Jepsen's Kafka checker, over sends and processed records:
// - `inconsistent-offsets`: one (topic, partition, offset) holds two different values, as seen
//   by acknowledgements and by consumers together. Found online, at the second value.
// - `lost-write`: an acknowledged value that no consumer ever processed, although a consumer
//   read its partition through its offset after the acknowledgement: in one continuous read
//   (no new assignment, no seek or reset in between) it started at or below the offset and
//   processed at or past it. A reader that started above it (auto.offset.reset=latest, a
//   seek) says nothing about it. Found at the end; the first event is that processing.
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
// (OffsetTable) and every processing, grouped by continuous read (24 bytes each); per value, where it was acknowledged and whether it was
// processed (paged tables by value id). O(1) per event (amortized), linear memory. Ranges
// deleted above the high watermark exist only when a broker broke Kafka's rule; each new one
// costs O(ranges so far), and the end one pass over the acknowledgements per partition's ranges.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "properties/checker.h"
#include "properties/offset_table.h"

namespace logsim::properties {

class LogChecker final : public Checker {
 public:
  std::string_view name() const override { return "log-integrity"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;
  void finish() override;

 private:
  struct Seen {
    std::uint64_t value = 0;
    std::uint64_t event = 0;
    Id process = kNoId;
    bool conflicted = false;  // reported once per offset
    bool processed = false;   // some consumer processed this offset (any value)
  };
  struct Ack {
    std::uint64_t value;
    Id tp;
    Id key;
    Id process;
    std::int64_t offset;
    std::uint64_t event;
    Nanos at;
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
  // One continuous read of a partition by one process: from its start (a first processed
  // offset, or a seek's position) until the process's next assignment or seek of it, with the
  // records it processed in history order (for naming a lost write's first event).
  struct Read {
    struct Step {
      std::int64_t offset;
      std::uint64_t event;
      Nanos at;
    };
    Id process;
    std::int64_t from;
    std::vector<Step> steps;
  };
  struct Partition {
    OffsetTable<Seen> at;         // the first value seen at each offset
    std::vector<Read> reads;      // in the order they began
    std::int64_t committed = -1;  // highest offset some group's commit was accepted at
  };
  // A process's current read of a partition: where it began, and its entry in the partition's
  // reads once it has processed something (kNoRead before).
  static constexpr std::size_t kNoRead = SIZE_MAX;
  struct CurrentRead {
    std::int64_t from;
    std::size_t read = kNoRead;
  };

  Partition& partition(Id tp);
  void note(Partition& p, const HistoryEvent& e, const EventIds& ids, bool processed);
  void report_deleted_above_hw(const OffsetSet& reported);

  std::vector<Partition> partitions_;                 // by topic-partition id
  // Tables by value id (a run numbers values 1, 2, ...: dense, so paged tables beat hashing).
  std::vector<Ack> acked_;                            // in acknowledgement order
  OffsetTable<std::size_t> ack_of_;                   // value -> its entry in acked_ (the last ack wins)
  OffsetSet processed_;                               // values some consumer processed
  std::vector<DeletedAboveHw> deleted_above_hw_;      // in history order (none when Kafka's rule holds)
  // Per process, per partition, its current continuous read; a new assignment ends every read
  // of the process. (Hash maps: looked up and cleared, never iterated.)
  std::vector<std::unordered_map<Id, CurrentRead>> read_from_;
};

}  // namespace logsim::properties

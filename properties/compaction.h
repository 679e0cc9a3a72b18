// What compaction may have removed, for the checkers that must not call a compacted record lost
// (`poll-skip`, `lost-write`, `lost-commit`, `unseen`).
//
// Kafka's log cleaner (cleanup.policy=compact) removes a record only when a later record with
// the same key is in the log, or when the record is a tombstone past delete.retention.ms. It
// keeps records without a key. So an acknowledged record at offset o with key k of a partition
// may be gone by history event t when some other record of k could have been in the partition
// at a higher offset by then: an acknowledged send of k to a higher offset, or a send of k to
// the topic whose outcome is unknown (`send-info`, or no outcome by the end), invoked before t
// (the write came after its invoke). A keyed tombstone (`tombstone` on its `send-invoke`) may
// also be gone itself once delete.retention.ms has passed since its invoke: the cleaner keeps a
// tombstone at least that long after it first cleaned the tombstone's segment, which came after
// the write. The topic's delete.retention.ms is the least an `admin` note set
// ("delete.retention.ms=N"), else Kafka's default, a day.
//
// Which topics may be compacted: every topic when the caller does not know (a history from
// elsewhere), else the topics it names plus any that an `admin` alter-config made compacted
// (its note lists the configs set: "... cleanup.policy=compact: done").
//
// State: integer ids only. Per topic-partition that may be compacted, its keyed
// acknowledgements (32 bytes each), sorted by key and offset at the first query; the sends in
// flight, keyed by (process, value id); per (topic, key), the earliest invoke of a send whose
// outcome is unknown; the acknowledged tombstones whose delete.retention.ms has not yet passed.
// Topics known not to be compacted cost nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/base/flat_map.h"
#include "properties/checker.h"

namespace logsim::properties {

class CompactionWitness {
 public:
  // nullopt: any topic may be compacted.
  explicit CompactionWitness(std::optional<std::set<std::string>> compacted_topics = std::nullopt)
      : compacted_topics_(std::move(compacted_topics)) {}

  // observe() must see every event (each one's time tells which tombstones may be gone).
  static constexpr KindSet kKinds = kAllKinds;
  void observe(const HistoryEvent& e, const EventIds& ids, const Symbols& symbols);

  // Whether the topic's cleanup.policy may include compact.
  bool may_compact(Id topic, const Symbols& symbols) const;
  // Whether compaction could have removed the acknowledged record at `offset` of `tp` (key `key`,
  // kNoId: none) before history event `before`, superseded by a later record of its key.
  // Or, a keyed tombstone, removed itself after delete.retention.ms. Queries come after the
  // last event (the first one prepares the tables). (A record without a value id may be a
  // tombstone from a history that does not say so: the callers that see value ids excuse those
  // on a topic that may_compact.)
  bool may_have_removed(Id tp, Id key, std::int64_t offset, std::uint64_t before, const Symbols& symbols);

 private:
  struct KeyedAck {
    Id key;
    std::int64_t offset;
    std::uint64_t invoked;  // 0: its invoke was not seen (as early as can be)
    std::uint64_t gone_from = UINT64_MAX;  // a tombstone: the first event by which it may be gone
  };
  // An acknowledged tombstone whose delete.retention.ms has not passed by the last event.
  struct Tombstone {
    Nanos invoked_at;
    Id topic, tp;
    std::uint32_t ack;  // its index in partitions_[tp].keyed (which is only appended to until prepared)
    Nanos gone_at;      // invoked_at + the topic's delete.retention.ms
    bool operator>(const Tombstone& o) const { return gone_at > o.gone_at; }
  };
  struct Send {
    Id process;
    std::uint64_t value_id;
    bool operator==(const Send&) const = default;
  };
  struct SendHash {
    std::uint64_t operator()(const Send& s) const noexcept { return s.value_id ^ (std::uint64_t{s.process} << 40); }
  };
  struct Invoke {
    Id topic = kNoId;
    Id key = kNoId;
    std::uint64_t event = 0;
    Nanos at = 0;
    bool tombstone = false;
  };
  struct Partition {
    std::vector<KeyedAck> keyed;
    std::vector<std::uint64_t> suffix_min_invoke;  // over the rest of the same key, once prepared
    bool prepared = false;
  };
  void prepare();
  void note_uncertain(Id topic, Id key, std::uint64_t invoked);
  void note_event(const HistoryEvent& e, const EventIds& ids, const Symbols& symbols);
  void note_admin(const HistoryEvent& e, const EventIds& ids);
  Nanos delete_retention(Id topic) const;

  std::optional<std::set<std::string>> compacted_topics_;
  std::vector<bool> altered_to_compact_;  // topic id -> an alter-config made it compacted
  std::vector<std::int64_t> delete_retention_ms_;  // topic id -> the least an admin note set (-1: none)
  std::vector<Tombstone> tombstones_;      // a min-heap by gone_at
  std::vector<Partition> partitions_;     // by topic-partition id
  FlatMap<Send, Invoke, SendHash> in_flight_;
  // (pack(topic, key), earliest invoke) of sends with an unknown outcome; sorted and unique by
  // key once prepared.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> uncertain_;
  bool prepared_ = false;
};

}  // namespace logsim::properties

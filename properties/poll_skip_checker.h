// `poll-skip` (Jepsen's name): within one assignment, with no seek or reset in between, the
// offsets one consumer processes from one partition skip no record that exists.
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
// `inconsistent-offsets`, not reported again here). There are no control markers in logsim.
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
// Cost: O(log n) per event; the end walks each hole's acknowledged offsets once and sorts the
// acknowledgements of each key: O(n log n) plus the total width of the holes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "properties/checker.h"

namespace logsim::properties {

class PollSkipChecker final : public Checker {
 public:
  struct Options {
    // The topics whose cleanup.policy includes compact; nullopt: unknown, any topic may be.
    std::optional<std::set<std::string>> compacted_topics;
  };
  PollSkipChecker() = default;
  explicit PollSkipChecker(Options options) : options_(std::move(options)) {}

  std::string_view name() const override { return "no-skips"; }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;
  void finish() override;

 private:
  using RunKey = std::tuple<std::string, std::string, std::int32_t>;  // process, topic, partition
  using TopicPartition = std::pair<std::string, std::int32_t>;
  using KeyOnPartition = std::tuple<std::string, std::int32_t, std::string>;  // topic, partition, key
  using TopicKey = std::pair<std::string, std::string>;
  struct Last {
    std::int64_t offset;
    std::uint64_t event;
  };
  struct Hole {
    std::string process;
    std::string topic;
    std::int32_t partition;
    std::int64_t from;  // first offset skipped
    std::int64_t to;    // the offset processed after the hole (exclusive end)
    std::uint64_t event;
    Nanos at;
    std::uint64_t previous_event;
  };
  struct Ack {
    std::uint64_t event;
    std::uint64_t invoked;  // index of the send's invoke (0 when not seen: as early as can be)
    std::uint64_t value_id;
    std::optional<std::string> key;
    std::string process;
  };
  struct Invoke {
    std::uint64_t event;
    std::string topic;
    std::optional<std::string> key;
  };
  // Acknowledged sends of one key to one partition: (offset, invoke), sorted by offset at the
  // end, with the earliest invoke of every suffix.
  struct KeyedAcks {
    std::vector<std::pair<std::int64_t, std::uint64_t>> by_offset;
    std::vector<std::uint64_t> suffix_min_invoke;
  };

  bool may_compact(const std::string& topic) const;
  bool excused(const std::string& topic, std::int32_t partition, std::int64_t offset, const Ack& ack,
               std::uint64_t shown_at) const;
  void note_uncertain(const std::string& topic, const std::optional<std::string>& key, std::uint64_t invoked);

  Options options_;
  std::set<std::string> altered_to_compact_;
  std::map<RunKey, Last> last_;
  std::vector<Hole> holes_;
  std::map<TopicPartition, std::map<std::int64_t, Ack>> acks_;  // first acknowledgement per offset
  std::map<KeyOnPartition, KeyedAcks> keyed_;
  std::map<std::pair<std::string, std::uint64_t>, Invoke> in_flight_;  // (process, value id) -> invoke
  std::map<TopicKey, std::uint64_t> uncertain_;  // earliest invoke of a send of the key with an unknown outcome
};

}  // namespace logsim::properties

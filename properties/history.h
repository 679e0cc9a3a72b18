// The history: what the system under test did, as observed at its edges (DESIGN.md).
//
// Producers' sends (invoked, then acknowledged with an offset, failed, or unknown), consumers'
// assignments, seeks and the records they finished processing, group members' commits
// (requested, then accepted or rejected), and injected faults. Checkers
// read only this, never the simulator, so a history recorded from a real system can be
// checked the same way. Events are appended in simulated-time order; each gets its index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/base/flat_map.h"
#include "engine/base/topic_partition.h"
#include "engine/base/types.h"
#include "properties/interner.h"

namespace logsim::properties {

enum class OpKind : std::uint8_t {
  kSendInvoke,  // a producer handed a record to its client
  kSendOk,      // acknowledged, with partition and offset
  kSendFail,    // definitely not written
  kSendInfo,    // unknown: may or may not be in the log
  kAssign,      // a consumer's assignment changed: a new assignment begins
  kSeek,        // a consumer's position moved by a seek or reset
  kProcess,     // a consumer finished processing a record
  kFault,       // a fault was injected (context for reports)
  kAdmin,       // a topic admin operation ended (note: what and how; error: Kafka's error name)
  kCommitInvoke,  // a group member asked to commit an offset (one event per partition)
  kCommitOk,      // the coordinator accepted it
  kCommitFail,    // it was not accepted (error: Kafka's error name)
  kPoll,          // a consumer's poll returned records (records: how many); the `process`
                  // events of that process up to its next `poll`, `assign` or `seek` are its records
  kAssert,        // an application's assertion (api/app.h, always/sometimes): note, its message;
                  // error, what happened: always-failed, sometimes-reached or sometimes-held
  // A transactional producer's transactions: the sends a process invokes after its txn-begin
  // and before its next txn-commit, txn-abort, txn-info or txn-begin belong to that transaction.
  kTxnBegin,      // the process began a transaction
  kTxnCommit,     // its commit succeeded: every record of it is committed
  kTxnAbort,      // it definitely aborted (error: why, when it was a commit that failed)
  kTxnInfo,       // its outcome is unknown (error: why); a transaction never ended is unknown too
  kTxnCommitInvoke,  // the process asked to commit its open transaction (commitTransaction): before
                     // this, no reader may see the transaction under read_committed
};
// How many kinds there are (the last one's number, plus one).
inline constexpr std::size_t kOpKinds = static_cast<std::size_t>(OpKind::kTxnCommitInvoke) + 1;

inline constexpr bool is_commit(OpKind k) {
  return k == OpKind::kCommitInvoke || k == OpKind::kCommitOk || k == OpKind::kCommitFail;
}

// The history's form of an engine value that uses Kafka's -1 for none (an offset an acks=0
// producer cannot know, a member without a generation).
template <typename Tag, typename Rep>
std::optional<StrongInt<Tag, Rep>> known(StrongInt<Tag, Rep> v) {
  return v.value() < 0 ? std::nullopt : std::optional<StrongInt<Tag, Rep>>(v);
}

std::string_view op_kind_name(OpKind kind);
std::optional<OpKind> op_kind_from_name(std::string_view name);

struct HistoryEvent {
  std::uint64_t index = 0;    // position in the history, from 0 (set by History::append)
  Nanos at = 0;               // simulated time
  OpKind kind = OpKind::kFault;
  std::string process;        // the producer or consumer (or the faulted node)
  std::string group;          // the consumer group; empty under manual assignment
  std::optional<GenerationId> generation;  // the member's generation when it acted (none: no group)
  std::string topic;
  std::optional<PartitionId> partition;
  // kSendOk: where the record landed; kProcess: the record's offset; kCommit*: the committed
  // offset (the next to consume); kSeek: the new position (none: delete-offsets, the group's
  // committed offset removed).
  std::optional<Offset> offset;
  std::optional<std::string> key;
  std::uint64_t value_id = 0;  // unique id of the value a producer sent (0: none)
  std::uint64_t commit_id = 0; // kCommit*: pairs a commit's request with its outcome, per process
  // kSendInvoke: the value this send was made from (a pipeline copying its input), 0: none
  std::uint64_t source_value_id = 0;
  // kSeek by auto.offset.reset: the log start offset and high watermark the out-of-range fetch
  // answer carried, when known. Kafka keeps the log start at or below the high watermark.
  std::optional<Offset> log_start_offset;
  std::optional<Offset> high_watermark;
  bool idempotent = false;     // kSendInvoke: the producer had enable.idempotence on
  bool tombstone = false;      // kSendInvoke: the record has a null value (a delete on a compacted topic)
  bool read_committed = false; // kProcess: the consumer reads with isolation.level=read_committed
  std::vector<TopicPartition> assignment;  // kAssign: the new assignment
  std::uint32_t records = 0;   // kPoll: how many records the poll returned
  std::string error;           // Kafka error name for failed or unknown sends
  std::string note;            // free text (fault description)
};

// The history keeps each event packed (64 bytes: its strings as ids of one interner, its rare
// fields aside) rather than as a HistoryEvent (312 bytes, and each string's heap): an hour of
// the fan-out story appends 24 million events. Observers see each event whole as it is
// appended; reads decode it again.
class History {
 public:
  // The packed form, for scans of long histories that need only a few fields, 48 bytes an
  // event (an hour of the fan-out story holds 27 million): strings are ids into text() (key:
  // kNoId for a null key); offset is -1 where the event has none. The fields that repeat from
  // event to event are kept once each and named by a small id: an event's context (process,
  // group, generation), its partition (topic, partition) and its texts (error, note); read them
  // through process(), group(), generation(), topic(), partition(), error() and note().
  struct Entry {
    Nanos at = 0;
    std::int64_t offset = -1;
    std::uint64_t value_id = 0;  // kPoll: the number of records; commits: see History::commit_id
    Id context = 0;               // (process, group, generation); 0: all empty
    Id where = 0;                 // (topic, partition); 0: neither
    Id key = kNoId;
    Id texts = 0;                 // (error, note); 0: both empty
    std::uint32_t extra = kNoId;  // index into the rare fields, kNoId: all at their defaults
    OpKind kind = OpKind::kFault;
    bool idempotent : 1 = false;
    bool tombstone : 1 = false;
    bool read_committed : 1 = false;
  };
  // The text ids of an appended event's strings, for observers that keep their own ids of them
  // (kNoId: the string is not given here).
  struct TextIds {
    Id process = kNoId, group = kNoId, topic = kNoId, key = kNoId;
  };
  using Observer = std::function<void(const HistoryEvent&)>;
  // An observer that is also shown the text ids of the event's strings (ids of text()).
  using PackedObserver = std::function<void(const HistoryEvent&, const TextIds&)>;

  // The packed fields' encoding of an absent value, and back.
  static std::int64_t packed(const std::optional<Offset>& o) { return o ? o->value() : -1; }
  static std::int32_t packed(const std::optional<PartitionId>& p) { return p ? p->value() : -1; }
  static std::int32_t packed(const std::optional<GenerationId>& g) { return g ? g->value() : -1; }
  template <typename T>
  static std::optional<T> unpacked(typename T::rep v) {
    return v < 0 ? std::nullopt : std::optional<T>(T(v));
  }

  History();

  // Appends an event (assigning its index) and shows it to every observer, in order. Returns
  // the index.
  std::uint64_t append(HistoryEvent event);
  void observe(Observer observer) {
    observers_.push_back([o = std::move(observer)](const HistoryEvent& e, const TextIds&) { o(e); });
  }
  void observe_packed(PackedObserver observer) { observers_.push_back(std::move(observer)); }
  // Stops showing events to anyone (an observer must not outlive what it captured).
  void clear_observers() { observers_.clear(); }

  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  // Event i, decoded. Precondition: i < size().
  HistoryEvent at(std::size_t i) const;

  // Every event in order, decoded as it is read: `for (const auto& e : h.events())`, `[i]`.
  class Events {
   public:
    class iterator {
     public:
      using iterator_category = std::input_iterator_tag;
      using value_type = HistoryEvent;
      using difference_type = std::ptrdiff_t;
      using reference = HistoryEvent;
      struct pointer {
        HistoryEvent e;
        const HistoryEvent* operator->() const { return &e; }
      };
      iterator() = default;
      HistoryEvent operator*() const { return h_->at(i_); }
      pointer operator->() const { return {h_->at(i_)}; }
      iterator& operator++() {
        ++i_;
        return *this;
      }
      iterator operator++(int) {
        iterator before = *this;
        ++i_;
        return before;
      }
      bool operator==(const iterator& o) const { return i_ == o.i_; }
      difference_type operator-(const iterator& o) const {
        return static_cast<difference_type>(i_) - static_cast<difference_type>(o.i_);
      }

     private:
      friend class Events;
      iterator(const History* h, std::size_t i) : h_(h), i_(i) {}
      const History* h_ = nullptr;
      std::size_t i_ = 0;
    };
    std::size_t size() const { return h_->size(); }
    bool empty() const { return h_->empty(); }
    HistoryEvent operator[](std::size_t i) const { return h_->at(i); }
    HistoryEvent front() const { return h_->at(0); }
    HistoryEvent back() const { return h_->at(h_->size() - 1); }
    iterator begin() const { return {h_, 0}; }
    iterator end() const { return {h_, h_->size()}; }

   private:
    friend class History;
    explicit Events(const History* h) : h_(h) {}
    const History* h_;
  };
  Events events() const { return Events(this); }

  const Entry& entry(std::size_t i) const { return entries_[i]; }
  const std::string& text(Id id) const { return text_.name(id); }
  Id process(const Entry& e) const { return contexts_[e.context].process; }
  Id group(const Entry& e) const { return contexts_[e.context].group; }
  std::int32_t generation(const Entry& e) const { return contexts_[e.context].generation; }  // -1: none
  Id topic(const Entry& e) const { return wheres_[e.where].topic; }
  std::int32_t partition(const Entry& e) const { return wheres_[e.where].partition; }  // -1: none
  Id error(const Entry& e) const { return texts_[e.texts].error; }
  Id note(const Entry& e) const { return texts_[e.texts].note; }
  std::uint64_t commit_id(std::size_t i) const {
    const Entry& e = entries_[i];
    if (e.extra != kNoId) return extras_[e.extra].commit_id;
    return is_commit(e.kind) ? e.value_id : 0;
  }

 private:
  struct Extra {
    std::uint64_t commit_id = 0;
    std::uint64_t source_value_id = 0;
    std::optional<Offset> log_start_offset;
    std::optional<Offset> high_watermark;
    std::vector<TopicPartition> assignment;
  };
  // Small values kept once each, by id in order of first use.
  template <class T>
  class Table {
   public:
    Id intern(const T& t) {
      if (!all_.empty() && all_[last_] == t) return last_;  // most events repeat the last one
      const auto [id, fresh] = ids_.try_emplace(t, static_cast<Id>(all_.size()));
      if (fresh) all_.push_back(t);
      return last_ = *id;
    }
    const T& operator[](Id id) const { return all_[id]; }

   private:
    struct Hash {
      std::uint64_t operator()(const T& t) const noexcept { return t.hash(); }
    };
    FlatMap<T, Id, Hash> ids_;
    std::vector<T> all_;
    Id last_ = 0;
  };
  struct Context {
    Id process = 0, group = 0;
    std::int32_t generation = -1;
    bool operator==(const Context&) const = default;
    std::uint64_t hash() const { return (std::uint64_t{process} << 32 | group) ^ (std::uint64_t(std::uint32_t(generation)) << 17); }
  };
  struct Where {
    Id topic = 0;
    std::int32_t partition = -1;
    bool operator==(const Where&) const = default;
    std::uint64_t hash() const { return std::uint64_t{topic} << 32 | std::uint32_t(partition); }
  };
  struct Texts {
    Id error = 0, note = 0;
    bool operator==(const Texts&) const = default;
    std::uint64_t hash() const { return std::uint64_t{error} << 32 | note; }
  };
  static_assert(sizeof(Entry) == 48, "an hour's history holds tens of millions of entries");
  // The last string one field of an event interned, and its id: most events name the process,
  // group, topic, error and note the event before named (a batch's records, a member's polls),
  // and those then cost one comparison rather than a hash and a probe. (Not keys: they vary.)
  struct LastText {
    std::string text;
    Id id = 0;
  };
  Id text_id(LastText& last, std::string_view s);

  std::deque<Entry> entries_;  // a deque: growing never copies what is kept
  std::deque<Extra> extras_;  // a deque too: a vector's doubling held both copies at its peak
  Interner text_;
  Table<Context> contexts_;
  Table<Where> wheres_;
  Table<Texts> texts_;
  LastText last_process_, last_group_, last_topic_, last_error_, last_note_;
  std::vector<PackedObserver> observers_;
};

}  // namespace logsim::properties

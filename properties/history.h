// The history: what the system under test did, as observed at its edges (DESIGN.md).
//
// Producers' sends (invoked, then acknowledged with an offset, failed, or unknown), consumers'
// assignments, seeks and the records they finished processing, group members' commits
// (requested, then accepted or rejected), and injected faults. Checkers
// read only this, never the simulator, so a history recorded from a real system can be
// checked the same way. Events are appended in simulated-time order; each gets its index.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/env/types.h"

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
};

std::string_view op_kind_name(OpKind kind);
std::optional<OpKind> op_kind_from_name(std::string_view name);

struct TopicPartitionRef {
  std::string topic;
  std::int32_t partition = -1;
  auto operator<=>(const TopicPartitionRef&) const = default;
};

struct HistoryEvent {
  std::uint64_t index = 0;    // position in the history, from 0 (set by History::append)
  Nanos at = 0;               // simulated time
  OpKind kind = OpKind::kFault;
  std::string process;        // the producer or consumer (or the faulted node)
  std::string group;          // the consumer group; empty under manual assignment
  std::int32_t generation = -1;
  std::string topic;
  std::int32_t partition = -1;
  std::int64_t offset = -1;
  std::optional<std::string> key;
  std::uint64_t value_id = 0;  // unique id of the value a producer sent (0: none)
  std::uint64_t commit_id = 0; // kCommit*: pairs a commit's request with its outcome, per process
  // kSeek by auto.offset.reset: the log start offset and high watermark the out-of-range fetch
  // answer carried (-1: not known). Kafka keeps the log start at or below the high watermark.
  std::int64_t log_start_offset = -1;
  std::int64_t high_watermark = -1;
  bool idempotent = false;     // kSendInvoke: the producer had enable.idempotence on
  std::vector<TopicPartitionRef> assignment;  // kAssign: the new assignment
  std::string error;           // Kafka error name for failed or unknown sends
  std::string note;            // free text (fault description)
};

class History {
 public:
  using Observer = std::function<void(const HistoryEvent&)>;

  // Appends an event (assigning its index) and shows it to every observer, in order.
  const HistoryEvent& append(HistoryEvent event);
  void observe(Observer observer) { observers_.push_back(std::move(observer)); }
  // Stops showing events to anyone (an observer must not outlive what it captured).
  void clear_observers() { observers_.clear(); }

  // A deque: appending never moves the events already kept, and needs no spare capacity.
  const std::deque<HistoryEvent>& events() const { return events_; }
  std::size_t size() const { return events_.size(); }

 private:
  std::deque<HistoryEvent> events_;
  std::vector<Observer> observers_;
};

}  // namespace logsim::properties

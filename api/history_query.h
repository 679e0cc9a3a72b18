// Questions a test asks of a run's history: which events of a kind, for a process, a group, a
// topic or a partition; what was acknowledged; what a reader processed; and which acknowledged
// records a reader never processed.
//
// A *reader* is either a consumer group (named by its group.id: its members' events carry it) or
// a manually assigned consumer (named by its name, with no group). Queries return copies of the
// events, in history order, so they stay valid after the RunOutput they came from is gone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "properties/history.h"

namespace logsim {

// Which events to select; an empty or absent field matches anything. Designed for designated
// initializers: `logsim::count(h, {.kind = logsim::OpKind::kProcess, .group = "billing"})`.
// (Every member has an initializer so gcc's -Wextra does not warn about the ones left out.)
struct EventFilter {
  std::optional<properties::OpKind> kind{};
  std::string process{};                   // the producer, consumer or group member (e.g. "billing-2")
  std::string group{};                     // the consumer group (group.id)
  std::string topic{};
  std::optional<PartitionId> partition{};

  bool matches(const properties::HistoryEvent& e) const;
};

std::vector<properties::HistoryEvent> events(const properties::History& history, const EventFilter& filter);
std::size_t count(const properties::History& history, const EventFilter& filter);

// Sends acknowledged by the cluster (send-ok), of one producer or (empty) of every producer.
std::vector<properties::HistoryEvent> acknowledged(const properties::History& history, std::string_view producer = {});

// Records a reader finished processing (process events), of every topic or (non-empty) one.
// A record processed twice (after a crash or a rebalance) appears twice.
std::vector<properties::HistoryEvent> processed_by(const properties::History& history, std::string_view reader,
                                                   std::string_view topic = {});

// The acknowledged sends to `topic` whose record the reader never processed (matched by the
// record's value id): what "at least once" says must be empty once the reader caught up.
std::vector<properties::HistoryEvent> missing_from(const properties::History& history, std::string_view reader,
                                                   std::string_view topic);

}  // namespace logsim

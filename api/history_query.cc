// Filters over a history: plain scans in history order (tests ask few questions of histories
// of at most a few million events, so no index is kept).
#include "api/history_query.h"

#include <set>

namespace logsim {

using properties::HistoryEvent;
using properties::OpKind;

namespace {

bool is_reader(const HistoryEvent& e, std::string_view reader) {
  return e.group.empty() ? e.process == reader : e.group == reader;
}

}  // namespace

bool EventFilter::matches(const HistoryEvent& e) const {
  return (!kind || e.kind == *kind) && (process.empty() || e.process == process) && (group.empty() || e.group == group) &&
         (topic.empty() || e.topic == topic) && (!partition || e.partition == *partition);
}

std::vector<HistoryEvent> events(const properties::History& history, const EventFilter& filter) {
  std::vector<HistoryEvent> out;
  for (const auto& e : history.events()) {
    if (filter.matches(e)) out.push_back(e);
  }
  return out;
}

std::size_t count(const properties::History& history, const EventFilter& filter) {
  std::size_t n = 0;
  for (const auto& e : history.events()) {
    if (filter.matches(e)) ++n;
  }
  return n;
}

std::vector<HistoryEvent> acknowledged(const properties::History& history, std::string_view producer) {
  return events(history, {.kind = OpKind::kSendOk, .process = std::string(producer)});
}

std::vector<HistoryEvent> processed_by(const properties::History& history, std::string_view reader, std::string_view topic) {
  std::vector<HistoryEvent> out;
  for (const auto& e : history.events()) {
    if (e.kind == OpKind::kProcess && is_reader(e, reader) && (topic.empty() || e.topic == topic)) out.push_back(e);
  }
  return out;
}

std::vector<HistoryEvent> missing_from(const properties::History& history, std::string_view reader, std::string_view topic) {
  std::set<std::uint64_t> seen;
  for (const auto& e : history.events()) {
    if (e.kind == OpKind::kProcess && e.topic == topic && is_reader(e, reader)) seen.insert(e.value_id);
  }
  std::vector<HistoryEvent> out;
  for (const auto& e : history.events()) {
    if (e.kind == OpKind::kSendOk && e.topic == topic && e.value_id != 0 && !seen.contains(e.value_id)) out.push_back(e);
  }
  return out;
}

}  // namespace logsim

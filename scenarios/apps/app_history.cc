// The history events applications share.
#include "scenarios/apps/app_history.h"

#include <algorithm>

namespace logsim::scenarios {

properties::HistoryEvent send_outcome_event(const RunContext& ctx, const std::string& process, const std::string& topic,
                                            const std::optional<std::string>& key, std::uint64_t value_id,
                                            const engine::SendResult& result) {
  using engine::SendOutcome;
  const auto kind = result.outcome == SendOutcome::kAcknowledged ? properties::OpKind::kSendOk
                    : result.outcome == SendOutcome::kFailed     ? properties::OpKind::kSendFail
                                                                 : properties::OpKind::kSendInfo;
  auto e = ctx.event(kind, process);
  e.topic = topic;
  e.partition = properties::known(result.partition);
  e.offset = properties::known(result.offset);
  e.key = key;
  e.value_id = value_id;
  if (result.error != ErrorCode::NONE) e.error = std::string(error_name(result.error));
  return e;
}

void record_commit(const engine::CommitEvent& c, const EventMaker& event, properties::History& history) {
  const bool requested = c.phase == engine::CommitEvent::Phase::kRequested;
  for (const auto& [tp, offset] : c.offsets) {
    auto e = event(requested ? properties::OpKind::kCommitInvoke
                             : (c.error == ErrorCode::NONE ? properties::OpKind::kCommitOk : properties::OpKind::kCommitFail));
    e.generation = properties::known(GenerationId(c.generation));
    e.topic = tp.topic;
    e.partition = tp.partition;
    e.offset = offset;
    e.commit_id = c.id;
    e.note = c.automatic ? "auto" : "manual";
    if (!requested && c.error != ErrorCode::NONE) e.error = std::string(error_name(c.error));
    history.append(std::move(e));
  }
}

void record_assignment(const engine::Consumer& consumer, const char* why, const std::vector<TopicPartition>& gone,
                       const EventMaker& event, properties::History& history) {
  auto e = event(properties::OpKind::kAssign);
  for (const auto& tp : consumer.assignment()) {
    if (std::find(gone.begin(), gone.end(), tp) == gone.end()) e.assignment.push_back(tp);
  }
  e.note = why;
  history.append(std::move(e));
}

void record_processed(const TopicPartition& tp, Offset offset, const std::optional<std::string>& key, std::uint64_t value_id,
                      bool read_committed, const std::string& note, const EventMaker& event, properties::History& history) {
  auto e = event(properties::OpKind::kProcess);
  e.topic = tp.topic;
  e.partition = tp.partition;
  e.offset = offset;
  e.key = key;
  e.value_id = value_id;
  e.read_committed = read_committed;
  e.note = note;
  history.append(std::move(e));
}

}  // namespace logsim::scenarios

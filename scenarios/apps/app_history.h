// What every application records in the history, whoever wrote the application: logsim's own
// (producer_app.h, group_member_app.h) or a user's (api/app.h). One place, so that the checkers
// read the same events from both.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/client/consumer.h"
#include "engine/client/producer.h"
#include "scenarios/apps/app_steps.h"
#include "scenarios/apps/run_context.h"

namespace logsim::scenarios {

// The event that ends a send: acknowledged (send-ok, with partition and offset), failed
// (send-fail) or unknown (send-info), with Kafka's error name when there is one.
properties::HistoryEvent send_outcome_event(const RunContext& ctx, const std::string& process, const std::string& topic,
                                            const std::optional<std::string>& key, std::uint64_t value_id,
                                            const engine::SendResult& result);

// Records a commit's request or completion: one event per partition, with the commit's id and
// generation, "auto" or "manual" in the note, and Kafka's error name when it was refused.
void record_commit(const engine::CommitEvent& commit, const EventMaker& event, properties::History& history);

// Records the assignment the consumer has after a change (`gone`: partitions being revoked or
// lost, which the client still lists while its callback runs); `why` is the note.
void record_assignment(const engine::Consumer& consumer, const char* why, const std::vector<TopicPartition>& gone,
                       const EventMaker& event, properties::History& history);

// Records that the consumer finished processing the record at `offset` of `tp` (a `process`
// event, with the record's key and value id, and whether the consumer reads read_committed).
void record_processed(const TopicPartition& tp, Offset offset, const std::optional<std::string>& key, std::uint64_t value_id,
                      bool read_committed, const std::string& note, const EventMaker& event, properties::History& history);

}  // namespace logsim::scenarios

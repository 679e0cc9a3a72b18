// Application steps: their timers, and what a seek step does to a consumer.
#include "scenarios/apps/app_steps.h"

#include <algorithm>

namespace logsim::scenarios {

namespace {

std::string where(const TopicPartition& tp) { return tp.topic + "/" + std::to_string(tp.partition.value()); }

// What ListOffsets was asked for, in the words of Kafka's consumer API.
std::string seek_to_name(std::int64_t timestamp_ms) {
  if (timestamp_ms == kListOffsetsEarliest) return "seekToBeginning";
  if (timestamp_ms == kListOffsetsLatest) return "seekToEnd";
  return "offsetsForTimes(" + std::to_string(timestamp_ms) + "ms) then seek";
}

}  // namespace

void seek_step(engine::Consumer& consumer, const steps::Seek& step, Nanos local_now, const EventMaker& event,
               properties::History& history) {
  std::vector<TopicPartition> held;
  for (const auto& tp : consumer.assignment()) {
    if (tp.topic == step.topic && (step.partition < 0 || tp.partition.value() == step.partition)) held.push_back(tp);
  }
  const std::string what = step.partition < 0 ? step.topic : step.topic + "/" + std::to_string(step.partition);
  if (held.empty()) {
    auto e = event(properties::OpKind::kFault);
    e.note = "seek " + what + ": nothing to seek, no partition of it is assigned now";
    history.append(std::move(e));
    return;
  }
  const steps::Seek& to = step;
  for (const auto& tp : held) {
    std::optional<Offset> target;
    std::string note;
    switch (to.mode) {
      case engine::ResetMode::kToOffset:
        target = Offset(to.value);
        note = "seek to offset " + std::to_string(to.value);
        break;
      case engine::ResetMode::kShiftBy:
      case engine::ResetMode::kToCurrent:
        if (auto position = consumer.position(tp)) {
          const std::int64_t shift = to.mode == engine::ResetMode::kShiftBy ? to.value : 0;
          target = Offset(std::max<std::int64_t>(0, position->value() + shift));
          note = to.mode == engine::ResetMode::kShiftBy
                     ? "seek by " + std::to_string(shift) + " from position " + std::to_string(position->value())
                     : "seek to the current position " + std::to_string(position->value());
        }
        break;
      case engine::ResetMode::kToEarliest:
        consumer.seek_to(tp, kListOffsetsEarliest);
        continue;
      case engine::ResetMode::kToLatest:
        consumer.seek_to(tp, kListOffsetsLatest);
        continue;
      case engine::ResetMode::kToDatetime:
        consumer.seek_to(tp, std::max<std::int64_t>(0, to.value));
        continue;
      case engine::ResetMode::kByDuration:
        consumer.seek_to(tp, std::max<std::int64_t>(0, to_millis(local_now) - to.value));
        continue;
    }
    if (!target) {
      auto e = event(properties::OpKind::kFault);
      e.note = "seek " + where(tp) + ": nothing to seek from, the partition has no position yet";
      history.append(std::move(e));
      continue;
    }
    consumer.seek(tp, *target);
    auto e = event(properties::OpKind::kSeek);
    e.topic = tp.topic;
    e.partition = tp.partition;
    e.offset = *target;
    e.note = note;
    history.append(std::move(e));
  }
}

void record_poll(std::size_t records, const EventMaker& event, properties::History& history) {
  auto e = event(properties::OpKind::kPoll);
  e.records = static_cast<std::uint32_t>(records);
  history.append(std::move(e));
}

void record_moves(engine::Consumer& consumer, const EventMaker& event, properties::History& history) {
  using Why = engine::Consumer::AutoReset::Why;
  for (const auto& move : consumer.take_resets()) {
    const bool stopped = move.why == Why::kNoOffset || move.why == Why::kTruncationNoReset;
    auto e = event(stopped ? properties::OpKind::kFault : properties::OpKind::kSeek);
    e.topic = move.tp.topic;
    e.partition = move.tp.partition;
    if (!stopped) e.offset = move.to;
    const std::string from = std::to_string(move.from.value());
    switch (move.why) {
      case Why::kSeekTo:
        e.note = seek_to_name(*move.seek_to);
        break;
      case Why::kOutOfRange:
        e.note = "auto.offset.reset: offset " + from + " was out of range";
        break;
      case Why::kTruncation:
        e.note = "truncation detected (KIP-320): leader epoch " + std::to_string(move.epoch.value()) +
                 " ends at offset " + std::to_string(move.to.value()) + " on the new leader, below the position " +
                 from + "; resuming at the first offset known to diverge";
        break;
      case Why::kNoOffset:
        e.error = std::string(error_name(ErrorCode::OFFSET_OUT_OF_RANGE));
        e.note = move.from.value() < 0
                     ? "auto.offset.reset=none: " + where(move.tp) +
                           " has no committed offset (NoOffsetForPartitionException); consuming it stopped"
                     : "auto.offset.reset=none: offset " + from + " of " + where(move.tp) +
                           " was out of range (OffsetOutOfRangeException); consuming it stopped";
        break;
      case Why::kTruncationNoReset:
        e.error = std::string(error_name(ErrorCode::OFFSET_OUT_OF_RANGE));
        e.note = "auto.offset.reset=none: truncation detected below the position " + from + " of " + where(move.tp) +
                 " (LogTruncationException); consuming it stopped";
        break;
    }
    e.log_start_offset = properties::known(move.log_start_offset);
    e.high_watermark = properties::known(move.high_watermark);
    history.append(std::move(e));
  }
}

}  // namespace logsim::scenarios

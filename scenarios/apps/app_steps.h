// Timeline steps that an application carries out itself: `produce` (a producer sends a burst)
// and `seek` (a group member or consumer moves its position). The test driver tells the
// running application at the step's time, so a paused application acts when it resumes and
// one that is down acts when it starts again. Each step is carried out once: the driver's
// memory of which steps have begun (RunContext::step_begun) outlives the application.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/client/consumer.h"
#include "scenarios/apps/run_context.h"
#include "scenarios/scenario.h"

namespace logsim::scenarios {

class AppSteps {
 public:
  using Step = std::pair<std::size_t, const TimelineStep*>;  // (index in the run's application steps, step)
  // The steps of `timeline` (the run's application steps) with this action aimed at `target`.
  AppSteps(const std::vector<TimelineStep>& timeline, const std::string& action, const std::string& target);

  // Arms a timer for each step not begun yet (at once for one already due).
  void arm(Env& env, const RunContext& ctx) const;
  // The step this timer is for, now marked begun; none for any other timer.
  std::optional<Step> fired(std::uint64_t tag, RunContext& ctx) const;
  // The step at this timeline index (one of these steps).
  const TimelineStep& step(std::size_t index) const;

 private:
  static constexpr std::uint64_t kTagBase = 0x5e000000;
  std::vector<Step> steps_;
};

// Makes one history event of this kind for the application (its name, group, generation).
using EventMaker = std::function<properties::HistoryEvent(properties::OpKind)>;

// Carries out a seek step on the partitions of its topic the consumer holds now (Kafka's seek
// of an unassigned partition is an error: the step then only notes that nothing was held).
// Seeks to an offset, by a shift or to the current position are recorded at once; those to
// earliest, latest or a time when the leader has answered (record_moves).
void seek_step(engine::Consumer& consumer, const TimelineStep& step, Nanos local_now, const EventMaker& event,
               properties::History& history);

// Records the positions ListOffsets moved since the last call, as seeks: auto.offset.reset
// after an out-of-range fetch, and the answers to seek steps.
void record_moves(engine::Consumer& consumer, const EventMaker& event, properties::History& history);

}  // namespace logsim::scenarios

// Timeline steps that an application carries out itself: `produce` (a producer sends a burst)
// and `seek` (a group member or consumer moves its position). The test driver tells the
// running application at the step's time, so a paused application acts when it resumes and
// one that is down acts when it starts again. Each step is carried out once: the driver's
// memory of which steps have begun (RunContext::step_begun) outlives the application.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/base/assert.h"
#include "engine/client/consumer.h"
#include "scenarios/apps/run_context.h"
#include "scenarios/scenario.h"

namespace logsim::scenarios {

// Application steps' timers carry this tag + the step's index.
inline constexpr std::uint64_t kAppStepTagBase = 0x5e000000;

// The steps of one kind (steps::Produce or steps::Seek) aimed at one application.
template <class T>
class AppSteps {
 public:
  struct Step {
    std::size_t index;  // in the run's application steps
    const T* step;
  };
  // The steps of `timeline` (the run's application steps) of this kind aimed at `target`.
  AppSteps(const std::vector<TimelineStep>& timeline, const std::string& target) {
    for (std::size_t i = 0; i < timeline.size(); ++i) {
      const T* s = timeline[i].as<T>();
      if (s && s->target == target) steps_.push_back(Entry{i, timeline[i].at, s});
    }
  }

  // Arms a timer for each step not begun yet (at once for one already due).
  void arm(Env& env, const RunContext& ctx) const {
    for (const Entry& e : steps_) {
      if (!ctx.step_begun.at(e.index)) env.set_timer(std::max<Nanos>(0, e.at - ctx.now()), kAppStepTagBase + e.index);
    }
  }
  // The step this timer is for, now marked begun; none for any other timer.
  std::optional<Step> fired(std::uint64_t tag, RunContext& ctx) const {
    if (tag < kAppStepTagBase) return std::nullopt;
    const Entry* e = find(tag - kAppStepTagBase);
    if (e == nullptr || ctx.step_begun.at(e->index)) return std::nullopt;
    ctx.step_begun[e->index] = 1;
    return Step{e->index, e->step};
  }
  // The step at this index (one of these steps).
  const T& step(std::size_t index) const {
    const Entry* e = find(index);
    LOGSIM_ASSERT(e != nullptr, "no application step at index " + std::to_string(index));
    return *e->step;
  }

 private:
  struct Entry {
    std::size_t index;
    Nanos at;
    const T* step;
  };
  const Entry* find(std::size_t index) const {
    auto it = std::find_if(steps_.begin(), steps_.end(), [&](const Entry& e) { return e.index == index; });
    return it == steps_.end() ? nullptr : &*it;
  }
  std::vector<Entry> steps_;
};

// Makes one history event of this kind for the application (its name, group, generation).
using EventMaker = std::function<properties::HistoryEvent(properties::OpKind)>;

// Carries out a seek step on the partitions of its topic the consumer holds now (Kafka's seek
// of an unassigned partition is an error: the step then only notes that nothing was held).
// Seeks to an offset, by a shift or to the current position are recorded at once; those to
// earliest, latest or a time when the leader has answered (record_moves).
void seek_step(engine::Consumer& consumer, const steps::Seek& step, Nanos local_now, const EventMaker& event,
               properties::History& history);

// Records what moved the consumer's positions without a seek step, and the answers to seek steps
// (engine::Consumer::AutoReset): auto.offset.reset after an out-of-range fetch and KIP-320's
// truncation detection as seeks; auto.offset.reset=none stopping a partition as a fault with
// error OFFSET_OUT_OF_RANGE and the exception Kafka's consumer throws.
void record_moves(engine::Consumer& consumer, const EventMaker& event, properties::History& history);

// Records that a poll returned `records` records (a `poll` event; none for an empty poll): the
// process events that follow are its records.
void record_poll(std::size_t records, const EventMaker& event, properties::History& history);

}  // namespace logsim::scenarios

// `assertion-failed`: an application's `always` assertion (api/app.h, in the style of
// Antithesis' always) did not hold. The application records an `assert` event the first time
// each `always` fails in a run (error "always-failed", note: the assertion's message); each is
// a violation at that event. `sometimes` assertions are recorded too ("sometimes-reached",
// "sometimes-held") but judged across a fuzz campaign, not here: one run need not reach them.
//
// State: none. O(1) per event.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "properties/checker.h"

namespace logsim::properties {

// The assert event's `error` values.
inline constexpr std::string_view kAlwaysFailed = "always-failed";
inline constexpr std::string_view kSometimesReached = "sometimes-reached";
inline constexpr std::string_view kSometimesHeld = "sometimes-held";

class AssertionChecker final : public Checker {
 public:
  std::string_view name() const override { return "assertions"; }
  KindSet kinds() const override { return kinds_of({OpKind::kAssert}); }
  void on_event(const HistoryEvent& e, const EventIds& ids) override;
  // assertions.always.failed, assertions.sometimes.reached, assertions.sometimes.held: how many
  // distinct assertions (each is recorded once a run).
  void figures(std::map<std::string, std::int64_t>& out) const override;

 private:
  std::int64_t failed_ = 0, reached_ = 0, held_ = 0;
};

}  // namespace logsim::properties

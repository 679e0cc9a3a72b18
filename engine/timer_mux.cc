// The node's table of armed timers and their components (see timer_mux.h).
#include "engine/timer_mux.h"

#include <utility>

#include "engine/base/assert.h"

namespace logsim::engine {

std::uint32_t TimerMux::attach(Handler handler) {
  handlers_.push_back(std::move(handler));
  return static_cast<std::uint32_t>(handlers_.size() - 1);
}

TimerId TimerMux::set(std::uint32_t owner, Nanos delay, std::uint64_t tag) {
  const TimerId id = env_.set_timer(delay, tag);
  const bool added = owners_.try_emplace(id, owner).second;
  LOGSIM_ASSERT(added, "the Env gave out a timer id that is still armed");
  return id;
}

void TimerMux::cancel(TimerId id) {
  owners_.erase(id);
  env_.cancel_timer(id);
}

bool TimerMux::on_timer(TimerId id, std::uint64_t tag) {
  const std::optional<std::uint32_t> owner = owners_.take(id);
  if (!owner) return false;
  const Handler& handler = handlers_[*owner];
  if (handler) handler(id, tag);  // (none: the component is gone)
  return true;
}

}  // namespace logsim::engine

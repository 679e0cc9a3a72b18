// TimerMux: one node's timers shared by its components. Each fired timer reaches the
// component that armed it, once, with that component's tag enum; cancelled timers and timers
// the host armed itself reach no component; the Env sees exactly the tags the components gave.
#include "engine/timer_mux.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "engine/tests/client/client_fake_env.h"

namespace logsim::engine {
namespace {

using clienttest::FakeEnv;

// Two components whose tag values overlap: the mux must tell them apart by timer id.
enum class FirstTimer : std::uint64_t { kA = 1, kB = 2 };
enum class SecondTimer : std::uint64_t { kA = 1, kC = 0xad000001 };

template <typename Tag>
struct Recorder {
  explicit Recorder(TimerMux& mux) : timers(mux, [this](TimerId id, Tag tag) { fired.emplace_back(id, tag); }) {}
  Timers<Tag> timers;
  std::vector<std::pair<TimerId, Tag>> fired;
};

// Fires every due timer through the mux; returns the ids the mux did not claim.
std::vector<TimerId> fire_all(FakeEnv& env, TimerMux& mux) {
  std::vector<TimerId> unclaimed;
  while (auto t = env.pop_due(env.now())) {
    if (!mux.on_timer(t->id, t->tag)) unclaimed.push_back(t->id);
  }
  return unclaimed;
}

TEST(TimerMux, EachTimerReachesTheComponentThatArmedIt) {
  FakeEnv env;
  TimerMux mux(env);
  Recorder<FirstTimer> first(mux);
  Recorder<SecondTimer> second(mux);
  const TimerId a1 = first.timers.set(0, FirstTimer::kA);
  const TimerId a2 = second.timers.set(0, SecondTimer::kA);
  const TimerId c2 = second.timers.set(0, SecondTimer::kC);
  const TimerId b1 = first.timers.set(0, FirstTimer::kB);
  EXPECT_EQ(mux.armed(), 4u);

  EXPECT_TRUE(fire_all(env, mux).empty());
  using F = std::pair<TimerId, FirstTimer>;
  using S = std::pair<TimerId, SecondTimer>;
  EXPECT_EQ(first.fired, (std::vector<F>{{a1, FirstTimer::kA}, {b1, FirstTimer::kB}}));
  EXPECT_EQ(second.fired, (std::vector<S>{{a2, SecondTimer::kA}, {c2, SecondTimer::kC}}));
  EXPECT_EQ(mux.armed(), 0u);
}

TEST(TimerMux, TheEnvSeesTheComponentsTagsInTheirOrder) {
  // The trace records these tags: the mux must arm the world's timers exactly as the
  // components would have on the Env themselves.
  FakeEnv env;
  TimerMux mux(env);
  Recorder<FirstTimer> first(mux);
  Recorder<SecondTimer> second(mux);
  first.timers.set(5, FirstTimer::kB);
  second.timers.set(7, SecondTimer::kC);
  first.timers.set(3, FirstTimer::kA);
  ASSERT_EQ(env.timers.size(), 3u);
  EXPECT_EQ(env.timers[0].tag, 2u);
  EXPECT_EQ(env.timers[0].deadline, 5);
  EXPECT_EQ(env.timers[1].tag, 0xad000001u);
  EXPECT_EQ(env.timers[1].deadline, 7);
  EXPECT_EQ(env.timers[2].tag, 1u);
}

TEST(TimerMux, ACancelledTimerReachesNoComponentAndIsCancelledOnTheEnv) {
  FakeEnv env;
  TimerMux mux(env);
  Recorder<FirstTimer> first(mux);
  const TimerId id = first.timers.set(0, FirstTimer::kA);
  first.timers.cancel(id);
  EXPECT_TRUE(env.timers[0].cancelled);
  EXPECT_EQ(mux.armed(), 0u);
  // Even if the world delivered it anyway, no component hears of it.
  EXPECT_FALSE(mux.on_timer(id, 1));
  EXPECT_TRUE(first.fired.empty());
}

TEST(TimerMux, ATimerFiresOnceAndTheHostsOwnTimersAreLeftToTheHost) {
  FakeEnv env;
  TimerMux mux(env);
  Recorder<FirstTimer> first(mux);
  const TimerId own = env.set_timer(0, 1000);  // the host's, armed on the Env directly
  const TimerId mine = first.timers.set(0, FirstTimer::kA);
  EXPECT_EQ(fire_all(env, mux), std::vector<TimerId>{own});
  EXPECT_FALSE(mux.on_timer(mine, 1)) << "a timer fires once";
  EXPECT_EQ(first.fired.size(), 1u);
}

TEST(TimerMux, TimersOfAComponentThatIsGoneAreDropped) {
  FakeEnv env;
  TimerMux mux(env);
  std::optional<Recorder<FirstTimer>> first(std::in_place, mux);
  const TimerId id = first->timers.set(0, FirstTimer::kA);
  first.reset();
  Recorder<FirstTimer> next(mux);  // a restarted component attaches anew
  EXPECT_TRUE(mux.on_timer(id, 1)) << "still the mux's: not the host's";
  EXPECT_TRUE(next.fired.empty()) << "the old component's timer does not reach the new one";
}

}  // namespace
}  // namespace logsim::engine

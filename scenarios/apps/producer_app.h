// The simulated producer application: sends `count` records at `rate_per_sec` to one topic,
// with keys chosen by the workload, and records every send's invocation and outcome. Its
// timeline `produce` steps send bursts besides: `count` more records, all at once or at
// their own rate. A restarted producer goes on where it was, with the workload and with
// any burst it had begun.
#pragma once

#include "engine/client/producer.h"
#include "engine/timer_mux.h"
#include "engine/env/rng.h"
#include "scenarios/apps/app_steps.h"
#include "scenarios/apps/run_context.h"
#include "scenarios/scenario.h"

namespace logsim::scenarios {

class ProducerApp final : public Node {
 public:
  ProducerApp(Env& env, const ProducerSpec& spec, RunContext& ctx, std::vector<NodeId> bootstrap,
              const std::vector<TimelineStep>& timeline);
  void on_start() override;
  void on_message(NodeId from, const Message& msg) override;
  void on_timer(TimerId id, std::uint64_t tag) override;
  void on_disconnect(NodeId peer) override { producer_.on_disconnect(peer); }

 private:
  // Sends the next record: the workload's, or the one at `position` of a produce step's burst.
  void send_one(const steps::Produce* step, std::int64_t position);
  // Sends what the burst of the produce step at this timeline index has left: one record and
  // the timer for the next at a rate, else all of them.
  void burst(std::size_t index);
  std::optional<std::string> choose_key(Rng& rng) const;
  static std::optional<ZipfDistribution> zipf_for(const KeySpec& keys);

  Env& env_;
  const ProducerSpec& spec_;
  RunContext& ctx_;
  engine::TimerMux timers_;  // the node's, for its client
  engine::Producer producer_;
  AppSteps<steps::Produce> steps_;  // the produce steps aimed at this producer
  std::optional<ZipfDistribution> zipf_;  // zipf keys' cumulative table
  TimerId tick_ = 0;
};

}  // namespace logsim::scenarios

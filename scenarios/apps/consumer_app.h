// The simulated consumer application: assigns itself every partition of its topics (manual
// assignment), polls every poll_interval, and records each record it finishes processing.
// Its timeline `seek` steps move its position when they are due. (Group members, with
// commits, processing time and handler failures, are GroupMemberApp.)
#pragma once

#include "engine/client/consumer.h"
#include "engine/timer_mux.h"
#include "scenarios/apps/app_steps.h"
#include "scenarios/apps/run_context.h"
#include "scenarios/scenario.h"

namespace logsim::scenarios {

class ConsumerApp final : public Node {
 public:
  ConsumerApp(Env& env, const ConsumerSpec& spec, const std::vector<TopicSpec>& topics, RunContext& ctx,
              std::vector<NodeId> bootstrap, const std::vector<TimelineStep>& timeline);
  void on_start() override;
  void on_message(NodeId from, const Message& msg) override;
  void on_timer(TimerId id, std::uint64_t tag) override;
  void on_disconnect(NodeId peer) override { consumer_.on_disconnect(peer); }

 private:
  Env& env_;
  const ConsumerSpec& spec_;
  const std::vector<TopicSpec>& topics_;
  RunContext& ctx_;
  engine::TimerMux timers_;  // the node's, for its client
  engine::Consumer consumer_;
  AppSteps<steps::Seek> steps_;  // the seek steps aimed at this consumer
};

}  // namespace logsim::scenarios

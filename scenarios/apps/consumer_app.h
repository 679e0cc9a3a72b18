// The simulated consumer application: assigns itself every partition of its topics (manual
// assignment), polls every poll_interval, and records each record it finishes processing.
// (Groups, commits, processing time and handler failures arrive with the consumer-group work.)
#pragma once

#include "engine/client/consumer.h"
#include "scenarios/apps/run_context.h"
#include "scenarios/scenario.h"

namespace logsim::scenarios {

class ConsumerApp final : public Node {
 public:
  ConsumerApp(Env& env, const ConsumerSpec& spec, const std::vector<TopicSpec>& topics, RunContext& ctx,
              std::vector<NodeId> bootstrap);
  void on_start() override;
  void on_message(NodeId from, const Message& msg) override;
  void on_timer(TimerId id, std::uint64_t tag) override;
  void on_disconnect(NodeId peer) override { consumer_.on_disconnect(peer); }

 private:
  Env& env_;
  const ConsumerSpec& spec_;
  const std::vector<TopicSpec>& topics_;
  RunContext& ctx_;
  engine::Consumer consumer_;
};

}  // namespace logsim::scenarios

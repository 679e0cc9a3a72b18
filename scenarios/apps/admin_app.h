// The simulated operator: carries out the timeline's topic admin steps (create-topic,
// delete-topic, add-partitions, alter-config) at their times through the admin client, and
// records each outcome in the history (Kafka's error name, and its message when it failed).
#pragma once

#include <vector>

#include "engine/client/admin.h"
#include "scenarios/apps/run_context.h"
#include "scenarios/scenario.h"

namespace logsim::scenarios {

class AdminApp final : public Node {
 public:
  // `steps` are the scenario's admin steps (they outlive the app); `defaults` says which
  // topic configs a create-topic step sets explicitly (those that differ).
  AdminApp(Env& env, std::vector<const TimelineStep*> steps, const BrokerSettings& defaults, RunContext& ctx,
           NodeId controller);
  void on_start() override;
  void on_message(NodeId from, const Message& msg) override { client_.on_message(from, msg); }
  void on_timer(TimerId id, std::uint64_t tag) override;
  void on_disconnect(NodeId peer) override { client_.on_disconnect(peer); }

 private:
  void run(const TimelineStep& step);
  void record(const TimelineStep& step, const engine::AdminResult& result);

  Env& env_;
  std::vector<const TimelineStep*> steps_;
  const BrokerSettings& defaults_;
  RunContext& ctx_;
  engine::AdminClient client_;
};

}  // namespace logsim::scenarios

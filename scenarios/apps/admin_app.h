// The simulated operator: carries out the timeline's topic admin steps (create-topic,
// delete-topic, add-partitions, alter-config) through the admin client, and its group admin
// steps (reset-offsets, delete-group, describe-group: kafka-consumer-groups) through the group
// admin client, at their times, and records each outcome in the history (Kafka's error name,
// and its message when it failed). An executed reset is also one seek event per partition,
// for the group it moved.
#pragma once

#include <vector>

#include "engine/client/admin.h"
#include "engine/timer_mux.h"
#include "engine/client/group_admin.h"
#include "scenarios/apps/run_context.h"
#include "scenarios/scenario.h"

namespace logsim::scenarios {

class AdminApp final : public Node {
 public:
  // `steps` are the scenario's admin steps (they outlive the app); `defaults` says which
  // topic configs a create-topic step sets explicitly (those that differ).
  AdminApp(Env& env, std::vector<const TimelineStep*> steps, const BrokerSettings& defaults, RunContext& ctx,
           NodeId controller, std::vector<NodeId> bootstrap);
  void on_start() override;
  void on_message(NodeId from, const Message& msg) override {
    if (!groups_.on_message(from, msg)) client_.on_message(from, msg);
  }
  void on_timer(TimerId id, std::uint64_t tag) override;
  void on_disconnect(NodeId peer) override {
    client_.on_disconnect(peer);
    groups_.on_disconnect(peer);
  }

 private:
  void run(const TimelineStep& step);
  void run(const steps::CreateTopic& step);
  void run(const steps::DescribeGroup& step);
  void run(const steps::DeleteOffsets& step);
  void run(const steps::ResetOffsets& step);
  // The outcome of a topic admin step in the history: `what` is the step as a user would
  // say it ("add-partitions orders to 6 partitions").
  void record(const std::string& topic, const std::string& what, const engine::AdminResult& result);
  // And of a group admin step.
  void record_group(const std::string& group, const std::string& topic, const std::string& what, ErrorCode error,
                    const std::string& outcome);

  Env& env_;
  std::vector<const TimelineStep*> steps_;
  const BrokerSettings& defaults_;
  RunContext& ctx_;
  engine::TimerMux timers_;  // the node's, for its two clients
  engine::AdminClient client_;
  engine::GroupAdmin groups_;
};

}  // namespace logsim::scenarios

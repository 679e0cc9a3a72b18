// The admin client: what a simulated operator (or a scenario's timeline) uses to create,
// delete, grow, reconfigure and describe topics, as Kafka's Admin client does.
//
// Each call is one request (engine/protocol/admin_messages.h) sent to the controller node. A call
// is retried after retry.backoff.ms when its attempt times out (request.timeout.ms), the
// connection breaks, or the answer is a retriable error (NOT_CONTROLLER), until
// default.api.timeout.ms after the call began; then it ends with REQUEST_TIMED_OUT, as Kafka's
// calls end with a TimeoutException. Like Kafka's, a retried CreateTopics whose first attempt
// did create the topic ends with TOPIC_ALREADY_EXISTS: the client cannot tell.
//
// Its attempts go through its ClientChannel (client_channel.h), numbered from 1; its host node
// forwards messages and disconnects. Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/client/client_channel.h"
#include "engine/env/env.h"
#include "engine/timer_mux.h"
#include "engine/timer_tags.h"

namespace logsim::engine {

struct AdminConfig {
  NodeId controller{-1};                       // where admin requests go
  std::int32_t request_timeout_ms = 30000;     // request.timeout.ms
  std::int32_t default_api_timeout_ms = 60000; // default.api.timeout.ms
  std::int32_t retry_backoff_ms = 100;         // retry.backoff.ms
};

struct AdminResult {
  ErrorCode error = ErrorCode::NONE;
  std::string message;               // Kafka's message when error != NONE
  std::optional<Message> response;   // the final answer, if one came
  std::int32_t attempts = 0;
};

using AdminCallback = std::function<void(const AdminResult&)>;

class AdminClient {
 public:
  // Arms its timers on the node's `timers`, which hands them back.
  AdminClient(Env& env, TimerMux& timers, AdminConfig config)
      : env_(env), timers_(timers, [this](TimerId id, AdminTimer tag) { on_timer(id, tag); }), config_(config),
        channel_(env, ChannelConfig{{}, config.request_timeout_ms, config.retry_backoff_ms}, 0),
        requests_(channel_, timers_, AdminTimer::kTimeout, AdminTimer::kBackoff) {}
  AdminClient(const AdminClient&) = delete;
  AdminClient& operator=(const AdminClient&) = delete;

  void create_topic(CreateTopicsRequest request, AdminCallback done) { start(std::move(request), std::move(done)); }
  void delete_topic(const std::string& name, AdminCallback done) { start(DeleteTopicsRequest{0, name}, std::move(done)); }
  void create_partitions(const std::string& name, std::int32_t count, AdminCallback done) {
    start(CreatePartitionsRequest{0, name, count, false}, std::move(done));
  }
  void alter_configs(const std::string& topic, std::vector<AlterableConfig> ops, AdminCallback done) {
    start(IncrementalAlterConfigsRequest{0, topic, std::move(ops), false}, std::move(done));
  }
  void describe_configs(const std::string& topic, AdminCallback done) {
    start(DescribeConfigsRequest{0, topic}, std::move(done));
  }

  // Calls not yet ended.
  std::size_t in_flight() const { return calls_.size(); }

  bool on_message(NodeId from, const Message& msg);
  void on_disconnect(NodeId peer);

 private:
  struct Call {
    Message request;
    AdminCallback done;
    Nanos deadline = 0;
    RequestSlot attempt;  // the attempt in flight, or the backoff before the next
    std::int32_t attempts = 0;
  };

  void start(Message request, AdminCallback done);
  void send(std::uint64_t id);
  void retry_or_fail(std::uint64_t id, ErrorCode error, const std::string& message);
  void finish(std::uint64_t id, AdminResult result);
  void on_timer(TimerId id, AdminTimer tag);

  Env& env_;
  Timers<AdminTimer> timers_;
  AdminConfig config_;
  ClientChannel channel_;
  RequestTable<std::uint64_t, AdminTimer> requests_;  // by call id
  std::uint64_t next_call_ = 0;
  std::map<std::uint64_t, Call> calls_;  // by call id, in start order
};

}  // namespace logsim::engine

// The admin client: one request per call to the controller, answers matched by correlation
// id, retries on timeouts, broken connections and NOT_CONTROLLER, and the call's deadline.
#include <gtest/gtest.h>

#include "engine/client/admin.h"
#include "engine/tests/client/client_fake_env.h"

namespace logsim::engine {
namespace {

using clienttest::FakeEnv;

const NodeId kController(9);

struct Fixture {
  FakeEnv env;
  TimerMux mux{env};
  AdminClient client{env, mux, [] {
                       AdminConfig c;
                       c.controller = kController;
                       c.request_timeout_ms = 1000;
                       c.default_api_timeout_ms = 5000;
                       c.retry_backoff_ms = 100;
                       return c;
                     }()};
  std::vector<AdminResult> results;
  AdminCallback done() {
    return [this](const AdminResult& r) { results.push_back(r); };
  }
  // Fires every timer due up to `t`, moving the clock.
  void advance_to(Nanos t) {
    while (auto timer = env.pop_due(t)) {
      env.set_now(timer->deadline);
      mux.on_timer(timer->id, timer->tag);
    }
    env.set_now(t);
  }
  template <typename T>
  const T& last_sent() {
    EXPECT_FALSE(env.sent.empty());
    EXPECT_EQ(env.sent.back().to, kController);
    const T* m = std::get_if<T>(&env.sent.back().msg);
    EXPECT_NE(m, nullptr) << "last message is " << message_name(env.sent.back().msg);
    return *m;
  }
};

TEST(AdminClient, SendsOneRequestAndEndsWithTheAnswer) {
  Fixture f;
  CreateTopicsRequest req;
  req.name = "orders";
  req.num_partitions = 3;
  req.configs = {{"retention.ms", "1000"}};
  f.client.create_topic(req, f.done());
  const auto& sent = f.last_sent<CreateTopicsRequest>();
  EXPECT_EQ(sent.name, "orders");
  EXPECT_EQ(sent.configs.size(), 1u);
  EXPECT_EQ(f.client.in_flight(), 1u);
  // An answer with another correlation id is not this call's.
  EXPECT_TRUE(f.client.on_message(kController, CreateTopicsResponse{sent.correlation_id + 7, "orders", ErrorCode::NONE, "", 1, 3, 1}));
  EXPECT_TRUE(f.results.empty());
  EXPECT_TRUE(f.client.on_message(kController, CreateTopicsResponse{sent.correlation_id, "orders", ErrorCode::TOPIC_ALREADY_EXISTS,
                                                                    "Topic 'orders' already exists.", 0, -1, -1}));
  ASSERT_EQ(f.results.size(), 1u);
  EXPECT_EQ(f.results[0].error, ErrorCode::TOPIC_ALREADY_EXISTS);
  EXPECT_EQ(f.results[0].message, "Topic 'orders' already exists.");
  EXPECT_EQ(f.results[0].attempts, 1);
  ASSERT_TRUE(f.results[0].response.has_value());
  EXPECT_TRUE(std::holds_alternative<CreateTopicsResponse>(*f.results[0].response));
  EXPECT_EQ(f.client.in_flight(), 0u);
  EXPECT_FALSE(f.client.on_message(kController, FetchResponse{})) << "not an admin answer";
}

TEST(AdminClient, RetriesATimedOutAttemptAfterTheBackoff) {
  Fixture f;
  f.client.delete_topic("orders", f.done());
  const CorrelationId first = f.last_sent<DeleteTopicsRequest>().correlation_id;
  f.advance_to(millis(1000));  // request.timeout.ms passes
  EXPECT_EQ(f.env.sent.size(), 1u) << "waits retry.backoff.ms first";
  f.advance_to(millis(1100));
  ASSERT_EQ(f.env.sent.size(), 2u);
  const CorrelationId second = f.last_sent<DeleteTopicsRequest>().correlation_id;
  EXPECT_NE(first, second);
  // The late answer to the first attempt is ignored; the second one's ends the call.
  f.client.on_message(kController, DeleteTopicsResponse{first, "orders", ErrorCode::NONE, ""});
  EXPECT_TRUE(f.results.empty());
  f.client.on_message(kController, DeleteTopicsResponse{second, "orders", ErrorCode::NONE, ""});
  ASSERT_EQ(f.results.size(), 1u);
  EXPECT_EQ(f.results[0].error, ErrorCode::NONE);
  EXPECT_EQ(f.results[0].attempts, 2);
}

TEST(AdminClient, RetriesNotControllerAndBrokenConnections) {
  Fixture f;
  f.client.create_partitions("orders", 6, f.done());
  auto id = f.last_sent<CreatePartitionsRequest>().correlation_id;
  EXPECT_EQ(f.last_sent<CreatePartitionsRequest>().count, 6);
  f.client.on_message(kController, CreatePartitionsResponse{id, "orders", ErrorCode::NOT_CONTROLLER, ""});
  EXPECT_TRUE(f.results.empty());
  f.advance_to(millis(100));
  ASSERT_EQ(f.env.sent.size(), 2u);
  f.client.on_disconnect(NodeId(3));  // another node: nothing happens
  EXPECT_EQ(f.env.sent.size(), 2u);
  f.client.on_disconnect(kController);
  f.advance_to(millis(200));
  ASSERT_EQ(f.env.sent.size(), 3u);
  id = f.last_sent<CreatePartitionsRequest>().correlation_id;
  f.client.on_message(kController, CreatePartitionsResponse{id, "orders", ErrorCode::NONE, ""});
  ASSERT_EQ(f.results.size(), 1u);
  EXPECT_EQ(f.results[0].attempts, 3);
}

TEST(AdminClient, GivesUpAtTheDefaultApiTimeout) {
  Fixture f;
  f.client.alter_configs("orders", {{"retention.ms", AlterConfigOp::kSet, "1"}}, f.done());
  f.advance_to(millis(60000));  // nobody ever answers
  ASSERT_EQ(f.results.size(), 1u);
  EXPECT_EQ(f.results[0].error, ErrorCode::REQUEST_TIMED_OUT);
  EXPECT_NE(f.results[0].message.find("callName=incrementalAlterConfigs"), std::string::npos) << f.results[0].message;
  // 1 s per attempt plus 100 ms backoff within 5 s: the last attempt is cut short by the deadline.
  EXPECT_EQ(f.results[0].attempts, 5);
  for (const auto& s : f.env.sent) EXPECT_LE(s.at, millis(5000));
  EXPECT_EQ(f.client.in_flight(), 0u);
}

TEST(AdminClient, DescribeReturnsTheConfigs) {
  Fixture f;
  f.client.describe_configs("orders", f.done());
  const auto id = f.last_sent<DescribeConfigsRequest>().correlation_id;
  DescribeConfigsResponse resp{id, "orders", ErrorCode::NONE, "", {{"retention.ms", "1000", false}}};
  f.client.on_message(kController, resp);
  ASSERT_EQ(f.results.size(), 1u);
  const auto& got = std::get<DescribeConfigsResponse>(*f.results[0].response);
  ASSERT_EQ(got.configs.size(), 1u);
  EXPECT_EQ(got.configs[0].value, "1000");
}

}  // namespace
}  // namespace logsim::engine

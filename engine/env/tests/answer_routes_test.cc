// Tests for AnswerRoutes (engine/env/answer_routes.h): an answer goes back to the incarnation
// that asked, even when a newer incarnation of the same node has asked since.
#include "engine/env/answer_routes.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

namespace logsim {
namespace {

const NodeId kClient{3};

Message metadata_request(CorrelationId id) { return MetadataRequest{id, {}}; }
Message metadata_response(CorrelationId id) { return MetadataResponse{id, {}, {}}; }

TEST(AnswerRoutes, RequestsHaveNoRoute) {
  AnswerRoutes routes;
  routes.arrived(kClient, 1, metadata_request(5));
  EXPECT_EQ(routes.route(kClient, metadata_request(5)), std::nullopt);
}

TEST(AnswerRoutes, AnAnswerGoesToTheIncarnationThatAskedEvenAfterANewerOneAsked) {
  AnswerRoutes routes;
  routes.arrived(kClient, 1, metadata_request(5));  // held, like a long-poll fetch
  routes.arrived(kClient, 3, metadata_request(5));  // the restarted client reuses the id
  routes.arrived(kClient, 3, metadata_request(6));
  // The older request's key was overwritten by the newer one with the same id: the answer to
  // id 5 goes to the newer incarnation (a collision the random correlation bases make rare).
  EXPECT_EQ(routes.route(kClient, metadata_response(5)), std::optional<std::uint32_t>{3});
  EXPECT_EQ(routes.route(kClient, metadata_response(6)), std::optional<std::uint32_t>{3});
  routes.arrived(kClient, 1, metadata_request(40));  // a late request of the old process
  routes.arrived(kClient, 3, metadata_request(41));
  EXPECT_EQ(routes.route(kClient, metadata_response(40)), std::optional<std::uint32_t>{1});
  EXPECT_EQ(routes.route(kClient, metadata_response(41)), std::optional<std::uint32_t>{3});
  EXPECT_EQ(routes.pending(), 0u);
}

TEST(AnswerRoutes, ASecondAnswerGoesWhereTheNodeLastHeardFrom) {
  AnswerRoutes routes;
  routes.arrived(kClient, 1, metadata_request(5));
  EXPECT_EQ(routes.route(kClient, metadata_response(5)), std::optional<std::uint32_t>{1});
  routes.arrived(kClient, 3, metadata_request(9));
  EXPECT_EQ(routes.route(kClient, metadata_response(5)), std::optional<std::uint32_t>{3});
}

TEST(AnswerRoutes, UnansweredRequestsAreNotKept) {
  AnswerRoutes routes;
  ProduceRequest fire_and_forget;
  fire_and_forget.acks = 0;
  routes.arrived(kClient, 1, fire_and_forget);
  routes.arrived(kClient, 1, LeaderAndIsrRequest{});
  EXPECT_EQ(routes.pending(), 0u);
  for (CorrelationId id = 0; id < static_cast<CorrelationId>(AnswerRoutes::kMaxPending) + 10; ++id) {
    routes.arrived(kClient, 1, metadata_request(id));
  }
  EXPECT_LE(routes.pending(), AnswerRoutes::kMaxPending);
}

TEST(AnswerRoutes, ClearForgetsEverything) {
  AnswerRoutes routes;
  routes.arrived(kClient, 1, metadata_request(5));
  routes.clear();
  EXPECT_EQ(routes.route(kClient, metadata_response(5)), std::nullopt);
}

}  // namespace
}  // namespace logsim

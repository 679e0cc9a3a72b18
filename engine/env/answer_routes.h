// AnswerRoutes: which incarnation of a requester an answer goes back to. For the worlds that
// implement Env (sim/world.h, live/live_world.h), not for the engine.
//
// Env::send names a node, not a connection, so a world must work out the connection itself.
// In Kafka the requester opens the connection and the answer goes back on it; a restarted
// process has new connections, so an answer to a request of the previous incarnation finds
// its connection closed and never reaches the new one. A world keeps one AnswerRoutes per node
// (the answering side): when a request arrives it notes the requester's incarnation under the
// request's correlation id, and when the node sends the answer (with the same correlation id)
// the world addresses it to that incarnation, which it then delivers only if the requester is
// still that incarnation. Requests (and LeaderAndIsr pushes) go to the peer's current
// incarnation, as a new connection would.
//
// Invariants: a route is taken by the first answer to its request; a second answer (to a
// request the network duplicated) goes to the incarnation the node last heard from. The table
// holds at most kMaxPending routes: requests a node never answers would otherwise pile up, so
// at the bound all are forgotten (their answers then go where the node last heard from, as a
// second answer does; no node of ours leaves that many requests unanswered). A node's routes
// die with its incarnation (clear()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "engine/base/flat_map.h"
#include "engine/base/types.h"
#include "engine/protocol/messages.h"

namespace logsim {

class AnswerRoutes {
 public:
  static constexpr std::size_t kMaxPending = 1 << 16;

  // A message from `peer`'s incarnation `incarnation` arrived at this node.
  void arrived(NodeId peer, std::uint32_t incarnation, const Message& msg);
  // The incarnation of `to` that `msg` must be delivered to, when it is an answer this node
  // sends; nullopt for a request (the world addresses it to `to`'s current incarnation).
  std::optional<std::uint32_t> route(NodeId to, const Message& msg);
  // This node's process ended: its connections, and so its routes, are gone.
  void clear();
  std::size_t pending() const { return pending_.size(); }

 private:
  static std::uint64_t key(NodeId peer, CorrelationId id) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(peer.value())) << 32) | static_cast<std::uint32_t>(id);
  }

  FlatMap<std::uint64_t, std::uint32_t> pending_;  // (peer, correlation id) -> incarnation
  FlatMap<std::int32_t, std::uint32_t> last_heard_;  // peer -> the incarnation last heard from
};

}  // namespace logsim

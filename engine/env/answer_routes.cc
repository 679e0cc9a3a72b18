// AnswerRoutes: see answer_routes.h.
#include "engine/env/answer_routes.h"

namespace logsim {

void AnswerRoutes::arrived(NodeId peer, std::uint32_t incarnation, const Message& msg) {
  last_heard_[peer.value()] = incarnation;
  if (!message_expects_response(msg)) return;
  if (pending_.size() >= kMaxPending) pending_.clear();
  pending_[key(peer, *message_correlation(msg))] = incarnation;
}

std::optional<std::uint32_t> AnswerRoutes::route(NodeId to, const Message& msg) {
  if (!message_is_response(msg)) return std::nullopt;
  if (std::optional<std::uint32_t> r = pending_.take(key(to, *message_correlation(msg)))) return r;
  if (const std::uint32_t* heard = last_heard_.find(to.value())) return *heard;
  return std::nullopt;  // an answer to nobody this incarnation heard from: as a request
}

void AnswerRoutes::clear() {
  pending_.clear();
  last_heard_.clear();
}

}  // namespace logsim

// The admin client's calls, attempts, retries and deadlines.
#include "engine/client/admin.h"

#include <type_traits>

namespace logsim::engine {
namespace {

template <typename T>
constexpr bool kIsAdminResponse =
    std::is_same_v<T, CreateTopicsResponse> || std::is_same_v<T, DeleteTopicsResponse> ||
    std::is_same_v<T, CreatePartitionsResponse> || std::is_same_v<T, IncrementalAlterConfigsResponse> ||
    std::is_same_v<T, DescribeConfigsResponse>;

// The correlation id, error and message of an admin answer; nothing for other messages.
struct Answer {
  CorrelationId id;
  ErrorCode error;
  std::string message;
};

std::optional<Answer> admin_answer(const Message& msg) {
  return std::visit(
      [](const auto& m) -> std::optional<Answer> {
        using T = std::decay_t<decltype(m)>;
        if constexpr (kIsAdminResponse<T>) return Answer{m.correlation_id, m.error, m.error_message};
        else return std::nullopt;
      },
      msg);
}

std::string call_name(const Message& msg) {
  const std::string_view api = message_name(msg);
  std::string out(api);
  if (!out.empty()) out[0] = static_cast<char>(out[0] - 'A' + 'a');  // Kafka's call names: createTopics
  return out;
}

}  // namespace

void AdminClient::start(Message request, AdminCallback done) {
  const std::uint64_t id = ++next_call_;
  calls_[id] = Call{std::move(request), std::move(done), env_.now() + millis(config_.default_api_timeout_ms), {}, 0};
  send(id);
}

void AdminClient::send(std::uint64_t id) {
  Call& call = calls_.at(id);
  ++call.attempts;
  // The attempt's timeout is request.timeout.ms, or what is left of the call's if that is less.
  const Nanos left = call.deadline - env_.now();
  requests_.send(id, call.attempt, config_.controller, call.request, std::min(channel_.request_timeout(), std::max<Nanos>(left, 0)));
}

void AdminClient::retry_or_fail(std::uint64_t id, ErrorCode error, const std::string& message) {
  Call& call = calls_.at(id);
  requests_.end(call.attempt);
  if (env_.now() + channel_.retry_backoff() >= call.deadline) {
    AdminResult r;
    r.error = ErrorCode::REQUEST_TIMED_OUT;
    r.message = "Call(callName=" + call_name(call.request) + ") timed out after " + std::to_string(call.attempts) +
                " attempt(s); the last ended with " + std::string(error_name(error)) + (message.empty() ? "" : ": " + message);
    r.attempts = call.attempts;
    finish(id, std::move(r));
    return;
  }
  requests_.wait(id, call.attempt);
}

void AdminClient::finish(std::uint64_t id, AdminResult result) {
  auto it = calls_.find(id);
  Call call = std::move(it->second);
  calls_.erase(it);
  requests_.end(call.attempt);
  if (call.done) call.done(result);
}

bool AdminClient::on_message(NodeId, const Message& msg) {
  const auto answer = admin_answer(msg);
  if (!answer) return false;
  const auto call = requests_.find(answer->id);
  if (!call) return true;  // an answer to an attempt given up on
  const std::uint64_t id = *call;
  if (is_retriable(answer->error)) {
    retry_or_fail(id, answer->error, answer->message);
    return true;
  }
  AdminResult r{answer->error, answer->message, msg, calls_.at(id).attempts};
  finish(id, std::move(r));
  return true;
}

void AdminClient::on_timer(TimerId timer, AdminTimer tag) {
  const auto id = requests_.fired(timer);
  if (!id) return;
  calls_.at(*id).attempt.timer = 0;
  if (tag == AdminTimer::kBackoff) send(*id);
  else retry_or_fail(*id, ErrorCode::REQUEST_TIMED_OUT, "");
}

void AdminClient::on_disconnect(NodeId peer) {
  for (std::uint64_t id : requests_.in_flight_to(peer)) retry_or_fail(id, ErrorCode::NETWORK_EXCEPTION, "");
}

}  // namespace logsim::engine

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
  calls_[id] = Call{std::move(request), std::move(done), env_.now() + millis(config_.default_api_timeout_ms), 0, 0, 0};
  send(id);
}

void AdminClient::send(std::uint64_t id) {
  Call& call = calls_.at(id);
  call.attempt = ++next_correlation_;
  ++call.attempts;
  std::visit(
      [&](auto& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (requires { m.correlation_id; }) {
          if constexpr (!kIsAdminResponse<T>) m.correlation_id = call.attempt;
        }
      },
      call.request);
  by_correlation_[call.attempt] = id;
  env_.send(config_.controller, call.request);
  const Nanos left = call.deadline - env_.now();
  call.timer = timers_.set(std::min(millis(config_.request_timeout_ms), std::max<Nanos>(left, 0)), AdminTimer::kTimeout);
  by_timer_[call.timer] = id;
}

void AdminClient::retry_or_fail(std::uint64_t id, ErrorCode error, const std::string& message) {
  Call& call = calls_.at(id);
  by_correlation_.erase(call.attempt);
  call.attempt = 0;
  if (call.timer != 0) timers_.cancel(call.timer);
  by_timer_.erase(call.timer);
  call.timer = 0;
  const Nanos backoff = millis(config_.retry_backoff_ms);
  if (env_.now() + backoff >= call.deadline) {
    AdminResult r;
    r.error = ErrorCode::REQUEST_TIMED_OUT;
    r.message = "Call(callName=" + call_name(call.request) + ") timed out after " + std::to_string(call.attempts) +
                " attempt(s); the last ended with " + std::string(error_name(error)) + (message.empty() ? "" : ": " + message);
    r.attempts = call.attempts;
    finish(id, std::move(r));
    return;
  }
  call.timer = timers_.set(backoff, AdminTimer::kBackoff);
  by_timer_[call.timer] = id;
}

void AdminClient::finish(std::uint64_t id, AdminResult result) {
  auto it = calls_.find(id);
  Call call = std::move(it->second);
  calls_.erase(it);
  by_correlation_.erase(call.attempt);
  if (call.timer != 0) timers_.cancel(call.timer);
  by_timer_.erase(call.timer);
  if (call.done) call.done(result);
}

bool AdminClient::on_message(NodeId, const Message& msg) {
  const auto answer = admin_answer(msg);
  if (!answer) return false;
  auto c = by_correlation_.find(answer->id);
  if (c == by_correlation_.end()) return true;  // an answer to an attempt given up on
  const std::uint64_t id = c->second;
  if (is_retriable(answer->error)) {
    retry_or_fail(id, answer->error, answer->message);
    return true;
  }
  AdminResult r{answer->error, answer->message, msg, calls_.at(id).attempts};
  finish(id, std::move(r));
  return true;
}

void AdminClient::on_timer(TimerId timer, AdminTimer tag) {
  auto t = by_timer_.find(timer);
  if (t == by_timer_.end()) return;
  const std::uint64_t id = t->second;
  by_timer_.erase(t);
  Call& call = calls_.at(id);
  call.timer = 0;
  if (tag == AdminTimer::kBackoff) send(id);
  else retry_or_fail(id, ErrorCode::REQUEST_TIMED_OUT, "");
}

void AdminClient::on_disconnect(NodeId peer) {
  if (peer != config_.controller) return;
  std::vector<std::uint64_t> broken;
  for (const auto& [id, call] : calls_) {
    if (call.attempt != 0) broken.push_back(id);
  }
  for (std::uint64_t id : broken) retry_or_fail(id, ErrorCode::NETWORK_EXCEPTION, "");
}

}  // namespace logsim::engine

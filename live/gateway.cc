// The gateway between a real client's wire requests and the engine's messages (see gateway.h):
// frames in, answers gathered, responses out in request order.
#include "live/gateway.h"

#include "live/gateway_apis.h"

namespace logsim::live {

namespace {

std::span<const std::uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

}  // namespace

Gateway::Gateway(Env& env, NodeId broker, std::shared_ptr<const GatewayConfig> config, Output out)
    : env_(env), broker_(broker), config_(std::move(config)), out_(std::move(out)) {}

Gateway::~Gateway() = default;

CorrelationId GatewayApis::ask(Gateway& g, Gateway::Pending& p, NodeId to, Message msg) {
  const CorrelationId id = ++g.next_correlation_;
  std::visit([id](auto& m) {
    if constexpr (requires { m.correlation_id; }) m.correlation_id = id;
  }, msg);
  g.by_correlation_[id] = &p;
  p.correlations.push_back(id);
  ++p.outstanding;
  g.env_.send(to, std::move(msg));
  return id;
}

void Gateway::on_frame(std::string_view frame) {
  if (closed_) return;
  ++requests_;
  wire::DecodedRequest decoded;
  try {
    decoded = wire::decode_request(bytes_of(frame));
  } catch (const wire::DecodeError& e) {
    return fail(std::string("a request that does not decode: ") + e.what());
  }
  if (decoded.support != wire::Support::kSupported) {
    if (auto answer = wire::unsupported_version_response(decoded.header)) {
      auto p = std::make_unique<Pending>();
      p->header = decoded.header;
      p->raw = std::move(*answer);
      p->done = true;
      pending_.push_back(std::move(p));
      return flush();
    }
    return fail(wire::api_name(decoded.header.api_key) + " v" + std::to_string(decoded.header.api_version) +
                " is not supported (see ApiVersions)");
  }
  auto owned = std::make_unique<Pending>();
  Pending& p = *owned;
  p.header = decoded.header;
  pending_.push_back(std::move(owned));
  if (GatewayApis::inject(*this, p, *decoded.body)) return flush();
  std::visit([&](auto& req) { GatewayApis::start(*this, p, req); }, *decoded.body);
  flush();
}

void Gateway::on_message(NodeId, const Message& msg) {
  const CorrelationId id = std::visit([](const auto& m) -> CorrelationId {
    if constexpr (requires { m.correlation_id; }) return m.correlation_id;
    return 0;
  }, msg);
  const auto it = by_correlation_.find(id);
  if (it == by_correlation_.end()) return;  // an answer the request no longer waits for
  Pending& p = *it->second;
  by_correlation_.erase(it);
  if (p.done) return;
  --p.outstanding;
  p.on_answer(p, msg);
  if (p.outstanding == 0 && !p.finishing) p.done = true;
  flush();
}

void Gateway::on_timer(TimerId, std::uint64_t tag) {
  if (tag == kFlushTag) return flush();
  if (tag != kFinishTag) return;
  for (auto& p : pending_) {
    if (p->finishing && !p->done) p->done = true;
  }
  flush();
}

void Gateway::on_disconnect(NodeId peer) {
  if (peer == broker_) fail("the broker's process went away");
}

void Gateway::fail(std::string why) {
  if (closed_) return;
  closed_ = true;
  out_.close(std::move(why));
}

// Writes out every finished request at the front, in request order.
void Gateway::flush() {
  while (!closed_ && !pending_.empty() && pending_.front()->done) {
    Pending& front = *pending_.front();
    if (front.lost) return;  // its answer never comes, nor any after it on this connection
    if (front.ready_at > env_.now()) {
      env_.set_timer(front.ready_at - env_.now(), kFlushTag);
      return;
    }
    std::unique_ptr<Pending> p = std::move(pending_.front());
    pending_.pop_front();
    for (const CorrelationId id : p->correlations) by_correlation_.erase(id);
    if (p->raw) out_.write(std::move(*p->raw));
    else if (p->response) out_.write(wire::encode_response(p->header, *p->response));
  }
}

const BrokerAddress* GatewayApis::address(const Gateway& g, NodeId node) {
  for (const auto& b : g.config_->brokers) {
    if (b.node == node) return &b;
  }
  return nullptr;
}

void GatewayApis::start(Gateway&, Gateway::Pending& p, const wire::ApiVersionsRequest&) {
  p.response = wire::advertised_api_versions();
  p.done = true;
}

}  // namespace logsim::live

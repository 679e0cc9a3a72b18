// The client channel's correlation ids, bootstrap servers and sends (see client_channel.h).
#include "engine/client/client_channel.h"

#include "engine/base/assert.h"

namespace logsim::engine {

void set_correlation(Message& request, CorrelationId id) {
  std::visit(
      [id](auto& m) {
        if constexpr (requires { m.correlation_id; }) m.correlation_id = id;
      },
      request);
}

NodeId ClientChannel::any_bootstrap() {
  const auto& servers = config_.bootstrap_servers;
  LOGSIM_ASSERT(!servers.empty(), "a client without bootstrap.servers");
  return servers[env_.rng().uniform_u64(servers.size())];
}

NodeId ClientChannel::next_bootstrap() {
  const auto& servers = config_.bootstrap_servers;
  LOGSIM_ASSERT(!servers.empty(), "a client without bootstrap.servers");
  return servers[next_bootstrap_++ % servers.size()];
}

CorrelationId ClientChannel::send(NodeId to, Message request) {
  const CorrelationId id = next_correlation();
  set_correlation(request, id);
  env_.send(to, std::move(request));
  return id;
}

}  // namespace logsim::engine

// The TCP side of `logsim serve`: one listener per broker on loopback, and per accepted
// connection a Gateway node (live/gateway.h) in the live world that speaks Kafka's wire
// protocol to the client and the engine's messages to its broker.
//
// A connection reads size-prefixed frames (wire/frame.h) and hands each whole request to its
// gateway; the gateway's answers are written back in order, one async write at a time. A frame
// above max_request_bytes (Kafka's socket.request.max.bytes) or with a negative size closes
// the connection with a log line; nothing reaches the broker. When the gateway closes the
// connection (its broker crashed, or it could not decode a request) the socket is closed and
// the gateway node removed from the world.
//
// A broker whose process is not running (crashed, stopped, removed) has no listener: its port
// refuses connections, as a dead process's would (a client then sees "connection refused", not
// a connection closed after it was accepted); when the broker runs again its port listens again.
//
// Binding: every listener binds the address it is given; the caller (the CLI) is the one that
// insists on loopback unless asked otherwise. A port of 0 takes an ephemeral port, which
// listen() then writes back into the gateway config, so Metadata advertises the real one.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/tcp.hpp>

#include "live/gateway.h"
#include "live/live_world.h"

namespace logsim::live {

class Server {
 public:
  Server(LiveWorld& world, GatewayConfig config);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and starts accepting on every broker's address. Throws std::runtime_error naming the
  // address when one cannot be bound (e.g. the port is taken).
  void listen();
  // Stops accepting and closes every connection.
  void close();

  const GatewayConfig& config() const { return *config_; }
  // "HOST:PORT,HOST:PORT,..." in broker order: what a client's bootstrap.servers takes.
  std::string bootstrap() const;
  std::size_t connections() const { return connections_.size(); }
  std::uint64_t accepted() const { return accepted_; }

  std::function<void(std::string_view line)> log;

  class Connection;

 private:
  // Opens broker i's listener on its address; returns the error, if any.
  boost::system::error_code open(std::size_t broker, const boost::asio::ip::tcp::endpoint& at);
  void accept(std::size_t broker);
  void broker_state(NodeId node, NodeState state);
  void closed(Connection* c);

  LiveWorld& world_;
  std::shared_ptr<const GatewayConfig> config_;  // with the bound ports, once listening
  std::vector<std::unique_ptr<boost::asio::ip::tcp::acceptor>> acceptors_;  // null while the broker is not running
  std::vector<std::uint64_t> listening_;  // per broker, how many times its listener was opened
  std::vector<std::shared_ptr<Connection>> connections_;
  std::uint64_t accepted_ = 0;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace logsim::live

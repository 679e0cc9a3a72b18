// The TCP listeners and connections of `logsim serve` (see server.h).
#include "live/server.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <deque>
#include <stdexcept>

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include "live/disks.h"
#include "wire/frame.h"

namespace logsim::live {

namespace asio = boost::asio;
using asio::ip::tcp;

class Server::Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Server& server, tcp::socket socket, NodeId broker) : server_(server), socket_(std::move(socket)), broker_(broker) {}

  void start(std::shared_ptr<const GatewayConfig> config) {
    std::weak_ptr<Connection> self = weak_from_this();
    Gateway::Output out{
        [self](std::string frame) {
          if (auto c = self.lock()) c->write(std::move(frame));
        },
        [self](std::string why) {
          if (auto c = self.lock()) c->close(std::move(why));
        }};
    const std::string name = "client-" + std::to_string(server_.accepted_) + "@" + server_.world_.name(broker_);
    node_ = server_.world_.add_node(
        name, [broker = broker_, config, out](Env& env) { return std::make_unique<Gateway>(env, broker, config, out); },
        std::make_unique<MemDisk>(), /*endpoint=*/true);
    server_.world_.start(node_);
    read();
  }

  void write(std::string frame) {
    if (closed_) return;
    out_.push_back(std::move(frame));
    if (!writing_) write_next();
  }

  // Closes the socket and removes the gateway, after the current handler (the gateway may be
  // the caller).
  void close(std::string why) {
    if (closed_) return;
    closed_ = true;
    if (!why.empty() && server_.log) server_.log(server_.world_.name(node_) + ": closed: " + why);
    boost::system::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
    asio::post(server_.world_.io(), [self = shared_from_this(), alive = server_.alive_] {
      if (!*alive) return;
      self->server_.world_.remove(self->node_);
      self->server_.closed(self.get());
    });
  }

 private:
  void read() {
    // Reads straight into the buffer's free room (at least kReadBytes of it).
    if (in_capacity_ - have_ < kReadBytes) {
      const std::size_t capacity = std::max(2 * in_capacity_, have_ + kReadBytes);
      auto bigger = std::make_unique_for_overwrite<char[]>(capacity);
      if (have_ > 0) std::memcpy(bigger.get(), in_.get(), have_);
      in_ = std::move(bigger);
      in_capacity_ = capacity;
    }
    socket_.async_read_some(asio::buffer(in_.get() + have_, in_capacity_ - have_),
                            [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
                              if (self->closed_) return;
                              if (ec) return self->close(ec == asio::error::eof ? "" : ec.message());
                              self->have_ += n;
                              self->frames();
                              if (!self->closed_) self->read();
                            });
  }

  // Hands every whole frame received to the gateway, and moves what is left of the next to
  // the buffer's start.
  void frames() {
    std::size_t at = 0;
    while (!closed_) {
      const std::string_view rest(in_.get() + at, have_ - at);
      const auto bytes = std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(rest.data()), rest.size());
      const wire::FrameCheck f = wire::check_frame(bytes, server_.config_->max_request_bytes);
      if (f.status == wire::FrameStatus::kNegativeSize) return close("a frame with a negative size");
      if (f.status == wire::FrameStatus::kTooLarge) {
        return close("a frame of " + std::to_string(f.size) + " bytes, above socket.request.max.bytes (" +
                     std::to_string(server_.config_->max_request_bytes) + ")");
      }
      if (f.status != wire::FrameStatus::kComplete) break;
      auto* gateway = dynamic_cast<Gateway*>(server_.world_.node(node_));
      if (gateway == nullptr) return close("the gateway is gone");
      gateway->on_frame(rest.substr(f.bytes - static_cast<std::size_t>(f.size), static_cast<std::size_t>(f.size)));
      at += f.bytes;
    }
    if (at > 0) std::memmove(in_.get(), in_.get() + at, have_ - at);
    have_ -= at;
  }

  void write_next() {
    if (out_.empty() || closed_) {
      writing_ = false;
      return;
    }
    writing_ = true;
    asio::async_write(socket_, asio::buffer(out_.front()), [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
      if (self->closed_) return;
      if (ec) return self->close(ec.message());
      self->out_.pop_front();
      self->write_next();
    });
  }

  Server& server_;
  tcp::socket socket_;
  NodeId broker_;
  NodeId node_{-1};
  static constexpr std::size_t kReadBytes = 64 * 1024;
  std::unique_ptr<char[]> in_;  // bytes received, [0, have_), not yet handed on as frames
  std::size_t have_ = 0;
  std::size_t in_capacity_ = 0;
  std::deque<std::string> out_;
  bool writing_ = false;
  bool closed_ = false;
};

Server::Server(LiveWorld& world, GatewayConfig config)
    : world_(world), config_(std::make_shared<GatewayConfig>(std::move(config))) {}

Server::~Server() {
  *alive_ = false;
  close();
}

void Server::listen() {
  auto config = std::make_shared<GatewayConfig>(*config_);
  acceptors_.resize(config->brokers.size());
  listening_.resize(config->brokers.size());
  for (std::size_t i = 0; i < config->brokers.size(); ++i) {
    BrokerAddress& b = config->brokers[i];
    boost::system::error_code ec;
    const auto address = asio::ip::make_address(b.host, ec);
    if (ec) throw std::runtime_error("logsim serve: '" + b.host + "' is not an IP address");
    ec = open(i, tcp::endpoint(address, b.port));
    if (ec) {
      throw std::runtime_error("logsim serve: cannot listen on " + b.host + ":" + std::to_string(b.port) + ": " + ec.message());
    }
    b.port = acceptors_[i]->local_endpoint().port();
  }
  config_ = std::move(config);
  for (std::size_t i = 0; i < acceptors_.size(); ++i) accept(i);
  world_.on_state = [this](NodeId node, NodeState state) { broker_state(node, state); };
}

boost::system::error_code Server::open(std::size_t broker, const tcp::endpoint& at) {
  boost::system::error_code ec;
  auto acceptor = std::make_unique<tcp::acceptor>(world_.io());
  acceptor->open(at.protocol(), ec);
  if (!ec) acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor->bind(at, ec);
  if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (!ec) {
    acceptors_[broker] = std::move(acceptor);
    ++listening_[broker];
  }
  return ec;
}

void Server::broker_state(NodeId node, NodeState state) {
  for (std::size_t i = 0; i < config_->brokers.size(); ++i) {
    if (config_->brokers[i].node != node) continue;
    const BrokerAddress& b = config_->brokers[i];
    if (state != NodeState::kUp) {
      if (acceptors_[i]) {
        boost::system::error_code ignored;
        acceptors_[i]->close(ignored);  // the pending accept ends with operation_aborted
        acceptors_[i].reset();
      }
    } else if (!acceptors_[i]) {
      const auto ec = open(i, tcp::endpoint(asio::ip::make_address(b.host), b.port));
      if (ec) {
        if (log) log("cannot listen on " + b.host + ":" + std::to_string(b.port) + " again: " + ec.message());
      } else {
        accept(i);
      }
    }
  }
}

std::string Server::bootstrap() const {
  std::string out;
  for (const auto& b : config_->brokers) out += (out.empty() ? "" : ",") + b.host + ":" + std::to_string(b.port);
  return out;
}

void Server::accept(std::size_t broker) {
  acceptors_[broker]->async_accept([this, alive = alive_, broker, opened = listening_[broker]](const boost::system::error_code& ec,
                                                                                               tcp::socket socket) {
    // A listener closed since (its broker went away) ends here; a new one has its own accept.
    if (!*alive || ec || listening_[broker] != opened || !acceptors_[broker]) return;
    ++accepted_;
    socket.set_option(tcp::no_delay(true));
    auto c = std::make_shared<Connection>(*this, std::move(socket), config_->brokers[broker].node);
    connections_.push_back(c);
    c->start(config_);
    accept(broker);
  });
}

void Server::closed(Connection* c) {
  std::erase_if(connections_, [c](const std::shared_ptr<Connection>& x) { return x.get() == c; });
}

void Server::close() {
  world_.on_state = nullptr;
  for (auto& a : acceptors_) {
    boost::system::error_code ignored;
    if (a) a->close(ignored);
  }
  const std::vector<std::shared_ptr<Connection>> open = connections_;
  for (const auto& c : open) c->close("");
}

}  // namespace logsim::live

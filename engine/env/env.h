// Env: the whole world as the engine sees it, and Node: what the world drives.
//
// The engine is a set of sans-I/O state machines (DESIGN.md). A node (broker, controller,
// client application) never reads a clock, opens a socket or a file, or draws randomness on its
// own: it does all of that through the Env it was constructed with. sim/ implements Env
// deterministically (virtual time, simulated network and disk, seeded streams); live/
// implements it on Boost.Asio with real TCP and files. The same node code runs on both.
//
// Threading: a node and its Env are used by one thread only. Callbacks into a node
// (on_start, on_message, on_timer, on_fsync, on_stop) never overlap and never re-enter.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "engine/env/disk.h"
#include "engine/protocol/messages.h"
#include "engine/env/rng.h"
#include "engine/base/types.h"

namespace logsim {

using TimerId = std::uint64_t;

class Env {
 public:
  virtual ~Env() = default;

  // Which node this is.
  virtual NodeId self() const = 0;
  // The node's local clock. In simulation it may be skewed or drift from true time.
  virtual Nanos now() const = 0;
  // Arms a one-shot timer `delay` from now on the local clock; Node::on_timer(id, tag) runs
  // when it fires. The tag is the node's own (e.g. which periodic task).
  virtual TimerId set_timer(Nanos delay, std::uint64_t tag) = 0;
  // Disarms a timer; a no-op if it has fired or was cancelled.
  virtual void cancel_timer(TimerId id) = 0;
  // Sends a message. Delivery is not guaranteed, nor is order between messages.
  virtual void send(NodeId to, Message msg) = 0;
  virtual Disk& disk() = 0;
  // This node's own random stream.
  virtual Rng& rng() = 0;
};

class Node {
 public:
  virtual ~Node() = default;
  // The node (re)starts: rebuild any state from env.disk(), arm timers, send hellos.
  virtual void on_start() = 0;
  virtual void on_message(NodeId from, const Message& msg) = 0;
  virtual void on_timer(TimerId id, std::uint64_t tag) = 0;
  virtual void on_fsync(std::uint64_t /*token*/) {}
  // The connection to `peer` broke because its process exited (crash or stop) while a message
  // to it was in flight or was sent to it: the peer's operating system reset the connection.
  // Requests in flight to that peer will get no answer; retry elsewhere or later. Not called
  // when the peer's machine lost power or the network cut the link: then only timeouts tell.
  virtual void on_disconnect(NodeId /*peer*/) {}
  // A graceful stop: the last chance to commit, leave groups, flush. No timer fires after it.
  virtual void on_stop() {}
};

// Builds a fresh node object on an Env. The simulator calls it at start and at each restart;
// everything the node remembers across a restart must come from its disk.
using NodeFactory = std::function<std::unique_ptr<Node>(Env&)>;

}  // namespace logsim

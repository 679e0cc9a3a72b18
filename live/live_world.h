// LiveWorld: the real implementation of Env (DESIGN.md's live/, like FoundationDB's Net2 beside
// Sim2). The same engine nodes that run on sim::World run here on a Boost.Asio io_context, in
// real (monotonic) time: brokers, the controller, and the gateways that serve real Kafka
// clients (live/gateway.h). Nothing in engine/ knows which world it runs in.
//
// One io_context, one thread: every callback into a node (on_start, on_message, on_timer,
// on_fsync, on_disconnect, on_stop) runs from a handler of that io_context, one at a time, as
// Env's contract requires. Messages between nodes stay in the process: send() posts the
// delivery to the io_context (after the link's delay, when one is set), so a node never
// re-enters itself and delivery order between two nodes is send order unless a fault delays it.
//
// Node lifecycle, as sim::World's (sim/world.h):
// - start/restart build a fresh Node with the node's factory on its (persistent) Env; the disk
//   persists across restarts.
// - crash: the object is destroyed, its timers and pending fsyncs forgotten; the disk keeps
//   what the operating system's page cache holds (here: everything written). Every other live
//   node is told on_disconnect, as the crashed process's sockets are reset.
// - power_loss: as crash, but the disk keeps only what was fsynced (an in-memory disk; see
//   live/disks.h) and nobody is told.
// - stop: graceful: on_stop() runs (it may send last messages), then as crash.
// - pause/resume: while paused a node handles nothing; deliveries, timers and fsync completions
//   are held and run in arrival order at resume.
// - remove: an endpoint that went away for good (a client connection that closed).
//
// A message never crosses a restart of its receiver: a delivery is dropped when the receiver
// has restarted since it was sent (each incarnation has its own connections). One its sender
// sent before it stopped or crashed was on the wire already and arrives, as in sim::World (TCP
// delivers the data before the FIN): a graceful stop's last messages reach their peers.
// An answer goes to the incarnation that sent its request (engine/env/answer_routes.h), not to
// whichever incarnation of the requester is up when the answer is sent.
//
// Faults between nodes: cut(from, to) loses every message from one to the other until heal();
// delay(from, to, d) holds each such message d longer (a slow link); clog(node, until) holds
// every message to and from a node until then; shape() gives links a latency distribution,
// loss, duplication and reordering (a scenario's set-network, with sim::Network's model: see
// LinkShape). These are how a scenario's partitions, clogs and network settings between
// brokers are applied in real time. Messages on one link arrive in the order sent unless its
// shape reorders them (a duplicate copy never arrives before its first, but may after later
// messages, as in the simulator).
//
// Clocks: set_clock(node, offset, drift_ppm) makes the node's Env::now() read
// offset + true_time * (1 + drift_ppm / 1e6), as sim::World's; its timers are armed in that
// local time and fire when the local clock reaches them (a clock set forward fires the timers it
// passes at once).
//
// Invariants: at most one Node object per node; a handler for an old incarnation never reaches
// a newer one; timers of a dead incarnation never fire.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "engine/env/env.h"

namespace logsim::live {

enum class NodeState : std::uint8_t { kDown, kUp, kCrashed, kPaused, kRemoved };
std::string_view node_state_name(NodeState s);

// A node's disk, which the world keeps across restarts and tells of crashes.
class LiveDisk : public Disk {
 public:
  // Called with a token when an fsync is done (the world routes it to the node, or holds it).
  using FsyncDone = std::function<void(std::uint64_t token)>;
  void on_fsync_done(FsyncDone done) { done_ = std::move(done); }
  // The machine lost power: keep only what was made durable.
  virtual void power_loss() = 0;

 protected:
  void fsync_done(std::uint64_t token) const {
    if (done_) done_(token);
  }

 private:
  FsyncDone done_;
};

// How one directed link behaves (sim::LinkOptions' model, in real time): each message is lost
// with probability `loss`; otherwise it waits latency_min plus an exponential extra of mean
// latency_mean, plus, with probability tail_probability, a uniform extra below tail_max; with
// probability `duplicate` a second copy follows, with its own latency. Links deliver in send
// order unless `reorder`. The default shape adds nothing.
struct LinkShape {
  Nanos latency_min = 0;
  Nanos latency_mean = 0;
  double tail_probability = 0;
  Nanos tail_max = 0;
  double loss = 0;
  double duplicate = 0;
  bool reorder = false;
};

struct LiveOptions {
  std::uint64_t seed = 1;  // the nodes' random streams (live runs are not reproducible anyway)
};

class LiveWorld {
 public:
  LiveWorld(boost::asio::io_context& io, LiveOptions options = {});
  ~LiveWorld();
  LiveWorld(const LiveWorld&) = delete;
  LiveWorld& operator=(const LiveWorld&) = delete;

  // Adds a node (down until start). Ids are handed out from 0 in order of addition. An endpoint
  // (a client connection's gateway) comes and goes with its connection: its lifecycle is not
  // reported to on_fault.
  NodeId add_node(std::string name, NodeFactory factory, std::unique_ptr<LiveDisk> disk, bool endpoint = false);

  void start(NodeId id);
  void crash(NodeId id);
  void power_loss(NodeId id);
  void stop(NodeId id);
  void restart(NodeId id);  // a running node is crashed first
  void pause(NodeId id);
  void resume(NodeId id);
  // Stops the node for good (no on_stop) and forgets it: its messages and timers are dropped.
  void remove(NodeId id);

  void cut(NodeId from, NodeId to);
  void delay(NodeId from, NodeId to, Nanos d);
  // Until `until` (the world's time), messages to and from the node wait, then go on
  // (a scenario's clog). heal() leaves clogs alone, as in the simulator.
  void clog(NodeId node, Nanos until);
  void heal();  // every cut and delay (shapes and clogs stay, as in the simulator)
  // The shape of the links to and from `node` (none: of every link without a shape of its
  // own). A client connection's link to its broker (an endpoint's) is never shaped: client
  // faults are the gateway's (ClientFaults).
  void shape(std::optional<NodeId> node, const LinkShape& shape);
  // The node's local clock from now on (see above); kept across restarts, as a machine's.
  void set_clock(NodeId id, Nanos offset, double drift_ppm);

  // Monotonic time since the world was made.
  Nanos now() const;
  // A node's local clock (its Env::now()).
  Nanos local_now(NodeId id) const;
  boost::asio::io_context& io() { return io_; }
  std::size_t node_count() const { return slots_.size(); }
  const std::string& name(NodeId id) const;
  std::optional<NodeId> find(std::string_view name) const;
  NodeState state(NodeId id) const;
  Node* node(NodeId id);  // nullptr unless up or paused
  std::uint32_t incarnation(NodeId id) const;

  // Called for every lifecycle change and link fault ("crash broker-2"), for logs and the
  // history.
  std::function<void(std::string_view what)> on_fault;
  // Called after a node (not an endpoint) starts running (kUp) or stops (kCrashed, kDown,
  // kRemoved): the server closes a dead broker's port and opens it again.
  std::function<void(NodeId id, NodeState state)> on_state;

 private:
  class SlotEnv;
  struct Slot;
  struct Held {  // something that reached a paused node
    std::function<void(Node&)> run;
  };

  Slot& slot(NodeId id);
  const Slot& slot(NodeId id) const;
  void boot(Slot& s);
  void kill(Slot& s, bool tell_peers);
  void changed(const Slot& s);  // tells on_state
  void fault(const Slot& s, std::string_view what);
  void post_to(NodeId id, std::uint32_t incarnation, std::function<void(Node&)> run);
  void run_on(Slot& s, const std::function<void(Node&)>& run);
  void send(Slot& from, NodeId to, Message msg);
  TimerId arm_timer(Slot& s, Nanos delay, std::uint64_t tag);
  void wait_timer(Slot& s, TimerId id);  // (re)arms its asio timer for its local deadline
  void disarm_timer(Slot& s, TimerId id);
  Nanos local_now(const Slot& s) const;
  // A link's messages in send order, each with its delivery time, and the timer of the first.
  struct Link {
    Nanos last_due = 0;  // the latest delivery time planned on the link
    std::deque<std::pair<Nanos, std::function<void()>>> waiting;
    std::unique_ptr<boost::asio::steady_timer> timer;
  };
  const LinkShape* shape_of(const Slot& from, const Slot& to) const;
  Nanos draw_latency(const LinkShape& shape);
  void deliver_in_order(Link& link, Nanos due, std::function<void()> deliver);
  void deliver_at(Nanos due, std::function<void()> deliver);  // on its own, in no order
  void release(Link& link);

  boost::asio::io_context& io_;
  LiveOptions options_;
  std::chrono::steady_clock::time_point epoch_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::set<std::pair<std::int32_t, std::int32_t>> cuts_;
  std::map<std::pair<std::int32_t, std::int32_t>, Nanos> delays_;
  std::map<std::int32_t, Nanos> clogged_until_;
  std::optional<LinkShape> default_shape_;
  std::map<std::pair<std::int32_t, std::int32_t>, LinkShape> shapes_;
  std::map<std::pair<std::int32_t, std::int32_t>, Link> links_;
  Rng network_rng_;
  TimerId next_timer_ = 0;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);  // handlers posted by a dead world do nothing
};

}  // namespace logsim::live

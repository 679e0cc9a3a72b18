// The World: one deterministic simulation. It owns the event queue, the virtual clock, the
// network, every node's disk and lifecycle, and the trace.
//
// Node lifecycle model:
// - start/restart: a fresh Node object is built by the node's factory on its (persistent) Env
//   and on_start() runs; whatever it remembers must come from its disk.
// - crash: the process dies. The object is destroyed, timers and pending fsyncs are forgotten,
//   the disk keeps its page cache (SimDisk::crash). Messages in flight to it are dropped on
//   arrival. Nodes connected to it (that sent to this incarnation) are told by on_disconnect:
//   its operating system closed the sockets. So are later senders, once per attempt.
// - power_loss: as crash, but the disk keeps only what was durable (SimDisk::power_loss), and
//   nobody is told: the machine is gone, so senders learn only by their timeouts.
// - stop: graceful. on_stop() runs (it may send last messages), then the object is destroyed.
// - pause/resume: a long GC pause. While paused the node handles nothing; messages, timers and
//   fsync completions that arrive are held and run, in arrival order, at resume.
// - connections: a message travels on a connection between two incarnations. A request (and a
//   LeaderAndIsr push) goes to the destination's current incarnation; an answer goes back to
//   the incarnation that sent its request (engine/env/answer_routes.h), as Kafka's answer goes
//   back on the connection the request came in on. A message is delivered only to the
//   incarnation it was addressed to, so nothing crosses a restart of its receiver: a restarted
//   client never gets an answer meant for its previous process (its machine's OS resets that
//   connection, and the server hears of it). What a process sent before it died was on the
//   wire and still arrives (as TCP delivers the data before a FIN); its answer then finds the
//   connection gone.
// - clock: each node's local clock is offset + true_time * (1 + drift_ppm / 1e6). Timers are
//   armed in local time and fire when the local clock reaches them.
//
// Events run one at a time in (time, sequence) order; run_until(t) stops at t (the clock then
// reads t, whether or not anything was left to do) or at max_events (a bound, so a livelock
// shows as a clear stop). The clock never moves back. An InvariantError thrown while an event
// runs leaves run_until annotated with where the run broke (simulated time, trace position, the
// event and its node; see engine/base/assert.h); the world is then not to be run further.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <set>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "engine/env/env.h"
#include "sim/disk.h"
#include "sim/event_queue.h"
#include "sim/network.h"
#include "sim/trace.h"

namespace logsim::sim {

struct WorldOptions {
  LinkOptions network;                       // default options of every link
  bool record_trace = false;                 // keep trace entries, not only the hash
  std::uint64_t max_events = 2'000'000'000;  // a run stops after this many events
  std::size_t max_deferred_per_node = 1'000'000;  // events held for a paused node
};

enum class NodeState : std::uint8_t { kDown, kUp, kCrashed, kPaused };
std::string_view node_state_name(NodeState s);

enum class RunEnd : std::uint8_t { kTimeLimit, kQuiescent, kEventLimit };

class World {
 public:
  explicit World(std::uint64_t seed, WorldOptions options = {});
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // Registers a node (not started). Its disk uses `disk` options and stream "disk/<name>".
  NodeId add_node(std::string name, NodeFactory factory, SimDiskOptions disk = {});

  // Lifecycle, effective now. Each is traced as a fault.
  void start(NodeId id);
  void crash(NodeId id);
  void power_loss(NodeId id);
  void stop(NodeId id);
  void restart(NodeId id);
  void pause(NodeId id);
  void resume(NodeId id);
  void set_clock(NodeId id, Nanos offset, double drift_ppm);

  // Applies a network fault now, traced with its description. A connection that lost a
  // message to a cut is reset once the cut heals: both ends hear of it one hop later
  // (Node::on_disconnect), as TCP gives up on a connection whose segments went unanswered,
  // and Kafka's clients then retry on a new one. Without this a request or answer lost in a
  // partition would be waited for until its (Kafka-long) timeout, long after the heal.
  void network_fault(std::string description, const std::function<void(Network&)>& apply);

  // Runs `action` at time `at` (>= now), traced as an action with its description.
  void schedule(Nanos at, std::string description, std::function<void()> action);

  RunEnd run_until(Nanos until);

  Nanos now() const { return now_; }
  std::uint64_t seed() const { return seed_; }
  std::uint64_t events_run() const { return events_run_; }
  // A new random stream of this run, for the harness (workloads, fault schedules).
  Rng stream(std::string_view name) const { return Rng::for_stream(seed_, name); }

  Network& network() { return network_; }
  const Trace& trace() const { return trace_; }
  std::size_t node_count() const { return slots_.size(); }
  const std::string& name(NodeId id) const;
  std::optional<NodeId> find(std::string_view name) const;
  NodeState state(NodeId id) const;
  SimDisk& disk(NodeId id);
  // The live node object, or nullptr when it is not running.
  Node* node(NodeId id);
  // The node's local clock now.
  Nanos local_time(NodeId id) const;

 private:
  class SimEnv;
  struct TimerEvent {
    NodeId node;
    std::uint32_t incarnation;
    TimerId id;
    std::uint64_t tag;
  };
  struct DeliverEvent {
    NodeId from;
    std::uint32_t from_incarnation;  // the connection's sending end
    NodeId to;
    std::uint32_t to_incarnation;
    Message msg;
  };
  struct FsyncEvent {
    NodeId node;
    std::uint32_t incarnation;
    std::uint64_t token;
    std::function<void()> complete;
  };
  struct DisconnectEvent {
    NodeId node;  // told
    std::uint32_t incarnation;
    NodeId peer;  // whose process is gone
    std::uint32_t peer_incarnation;  // the connection that broke
  };
  struct ActionEvent {
    std::string description;
    std::function<void()> action;
  };
  using Payload = std::variant<std::monostate, TimerEvent, DeliverEvent, FsyncEvent, DisconnectEvent, ActionEvent>;
  using Queue = EventQueue<Payload>;
  struct Slot;

  Slot& slot(NodeId id);
  const Slot& slot(NodeId id) const;
  Nanos local_time(const Slot& s) const;  // the node's clock, without looking its slot up
  void fault(NodeId id, std::string_view what);
  void kill(Slot& s);
  void reset_connections_to(Slot& s);
  void boot(Slot& s);
  void send(Slot& from, NodeId to, Message msg);
  void reset_cut_connections();
  TimerId arm_timer(Slot& s, Nanos local_delay, std::uint64_t tag);
  void disarm_timer(Slot& s, TimerId id);
  void dispatch(Nanos at, Payload& payload);
  void on_timer(TimerEvent& ev);
  void on_deliver(DeliverEvent& ev);
  void on_fsync(FsyncEvent& ev);
  void on_disconnect(DisconnectEvent& ev);
  bool hold_if_paused(Slot& s, Payload& payload);
  std::string where(std::uint64_t trace_position, const Payload& payload) const;

  std::uint64_t seed_;
  WorldOptions options_;
  Nanos now_ = 0;
  std::uint64_t events_run_ = 0;
  Queue queue_;
  Network network_;
  // (from, to) links on which a cut dropped a message since they were last healed: ordered,
  // so the resets on heal happen in a deterministic order.
  std::set<std::pair<NodeId, NodeId>> cut_connections_;
  Trace trace_;
  std::vector<std::unique_ptr<Slot>> slots_;
};

}  // namespace logsim::sim

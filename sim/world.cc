// The World's event loop, node lifecycle and the per-node simulated Env.
#include "sim/world.h"

#include <cassert>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "engine/base/assert.h"
#include "engine/base/flat_map.h"
#include "engine/env/answer_routes.h"

namespace logsim::sim {

std::string_view node_state_name(NodeState s) {
  switch (s) {
    case NodeState::kDown: return "down";
    case NodeState::kUp: return "up";
    case NodeState::kCrashed: return "crashed";
    case NodeState::kPaused: return "paused";
  }
  return "?";
}

// Everything the world keeps about one node. The Env outlives incarnations of the node.
struct World::Slot {
  NodeId id;
  std::string name;
  NodeFactory factory;
  std::unique_ptr<SimDisk> disk;
  Rng rng;
  std::unique_ptr<SimEnv> env;
  std::unique_ptr<Node> node;
  NodeState state = NodeState::kDown;
  std::uint32_t incarnation = 0;
  Nanos clock_offset = 0;
  double drift_ppm = 0;
  // Timers whose event came due during a pause and was pushed again at resume, by id: the
  // handle of the new event, until it fires. (A paused node runs nothing, so it cannot cancel a
  // timer while its event is held.) Looked up, never iterated; empty unless the node was paused
  // while a timer came due.
  FlatMap<TimerId, Queue::Handle> rehomed;
  std::vector<Payload> held;  // events that arrived while paused
  bool powered_off = false;   // lost power: no process left to reset connections
  // Connections, by peer: the peer incarnation this node last sent to, and the one whose reset
  // it was last told of. A reset is told once per connection attempt (until the node sends to
  // that peer again), and never after the node has moved on to a newer incarnation of the peer.
  FlatMap<std::int32_t, std::uint32_t> connected_to;  // (looked up, never iterated)
  FlatMap<std::int32_t, std::uint32_t> reset_told;
  // The peer incarnation whose reset is on its way to this node and not yet arrived. Until it
  // arrives, what this node sends to that peer goes on the same broken connection and is lost
  // with it, even if the peer has restarted meanwhile: a new connection (to the new process)
  // is opened only once the reset is heard, as a client's one socket per broker would.
  FlatMap<std::int32_t, std::uint32_t> reset_due;
  // Which incarnation of a requester each answer this incarnation sends goes back to.
  AnswerRoutes answer_routes;

  Slot(NodeId i, std::string n, NodeFactory f, Rng r)
      : id(i), name(std::move(n)), factory(std::move(f)), rng(r) {}
};

// The Env a node sees: its local clock, timers, the network, its disk and its random stream.
class World::SimEnv final : public Env {
 public:
  SimEnv(World& world, Slot& slot) : world_(world), slot_(slot) {}
  NodeId self() const override { return slot_.id; }
  Nanos now() const override { return world_.local_time(slot_); }
  TimerId set_timer(Nanos delay, std::uint64_t tag) override {
    return world_.arm_timer(slot_, delay, tag);
  }
  void cancel_timer(TimerId id) override { world_.disarm_timer(slot_, id); }
  void send(NodeId to, Message msg) override { world_.send(slot_, to, std::move(msg)); }
  Disk& disk() override { return *slot_.disk; }
  Rng& rng() override { return slot_.rng; }

 private:
  World& world_;
  Slot& slot_;
};

World::World(std::uint64_t seed, WorldOptions options)
    : seed_(seed),
      options_(options),
      network_(Rng::for_stream(seed, "network"), options.network),
      trace_(options.record_trace) {}

World::~World() = default;

NodeId World::add_node(std::string name, NodeFactory factory, SimDiskOptions disk) {
  LOGSIM_ASSERT(!find(name), "duplicate node name " + name);
  const NodeId id(static_cast<std::int32_t>(slots_.size()));
  auto s = std::make_unique<Slot>(id, name, std::move(factory), Rng::for_stream(seed_, "node/" + name));
  Slot* raw = s.get();
  auto sink = [this, raw](Nanos delay, std::uint64_t token, std::function<void()> complete) {
    queue_.push(now_ + delay, FsyncEvent{raw->id, raw->incarnation, token, std::move(complete)});
  };
  s->disk = std::make_unique<SimDisk>(disk, Rng::for_stream(seed_, "disk/" + name), std::move(sink));
  s->env = std::make_unique<SimEnv>(*this, *s);
  slots_.push_back(std::move(s));
  return id;
}

World::Slot& World::slot(NodeId id) {
  LOGSIM_ASSERT(id.value() >= 0 && static_cast<std::size_t>(id.value()) < slots_.size(), "no such node");
  return *slots_[static_cast<std::size_t>(id.value())];
}
const World::Slot& World::slot(NodeId id) const {
  LOGSIM_ASSERT(id.value() >= 0 && static_cast<std::size_t>(id.value()) < slots_.size(), "no such node");
  return *slots_[static_cast<std::size_t>(id.value())];
}

const std::string& World::name(NodeId id) const { return slot(id).name; }
NodeState World::state(NodeId id) const { return slot(id).state; }
SimDisk& World::disk(NodeId id) { return *slot(id).disk; }
Node* World::node(NodeId id) {
  Slot& s = slot(id);
  return s.state == NodeState::kUp ? s.node.get() : nullptr;
}

std::optional<NodeId> World::find(std::string_view name) const {
  for (const auto& s : slots_) {
    if (s->name == name) return s->id;
  }
  return std::nullopt;
}

Nanos World::local_time(NodeId id) const { return local_time(slot(id)); }

Nanos World::local_time(const Slot& s) const {
  if (s.drift_ppm == 0) return s.clock_offset + now_;  // the same as below, without the rounding
  const double drift = static_cast<double>(now_) * s.drift_ppm / 1e6;
  return s.clock_offset + now_ + static_cast<Nanos>(std::llround(drift));
}

void World::fault(NodeId id, std::string_view what) {
  trace_.append(now_, TraceKind::kFault, id.value(), -1, Digest().add(what).value(),
                [&] { return std::string(what) + " " + slot(id).name; });
}

void World::boot(Slot& s) {
  ++s.incarnation;
  s.powered_off = false;
  s.state = NodeState::kUp;
  s.node = s.factory(*s.env);
  s.node->on_start();
}

void World::kill(Slot& s) {
  ++s.incarnation;  // everything addressed to the old incarnation is now stale
  s.node.reset();
  s.rehomed.clear();
  s.held.clear();
  s.connected_to.clear();
  s.reset_told.clear();
  s.reset_due.clear();
  s.answer_routes.clear();
}

// The process of `s` is about to die with its machine up: its OS closes every connection, so
// each node connected to this incarnation hears a reset one network hop later.
void World::reset_connections_to(Slot& s) {
  const std::int32_t x = s.id.value();
  for (auto& other : slots_) {
    if (other.get() == &s || (other->state != NodeState::kUp && other->state != NodeState::kPaused)) continue;
    if (!network_.connected(s.id, other->id)) continue;  // the reset cannot reach it
    const std::uint32_t* conn = other->connected_to.find(x);
    if (conn == nullptr || *conn != s.incarnation) continue;
    const std::uint32_t* told = other->reset_told.find(x);
    if (told != nullptr && *told == s.incarnation) continue;
    other->reset_told[x] = s.incarnation;
    other->reset_due[x] = s.incarnation;
    const Nanos hop = network_.options(s.id, other->id).latency_min_ns;
    queue_.push(now_ + hop, DisconnectEvent{other->id, other->incarnation, s.id, s.incarnation});
  }
}

void World::start(NodeId id) {
  Slot& s = slot(id);
  LOGSIM_ASSERT(s.state == NodeState::kDown || s.state == NodeState::kCrashed,
                "start of a running node " + s.name);
  fault(id, "start");
  boot(s);
}

void World::restart(NodeId id) {
  Slot& s = slot(id);
  if (s.state == NodeState::kUp || s.state == NodeState::kPaused) {
    fault(id, "restart");
    s.disk->crash();
    reset_connections_to(s);
    kill(s);
    boot(s);
    return;
  }
  fault(id, "restart");
  boot(s);
}

void World::crash(NodeId id) {
  Slot& s = slot(id);
  if (s.state != NodeState::kUp && s.state != NodeState::kPaused) return;
  fault(id, "crash");
  s.disk->crash();
  reset_connections_to(s);
  kill(s);
  s.state = NodeState::kCrashed;
}

void World::power_loss(NodeId id) {
  Slot& s = slot(id);
  fault(id, "power-loss");
  s.disk->power_loss();
  s.powered_off = true;
  if (s.state == NodeState::kUp || s.state == NodeState::kPaused) {
    kill(s);
    s.state = NodeState::kCrashed;
  }
}

void World::stop(NodeId id) {
  Slot& s = slot(id);
  if (s.state != NodeState::kUp && s.state != NodeState::kPaused) return;
  fault(id, "stop");
  s.state = NodeState::kUp;
  s.node->on_stop();
  s.disk->crash();  // the process ends; the OS keeps its page cache as after a crash
  reset_connections_to(s);
  kill(s);
  s.state = NodeState::kDown;
}

void World::pause(NodeId id) {
  Slot& s = slot(id);
  if (s.state != NodeState::kUp) return;
  fault(id, "pause");
  s.state = NodeState::kPaused;
}

void World::resume(NodeId id) {
  Slot& s = slot(id);
  if (s.state != NodeState::kPaused) return;
  fault(id, "resume");
  s.state = NodeState::kUp;
  // Replay what arrived during the pause, in arrival order, now.
  std::vector<Payload> held = std::move(s.held);
  s.held.clear();
  for (auto& p : held) {
    if (const auto* t = std::get_if<TimerEvent>(&p); t != nullptr && t->incarnation == s.incarnation) {
      s.rehomed[t->id] = queue_.next_handle();
    }
    queue_.push(now_, std::move(p));
  }
}

void World::set_clock(NodeId id, Nanos offset, double drift_ppm) {
  Slot& s = slot(id);
  fault(id, "clock");
  s.clock_offset = offset;
  s.drift_ppm = drift_ppm;
}

void World::network_fault(std::string description, const std::function<void(Network&)>& apply) {
  trace_.append(now_, TraceKind::kFault, -1, -1, Digest().add(description).value(),
                [&] { return description; });
  apply(network_);
  reset_cut_connections();
}

void World::reset_cut_connections() {
  for (auto it = cut_connections_.begin(); it != cut_connections_.end();) {
    const auto [a, b] = *it;
    if (!network_.connected(a, b) || !network_.connected(b, a)) {
      ++it;  // still cut: the connection cannot be re-established yet
      continue;
    }
    for (const auto& [node, peer] : {std::pair{a, b}, std::pair{b, a}}) {
      const Slot& s = slot(node);
      if (s.state != NodeState::kUp && s.state != NodeState::kPaused) continue;
      const Nanos hop = network_.options(peer, node).latency_min_ns;
      queue_.push(now_ + hop, DisconnectEvent{node, s.incarnation, peer, slot(peer).incarnation});
    }
    it = cut_connections_.erase(it);
  }
}

void World::schedule(Nanos at, std::string description, std::function<void()> action) {
  LOGSIM_ASSERT(at >= now_, "scheduling in the past: " + description);
  queue_.push(at, ActionEvent{std::move(description), std::move(action)});
}

// A timer's id names its event in the queue: the event's sequence number above its slot, so
// cancelling finds the event with no table of armed timers, and a node's ids grow in the order
// it armed them (as any count would).
namespace {
constexpr int kSlotBits = 24;
constexpr std::uint64_t kSlotMask = (std::uint64_t{1} << kSlotBits) - 1;
}  // namespace

TimerId World::arm_timer(Slot& s, Nanos local_delay, std::uint64_t tag) {
  LOGSIM_ASSERT(local_delay >= 0, "negative timer delay on " + s.name);
  // A clock running fast (drift > 0) reaches a local deadline sooner in true time.
  const double scale = 1.0 + s.drift_ppm / 1e6;
  const auto true_delay = static_cast<Nanos>(std::ceil(static_cast<double>(local_delay) / scale));
  const Queue::Handle h = queue_.next_handle();
  LOGSIM_ASSERT(h.slot <= kSlotMask && h.seq < (std::uint64_t{1} << (64 - kSlotBits)),
                "a timer id names at most 2^24 pending events and 2^40 pushed in a run");
  const TimerId id = (h.seq << kSlotBits) | h.slot;
  queue_.push(now_ + true_delay, TimerEvent{s.id, s.incarnation, id, tag});
  return id;
}

void World::disarm_timer(Slot& s, TimerId id) {
  if (!s.rehomed.empty()) {
    if (const std::optional<Queue::Handle> h = s.rehomed.take(id)) {
      queue_.cancel(*h);
      return;
    }
  }
  queue_.cancel(Queue::Handle{static_cast<std::uint32_t>(id & kSlotMask), id >> kSlotBits});
}

void World::send(Slot& from, NodeId to, Message msg) {
  LOGSIM_ASSERT(to.value() >= 0 && static_cast<std::size_t>(to.value()) < slots_.size(),
                "send to an unknown node from " + from.name);
  const Delivery plan = network_.plan(from.id, to, now_);
  if (plan.count == 0 && !network_.connected(from.id, to)) cut_connections_.emplace(from.id, to);
  // A request opens (or reuses) a connection to the destination's current process; an answer
  // goes back on the connection its request came in on, to the process that asked.
  // A request sent while the reset of the current connection is still on its way goes on that
  // connection and is lost with it (found by logsim: a broker restarted between losing a Fetch
  // and its reset arriving, the consumer's next request reached the new process, the reset was
  // then taken for an old connection's and dropped, and the Fetch waited out request.timeout.ms).
  const std::uint32_t* due = from.reset_due.find(to.value());
  const std::uint32_t* conn = from.connected_to.find(to.value());
  const bool broken = due != nullptr && conn != nullptr && *due == *conn;
  const std::uint32_t to_incarnation =
      from.answer_routes.route(to, msg).value_or(broken ? *conn : slot(to).incarnation);
  if (!broken) {
    from.connected_to[to.value()] = to_incarnation;
    from.reset_told.erase(to.value());  // a new send is a new connection attempt
  }
  for (int i = 0; i < plan.count; ++i) {
    Message copy = (i + 1 == plan.count) ? std::move(msg) : msg;
    queue_.push(plan.at[static_cast<std::size_t>(i)],
                DeliverEvent{from.id, from.incarnation, to, to_incarnation, std::move(copy)});
  }
}

RunEnd World::run_until(Nanos until) {
  LOGSIM_ASSERT(until >= now_, "run_until would move the clock back");
  while (!queue_.empty()) {
    if (queue_.next_time() > until) {
      now_ = until;
      return RunEnd::kTimeLimit;
    }
    if (events_run_ >= options_.max_events) return RunEnd::kEventLimit;
    auto ev = queue_.pop();
    now_ = ev->at;
    ++events_run_;
    const std::uint64_t position = trace_.size();  // the event's index, if it is traced
    try {
      dispatch(ev->at, ev->payload);
    } catch (const InvariantError& e) {
      throw InvariantError(std::string(e.what()) + "; " + where(position, ev->payload));
    }
  }
  now_ = until;  // nothing left to do: time still passes to the limit
  return RunEnd::kQuiescent;
}

void World::dispatch(Nanos at, Payload& payload) {
  if (auto* t = std::get_if<TimerEvent>(&payload)) {
    if (!hold_if_paused(slot(t->node), payload)) on_timer(*t);
  } else if (auto* d = std::get_if<DeliverEvent>(&payload)) {
    if (!hold_if_paused(slot(d->to), payload)) on_deliver(*d);
  } else if (auto* f = std::get_if<FsyncEvent>(&payload)) {
    // The device finishes the fsync on time whatever the process is doing; only telling the
    // process waits for a pause to end.
    if (f->complete) std::exchange(f->complete, nullptr)();
    if (!hold_if_paused(slot(f->node), payload)) on_fsync(*f);
  } else if (auto* x = std::get_if<DisconnectEvent>(&payload)) {
    if (!hold_if_paused(slot(x->node), payload)) on_disconnect(*x);
  } else if (auto* a = std::get_if<ActionEvent>(&payload)) {
    trace_.append(at, TraceKind::kAction, -1, -1, Digest().add(a->description).value(),
                  [&] { return a->description; });
    a->action();
  }
}

// Where a run broke, for an invariant failure: the simulated time, the trace position and the
// event being run, named by its node, e.g. "at t=0.012000000s, trace event #41, timer tag=3 on
// node broker-1". An event the trace skipped (stale, or for a dead process) is placed before the
// next trace entry.
std::string World::where(std::uint64_t position, const Payload& payload) const {
  char head[96];
  std::snprintf(head, sizeof head, "at t=%lld.%09llds, %strace event #%llu, ",
                static_cast<long long>(now_ / kNanosPerSecond), static_cast<long long>(now_ % kNanosPerSecond),
                trace_.size() > position ? "" : "before ", static_cast<unsigned long long>(position));
  std::string out = head;
  if (const auto* t = std::get_if<TimerEvent>(&payload)) {
    out += "timer tag=" + std::to_string(t->tag) + " on node " + name(t->node);
  } else if (const auto* d = std::get_if<DeliverEvent>(&payload)) {
    out += std::string(message_name(d->msg)) + " to node " + name(d->to) + " from node " + name(d->from);
  } else if (const auto* f = std::get_if<FsyncEvent>(&payload)) {
    out += "fsync token=" + std::to_string(f->token) + " on node " + name(f->node);
  } else if (const auto* x = std::get_if<DisconnectEvent>(&payload)) {
    out += "connection reset on node " + name(x->node) + " by node " + name(x->peer);
  } else if (const auto* a = std::get_if<ActionEvent>(&payload)) {
    out += "action \"" + a->description + "\"";
  }
  return out;
}

bool World::hold_if_paused(Slot& s, Payload& payload) {
  if (s.state != NodeState::kPaused) return false;
  LOGSIM_ASSERT(s.held.size() < options_.max_deferred_per_node, "too many events held for paused " + s.name);
  s.held.push_back(std::move(payload));
  return true;
}

void World::on_timer(TimerEvent& ev) {
  Slot& s = slot(ev.node);
  if (ev.incarnation != s.incarnation || s.state != NodeState::kUp) return;
  if (!s.rehomed.empty()) s.rehomed.erase(ev.id);  // pushed again after a pause: fired now
  trace_.append(now_, TraceKind::kTimer, ev.node.value(), -1, ev.tag,
                [&] { return "tag=" + std::to_string(ev.tag); });
  s.node->on_timer(ev.id, ev.tag);
}

void World::on_deliver(DeliverEvent& ev) {
  Slot& s = slot(ev.to);
  const bool reset = ev.to_incarnation != s.incarnation && s.incarnation != 0 && ev.to_incarnation != 0;
  const bool alive = s.state == NodeState::kUp && !reset;
  const bool linked = network_.connected(ev.from, ev.to);
  const TraceKind kind = alive && linked ? TraceKind::kDeliver : TraceKind::kDrop;
  trace_.append(now_, kind, ev.to.value(), ev.from.value(), message_digest(ev.msg),
                [&] { return std::string(message_name(ev.msg)); });
  if (kind == TraceKind::kDeliver) {
    s.answer_routes.arrived(ev.from, ev.from_incarnation, ev.msg);
    s.node->on_message(ev.from, ev.msg);
    return;
  }
  if (!linked) cut_connections_.emplace(ev.from, ev.to);  // reset when the cut heals
  // The destination's process is gone but its machine is up and reachable: its operating
  // system resets the connection, and the sender hears of it one network hop later.
  Slot& sender = slot(ev.from);
  const std::uint32_t* conn = sender.connected_to.find(ev.to.value());
  const bool current = conn != nullptr && *conn == ev.to_incarnation;
  const std::uint32_t* told = sender.reset_told.find(ev.to.value());
  const bool already = told != nullptr && *told == ev.to_incarnation;
  const bool way_back = network_.connected(ev.to, ev.from);
  if (linked && way_back && !alive && !s.powered_off && ev.from != ev.to && current && !already) {
    sender.reset_told[ev.to.value()] = ev.to_incarnation;
    sender.reset_due[ev.to.value()] = ev.to_incarnation;
    const Nanos hop = network_.options(ev.to, ev.from).latency_min_ns;
    queue_.push(now_ + hop, DisconnectEvent{ev.from, sender.incarnation, ev.to, ev.to_incarnation});
  }
}

void World::on_disconnect(DisconnectEvent& ev) {
  Slot& s = slot(ev.node);
  if (ev.incarnation != s.incarnation || s.state != NodeState::kUp) return;
  const std::uint32_t* due = s.reset_due.find(ev.peer.value());
  if (due != nullptr && *due == ev.peer_incarnation) s.reset_due.erase(ev.peer.value());
  const std::uint32_t* conn = s.connected_to.find(ev.peer.value());
  if (conn == nullptr || *conn != ev.peer_incarnation) return;  // reconnected since
  trace_.append(now_, TraceKind::kDisconnect, ev.node.value(), ev.peer.value(), 0, [] { return std::string("connection reset"); });
  s.node->on_disconnect(ev.peer);
}

void World::on_fsync(FsyncEvent& ev) {
  Slot& s = slot(ev.node);
  if (ev.complete) std::exchange(ev.complete, nullptr)();  // no-op after a crash or power loss
  if (ev.incarnation != s.incarnation || s.state != NodeState::kUp) return;
  trace_.append(now_, TraceKind::kFsync, ev.node.value(), -1, ev.token,
                [&] { return "token=" + std::to_string(ev.token); });
  s.node->on_fsync(ev.token);
}

}  // namespace logsim::sim

// The live world (see live_world.h).
#include "live/live_world.h"

#include <boost/asio/post.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/base/assert.h"
#include "engine/env/answer_routes.h"

namespace logsim::live {

namespace asio = boost::asio;

std::string_view node_state_name(NodeState s) {
  switch (s) {
    case NodeState::kDown: return "down";
    case NodeState::kUp: return "up";
    case NodeState::kCrashed: return "crashed";
    case NodeState::kPaused: return "paused";
    case NodeState::kRemoved: return "removed";
  }
  return "?";
}

// The Env one node sees, for all its incarnations.
class LiveWorld::SlotEnv final : public Env {
 public:
  SlotEnv(LiveWorld& world, Slot& slot) : world_(world), slot_(slot) {}
  NodeId self() const override;
  Nanos now() const override { return world_.local_now(slot_); }
  TimerId set_timer(Nanos delay, std::uint64_t tag) override { return world_.arm_timer(slot_, delay, tag); }
  void cancel_timer(TimerId id) override { world_.disarm_timer(slot_, id); }
  void send(NodeId to, Message msg) override { world_.send(slot_, to, std::move(msg)); }
  Disk& disk() override;
  Rng& rng() override;

 private:
  LiveWorld& world_;
  Slot& slot_;
};

struct LiveWorld::Slot {
  Slot(NodeId i, std::string n, NodeFactory f, std::unique_ptr<LiveDisk> d, Rng r)
      : id(i), name(std::move(n)), factory(std::move(f)), disk(std::move(d)), rng(r) {}
  NodeId id;
  std::string name;
  NodeFactory factory;
  std::unique_ptr<LiveDisk> disk;
  Rng rng;
  std::unique_ptr<SlotEnv> env;
  std::unique_ptr<Node> node;
  NodeState state = NodeState::kDown;
  std::uint32_t incarnation = 0;
  struct Timer {
    std::unique_ptr<asio::steady_timer> timer;
    Nanos deadline = 0;  // on the node's local clock
    std::uint64_t tag = 0;
  };
  std::map<TimerId, Timer> timers;
  Nanos clock_offset = 0;  // the local clock: clock_offset + true time * (1 + drift_ppm / 1e6)
  double drift_ppm = 0;
  std::deque<std::function<void(Node&)>> held;  // what reached it while paused, in arrival order
  bool endpoint = false;
  AnswerRoutes answer_routes;  // which incarnation of a requester each answer goes back to
};

NodeId LiveWorld::SlotEnv::self() const { return slot_.id; }
Disk& LiveWorld::SlotEnv::disk() { return *slot_.disk; }
Rng& LiveWorld::SlotEnv::rng() { return slot_.rng; }

LiveWorld::LiveWorld(asio::io_context& io, LiveOptions options)
    : io_(io), options_(options), epoch_(std::chrono::steady_clock::now()),
      network_rng_(Rng::for_stream(options.seed, "network")) {}

LiveWorld::~LiveWorld() {
  *alive_ = false;
  for (auto& s : slots_) {
    for (auto& [id, t] : s->timers) t.timer->cancel();
    s->timers.clear();
    s->node.reset();
  }
  for (auto& [ends, link] : links_) {
    if (link.timer) link.timer->cancel();
  }
}

Nanos LiveWorld::now() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - epoch_).count();
}

Nanos LiveWorld::local_now(const Slot& s) const {
  const Nanos t = now();
  if (s.drift_ppm == 0) return s.clock_offset + t;
  return s.clock_offset + t + static_cast<Nanos>(static_cast<double>(t) * s.drift_ppm / 1e6);
}

Nanos LiveWorld::local_now(NodeId id) const { return local_now(slot(id)); }

NodeId LiveWorld::add_node(std::string name, NodeFactory factory, std::unique_ptr<LiveDisk> disk, bool endpoint) {
  LOGSIM_ASSERT(disk != nullptr, "a live node needs a disk");
  const NodeId id(static_cast<std::int32_t>(slots_.size()));
  auto s = std::make_unique<Slot>(id, std::move(name), std::move(factory), std::move(disk),
                                  Rng::for_stream(options_.seed, "node/" + std::to_string(id.value())));
  s->env = std::make_unique<SlotEnv>(*this, *s);
  s->endpoint = endpoint;
  Slot& slot = *s;
  slot.disk->on_fsync_done([this, &slot](std::uint64_t token) {
    post_to(slot.id, slot.incarnation, [token](Node& n) { n.on_fsync(token); });
  });
  slots_.push_back(std::move(s));
  return id;
}

LiveWorld::Slot& LiveWorld::slot(NodeId id) {
  LOGSIM_ASSERT(id.value() >= 0 && static_cast<std::size_t>(id.value()) < slots_.size(), "no such live node");
  return *slots_[static_cast<std::size_t>(id.value())];
}

const LiveWorld::Slot& LiveWorld::slot(NodeId id) const {
  LOGSIM_ASSERT(id.value() >= 0 && static_cast<std::size_t>(id.value()) < slots_.size(), "no such live node");
  return *slots_[static_cast<std::size_t>(id.value())];
}

const std::string& LiveWorld::name(NodeId id) const { return slot(id).name; }
NodeState LiveWorld::state(NodeId id) const { return slot(id).state; }
std::uint32_t LiveWorld::incarnation(NodeId id) const { return slot(id).incarnation; }

std::optional<NodeId> LiveWorld::find(std::string_view name) const {
  for (const auto& s : slots_) {
    if (s->name == name) return s->id;
  }
  return std::nullopt;
}

Node* LiveWorld::node(NodeId id) {
  Slot& s = slot(id);
  return s.state == NodeState::kUp || s.state == NodeState::kPaused ? s.node.get() : nullptr;
}

void LiveWorld::fault(const Slot& s, std::string_view what) {
  if (on_fault && !s.endpoint) on_fault(std::string(what) + " " + s.name);
}

void LiveWorld::boot(Slot& s) {
  ++s.incarnation;
  s.state = NodeState::kUp;
  s.node = s.factory(*s.env);
  s.node->on_start();
  changed(s);
}

void LiveWorld::changed(const Slot& s) {
  if (on_state && !s.endpoint) on_state(s.id, s.state);
}

void LiveWorld::kill(Slot& s, bool tell_peers) {
  ++s.incarnation;  // everything addressed to the old incarnation is now stale
  for (auto& [id, t] : s.timers) t.timer->cancel();
  s.timers.clear();
  s.held.clear();
  s.node.reset();
  s.answer_routes.clear();
  if (!tell_peers) return;
  // Its operating system resets every connection: each running peer hears of it.
  for (auto& other : slots_) {
    if (other.get() == &s || (other->state != NodeState::kUp && other->state != NodeState::kPaused)) continue;
    post_to(other->id, other->incarnation, [peer = s.id](Node& n) { n.on_disconnect(peer); });
  }
}

void LiveWorld::start(NodeId id) {
  Slot& s = slot(id);
  LOGSIM_ASSERT(s.state == NodeState::kDown || s.state == NodeState::kCrashed, "start of a running live node " + s.name);
  fault(s, "start");
  boot(s);
}

void LiveWorld::restart(NodeId id) {
  Slot& s = slot(id);
  if (s.state == NodeState::kRemoved) return;
  if (s.state == NodeState::kUp || s.state == NodeState::kPaused) crash(id);
  fault(s, "restart");
  boot(s);
}

void LiveWorld::crash(NodeId id) {
  Slot& s = slot(id);
  if (s.state != NodeState::kUp && s.state != NodeState::kPaused) return;
  fault(s, "crash");
  kill(s, true);
  s.state = NodeState::kCrashed;
  changed(s);
}

void LiveWorld::power_loss(NodeId id) {
  Slot& s = slot(id);
  if (s.state == NodeState::kRemoved) return;
  fault(s, "power-loss");
  s.disk->power_loss();
  if (s.state == NodeState::kUp || s.state == NodeState::kPaused) {
    kill(s, false);
    s.state = NodeState::kCrashed;
    changed(s);
  }
}

void LiveWorld::stop(NodeId id) {
  Slot& s = slot(id);
  if (s.state != NodeState::kUp && s.state != NodeState::kPaused) return;
  fault(s, "stop");
  s.state = NodeState::kUp;
  s.node->on_stop();
  kill(s, true);
  s.state = NodeState::kDown;
  changed(s);
}

void LiveWorld::remove(NodeId id) {
  Slot& s = slot(id);
  if (s.state == NodeState::kRemoved) return;
  kill(s, false);
  s.state = NodeState::kRemoved;
  changed(s);
}

void LiveWorld::pause(NodeId id) {
  Slot& s = slot(id);
  if (s.state != NodeState::kUp) return;
  fault(s, "pause");
  s.state = NodeState::kPaused;
}

void LiveWorld::resume(NodeId id) {
  Slot& s = slot(id);
  if (s.state != NodeState::kPaused) return;
  fault(s, "resume");
  s.state = NodeState::kUp;
  const std::uint32_t incarnation = s.incarnation;
  std::deque<std::function<void(Node&)>> held = std::move(s.held);
  s.held.clear();
  for (auto& run : held) {
    if (s.incarnation != incarnation || s.state != NodeState::kUp) break;
    run(*s.node);
  }
}

void LiveWorld::cut(NodeId from, NodeId to) {
  cuts_.emplace(from.value(), to.value());
  if (on_fault) on_fault("cut " + name(from) + " -> " + name(to));
}

void LiveWorld::delay(NodeId from, NodeId to, Nanos d) {
  delays_[{from.value(), to.value()}] = d;
  if (on_fault) on_fault("delay " + name(from) + " -> " + name(to) + " " + std::to_string(to_millis(d)) + "ms");
}

void LiveWorld::clog(NodeId node, Nanos until) {
  Nanos& u = clogged_until_[node.value()];
  u = std::max(u, until);
  if (on_fault) on_fault("clog " + name(node) + " for " + std::to_string(to_millis(until - now())) + "ms");
}

void LiveWorld::heal() {
  cuts_.clear();
  delays_.clear();
  if (on_fault) on_fault("heal");
}

void LiveWorld::shape(std::optional<NodeId> node, const LinkShape& shape) {
  if (!node) {
    default_shape_ = shape;
  } else {
    for (const auto& other : slots_) {
      if (other->id == *node) continue;
      shapes_[{node->value(), other->id.value()}] = shape;
      shapes_[{other->id.value(), node->value()}] = shape;
    }
  }
  if (on_fault) {
    char what[160];
    std::snprintf(what, sizeof what, ": latency %gms + Exp(%gms), tail %g below %gms, loss %g, duplicate %g%s",
                  static_cast<double>(shape.latency_min) / 1e6, static_cast<double>(shape.latency_mean) / 1e6, shape.tail_probability,
                  static_cast<double>(shape.tail_max) / 1e6, shape.loss, shape.duplicate, shape.reorder ? ", reordered" : "");
    on_fault("set-network " + (node ? name(*node) : std::string("(every link between brokers)")) + what);
  }
}

void LiveWorld::set_clock(NodeId id, Nanos offset, double drift_ppm) {
  Slot& s = slot(id);
  s.clock_offset = offset;
  s.drift_ppm = drift_ppm;
  if (on_fault && !s.endpoint) {
    char what[96];
    std::snprintf(what, sizeof what, " offset %.3fs drift %gppm", static_cast<double>(offset) / 1e9, drift_ppm);
    on_fault("clock-skew " + s.name + what);
  }
  // Each pending timer fires when the new local clock reaches its deadline.
  for (auto& [timer_id, t] : s.timers) wait_timer(s, timer_id);
}

void LiveWorld::run_on(Slot& s, const std::function<void(Node&)>& run) {
  if (s.state == NodeState::kPaused) {
    s.held.push_back(run);
  } else if (s.state == NodeState::kUp) {
    run(*s.node);
  }
}

void LiveWorld::post_to(NodeId id, std::uint32_t incarnation, std::function<void(Node&)> run) {
  asio::post(io_, [this, alive = alive_, id, incarnation, run = std::move(run)] {
    if (!*alive) return;
    Slot& s = slot(id);
    if (s.incarnation == incarnation) run_on(s, run);
  });
}

void LiveWorld::send(Slot& from, NodeId to, Message msg) {
  if (to.value() < 0 || static_cast<std::size_t>(to.value()) >= slots_.size()) return;
  if (cuts_.contains({from.id.value(), to.value()})) return;
  Slot& dest = slot(to);
  if (dest.state != NodeState::kUp && dest.state != NodeState::kPaused) {
    // Nobody listens: the connection is refused. The sender hears of it (unless it is gone).
    if (dest.state != NodeState::kRemoved) post_to(from.id, from.incarnation, [to](Node& n) { n.on_disconnect(to); });
    return;
  }
  const LinkShape* shape = shape_of(from, dest);
  Nanos latency = 0;
  Nanos second = -1;  // the duplicate's latency, when there is one
  if (shape != nullptr) {
    // Whether it is lost or doubled, and its latency (drawn either way). A live run is not
    // reproducible from its seed in any case: these are the simulator's distributions only.
    const double lost = network_rng_.uniform_real();
    const double duplicated = network_rng_.uniform_real();
    latency = draw_latency(*shape);
    if (lost < shape->loss) return;
    if (duplicated < shape->duplicate) second = latency + draw_latency(*shape);
  }
  auto shared = std::make_shared<const Message>(std::move(msg));
  // An answer goes back on the connection its request came in on: to the incarnation that asked.
  const std::uint32_t to_inc = from.answer_routes.route(to, *shared).value_or(dest.incarnation);
  auto deliver = [this, alive = alive_, from_id = from.id, from_inc = from.incarnation, to, to_inc, shared] {
    if (!*alive) return;
    Slot& receiver = slot(to);
    // Never to a newer incarnation of the receiver. A sender that stopped or crashed since had
    // its bytes on the wire already (TCP delivers them before the FIN), as in sim::World: an
    // on_stop's last messages (a LeaveGroup, a commit) arrive; their answers find it gone.
    if (receiver.incarnation != to_inc) return;
    receiver.answer_routes.arrived(from_id, from_inc, *shared);
    run_on(receiver, [from_id, shared](Node& n) { n.on_message(from_id, *shared); });
  };
  // It leaves when neither end is clogged, then pays the link's delay and latency.
  Nanos base = now();
  for (const std::int32_t end : {from.id.value(), to.value()}) {
    if (const auto c = clogged_until_.find(end); c != clogged_until_.end()) base = std::max(base, c->second);
  }
  if (const auto d = delays_.find({from.id.value(), to.value()}); d != delays_.end()) base += d->second;
  Link& link = links_[{from.id.value(), to.value()}];
  if (second >= 0) deliver_at(base + second, deliver);
  if (shape != nullptr && shape->reorder) {
    link.last_due = std::max(link.last_due, base + latency);
    deliver_at(base + latency, std::move(deliver));
    return;
  }
  deliver_in_order(link, base + latency, std::move(deliver));
}

const LinkShape* LiveWorld::shape_of(const Slot& from, const Slot& to) const {
  if (from.endpoint || to.endpoint) return nullptr;
  if (const auto it = shapes_.find({from.id.value(), to.id.value()}); it != shapes_.end()) return &it->second;
  return default_shape_ ? &*default_shape_ : nullptr;
}

// sim::Network's draw: latency_min + Exp(latency_mean) [+ Uniform[0, tail_max)], the
// exponential by inversion (below 37 means).
Nanos LiveWorld::draw_latency(const LinkShape& shape) {
  const double u = network_rng_.uniform_real();
  const double tail = network_rng_.uniform_real();
  const double in_tail = network_rng_.uniform_real();
  Nanos d = shape.latency_min + static_cast<Nanos>(-static_cast<double>(shape.latency_mean) * std::log1p(-u));
  if (in_tail < shape.tail_probability) d += static_cast<Nanos>(tail * static_cast<double>(shape.tail_max));
  return d;
}

void LiveWorld::deliver_in_order(Link& link, Nanos due, std::function<void()> deliver) {
  due = std::max(due, link.last_due);
  link.last_due = due;
  if (link.waiting.empty() && due <= now()) {
    asio::post(io_, std::move(deliver));
    return;
  }
  link.waiting.emplace_back(due, std::move(deliver));
  if (link.waiting.size() == 1) release(link);
}

// Delivers the link's messages that are due, in order, and waits for the next.
void LiveWorld::release(Link& link) {
  while (!link.waiting.empty() && link.waiting.front().first <= now()) {
    std::function<void()> deliver = std::move(link.waiting.front().second);
    link.waiting.pop_front();
    asio::post(io_, std::move(deliver));
  }
  if (link.waiting.empty()) return;
  if (!link.timer) link.timer = std::make_unique<asio::steady_timer>(io_);
  link.timer->expires_after(std::chrono::nanoseconds(link.waiting.front().first - now()));
  link.timer->async_wait([this, alive = alive_, &link](const boost::system::error_code& ec) {
    if (*alive && !ec) release(link);
  });
}

void LiveWorld::deliver_at(Nanos due, std::function<void()> deliver) {
  const Nanos wait = due - now();
  if (wait <= 0) {
    asio::post(io_, std::move(deliver));
    return;
  }
  auto timer = std::make_shared<asio::steady_timer>(io_, std::chrono::nanoseconds(wait));
  timer->async_wait([timer, deliver = std::move(deliver)](const boost::system::error_code& ec) {
    if (!ec) deliver();
  });
}

TimerId LiveWorld::arm_timer(Slot& s, Nanos delay, std::uint64_t tag) {
  const TimerId id = ++next_timer_;
  s.timers.emplace(id, Slot::Timer{std::make_unique<asio::steady_timer>(io_), local_now(s) + std::max<Nanos>(delay, 0), tag});
  wait_timer(s, id);
  return id;
}

void LiveWorld::wait_timer(Slot& s, TimerId id) {
  Slot::Timer& t = s.timers.at(id);
  // The true time at which the local clock reads the deadline.
  const double rate = 1 + s.drift_ppm / 1e6;
  const Nanos at = static_cast<Nanos>(static_cast<double>(t.deadline - s.clock_offset) / rate);
  t.timer->expires_after(std::chrono::nanoseconds(std::max<Nanos>(at - now(), 0)));  // cancels an earlier wait
  t.timer->async_wait([this, alive = alive_, node = s.id, incarnation = s.incarnation, id, tag = t.tag](const boost::system::error_code& ec) {
    if (!*alive || ec) return;
    Slot& owner = slot(node);
    const auto it = owner.timers.find(id);
    if (it == owner.timers.end()) return;  // cancelled
    std::unique_ptr<asio::steady_timer> done = std::move(it->second.timer);
    owner.timers.erase(it);
    if (owner.incarnation != incarnation) return;
    run_on(owner, [id, tag](Node& n) { n.on_timer(id, tag); });
    asio::post(io_, [done = std::shared_ptr<asio::steady_timer>(std::move(done))] {});  // freed outside its own handler
  });
}

void LiveWorld::disarm_timer(Slot& s, TimerId id) {
  const auto it = s.timers.find(id);
  if (it == s.timers.end()) return;
  it->second.timer->cancel();
  s.timers.erase(it);
}

}  // namespace logsim::live

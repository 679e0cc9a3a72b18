// The simulated network's decision model. The model itself is stated in network.h.
#include "sim/network.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/base/assert.h"

namespace logsim::sim {
namespace {
// A broken precondition is a bug in the caller (a scenario or the simulator): LOGSIM_ASSERT
// stops the run and names it, instead of folding it into the network's behaviour.

bool is_probability(double p) { return p >= 0.0 && p <= 1.0; }  // false for NaN too

bool is_latency(Nanos ns) { return ns >= 0 && ns <= Network::kLatencyNsMax; }

void validate(const LinkOptions& o) {
  LOGSIM_ASSERT(is_latency(o.latency_min_ns), "0 <= latency_min_ns <= kLatencyNsMax");
  LOGSIM_ASSERT(is_latency(o.latency_mean_ns), "0 <= latency_mean_ns <= kLatencyNsMax");
  LOGSIM_ASSERT(is_latency(o.tail_latency_ns_max), "0 <= tail_latency_ns_max <= kLatencyNsMax");
  LOGSIM_ASSERT(is_probability(o.tail_probability), "tail_probability in [0, 1]");
  LOGSIM_ASSERT(is_probability(o.loss_probability), "loss_probability in [0, 1]");
  LOGSIM_ASSERT(is_probability(o.duplicate_probability), "duplicate_probability in [0, 1]");
}

}  // namespace

Network::Network(Rng rng, LinkOptions defaults) : rng_(rng), defaults_(defaults) {
  validate(defaults_);
}

void Network::set_default(LinkOptions options) {
  validate(options);
  defaults_ = options;
}

void Network::set_link(NodeId from, NodeId to, LinkOptions options) {
  validate(options);
  link(from, to).options = options;
}

void Network::clear_link(NodeId from, NodeId to) {
  if (find_link(from, to) != nullptr) link(from, to).options.reset();
}

const LinkOptions& Network::options(NodeId from, NodeId to) const {
  return options_of(find_link(from, to));
}

Delivery Network::plan(NodeId from, NodeId to, Nanos now) {
  LOGSIM_ASSERT(now >= 0, "now >= 0");
  // Drawn before any branch, so the stream advances the same whatever happens below.
  const Draws u = draw();
  ++stats_.sent;
  LinkState& l = link(from, to);
  if (from == to) return plan_loopback(l, now);
  if (!connected(from, to, &l)) {
    ++stats_.cut;
    return {};
  }
  const LinkOptions& o = options_of(&l);
  // u < p with u in [0, 1) never fires for p = 0 and always fires for p = 1.
  if (u.loss < o.loss_probability) {
    ++stats_.lost;
    return {};
  }
  const Nanos base = std::max(now, clog_end(from, to, l));
  Delivery out;
  out.count = 1;
  out.at[0] = base + latency(o, u.copy[0]);
  if (!o.reorder) out.at[0] = std::max(out.at[0], l.last_delivery);
  // Reordered times are folded in too, so switching reorder off orders after all of them.
  l.last_delivery = std::max(l.last_delivery, out.at[0]);
  if (u.duplicate < o.duplicate_probability) {
    // The duplicate does not move last_delivery: a later message may overtake it.
    out.at[1] = std::max(out.at[0], base + latency(o, u.copy[1]));
    out.count = 2;
    ++stats_.duplicated;
  }
  stats_.delivered += static_cast<std::uint64_t>(out.count);
  return out;
}

Delivery Network::plan_loopback(LinkState& link, Nanos now) {
  // The clamp keeps loopback in order even if latency_min_ns was lowered between sends.
  Delivery out;
  out.count = 1;
  out.at[0] = std::max(now + options_of(&link).latency_min_ns, link.last_delivery);
  link.last_delivery = out.at[0];
  ++stats_.delivered;
  return out;
}

Network::Draws Network::draw() {
  Draws d{};
  d.loss = rng_.uniform_real();
  d.duplicate = rng_.uniform_real();
  for (auto& copy : d.copy) {
    for (double& x : copy) x = rng_.uniform_real();
  }
  return d;
}

Nanos Network::latency(const LinkOptions& o, const std::array<double, 3>& u) const {
  // Exponential by inversion of one uniform: 1 - u is in (0, 1], so the log is finite and the
  // extra is below 37 * mean (u < 1 - 2^-53). Computed here rather than by Rng::exponential so
  // that a zero mean still spends its draw and the draw count stays fixed.
  const double queueing = static_cast<double>(o.latency_mean_ns) * -std::log1p(-u[0]);
  Nanos ns = o.latency_min_ns + static_cast<Nanos>(queueing);
  if (u[1] < o.tail_probability) {
    ns += static_cast<Nanos>(u[2] * static_cast<double>(o.tail_latency_ns_max));
  }
  return ns;
}

Nanos Network::clog_end(NodeId from, NodeId to, const LinkState& link) const {
  Nanos end = link.clog_until;
  if (const NodeState* n = find_node(from)) end = std::max(end, n->clog_until);
  if (const NodeState* n = find_node(to)) end = std::max(end, n->clog_until);
  return end;
}

bool Network::connected(NodeId from, NodeId to) const {
  return connected(from, to, find_link(from, to));
}

bool Network::connected(NodeId from, NodeId to, const LinkState* link) const {
  if (from == to) return true;  // loopback never leaves the host
  if (link != nullptr && link->cut) return false;
  const NodeState* a = find_node(from);
  const NodeState* b = find_node(to);
  return !(a != nullptr && a->isolated) && !(b != nullptr && b->isolated);
}

void Network::partition(const std::vector<std::vector<NodeId>>& groups) {
  std::map<NodeId, std::size_t> group_of;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (const NodeId n : groups[g]) {
      const bool first_mention = group_of.emplace(n, g).second;
      LOGSIM_ASSERT(first_mention, "partition names each node at most once");
    }
  }
  // All ordered pairs, so each cut between groups is made in both directions.
  for (const auto& [a, group_a] : group_of) {
    for (const auto& [b, group_b] : group_of) {
      if (group_a != group_b) link(a, b).cut = true;
    }
  }
}

void Network::cut_one_way(NodeId from, NodeId to) {
  LOGSIM_ASSERT(from != to, "cut_one_way between two different nodes");
  link(from, to).cut = true;
}

void Network::isolate(NodeId id) { node(id).isolated = true; }

void Network::heal() {
  for (auto& row : links_) {
    for (LinkState& l : row) l.cut = false;
  }
  for (NodeState& n : nodes_) n.isolated = false;
}

void Network::heal_node(NodeId id) {
  if (find_node(id) != nullptr) node(id).isolated = false;
  // A scan of every link: healing is rare next to plan().
  for (std::size_t from = 0; from < links_.size(); ++from) {
    for (std::size_t to = 0; to < links_[from].size(); ++to) {
      if (static_cast<std::size_t>(id.value()) == from || static_cast<std::size_t>(id.value()) == to) links_[from][to].cut = false;
    }
  }
}

void Network::heal_link(NodeId from, NodeId to) {
  if (find_link(from, to) != nullptr) link(from, to).cut = false;
}

void Network::clog_node(NodeId id, Nanos until) {
  LOGSIM_ASSERT(until >= 0, "clog until >= 0");
  node(id).clog_until = until;
}

void Network::clog_link(NodeId from, NodeId to, Nanos until) {
  LOGSIM_ASSERT(until >= 0, "clog until >= 0");
  link(from, to).clog_until = until;
}

const LinkOptions& Network::options_of(const LinkState* link) const {
  return link != nullptr && link->options ? *link->options : defaults_;
}

const Network::LinkState* Network::find_link(NodeId from, NodeId to) const {
  const auto f = static_cast<std::size_t>(from.value());
  const auto t = static_cast<std::size_t>(to.value());
  if (from.value() < 0 || to.value() < 0 || f >= links_.size() || t >= links_[f].size()) return nullptr;
  return &links_[f][t];
}

const Network::NodeState* Network::find_node(NodeId id) const {
  const auto i = static_cast<std::size_t>(id.value());
  return id.value() < 0 || i >= nodes_.size() ? nullptr : &nodes_[i];
}

Network::LinkState& Network::link(NodeId from, NodeId to) {
  LOGSIM_ASSERT(from.value() >= 0 && to.value() >= 0, "a link between nodes with ids >= 0");
  const auto f = static_cast<std::size_t>(from.value());
  const auto t = static_cast<std::size_t>(to.value());
  if (f >= links_.size()) links_.resize(f + 1);
  if (t >= links_[f].size()) links_[f].resize(t + 1);
  return links_[f][t];
}

Network::NodeState& Network::node(NodeId id) {
  LOGSIM_ASSERT(id.value() >= 0, "a node id >= 0");
  const auto i = static_cast<std::size_t>(id.value());
  if (i >= nodes_.size()) nodes_.resize(i + 1);
  return nodes_[i];
}

}  // namespace logsim::sim

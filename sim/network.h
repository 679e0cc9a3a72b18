// The simulated network's decision model: for each message, when (if ever) its copies arrive.
//
// Network holds no messages and schedules nothing. The simulator asks plan() once per send and
// queues the copies it is told to; at each copy's delivery time it asks connected() again and
// drops the copy if the link was cut meanwhile. (After TigerBeetle's packet_simulator.zig.)
//
// NETWORK MODEL
//
// Links are directed: A->B and B->A have separate options, cuts, clogs and order.
//
// Latency. A copy sent at `now` arrives at
//     base + latency_min_ns + Exp(latency_mean_ns) [+ Uniform[0, tail_latency_ns_max)]
// where base = max(now, clog end) and the bracketed long tail is added with probability
// tail_probability. Exp(m) is drawn by inversion from one uniform, so it is below 37 * m.
// Latency options are bounded by kLatencyNsMax, so no sum here can overflow.
//
// Order. By default a link is one TCP connection: messages arrive in the order sent, because a
// message's delivery time is max(its drawn time, the latest delivery time planned so far on
// that link). Equal times are fine: the simulator breaks ties by insertion (FIFO). With
// LinkOptions::reorder (the jitter fault) drawn times are used as they are, so later messages
// can overtake earlier ones. Either way every planned time is folded into the link's latest
// time, so turning reorder off later restores order after everything already sent.
//
// Faults, and what each one does to a message:
//   loss       dropped at send with loss_probability (both copies, if it was to be duplicated).
//   duplicate  with duplicate_probability a second copy is planned. It draws its own latency
//              from the same base and never arrives before the first copy, but it does not
//              advance the link's order: a later message may arrive before it, which is the
//              stray retransmit that idempotence must survive.
//   cut        a cut link drops at send (counted as `cut`, not `lost`), and a copy in flight is
//              dropped at delivery if connected() is then false, like a TCP connection reset.
//              Faults compose: a link is cut if any fault cut it.
//              partition(groups) cuts both ways every link between two nodes named in different
//              groups; links within a group, and every link of a node named in no group, are
//              left alone (name "the rest" as a group to cut it off too). cut_one_way() cuts one
//              directed link. isolate(node) cuts the node off from every other node, both ways,
//              including nodes the Network has never heard of.
//   heal       heal() lifts every cut and isolation; heal_node() lifts a node's isolation and
//              every cut to or from it; heal_link() lifts one directed cut but not an
//              isolation (heal_node does that). Healing never revives a copy already dropped.
//   clog       clog_node(n, until) and clog_link(a, b, until) hold messages sent before `until`
//              on the affected links: none is lost, each departs at `until` and then pays its
//              latency. A later clog call on the same node or link replaces its end, so
//              clog_link(a, b, now) unclogs. Clogs are timed and heal() leaves them alone.
//
// Loopback. A message from a node to itself never leaves the host: it arrives exactly once,
// latency_min_ns (of the (n, n) link's options) after `now`, in order, and no fault touches it;
// connected(n, n) is always true.
//
// Randomness. Every plan() call draws exactly kDrawsPerPlan uniforms from the Network's own Rng,
// whatever the link, its options, the faults or the outcome. So injecting a fault or changing
// one link's options never shifts the random choices made for other messages: the stream's
// position depends only on how many messages were planned.
//
// Broken preconditions (options out of range, a node in two partition groups) are caller bugs:
// LOGSIM_ASSERT throws InvariantError before any state changes.
//
// Not thread-safe: one Network belongs to one simulation thread.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "engine/env/rng.h"
#include "engine/base/types.h"

namespace logsim::sim {

// The behaviour of one directed link. Defaults model a fast, healthy data-centre network.
struct LinkOptions {
  // Fixed part of every copy's latency (propagation), ns. >= 0. Default 50 us.
  Nanos latency_min_ns = 50 * kNanosPerMicro;
  // Mean of the exponential extra delay above latency_min_ns (queuing), ns. >= 0. Default 200 us.
  Nanos latency_mean_ns = 200 * kNanosPerMicro;
  // Probability that a copy also gets the long-tail delay below. In [0, 1]. Default 0.001.
  double tail_probability = 0.001;
  // Upper bound of the long-tail delay, drawn uniformly from [0, this), ns. >= 0. Default 20 ms.
  Nanos tail_latency_ns_max = millis(20);
  // Probability that a message is dropped at send. In [0, 1]. Default 0.
  double loss_probability = 0.0;
  // Probability that a (not lost) message arrives twice. In [0, 1]. Default 0.
  double duplicate_probability = 0.0;
  // True: delivery times are independent, so messages can overtake each other (jitter fault).
  // False: the link delivers in send order, like one TCP connection. Default false.
  bool reorder = false;
};

// The answer for one send: `count` copies (0, 1 or 2) arriving at at[0..count).
struct Delivery {
  int count = 0;
  std::array<Nanos, 2> at{};  // unused entries are 0
  bool operator==(const Delivery&) const = default;
};

// What plan() decided, summed over all calls. In-flight drops are the simulator's to count.
struct NetworkStats {
  std::uint64_t sent = 0;        // plan() calls
  std::uint64_t delivered = 0;   // copies planned to arrive (duplicates count twice)
  std::uint64_t lost = 0;        // messages dropped by loss_probability
  std::uint64_t duplicated = 0;  // messages planned with a second copy
  std::uint64_t cut = 0;         // messages dropped at send because the link was cut
};

class Network {
 public:
  // Uniform draws spent by every plan() call (see "Randomness" above).
  static constexpr int kDrawsPerPlan = 8;
  // Upper bound of each latency option: a larger one is a scenario bug, not a slow network.
  static constexpr Nanos kLatencyNsMax = seconds(3600);

  Network(Rng rng, LinkOptions defaults);

  // Options of every link without its own; links set with set_link keep theirs.
  void set_default(LinkOptions options);
  // Options of the directed link from -> to, replacing the default for it.
  void set_link(NodeId from, NodeId to, LinkOptions options);
  // The directed link from -> to goes back to the default options.
  void clear_link(NodeId from, NodeId to);
  const LinkOptions& options(NodeId from, NodeId to) const;

  // When the copies of a message sent at `now` from -> to arrive (see NETWORK MODEL).
  Delivery plan(NodeId from, NodeId to, Nanos now);
  // False while from -> to is cut. Asked at send and again at each copy's delivery.
  bool connected(NodeId from, NodeId to) const;

  // Each group is a set of nodes; a node may be named in at most one group.
  void partition(const std::vector<std::vector<NodeId>>& groups);
  void cut_one_way(NodeId from, NodeId to);
  void isolate(NodeId node);
  void heal();
  void heal_node(NodeId node);
  void heal_link(NodeId from, NodeId to);

  // Messages sent before `until` on links from or to `node` depart at `until`.
  void clog_node(NodeId node, Nanos until);
  // Messages sent before `until` on the directed link from -> to depart at `until`.
  void clog_link(NodeId from, NodeId to, Nanos until);

  const NetworkStats& stats() const { return stats_; }

 private:
  // Everything known about one directed link. Entries are made on first use and never erased;
  // a link never touched reads as a default entry.
  struct LinkState {
    std::optional<LinkOptions> options;  // nullopt: the default
    bool cut = false;
    Nanos clog_until = 0;
    Nanos last_delivery = 0;  // latest time planned on this link, for in-order delivery
  };
  struct NodeState {
    bool isolated = false;
    Nanos clog_until = 0;
  };
  // The uniforms of one plan() call, all drawn up front.
  struct Draws {
    double loss, duplicate;
    std::array<std::array<double, 3>, 2> copy;  // per copy: exponential, tail coin, tail size
  };

  Draws draw();
  Nanos latency(const LinkOptions& options, const std::array<double, 3>& u) const;
  Nanos clog_end(NodeId from, NodeId to, const LinkState& link) const;
  bool connected(NodeId from, NodeId to, const LinkState* link) const;
  const LinkOptions& options_of(const LinkState* link) const;
  Delivery plan_loopback(LinkState& link, Nanos now);
  const LinkState* find_link(NodeId from, NodeId to) const;
  const NodeState* find_node(NodeId node) const;
  LinkState& link(NodeId from, NodeId to);  // made if absent
  NodeState& node(NodeId id);               // made if absent

  Rng rng_;
  LinkOptions defaults_;
  // Node ids are small and dense: links_[from][to] and nodes_[id], grown on first write, so
  // plan() finds its link and nodes by indexing.
  std::vector<std::vector<LinkState>> links_;
  std::vector<NodeState> nodes_;
  NetworkStats stats_;
};

}  // namespace logsim::sim

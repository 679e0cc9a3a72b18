// Tests of the network decision model: latency, order, loss, duplication, cuts, clogs, and
// that its randomness is a function of the seed and the number of plan() calls only.
#include "sim/network.h"

#include <gtest/gtest.h>

#include "engine/base/assert.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace logsim::sim {
namespace {

const NodeId kA{1};
const NodeId kB{2};
const NodeId kC{3};
const NodeId kD{4};
const NodeId kE{5};

constexpr Nanos kMicro = kNanosPerMicro;

// Healthy links without the long tail, so latency bounds are tight.
LinkOptions no_tail() {
  LinkOptions o;
  o.tail_probability = 0.0;
  return o;
}

Network make(std::uint64_t seed, LinkOptions o = no_tail()) { return Network(Rng(seed), o); }

// The upper bound of one copy's latency stated in network.h: Exp(m) < 37 * m.
Nanos latency_bound(const LinkOptions& o) {
  return o.latency_min_ns + 37 * o.latency_mean_ns + o.tail_latency_ns_max;
}

TEST(Network, LatencyWithinBoundsAndMeanAsConfigured) {
  const LinkOptions o = no_tail();
  Network net = make(1, o);
  const int n = 20000;
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    const Nanos now = seconds(i);  // far apart, so in-order delivery never clamps
    const Delivery d = net.plan(kA, kB, now);
    ASSERT_EQ(d.count, 1);
    const Nanos lat = d.at[0] - now;
    ASSERT_GE(lat, o.latency_min_ns);
    ASSERT_LT(lat, o.latency_min_ns + 37 * o.latency_mean_ns);
    sum += static_cast<double>(lat);
  }
  const double expected = static_cast<double>(o.latency_min_ns + o.latency_mean_ns);
  EXPECT_NEAR(sum / n, expected, 0.03 * expected);
}

TEST(Network, LongTailAddsUniformDelayWithItsProbability) {
  LinkOptions o;
  o.latency_mean_ns = 0;
  o.tail_probability = 0.1;
  o.tail_latency_ns_max = millis(20);
  Network net = make(2, o);
  const int n = 20000;
  int tailed = 0;
  double tail_sum = 0;
  for (int i = 0; i < n; ++i) {
    const Nanos now = seconds(i);
    const Nanos extra = net.plan(kA, kB, now).at[0] - now - o.latency_min_ns;
    ASSERT_GE(extra, 0);
    ASSERT_LT(extra, o.tail_latency_ns_max);
    if (extra > 0) {
      ++tailed;
      tail_sum += static_cast<double>(extra);
    }
  }
  EXPECT_NEAR(static_cast<double>(tailed) / n, 0.1, 0.01);
  EXPECT_NEAR(tail_sum / tailed, static_cast<double>(millis(10)), 0.05 * millis(10));
}

TEST(Network, LinkDeliversInSendOrderByDefault) {
  Network net = make(3);
  Nanos last = 0;
  for (int i = 0; i < 10000; ++i) {
    const Delivery d = net.plan(kA, kB, i * 10 * kMicro);  // sends far closer than the jitter
    ASSERT_EQ(d.count, 1);
    ASSERT_GE(d.at[0], last) << "message " << i << " overtook an earlier one";
    last = d.at[0];
  }
}

TEST(Network, ReorderLetsLaterMessagesOvertake) {
  LinkOptions o = no_tail();
  o.reorder = true;
  Network net = make(3, o);  // same seed and sends as the in-order test above
  Nanos last = 0;
  int overtaken = 0;
  for (int i = 0; i < 10000; ++i) {
    const Delivery d = net.plan(kA, kB, i * 10 * kMicro);
    if (d.at[0] < last) ++overtaken;
    last = std::max(last, d.at[0]);
  }
  EXPECT_GT(overtaken, 100);
}

TEST(Network, LossDropsAboutItsProbability) {
  LinkOptions o = no_tail();
  o.loss_probability = 0.3;
  Network net = make(4, o);
  const int n = 100000;
  int dropped = 0;
  for (int i = 0; i < n; ++i) dropped += net.plan(kA, kB, i).count == 0 ? 1 : 0;
  EXPECT_NEAR(static_cast<double>(dropped) / n, 0.3, 0.01);
  EXPECT_EQ(net.stats().lost, static_cast<std::uint64_t>(dropped));
  EXPECT_EQ(net.stats().sent, static_cast<std::uint64_t>(n));
  EXPECT_EQ(net.stats().delivered, static_cast<std::uint64_t>(n - dropped));
  EXPECT_EQ(net.stats().cut, 0u);
}

TEST(Network, DuplicateYieldsTwoCopiesAboutItsProbability) {
  LinkOptions o = no_tail();
  o.duplicate_probability = 0.2;
  Network net = make(5, o);
  const int n = 100000;
  int twice = 0;
  for (int i = 0; i < n; ++i) {
    const Delivery d = net.plan(kA, kB, seconds(i));
    ASSERT_GE(d.count, 1);
    if (d.count == 2) {
      ++twice;
      ASSERT_GE(d.at[1], d.at[0]) << "a duplicate never arrives before the original";
    }
  }
  EXPECT_NEAR(static_cast<double>(twice) / n, 0.2, 0.01);
  EXPECT_EQ(net.stats().duplicated, static_cast<std::uint64_t>(twice));
  EXPECT_EQ(net.stats().delivered, static_cast<std::uint64_t>(n + twice));
}

TEST(Network, DuplicatesKeepOriginalsInOrderButMayTrailLaterMessages) {
  LinkOptions o = no_tail();
  o.duplicate_probability = 1.0;
  Network net = make(6, o);
  Delivery prev = net.plan(kA, kB, 0);
  int trailing = 0;
  for (int i = 1; i < 5000; ++i) {
    const Delivery d = net.plan(kA, kB, i * 10 * kMicro);
    ASSERT_EQ(d.count, 2);
    ASSERT_GE(d.at[0], prev.at[0]) << "originals stay in send order";
    if (prev.at[1] > d.at[0]) ++trailing;
    prev = d;
  }
  EXPECT_GT(trailing, 0) << "duplicates must not hold up the link's later messages";
}

TEST(Network, SymmetricPartitionCutsBetweenGroupsOnly) {
  Network net = make(7);
  net.partition({{kA, kB}, {kC, kD}});
  EXPECT_FALSE(net.connected(kA, kC));
  EXPECT_FALSE(net.connected(kC, kA));
  EXPECT_FALSE(net.connected(kB, kD));
  EXPECT_FALSE(net.connected(kD, kB));
  EXPECT_TRUE(net.connected(kA, kB));
  EXPECT_TRUE(net.connected(kB, kA));
  EXPECT_TRUE(net.connected(kC, kD));
  // A node named in no group keeps every link.
  EXPECT_TRUE(net.connected(kE, kA));
  EXPECT_TRUE(net.connected(kC, kE));
  EXPECT_EQ(net.plan(kA, kC, 0).count, 0);
  EXPECT_EQ(net.plan(kD, kA, 0).count, 0);
  EXPECT_EQ(net.plan(kA, kB, 0).count, 1);
  EXPECT_EQ(net.plan(kE, kD, 0).count, 1);
  EXPECT_EQ(net.stats().cut, 2u);
  EXPECT_EQ(net.stats().lost, 0u);
}

TEST(Network, OneWayCutIsDirected) {
  Network net = make(8);
  net.cut_one_way(kA, kB);
  EXPECT_FALSE(net.connected(kA, kB));
  EXPECT_TRUE(net.connected(kB, kA));
  EXPECT_EQ(net.plan(kA, kB, 0).count, 0);
  EXPECT_EQ(net.plan(kB, kA, 0).count, 1);
}

TEST(Network, IsolateCutsANodeBothWaysFromEveryone) {
  Network net = make(9);
  net.isolate(kA);
  for (const NodeId other : {kB, kC, NodeId{99}}) {
    EXPECT_FALSE(net.connected(kA, other));
    EXPECT_FALSE(net.connected(other, kA));
  }
  EXPECT_TRUE(net.connected(kB, kC));
  EXPECT_TRUE(net.connected(kA, kA));
  net.heal_link(kA, kB);
  EXPECT_FALSE(net.connected(kA, kB)) << "heal_link does not lift an isolation";
  net.heal_node(kA);
  EXPECT_TRUE(net.connected(kA, kB));
  EXPECT_TRUE(net.connected(kC, kA));
}

TEST(Network, HealRestoresEveryCut) {
  Network net = make(10);
  net.partition({{kA}, {kB, kC}});
  net.cut_one_way(kD, kE);
  net.isolate(kE);
  net.heal_link(kB, kA);
  EXPECT_TRUE(net.connected(kB, kA)) << "heal_link lifts one direction";
  EXPECT_FALSE(net.connected(kA, kB)) << "and only that one";
  net.heal();
  for (const NodeId a : {kA, kB, kC, kD, kE}) {
    for (const NodeId b : {kA, kB, kC, kD, kE}) {
      EXPECT_TRUE(net.connected(a, b)) << a << "->" << b;
      EXPECT_EQ(net.plan(a, b, 0).count, 1);
    }
  }
}

TEST(Network, HealNodeLiftsCutsToAndFromItOnly) {
  Network net = make(11);
  net.partition({{kA}, {kB}, {kC}});
  net.heal_node(kA);
  EXPECT_TRUE(net.connected(kA, kB));
  EXPECT_TRUE(net.connected(kC, kA));
  EXPECT_FALSE(net.connected(kB, kC));
}

TEST(Network, ClogHoldsMessagesUntilItEndsWithoutDropping) {
  const LinkOptions o = no_tail();
  Network net = make(12, o);
  const Nanos until = seconds(1);
  net.clog_link(kA, kB, until);
  for (int i = 0; i < 100; ++i) {
    const Delivery d = net.plan(kA, kB, millis(i));
    ASSERT_EQ(d.count, 1) << "a clog delays, it never drops";
    ASSERT_GE(d.at[0], until + o.latency_min_ns);
    ASSERT_LT(d.at[0], until + latency_bound(o));
    // Other links, the reverse direction included, are not clogged.
    EXPECT_LT(net.plan(kA, kC, millis(i)).at[0], millis(i) + latency_bound(o));
    EXPECT_LT(net.plan(kB, kA, millis(i)).at[0], millis(i) + latency_bound(o));
  }
  EXPECT_EQ(net.stats().lost + net.stats().cut, 0u);
  // After the clog ends the link is fast again.
  EXPECT_LT(net.plan(kA, kB, seconds(2)).at[0], seconds(2) + latency_bound(o));
}

TEST(Network, ClogNodeHoldsEveryLinkOfThatNode) {
  const LinkOptions o = no_tail();
  Network net = make(13, o);
  net.clog_node(kC, seconds(1));
  EXPECT_GE(net.plan(kC, kA, 0).at[0], seconds(1));
  EXPECT_GE(net.plan(kB, kC, 0).at[0], seconds(1));
  EXPECT_LT(net.plan(kA, kB, 0).at[0], latency_bound(o));
  net.clog_node(kC, millis(1));  // a later clog replaces the end
  EXPECT_LT(net.plan(kD, kC, millis(1)).at[0], millis(1) + latency_bound(o));
}

TEST(Network, CutAfterSendShowsAtDeliveryTime) {
  Network net = make(14);
  const Delivery d = net.plan(kA, kB, 0);
  ASSERT_EQ(d.count, 1);
  net.partition({{kA}, {kB}});
  EXPECT_FALSE(net.connected(kA, kB)) << "the simulator drops the copy in flight";
  net.heal();
  EXPECT_TRUE(net.connected(kA, kB));
}

TEST(Network, LoopbackIgnoresFaultsAndTakesMinimumLatency) {
  LinkOptions o;
  o.loss_probability = 1.0;
  o.tail_probability = 1.0;
  Network net = make(15, o);
  net.isolate(kA);
  net.clog_node(kA, seconds(5));
  const Delivery d = net.plan(kA, kA, millis(3));
  ASSERT_EQ(d.count, 1);
  EXPECT_EQ(d.at[0], millis(3) + o.latency_min_ns);
  EXPECT_EQ(net.plan(kB, kC, 0).count, 0) << "while other links lose everything";
}

TEST(Network, SetLinkIsDirectedAndClearLinkRestoresDefault) {
  Network net = make(16);
  LinkOptions lossy = no_tail();
  lossy.loss_probability = 1.0;
  net.set_link(kA, kB, lossy);
  EXPECT_EQ(net.plan(kA, kB, 0).count, 0);
  EXPECT_EQ(net.plan(kB, kA, 0).count, 1);
  net.set_default(lossy);
  EXPECT_EQ(net.plan(kB, kA, 0).count, 0);
  net.set_default(no_tail());
  net.clear_link(kA, kB);
  EXPECT_EQ(net.plan(kA, kB, 0).count, 1);
  EXPECT_EQ(net.options(kA, kB).loss_probability, 0.0);
}

// A fixed script of sends and faults, played on one Network.
std::vector<Delivery> script(Network& net) {
  LinkOptions jittery;
  jittery.reorder = true;
  jittery.loss_probability = 0.1;
  jittery.duplicate_probability = 0.1;
  net.set_link(kB, kC, jittery);
  std::vector<Delivery> out;
  for (int i = 0; i < 2000; ++i) {
    if (i == 500) net.partition({{kA}, {kB, kC}});
    if (i == 900) net.clog_link(kC, kB, millis(3));
    if (i == 1200) net.heal();
    out.push_back(net.plan(NodeId{1 + i % 3}, NodeId{1 + (i / 3) % 3}, i * kMicro));
  }
  return out;
}

TEST(Network, SameSeedSamePlansDifferentSeedDifferentPlans) {
  Network first = make(17);
  Network second = make(17);
  Network other = make(18);
  const std::vector<Delivery> a = script(first);
  EXPECT_EQ(a, script(second));
  EXPECT_NE(a, script(other));
}

TEST(Network, FaultsElsewhereDoNotShiftTheRandomStream) {
  Network calm = make(19);
  Network faulty = make(19);
  faulty.partition({{kC}, {kD}});
  LinkOptions lossy;
  lossy.loss_probability = 0.5;
  lossy.duplicate_probability = 0.5;
  faulty.set_link(kD, kC, lossy);
  for (int i = 0; i < 1000; ++i) {
    // C<->D differs between the two networks; A->B must not notice.
    calm.plan(kC, kD, i);
    faulty.plan(kC, kD, i);
    calm.plan(kD, kC, i);
    faulty.plan(kD, kC, i);
    ASSERT_EQ(calm.plan(kA, kB, i), faulty.plan(kA, kB, i)) << "at send " << i;
  }
}

TEST(Network, RejectsBrokenPreconditions) {
  LinkOptions bad;
  bad.loss_probability = 1.5;
  EXPECT_THROW(Network(Rng(1), bad), InvariantError);
  Network net = make(20);
  bad = LinkOptions{};
  bad.latency_mean_ns = -1;
  EXPECT_THROW(net.set_link(kA, kB, bad), InvariantError);
  EXPECT_THROW(net.partition({{kA, kB}, {kB}}), InvariantError);
  EXPECT_THROW(net.cut_one_way(kA, kA), InvariantError);
}

}  // namespace
}  // namespace logsim::sim

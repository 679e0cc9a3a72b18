// Tests of the trace and its hash: the same seed gives the same entries and hash, recording
// does not change it, and different seeds diverge at a named place.
#include "sim/world.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/tests/world_fixtures.h"

namespace logsim::sim {
namespace {

using namespace world_fixtures;  // NOLINT(google-build-using-namespace)

// ---------------------------------------------------------------------------------------------
// The trace and its hash.

// Three nodes pinging round a ring over links with random latency, with a crash, a restart and
// a partition on the way, so the trace holds every kind of entry.
struct Ring {
  Probe probe;
  std::unique_ptr<World> world;
};

std::unique_ptr<Ring> run_ring(std::uint64_t seed, bool record) {
  auto ring = std::make_unique<Ring>();
  WorldOptions o;
  o.record_trace = record;
  o.network.tail_probability = 0.05;
  ring->world = std::make_unique<World>(seed, o);
  World& w = *ring->world;
  ring->probe.world = &w;
  const std::vector<NodeId> ids{NodeId(0), NodeId(1), NodeId(2)};
  for (std::size_t i = 0; i < ids.size(); ++i) {
    w.add_node("n" + std::to_string(i), factory<Pinger>(ring->probe, ids[(i + 1) % ids.size()], kMs));
    w.start(ids[i]);
  }
  w.schedule(20 * kMs, "crash n1", [&w] { w.crash(NodeId(1)); });
  w.schedule(30 * kMs, "restart n1", [&w] { w.restart(NodeId(1)); });
  w.schedule(40 * kMs, "cut n2", [&w] { w.network_fault("isolate n2", [](Network& n) { n.isolate(NodeId(2)); }); });
  w.schedule(50 * kMs, "heal", [&w] { w.network_fault("heal", [](Network& n) { n.heal(); }); });
  w.run_until(100 * kMs);
  return ring;
}

bool same_entry(const TraceEntry& x, const TraceEntry& y) {
  return x.index == y.index && x.at == y.at && x.kind == y.kind && x.node == y.node && x.peer == y.peer &&
         x.detail == y.detail && x.text == y.text;
}

TEST(WorldTrace, SameSeedSameHashAndEntries) {
  const auto one = run_ring(7, true);
  const auto two = run_ring(7, true);
  const Trace& x = one->world->trace();
  const Trace& y = two->world->trace();
  EXPECT_EQ(x.hash(), y.hash());
  ASSERT_EQ(x.size(), y.size());
  ASSERT_EQ(x.entries().size(), y.entries().size());
  for (std::size_t i = 0; i < x.entries().size(); ++i) {
    ASSERT_TRUE(same_entry(x.entries()[i], y.entries()[i])) << format_entry(x.entries()[i]) << "\n vs "
                                                             << format_entry(y.entries()[i]);
  }
  EXPECT_EQ(first_divergence(x, y), std::nullopt);
  // Every kind of entry was exercised.
  for (const TraceKind k : {TraceKind::kDeliver, TraceKind::kDrop, TraceKind::kTimer, TraceKind::kDisconnect,
                            TraceKind::kFault, TraceKind::kAction}) {
    EXPECT_GT(count_kind(x, k), 0u) << trace_kind_name(k);
  }
}

TEST(WorldTrace, RecordedEntriesMatchSizeInOrder) {
  const auto ring = run_ring(7, true);
  const Trace& t = ring->world->trace();
  ASSERT_GT(t.size(), 300u);
  ASSERT_EQ(t.entries().size(), t.size());
  for (std::size_t i = 0; i < t.entries().size(); ++i) {
    ASSERT_EQ(t.entries()[i].index, i);
    if (i > 0) {
      ASSERT_GE(t.entries()[i].at, t.entries()[i - 1].at);
    }
  }
  EXPECT_EQ(format_entry(t.entries()[0]).rfind("#0 t=0.000000000s fault node=0", 0), 0u)
      << format_entry(t.entries()[0]);
}

TEST(WorldTrace, HashIsTheSameWhetherRecordingOrNot) {
  const auto recorded = run_ring(7, true);
  const auto bare = run_ring(7, false);
  EXPECT_EQ(recorded->world->trace().hash(), bare->world->trace().hash());
  EXPECT_EQ(recorded->world->trace().size(), bare->world->trace().size());
  EXPECT_TRUE(bare->world->trace().entries().empty());
  EXPECT_FALSE(bare->world->trace().recording());
}

TEST(WorldTrace, DifferentSeedsDivergeAndFirstDivergenceNamesWhere) {
  const auto one = run_ring(7, true);
  const auto two = run_ring(8, true);
  const Trace& x = one->world->trace();
  const Trace& y = two->world->trace();
  EXPECT_NE(x.hash(), y.hash());
  const std::optional<std::uint64_t> at = first_divergence(x, y);
  ASSERT_TRUE(at.has_value());
  // Independently: the first index where the hashed fields differ (or the shorter length).
  const std::size_t n = std::min(x.entries().size(), y.entries().size());
  std::size_t expected = n;
  for (std::size_t i = 0; i < n; ++i) {
    const TraceEntry& p = x.entries()[i];
    const TraceEntry& q = y.entries()[i];
    if (p.at != q.at || p.kind != q.kind || p.node != q.node || p.peer != q.peer || p.detail != q.detail) {
      expected = i;
      break;
    }
  }
  EXPECT_EQ(*at, expected);
  EXPECT_GT(*at, 0u);  // the starts are scripted, so the runs agree at first
  EXPECT_EQ(first_divergence(y, x), at);
}

}  // namespace
}  // namespace logsim::sim

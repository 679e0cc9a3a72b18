// Interning: equal names get one id, different names different ids, in first-seen order, for
// names of every length around the probe's boundaries (4, 8 and 16 bytes) and names that
// differ in one byte anywhere; topic-partition ids likewise.
#include "properties/symbols.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace logsim::properties {
namespace {

TEST(Interner, GivesOneIdPerDistinctNameInFirstSeenOrder) {
  std::vector<std::string> names;
  for (std::size_t n = 0; n <= 40; ++n) {
    const std::string base(n, 'a');
    names.push_back(base);
    // The same length, one byte different at each position (first, middle, last...).
    for (std::size_t i = 0; i < n; ++i) {
      std::string s = base;
      s[i] = 'b';
      names.push_back(s);
    }
    names.push_back(base + std::string(1, '\0'));  // an embedded zero byte is a byte like any other
  }
  Interner interner;
  std::map<std::string, Id> expected;
  for (int round = 0; round < 2; ++round) {
    for (const std::string& s : names) {
      const auto [it, fresh] = expected.try_emplace(s, static_cast<Id>(expected.size()));
      ASSERT_EQ(interner.intern(s), it->second) << "'" << s << "' (" << s.size() << " bytes), round " << round;
      (void)fresh;
    }
  }
  EXPECT_EQ(interner.size(), expected.size());
  for (const auto& [s, id] : expected) EXPECT_EQ(interner.name(id), s);
}

TEST(Symbols, TopicPartitionIdsAreDenseInFirstSeenOrderForAnyPartitionNumber) {
  Symbols symbols;
  const Id t = 0;
  const Id u = 1;
  const std::optional<PartitionId> none;
  const auto p = [](std::int32_t i) { return std::optional<PartitionId>(PartitionId(i)); };
  const std::vector<std::pair<Id, std::optional<PartitionId>>> pairs = {
      {t, p(3)}, {u, p(3)}, {t, none}, {t, p(0)}, {t, p(3)}, {u, p(-7)}, {t, p(1 << 24)}, {u, p(-7)}, {t, p(1 << 24)}};
  const std::vector<Id> expected = {0, 1, 2, 3, 0, 4, 5, 4, 5};
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    EXPECT_EQ(symbols.tp(pairs[i].first, pairs[i].second), expected[i]) << i;
  }
  EXPECT_EQ(symbols.tps(), 6U);
  EXPECT_EQ(symbols.partition_of(5), PartitionId(1 << 24));
  EXPECT_EQ(symbols.partition_of(2), std::nullopt);
  EXPECT_EQ(symbols.topic_of(4), u);
}

// The ids found through a history's packed entries are those of the strings themselves, event
// by event, though one text means different things by kind: here one name is a process, a
// group, a topic and a key, and events leave out their group or key or are not sends.
TEST(Symbols, IdsFoundThroughAHistorysEntriesAreTheIdsOfItsStrings) {
  const auto event = [](OpKind kind, std::string process, std::string group, std::string topic, std::optional<std::string> key) {
    HistoryEvent e;
    e.kind = kind;
    e.process = std::move(process);
    e.group = std::move(group);
    e.topic = std::move(topic);
    e.partition = PartitionId(1);
    e.key = std::move(key);
    return e;
  };
  std::vector<HistoryEvent> events = {
      event(OpKind::kSendInvoke, "p1", "", "t", "k1"),
      event(OpKind::kSeek, "orders", "g", "orders", "k1"),  // not a send: its key gets no id
      event(OpKind::kSendOk, "p1", "", "orders", "orders"),
      event(OpKind::kProcess, "c1", "orders", "t", std::nullopt),
      event(OpKind::kSendFail, "orders", "orders", "t", std::nullopt),
      event(OpKind::kSendInfo, "c1", "g", "orders", "k1"),
      event(OpKind::kSendInvoke, "p2", "", "", "orders"),
  };
  HistoryEvent assign = event(OpKind::kAssign, "c1", "orders", "", std::nullopt);
  assign.assignment = {{"t", PartitionId(0)}, {"orders", PartitionId(2)}, {"u", PartitionId(1)}};
  events.push_back(assign);
  events.push_back(event(OpKind::kSendOk, "p2", "", "u", "orders"));

  History history;
  Symbols packed;
  Symbols plain;
  std::size_t seen = 0;
  history.observe_packed([&](const HistoryEvent& e, const History::TextIds& entry) {
    SCOPED_TRACE("event " + std::to_string(e.index));
    const EventIds a = packed.ids_of(e, entry);
    const std::vector<Id> a_assignment(a.assignment.begin(), a.assignment.end());
    const EventIds b = plain.ids_of(e);
    EXPECT_EQ(a.process, b.process);
    EXPECT_EQ(a.group, b.group);
    EXPECT_EQ(a.topic, b.topic);
    EXPECT_EQ(a.key, b.key);
    EXPECT_EQ(a.tp, b.tp);
    EXPECT_EQ(a_assignment, std::vector<Id>(b.assignment.begin(), b.assignment.end()));
    ++seen;
  });
  for (const HistoryEvent& e : events) history.append(e);
  EXPECT_EQ(seen, events.size());
  EXPECT_EQ(packed.processes(), 4U);  // p1, orders, c1, p2
  EXPECT_EQ(packed.groups(), 2U);     // g, orders
  EXPECT_EQ(packed.process(1), "orders");
  EXPECT_EQ(packed.key(0), "k1");
  EXPECT_EQ(packed.key(1), "orders");
}

}  // namespace
}  // namespace logsim::properties

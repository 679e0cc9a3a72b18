// Tests of the history model and the per-partition order checker (`nonmonotonic-poll`) on
// hand-written histories: what must be flagged, what must not, and that a violation names the
// event that shows it, found online as the history grows.
#include "properties/order_checker.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "properties/checker.h"
#include "properties/history.h"

namespace logsim::properties {
namespace {

HistoryEvent process(const std::string& proc, const std::string& topic, std::int32_t partition,
                     std::int64_t offset) {
  HistoryEvent e;
  e.kind = OpKind::kProcess;
  e.process = proc;
  e.topic = topic;
  e.partition = properties::known(PartitionId(partition));
  e.offset = properties::known(Offset(offset));
  return e;
}

HistoryEvent assign(const std::string& proc, std::vector<TopicPartition> tps) {
  HistoryEvent e;
  e.kind = OpKind::kAssign;
  e.process = proc;
  e.assignment = std::move(tps);
  return e;
}

HistoryEvent seek(const std::string& proc, const std::string& topic, std::int32_t partition,
                  std::int64_t offset) {
  HistoryEvent e = process(proc, topic, partition, offset);
  e.kind = OpKind::kSeek;
  return e;
}

// Feeds events to a fresh OrderChecker through a History (so indexes are assigned) and
// returns the checker's violations.
std::vector<Violation> check(std::vector<HistoryEvent> events) {
  History h;
  OrderChecker c;
  h.observe([&c](const HistoryEvent& e) { c.observe(e); });
  for (auto& e : events) h.append(std::move(e));
  c.finish();
  return c.violations();
}

TEST(OrderChecker, IncreasingOffsetsPass) {
  EXPECT_TRUE(check({assign("c1", {{"t", PartitionId(0)}}), process("c1", "t", 0, 0), process("c1", "t", 0, 1),
                     process("c1", "t", 0, 5), process("c1", "t", 0, 6)})
                  .empty());
}

TEST(OrderChecker, GapsAreNotThisCheckersBusiness) {
  // Skipping offsets is `poll-skip`, a different anomaly: order only looks at direction.
  EXPECT_TRUE(check({process("c1", "t", 0, 0), process("c1", "t", 0, 100)}).empty());
}

TEST(OrderChecker, RepeatedOffsetIsNonmonotonicPoll) {
  HistoryEvent repeat = process("c1", "orders", 2, 7);
  repeat.at = millis(1234);
  repeat.key = "customer-9";
  const auto v = check({assign("c1", {{"orders", PartitionId(2)}}), process("c1", "orders", 2, 6),
                        process("c1", "orders", 2, 7), repeat});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "nonmonotonic-poll");
  EXPECT_EQ(v[0].first_event, 3u);
  EXPECT_EQ(v[0].at, millis(1234));
  EXPECT_EQ(v[0].process, "c1");
  EXPECT_EQ(v[0].topic, "orders");
  EXPECT_EQ(v[0].partition, PartitionId(2));
  EXPECT_EQ(v[0].offset, Offset(7));
  ASSERT_TRUE(v[0].key.has_value());
  EXPECT_EQ(*v[0].key, "customer-9");
  EXPECT_EQ(v[0].members, std::vector<std::string>{"c1"});
  // The explanation names the offending offset and the earlier one, with its event.
  EXPECT_NE(v[0].explanation.find("orders/2 offset 7 after offset 7 (event #2)"), std::string::npos)
      << v[0].explanation;
}

TEST(OrderChecker, LowerOffsetIsNonmonotonicPoll) {
  const auto v = check({assign("c1", {{"t", PartitionId(0)}}), process("c1", "t", 0, 10), process("c1", "t", 0, 11),
                        process("c1", "t", 0, 12), process("c1", "t", 0, 4), process("c1", "t", 0, 5)});
  // One violation only: 5 after 4 goes up again, so it is not a second anomaly.
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "nonmonotonic-poll");
  EXPECT_EQ(v[0].first_event, 4u);
  EXPECT_EQ(v[0].process, "c1");
  EXPECT_EQ(v[0].topic, "t");
  EXPECT_EQ(v[0].partition, PartitionId(0));
  EXPECT_EQ(v[0].offset, Offset(4));
  EXPECT_NE(v[0].explanation.find("after offset 12 (event #3)"), std::string::npos) << v[0].explanation;
}

TEST(OrderChecker, EachBackwardStepIsReported) {
  const auto v = check({process("c1", "t", 0, 5), process("c1", "t", 0, 3), process("c1", "t", 0, 1)});
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].first_event, 1u);
  EXPECT_EQ(v[0].offset, Offset(3));
  EXPECT_EQ(v[1].first_event, 2u);
  EXPECT_EQ(v[1].offset, Offset(1));
}

TEST(OrderChecker, NewAssignmentResetsEveryPartitionOfTheProcess) {
  EXPECT_TRUE(check({assign("c1", {{"t", PartitionId(0)}, {"t", PartitionId(1)}}), process("c1", "t", 0, 10), process("c1", "t", 1, 20),
                     assign("c1", {{"t", PartitionId(0)}, {"t", PartitionId(1)}}), process("c1", "t", 0, 3), process("c1", "t", 1, 4)})
                  .empty());
}

TEST(OrderChecker, AssignmentOfAnotherProcessDoesNotReset) {
  const auto v = check({process("c1", "t", 0, 10), assign("c2", {{"t", PartitionId(0)}}), process("c1", "t", 0, 3)});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].first_event, 2u);
  EXPECT_EQ(v[0].process, "c1");
}

TEST(OrderChecker, AssignmentResetDoesNotLeakIntoProcessWithPrefixName) {
  // "c1" sorts right before "c10" in the checker's map: a reset of c1 must stop at c1.
  const auto v = check({process("c10", "t", 0, 10), process("c1", "t", 0, 10), assign("c1", {}),
                        process("c10", "t", 0, 3)});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].process, "c10");
  EXPECT_EQ(v[0].first_event, 3u);
}

TEST(OrderChecker, SeekResetsOnlyThatPartition) {
  const auto v = check({assign("c1", {{"t", PartitionId(0)}, {"t", PartitionId(1)}}), process("c1", "t", 0, 10), process("c1", "t", 1, 10),
                        seek("c1", "t", 0, 2), process("c1", "t", 0, 2),  // fine: after a seek
                        process("c1", "t", 1, 9)});                       // not fine: no seek on t/1
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].first_event, 5u);
  EXPECT_EQ(v[0].partition, PartitionId(1));
  EXPECT_EQ(v[0].offset, Offset(9));
}

TEST(OrderChecker, SeekOnSamePartitionNumberOfAnotherTopicDoesNotReset) {
  const auto v = check({process("c1", "a", 0, 10), seek("c1", "b", 0, 0), process("c1", "a", 0, 1)});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].topic, "a");
}

TEST(OrderChecker, SeekByAnotherProcessDoesNotReset) {
  const auto v = check({process("c1", "t", 0, 10), seek("c2", "t", 0, 0), process("c1", "t", 0, 1)});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].process, "c1");
}

TEST(OrderChecker, AfterSeekTheNewRunIsCheckedAgain) {
  const auto v = check({process("c1", "t", 0, 10), seek("c1", "t", 0, 0), process("c1", "t", 0, 1),
                        process("c1", "t", 0, 0)});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].first_event, 3u);
  EXPECT_NE(v[0].explanation.find("after offset 1 (event #2)"), std::string::npos) << v[0].explanation;
}

TEST(OrderChecker, ProcessesAreIndependent) {
  // Two readers of one partition each read it from the start: interleaved, the offsets go
  // down, but each reader's own offsets only go up.
  EXPECT_TRUE(check({process("a", "t", 0, 0), process("a", "t", 0, 1), process("b", "t", 0, 0),
                     process("a", "t", 0, 2), process("b", "t", 0, 1)})
                  .empty());
}

TEST(OrderChecker, PartitionsAreIndependent) {
  // Order is per partition only: across partitions the offsets may go anywhere.
  EXPECT_TRUE(check({process("c", "t", 0, 50), process("c", "t", 1, 0), process("c", "t", 0, 51),
                     process("c", "t", 1, 1), process("c", "u", 0, 0)})
                  .empty());
}

TEST(OrderChecker, OtherEventKindsAreIgnored) {
  HistoryEvent send = process("c1", "t", 0, 0);
  send.kind = OpKind::kSendOk;
  HistoryEvent fault;
  fault.kind = OpKind::kFault;
  fault.process = "c1";
  EXPECT_TRUE(check({process("c1", "t", 0, 5), send, fault, process("c1", "t", 0, 6)}).empty());
}

// A checker that reports one violation at finish(), at a given event, to check how CheckerSet
// merges the findings of several checkers.
class FixedChecker final : public Checker {
 public:
  FixedChecker(std::string anomaly, std::uint64_t first_event) : anomaly_(std::move(anomaly)), first_(first_event) {}
  std::string_view name() const override { return "fixed"; }
  void on_event(const HistoryEvent&, const EventIds&) override {}
  void finish() override {
    Violation v;
    v.anomaly = anomaly_;
    v.first_event = first_;
    report(std::move(v));
  }

 private:
  std::string anomaly_;
  std::uint64_t first_;
};

TEST(CheckerSet, DefaultCheckersPassOnAGoodHistory) {
  History h;
  auto set = default_checkers();
  set.attach(h);
  h.append(assign("c1", {{"t", PartitionId(0)}}));
  h.append(process("c1", "t", 0, 0));
  h.append(process("c1", "t", 0, 1));
  const Verdict v = set.finish();
  EXPECT_EQ(v.outcome, Outcome::kPass);
  EXPECT_TRUE(v.violations.empty());
}

TEST(CheckerSet, DefaultCheckersIncludeTheOrderChecker) {
  History h;
  auto set = default_checkers();
  set.attach(h);
  h.append(process("c1", "t", 0, 3));
  h.append(process("c1", "t", 0, 2));
  const Verdict v = set.finish();
  EXPECT_EQ(v.outcome, Outcome::kViolated);
  ASSERT_EQ(v.violations.size(), 1u);
  EXPECT_EQ(v.violations[0].anomaly, "nonmonotonic-poll");
  EXPECT_EQ(v.violations[0].first_event, 1u);
}

TEST(CheckerSet, ViolationsAreOrderedByFirstEventAcrossCheckers) {
  auto set = default_checkers();
  set.add(std::make_unique<FixedChecker>("duplicate", 0));
  set.add(std::make_unique<FixedChecker>("lost-write", 3));
  // Offline: the events are fed directly, not through a History.
  std::vector<HistoryEvent> events = {process("c1", "t", 0, 9), process("c1", "t", 0, 8),
                                      process("c1", "t", 0, 9), process("c1", "t", 0, 9),
                                      process("c1", "t", 0, 1)};
  for (std::uint64_t i = 0; i < events.size(); ++i) {
    events[i].index = i;
    set.observe(events[i]);
  }
  const Verdict v = set.finish();
  EXPECT_EQ(v.outcome, Outcome::kViolated);
  ASSERT_EQ(v.violations.size(), 5u);
  // nonmonotonic-poll at 1, 3 and 4; the fixed ones at 0 and 3. Ties keep checker order.
  const std::vector<std::pair<std::string, std::uint64_t>> want = {
      {"duplicate", 0}, {"nonmonotonic-poll", 1}, {"nonmonotonic-poll", 3}, {"lost-write", 3}, {"nonmonotonic-poll", 4}};
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(v.violations[i].anomaly, want[i].first) << "at " << i;
    EXPECT_EQ(v.violations[i].first_event, want[i].second) << "at " << i;
  }
}

TEST(CheckerSet, OnlyLivenessFindingsGiveLivenessOutcome) {
  CheckerSet only_liveness;
  only_liveness.add(std::make_unique<FixedChecker>("liveness", 0));
  EXPECT_EQ(only_liveness.finish().outcome, Outcome::kLiveness);

  CheckerSet mixed;
  mixed.add(std::make_unique<FixedChecker>("liveness", 0));
  mixed.add(std::make_unique<FixedChecker>("lost-write", 1));
  EXPECT_EQ(mixed.finish().outcome, Outcome::kViolated);
}

TEST(Outcome, Names) {
  EXPECT_EQ(outcome_name(Outcome::kPass), "pass");
  EXPECT_EQ(outcome_name(Outcome::kViolated), "violated");
  EXPECT_EQ(outcome_name(Outcome::kLiveness), "liveness");
}

TEST(History, AppendAssignsIndexesAndCallsObserversInOrder) {
  History h;
  std::vector<std::string> calls;
  h.observe([&](const HistoryEvent& e) { calls.push_back("first:" + std::to_string(e.index)); });
  h.observe([&](const HistoryEvent& e) { calls.push_back("second:" + std::to_string(e.index)); });
  HistoryEvent e = process("c1", "t", 0, 0);
  e.index = 99;  // overwritten: the history owns the numbering
  EXPECT_EQ(h.append(e), 0u);
  EXPECT_EQ(h.append(process("c1", "t", 0, 1)), 1u);
  EXPECT_EQ(h.append(process("c1", "t", 0, 2)), 2u);
  ASSERT_EQ(h.size(), 3u);
  for (std::uint64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(h.events()[i].index, i);
    EXPECT_EQ(h.events()[i].offset, Offset(static_cast<std::int64_t>(i)));
  }
  EXPECT_EQ(calls, (std::vector<std::string>{"first:0", "second:0", "first:1", "second:1", "first:2", "second:2"}));
}

TEST(History, ObserverSeesTheStoredEvent) {
  History h;
  std::uint64_t seen_index = 1000;
  std::int64_t seen_size = -1;
  std::string seen_as_stored;
  h.observe([&](const HistoryEvent& e) {
    seen_index = e.index;
    seen_size = static_cast<std::int64_t>(h.size());
    const HistoryEvent stored = h.events().back();
    seen_as_stored = stored.index == e.index && stored.process == e.process && stored.offset == e.offset ? "same" : "not";
  });
  h.append(process("c1", "t", 0, 0));
  EXPECT_EQ(seen_index, 0u);
  EXPECT_EQ(seen_size, 1);  // the event is in the history before observers run
  EXPECT_EQ(seen_as_stored, "same");
}

// The history keeps events packed; every field comes back as it was appended, null and empty
// strings, rare fields and long or repeated strings included.
TEST(History, EveryFieldComesBackAsAppended) {
  History h;
  HistoryEvent a;
  a.at = 123456789;
  a.kind = OpKind::kSeek;
  a.process = "a-consumer-with-a-name-longer-than-sixteen-bytes";
  a.group = "g";
  a.generation = GenerationId(7);
  a.topic = "orders";
  a.partition = PartitionId(3);
  a.offset = Offset(42);
  a.key = "";
  a.value_id = 99;
  a.commit_id = 5;
  a.log_start_offset = Offset(10);
  a.high_watermark = Offset(50);
  a.idempotent = true;
  a.assignment = {{"orders", PartitionId(1)}, {"audit", PartitionId(0)}};
  a.error = "OFFSET_OUT_OF_RANGE";
  a.note = "reset by auto.offset.reset";
  HistoryEvent b;  // every field at its default: no key, no group, no extras
  b.at = 5;
  HistoryEvent c = a;  // the same strings again, another key
  c.key = "k";
  c.assignment.clear();
  c.commit_id = 0;
  c.log_start_offset = std::nullopt;
  c.high_watermark = Offset(51);
  for (const HistoryEvent* e : {&a, &b, &c}) h.append(*e);
  ASSERT_EQ(h.size(), 3u);
  a.index = 0;
  b.index = 1;
  c.index = 2;
  const std::vector<const HistoryEvent*> in = {&a, &b, &c};
  std::size_t i = 0;
  for (const auto& e : h.events()) {
    const HistoryEvent& x = *in[i];
    EXPECT_EQ(e.index, x.index);
    EXPECT_EQ(e.at, x.at);
    EXPECT_EQ(e.kind, x.kind);
    EXPECT_EQ(e.process, x.process);
    EXPECT_EQ(e.group, x.group);
    EXPECT_EQ(e.generation, x.generation);
    EXPECT_EQ(e.topic, x.topic);
    EXPECT_EQ(e.partition, x.partition);
    EXPECT_EQ(e.offset, x.offset);
    EXPECT_EQ(e.key, x.key);
    EXPECT_EQ(e.value_id, x.value_id);
    EXPECT_EQ(e.commit_id, x.commit_id);
    EXPECT_EQ(e.log_start_offset, x.log_start_offset);
    EXPECT_EQ(e.high_watermark, x.high_watermark);
    EXPECT_EQ(e.idempotent, x.idempotent);
    EXPECT_EQ(e.assignment, x.assignment);
    EXPECT_EQ(e.error, x.error);
    EXPECT_EQ(e.note, x.note);
    ++i;
  }
  EXPECT_EQ(i, 3u);
  EXPECT_FALSE(h.events()[1].key.has_value());
  EXPECT_EQ(h.events()[0].key, std::optional<std::string>(""));
  EXPECT_EQ(h.text(h.process(h.entry(2))), a.process);
  EXPECT_EQ(h.process(h.entry(0)), h.process(h.entry(2))) << "a repeated string is kept once";
  EXPECT_EQ(h.entry(0).context, h.entry(2).context) << "a repeated context is kept once";
  EXPECT_NE(h.entry(0).where, h.entry(1).where);
  EXPECT_EQ(h.generation(h.entry(1)), -1);
  EXPECT_EQ(h.partition(h.entry(2)), 3);
  EXPECT_EQ(h.text(h.note(h.entry(2))), a.note);
}

// Each field remembers the last string it interned: runs of one string, strings that come back
// after others, a string that is a prefix of the last, and the same string in two fields all
// keep their ids and come back as appended.
TEST(History, RepeatedAndAlternatingStringsKeepTheirIds) {
  History h;
  const std::vector<std::string> names = {"p", "p", "q", "p", "pq", "p", "", "p", "", "q", "q", "a-name-longer-than-sixteen-bytes",
                                          "a-name-longer-than-sixteen-byteS", "q"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    HistoryEvent e;
    e.process = n;
    e.group = n;
    e.topic = names[(i + 1) % names.size()];  // another string than the process
    e.error = n;
    e.note = n;
    e.key = n;
    h.append(e);
  }
  ASSERT_EQ(h.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    const HistoryEvent e = h.at(i);
    EXPECT_EQ(e.process, names[i]) << i;
    EXPECT_EQ(e.group, names[i]) << i;
    EXPECT_EQ(e.topic, names[(i + 1) % names.size()]) << i;
    EXPECT_EQ(e.error, names[i]) << i;
    EXPECT_EQ(e.note, names[i]) << i;
    EXPECT_EQ(e.key, names[i]) << i;
    // One string, one id, whichever field interned it first.
    const Id id = h.process(h.entry(i));
    EXPECT_EQ(h.group(h.entry(i)), id) << i;
    EXPECT_EQ(h.error(h.entry(i)), id) << i;
    EXPECT_EQ(h.note(h.entry(i)), id) << i;
    EXPECT_EQ(h.entry(i).key, id) << i;  // (the empty string is text id 0 in every field)
    for (std::size_t j = 0; j < names.size(); ++j) {
      EXPECT_EQ(h.process(h.entry(j)) == id, names[j] == names[i]) << i << " " << j;
    }
  }
}

TEST(History, ViolationIsFoundOnlineWhenTheEventIsAppended) {
  History h;
  auto owned = std::make_unique<OrderChecker>();
  const OrderChecker* order = owned.get();
  CheckerSet set;
  set.add(std::move(owned));
  set.attach(h);
  h.append(process("c1", "t", 0, 5));
  EXPECT_TRUE(order->violations().empty());
  h.append(process("c1", "t", 0, 4));
  // Found now, before any later event and before finish().
  ASSERT_EQ(order->violations().size(), 1u);
  EXPECT_EQ(order->violations()[0].first_event, 1u);
  h.append(process("c1", "t", 0, 6));
  h.append(process("c1", "t", 0, 7));
  EXPECT_EQ(order->violations().size(), 1u);
  const Verdict v = set.finish();
  ASSERT_EQ(v.violations.size(), 1u);
  EXPECT_EQ(v.violations[0].first_event, 1u);
}

TEST(History, OpKindNamesRoundTrip) {
  for (OpKind k : {OpKind::kSendInvoke, OpKind::kSendOk, OpKind::kSendFail, OpKind::kSendInfo, OpKind::kAssign,
                   OpKind::kSeek, OpKind::kProcess, OpKind::kFault, OpKind::kAdmin,
                   OpKind::kCommitInvoke, OpKind::kCommitOk, OpKind::kCommitFail, OpKind::kPoll}) {
    const auto name = op_kind_name(k);
    EXPECT_NE(name, "?");
    const auto back = op_kind_from_name(name);
    ASSERT_TRUE(back.has_value()) << name;
    EXPECT_EQ(*back, k);
  }
  EXPECT_EQ(op_kind_name(OpKind::kProcess), "process");
  EXPECT_EQ(op_kind_name(OpKind::kPoll), "poll");
  EXPECT_FALSE(op_kind_from_name("fetch").has_value());
}

// A poll event's count survives the history's packed form, and is not mistaken for a value id.
TEST(History, PollKeepsItsRecordCount) {
  History h;
  HistoryEvent e;
  e.kind = OpKind::kPoll;
  e.process = "c1";
  e.records = 500;
  h.append(e);
  const HistoryEvent back = h.at(0);
  EXPECT_EQ(back.kind, OpKind::kPoll);
  EXPECT_EQ(back.records, 500u);
  EXPECT_EQ(back.value_id, 0u);
}

// A commit's id is kept in the value slot when it can be (no Extra); a commit that also has a
// value id or a rare field keeps both, and History::commit_id reads each form.
TEST(History, CommitsKeepTheirIdsInEveryForm) {
  History h;
  HistoryEvent plain;
  plain.kind = OpKind::kCommitOk;
  plain.process = "c1";
  plain.commit_id = 77;
  HistoryEvent valued = plain;
  valued.kind = OpKind::kCommitInvoke;
  valued.value_id = 5;
  HistoryEvent rare = plain;
  rare.kind = OpKind::kCommitFail;
  rare.high_watermark = Offset(9);
  HistoryEvent sent;  // not a commit: a value id is not a commit id
  sent.kind = OpKind::kSendInvoke;
  sent.value_id = 77;
  for (const HistoryEvent* e : {&plain, &valued, &rare, &sent}) h.append(*e);
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> want = {{77, 0}, {77, 5}, {77, 0}, {0, 77}};
  for (std::size_t i = 0; i < want.size(); ++i) {
    const HistoryEvent back = h.at(i);
    EXPECT_EQ(back.commit_id, want[i].first) << i;
    EXPECT_EQ(back.value_id, want[i].second) << i;
    EXPECT_EQ(h.commit_id(i), want[i].first) << i;
  }
  EXPECT_EQ(h.at(2).high_watermark, Offset(9));
}

HistoryEvent poll(const std::string& proc, std::uint32_t records) {
  HistoryEvent e;
  e.kind = OpKind::kPoll;
  e.process = proc;
  e.records = records;
  return e;
}

TEST(OrderChecker, BackwardsInsideOnePollIsIntNonmonotonicPoll) {
  const auto v = check({assign("c1", {{"t", PartitionId(0)}}), poll("c1", 3), process("c1", "t", 0, 5),
                        process("c1", "t", 0, 6), process("c1", "t", 0, 6)});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "int-nonmonotonic-poll");
  EXPECT_EQ(v[0].first_event, 4u);
  EXPECT_NE(v[0].explanation.find("in the same poll"), std::string::npos) << v[0].explanation;
}

TEST(OrderChecker, BackwardsAcrossPollsIsNonmonotonicPoll) {
  const auto v = check({assign("c1", {{"t", PartitionId(0)}}), poll("c1", 2), process("c1", "t", 0, 5),
                        process("c1", "t", 0, 6), poll("c1", 1), process("c1", "t", 0, 6)});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].anomaly, "nonmonotonic-poll");
  // Another process's poll does not end c1's.
  const auto w = check({assign("c1", {{"t", PartitionId(0)}}), poll("c1", 2), process("c1", "t", 0, 5),
                        poll("c2", 1), process("c1", "t", 0, 4)});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].anomaly, "int-nonmonotonic-poll");
}

}  // namespace
}  // namespace logsim::properties

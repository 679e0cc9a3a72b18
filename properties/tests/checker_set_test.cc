// A checker set shows each checker only the kinds of event it declares
// (Checker::kinds). This holds each default checker to its declaration: over
// random histories of every kind of event, the checker alone (shown every
// event) and the checker in a set (shown its kinds only) find the same
// violations.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "properties/assertion_checker.h"
#include "properties/checker.h"
#include "properties/duplicate_checker.h"
#include "properties/group_checkers.h"
#include "properties/group_interference_checker.h"
#include "properties/log_checker.h"
#include "properties/order_checker.h"
#include "properties/poll_skip_checker.h"
#include "properties/send_order_checker.h"

namespace logsim::properties {
namespace {

std::vector<HistoryEvent> random_history(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto r = [&](std::int64_t n) { return static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n)); };
  std::vector<HistoryEvent> out;
  std::vector<std::int64_t> next(3, 0);
  std::vector<OpKind> kinds;  // every kind (a kind a set did not dispatch once went unnoticed)
  for (std::size_t k = 0; k < kOpKinds; ++k) kinds.push_back(static_cast<OpKind>(k));
  for (std::uint64_t i = 0; i < 300; ++i) {
    HistoryEvent e;
    e.index = i;
    e.at = static_cast<Nanos>(i);
    e.kind = r(3) == 0 ? OpKind::kProcess : kinds[static_cast<std::size_t>(r(static_cast<std::int64_t>(kinds.size())))];
    e.topic = "t";
    e.partition = properties::known(PartitionId(static_cast<std::int32_t>(r(3))));
    std::int64_t& nx = next[static_cast<std::size_t>(e.partition->value())];
    e.offset = properties::known(Offset(e.kind == OpKind::kSendOk ? nx++ : r(nx + 2) - (r(10) == 0 ? 2 : 0)));
    e.value_id = 1 + static_cast<std::uint64_t>(r(40));
    if (r(3) != 0) e.key = "k" + std::to_string(r(4));
    const bool send = e.kind <= OpKind::kSendInfo;
    e.process = (send ? "p" : (r(8) == 0 ? "admin" : "c")) + std::to_string(r(3));
    if (!send && r(4) != 0) e.group = "g" + std::to_string(r(2));
    e.generation = properties::known(GenerationId(static_cast<std::int32_t>(r(4)) - 1));
    e.idempotent = r(2) == 0;
    e.commit_id = static_cast<std::uint64_t>(r(4));
    if (r(4) == 0) {
      e.high_watermark = properties::known(Offset(r(nx + 1)));
      e.log_start_offset = properties::known(Offset(r(nx + 3)));
    }
    if (e.kind == OpKind::kAssign) {
      for (std::int32_t p = 0; p < 3; ++p) {
        if (r(2) != 0) e.assignment.push_back({"t", PartitionId(p)});
      }
    }
    if (e.kind == OpKind::kAdmin) e.note = r(2) != 0 ? "alter-config t cleanup.policy=compact" : "delete-records t";
    if (e.kind == OpKind::kPoll) e.records = static_cast<std::uint32_t>(1 + r(3));
    if (e.kind == OpKind::kAssert) {
      e.note = "assertion " + std::to_string(r(2));
      e.error = std::string(r(2) != 0 ? kAlwaysFailed : kSometimesHeld);
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::string describe(const std::vector<Violation>& vs) {
  std::string s;
  for (const Violation& v : vs) s += v.anomaly + " #" + std::to_string(v.first_event) + ": " + v.explanation + "\n";
  return s;
}

TEST(CheckerSet, EveryDefaultCheckerReadsOnlyTheKindsItDeclares) {
  const std::vector<std::function<std::unique_ptr<Checker>()>> makers = {
      [] { return std::make_unique<OrderChecker>(); },
      [] { return std::make_unique<LogChecker>(); },
      [] { return std::make_unique<SendOrderChecker>(); },
      [] { return std::make_unique<DuplicateChecker>(); },
      [] { return std::make_unique<DoubleOwnershipChecker>(); },
      [] { return std::make_unique<StaleCommitChecker>(); },
      [] { return std::make_unique<LostCommitChecker>(); },
      [] { return std::make_unique<PollSkipChecker>(); },
      [] { return std::make_unique<GroupInterferenceChecker>(); },
      [] { return std::make_unique<AssertionChecker>(); }};
  std::size_t found = 0;
  for (const auto& make : makers) {
    const std::string name(make()->name());
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
      const std::vector<HistoryEvent> history = random_history(seed);
      std::unique_ptr<Checker> alone = make();
      for (const HistoryEvent& e : history) alone->observe(e);
      alone->finish();
      CheckerSet set;
      set.add(make());
      for (const HistoryEvent& e : history) set.observe(e);
      const Verdict in_set = set.finish();
      std::vector<Violation> expected = alone->violations();
      std::stable_sort(expected.begin(), expected.end(),
                       [](const Violation& a, const Violation& b) { return a.first_event < b.first_event; });
      ASSERT_EQ(describe(in_set.violations), describe(expected)) << name << ", seed " << seed;
      found += expected.size();
    }
  }
  EXPECT_GT(found,
            1000U);  // the histories do give the checkers something to find
}

}  // namespace
}  // namespace logsim::properties

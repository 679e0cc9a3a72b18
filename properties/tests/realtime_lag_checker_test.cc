// The realtime-lag checker: per reader (group, or consumer without one), the longest an
// acknowledged record waited before its first processing, as figures; with a bound, the first
// processing that waited longer is a violation (a liveness failure).
#include "properties/realtime_lag_checker.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "properties/checker.h"
#include "properties/history.h"

namespace logsim::properties {
namespace {

class Lag {
 public:
  explicit Lag(Checker& c) : c_(c) {}
  void ack(std::int64_t offset, Nanos at) { add(OpKind::kSendOk, "shop", "", offset, at); }
  void process(const std::string& who, const std::string& group, std::int64_t offset, Nanos at) {
    add(OpKind::kProcess, who, group, offset, at);
  }
  void add(OpKind kind, const std::string& who, const std::string& group, std::int64_t offset, Nanos at) {
    HistoryEvent e;
    e.index = next_++;
    e.kind = kind;
    e.process = who;
    e.group = group;
    e.topic = "orders";
    e.partition = PartitionId(0);
    e.offset = Offset(offset);
    e.value_id = static_cast<std::uint64_t>(offset) + 1;
    e.at = at;
    c_.observe(e);
  }

 private:
  Checker& c_;
  std::uint64_t next_ = 0;
};

TEST(RealtimeLagChecker, TheLongestWaitPerReaderIsAFigure) {
  RealtimeLagChecker c;
  Lag h(c);
  h.ack(0, millis(10));
  h.ack(1, millis(20));
  h.process("billing-1", "billing", 0, millis(15));    // waited 5 ms
  h.process("billing-1", "billing", 1, millis(120));   // waited 100 ms
  h.process("billing-2", "billing", 1, millis(5000));  // read again: only the first processing counts
  h.process("audit", "", 0, millis(40));               // a consumer without a group: 30 ms
  h.process("early", "", 2, millis(41));               // before any acknowledgement of offset 2: 0
  h.ack(2, millis(50));
  c.finish();
  std::map<std::string, std::int64_t> f;
  c.figures(f);
  EXPECT_EQ(f["realtime-lag.max_ms.billing"], 100);
  EXPECT_EQ(f["realtime-lag.max_ms.audit"], 30);
  EXPECT_EQ(f["realtime-lag.max_ms.early"], 0);
  EXPECT_EQ(f["realtime-lag.max_ms"], 100);
  EXPECT_TRUE(c.violations().empty()) << "no bound, no violation";
}

TEST(RealtimeLagChecker, AWaitOverTheBoundIsALivenessFailureOncePerReader) {
  CheckerOptions options;
  options.max_realtime_lag = millis(50);
  CheckerSet set = default_checkers(options);
  History h;
  set.attach(h);
  const auto add = [&](OpKind kind, const std::string& who, std::int64_t offset, Nanos at) {
    HistoryEvent e;
    e.kind = kind;
    e.process = who;
    e.group = kind == OpKind::kProcess ? "billing" : "";
    e.topic = "orders";
    e.partition = PartitionId(0);
    e.offset = Offset(offset);
    e.value_id = static_cast<std::uint64_t>(offset) + 1;
    e.at = at;
    return h.append(e);
  };
  add(OpKind::kSendOk, "shop", 0, millis(0));
  add(OpKind::kSendOk, "shop", 1, millis(1));
  add(OpKind::kProcess, "billing-1", 0, millis(40));
  const std::uint64_t late = add(OpKind::kProcess, "billing-1", 1, millis(80));  // waited 79 ms
  const Verdict v = set.finish();
  ASSERT_EQ(v.violations.size(), 1u);
  EXPECT_EQ(v.violations[0].anomaly, "realtime-lag");
  EXPECT_EQ(v.violations[0].first_event, late);
  EXPECT_EQ(v.outcome, Outcome::kLiveness);
  EXPECT_EQ(v.figures.at("realtime-lag.max_ms"), 79);
}

}  // namespace
}  // namespace logsim::properties

// Producer workloads, disks and the properties section: zipf keys and a hot key (loaded, and
// drawn in the proportions asked), a producer that sends for a time, a lying disk losing what
// flush.messages=1 would have kept through a power loss, and "properties" turning checks off
// (the checker does not report, the verdict and summary say so, and the loader refuses
// contradictions).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "scenarios/loader.h"
#include "scenarios/apps/run_context.h"
#include "scenarios/runner.h"
#include "scenarios/tests/load_error.h"

namespace logsim::scenarios {
namespace {

using properties::OpKind;

std::string one_producer(const std::string& producer, const std::string& extra = "") {
  return R"({"name": "w", "duration": "30s", "seed": 3, "topics": [{"name": "t", "partitions": 4}],
             "producers": [{"name": "p", "topic": "t", )" +
         producer + "}]" + extra + "}";
}

std::map<std::string, std::int64_t> keys_sent(const std::string& text) {
  const Scenario s = parse_scenario(text, "w.json");
  const RunOutput out = run_scenario(s, RunOptions{s.seed, false});
  std::map<std::string, std::int64_t> keys;
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kSendInvoke) ++keys[e.key.value_or("(null)")];
  }
  return keys;
}

TEST(Workload, KeyChoicesAreRead) {
  const Scenario z = parse_scenario(one_producer(R"("keys": {"zipf": 500, "exponent": 1.3})"), "w.json");
  EXPECT_EQ(z.producers[0].keys.kind, KeySpec::Kind::kZipf);
  EXPECT_EQ(z.producers[0].keys.uniform, 500);
  EXPECT_EQ(z.producers[0].keys.exponent, 1.3);
  EXPECT_FALSE(z.producers[0].keys.hot);
  const Scenario h = parse_scenario(one_producer(R"("keys": {"list": ["a"], "hot": "vip", "share": 0.25})"), "w.json");
  EXPECT_EQ(h.producers[0].keys.kind, KeySpec::Kind::kList);
  EXPECT_EQ(h.producers[0].keys.hot, "vip");
  EXPECT_EQ(h.producers[0].keys.hot_share, 0.25);
}

TEST(Workload, AHotKeyTakesItsShareAndTheRestFollowTheOtherChoice) {
  const auto keys = keys_sent(one_producer(R"("rate_per_sec": 1000, "count": 4000, "keys": {"uniform": 10, "hot": "vip", "share": 0.7})"));
  std::int64_t total = 0;
  for (const auto& [k, n] : keys) total += n;
  ASSERT_EQ(total, 4000);
  EXPECT_NEAR(static_cast<double>(keys.at("vip")) / 4000.0, 0.7, 0.03);
  EXPECT_EQ(keys.size(), 11u) << "vip and key-0 .. key-9";
  for (int k = 0; k < 10; ++k) EXPECT_NEAR(static_cast<double>(keys.at("key-" + std::to_string(k))), 120.0, 45.0) << k;
}

TEST(Workload, ZipfKeysFallOffByRank) {
  const auto keys = keys_sent(one_producer(R"("rate_per_sec": 1000, "count": 5000, "keys": {"zipf": 100, "exponent": 1.0})"));
  // P(key-0) = 1 / H(100) ~ 0.193, P(key-1) half of that, P(key-9) a tenth.
  EXPECT_NEAR(static_cast<double>(keys.at("key-0")) / 5000.0, 0.193, 0.02);
  EXPECT_GT(keys.at("key-0"), keys.at("key-1"));
  EXPECT_GT(keys.at("key-1"), keys.at("key-9"));
  EXPECT_NEAR(static_cast<double>(keys.at("key-0")) / static_cast<double>(keys.at("key-9")), 10.0, 3.5);
}

TEST(Workload, AProducerCanSendForATimeInsteadOfACount) {
  const Scenario s = parse_scenario(one_producer(R"("rate_per_sec": 40, "start": "1s", "for": "2500ms")"), "w.json");
  EXPECT_EQ(s.producers[0].count, 100) << "one every 25 ms from 1 s, the last at 3.475 s";
  const RunOutput out = run_scenario(s, RunOptions{s.seed, false});
  EXPECT_EQ(out.result.stats.at("records.sent"), 100);
}

TEST(Workload, WorkloadMistakesAreReportedWhereTheyAre) {
  EXPECT_EQ(error_of(one_producer(R"("keys": {"zipf": 10, "uniform": 3})")).pointer(), "/producers/0/keys");
  EXPECT_EQ(error_of(one_producer(R"("keys": {"zipf": 0})")).pointer(), "/producers/0/keys/zipf");
  EXPECT_EQ(error_of(one_producer(R"("keys": {"uniform": 3, "share": 0.5})")).problem(), "a hot key needs both \"hot\" and \"share\"");
  EXPECT_EQ(error_of(one_producer(R"("keys": {"uniform": 3, "hot": "k", "share": 1.5})")).pointer(), "/producers/0/keys/share");
  EXPECT_EQ(error_of(one_producer(R"("count": 3, "for": "2s")")).problem(), "found both \"count\" and \"for\"");
}

TEST(Workload, ValuesMayBeShortAndTombstonesAShare) {
  const Scenario s = parse_scenario(one_producer(R"("value_bytes": 0, "tombstones": 0.25, "keys": {"uniform": 4})"), "w.json");
  EXPECT_EQ(s.producers[0].value_bytes, 0);
  EXPECT_EQ(s.producers[0].tombstones, 0.25);
  EXPECT_EQ(error_of(one_producer(R"("tombstones": 1.5)")).pointer(), "/producers/0/tombstones");
  EXPECT_EQ(error_of(one_producer(R"("value_bytes": -1)")).pointer(), "/producers/0/value_bytes");
  const std::string produce_step = R"(, "timeline": [{"at": "1s", "action": "produce", "target": "p", "count": 2, )";
  EXPECT_EQ(error_of(one_producer(R"("count": 1)", produce_step + R"("keys": []}])")).pointer(), "/timeline/0/keys");
  EXPECT_EQ(error_of(one_producer(R"("count": 1)", produce_step + R"("tombstones": -0.5}])")).pointer(), "/timeline/0/tombstones");
}

// A record keeps its value id whatever its value: at the start of a value long enough for it,
// else in the logsim.value_id header (a short value, a tombstone).
TEST(Workload, EveryRecordCarriesItsValueId) {
  for (const std::int32_t bytes : {0, 1, 3, 4, 24}) {
    const Record r = make_record("k", 123, bytes, false, 0);
    ASSERT_TRUE(r.value);
    EXPECT_EQ(r.value->size(), static_cast<std::size_t>(bytes));
    EXPECT_EQ(parse_value_id(r), 123u) << bytes << " bytes";
    EXPECT_EQ(r.headers.size(), bytes >= 4 ? 0u : 1u) << "\"123 \" fits in " << bytes << " bytes";
  }
  const Record tombstone = make_record("k", 77, 100, true, 0);
  EXPECT_FALSE(tombstone.value);
  EXPECT_EQ(parse_value_id(tombstone), 77u);
  EXPECT_EQ(parse_value_id(Record{"k", std::string("xxxx"), 0}), 0u) << "no id anywhere";
}

// The bundled table scenario: a group reading as it goes sees the discontinued products' rows
// and deletes; a group rebuilding the table at 30s sees neither (compaction removed the rows,
// then the tombstones after delete.retention.ms), and the checkers call none of that lost.
TEST(Workload, ATableRebuiltFromACompactedTopicMissesDeletedRowsAndTheirTombstones) {
  const Scenario s = load_scenario_file(LOGSIM_SOURCE_DIR "/scenarios/compacted-topic-as-a-table.json");
  const RunOutput out = run_scenario(s, RunOptions{s.seed, false});
  EXPECT_EQ(out.result.verdict.outcome, properties::Outcome::kPass) << out.result.expectation_detail;
  EXPECT_TRUE(out.result.expectation_met);
  std::set<std::uint64_t> tombstones;
  std::map<std::string, std::int64_t> cache, rebuilt;  // processed records per key
  std::int64_t tombstones_read = 0, rebuilt_records = 0;
  for (const auto& e : out.history.events()) {
    if (e.kind == OpKind::kSendInvoke && e.tombstone) tombstones.insert(e.value_id);
    if (e.kind != OpKind::kProcess) continue;
    EXPECT_NE(e.value_id, 0u) << "every record carries its id, 8-byte values and tombstones too";
    if (e.group == "cache") ++cache[e.key.value_or("")];
    if (e.group == "cache") tombstones_read += tombstones.contains(e.value_id);
    if (e.group == "rebuilt-cache") ++rebuilt[e.key.value_or("")], ++rebuilt_records;
  }
  EXPECT_GT(tombstones.size(), 50u) << "a tenth of 800, and the two deletes";
  EXPECT_GT(tombstones_read, 50);
  EXPECT_GE(cache["discontinued-1"], 2) << "its row and its delete (at least once)";
  EXPECT_GE(cache["discontinued-2"], 2);
  EXPECT_FALSE(rebuilt.contains("discontinued-1"));
  EXPECT_FALSE(rebuilt.contains("discontinued-2"));
  EXPECT_GT(rebuilt_records, 0);
  EXPECT_LT(rebuilt_records, 400) << "compaction thinned the log to about a row per key and segment";
}

// ---- disks

// One broker, flush.messages=1 (an fsync after every append), a power loss at 5 s.
std::string power_loss_with_disk(const std::string& disk) {
  return R"({"name": "disk", "duration": "20s", "quiesce": "10s", "seed": 2,
    "cluster": {"brokers": 1, "disk": )" +
         disk + R"(, "config": {"offsets.topic.replication.factor": 1, "offsets.topic.num.partitions": 1}},
    "topics": [{"name": "t", "partitions": 1, "config": {"flush.messages": 1}}],
    "producers": [{"name": "p", "topic": "t", "rate_per_sec": 100, "count": 1500, "keys": {"uniform": 5},
                   "config": {"acks": "all", "request.timeout.ms": 2000}}],
    "consumers": [{"name": "c", "topics": ["t"], "config": {"auto.offset.reset": "earliest", "request.timeout.ms": 2000}}],
    "timeline": [{"at": "5s", "action": "power-loss", "target": "broker-1"}, {"at": "6s", "action": "restart", "target": "broker-1"}]})";
}

TEST(Workload, ALyingDiskLosesWhatFsyncedAppendsKeepThroughAPowerLoss) {
  const Scenario honest = parse_scenario(power_loss_with_disk("{}"), "disk.json");
  EXPECT_EQ(honest.cluster.disk.lying_fsync_probability, 0.0);
  const RunOutput a = run_scenario(honest, RunOptions{honest.seed, false});
  EXPECT_EQ(a.result.verdict.outcome, properties::Outcome::kPass) << "every acknowledged record was fsynced first";
  EXPECT_EQ(a.result.stats.at("records.acknowledged"), 1500);

  const Scenario lying = parse_scenario(power_loss_with_disk(R"({"lying_fsync_probability": 1, "fsync_latency_min": "1ms"})"), "disk.json");
  EXPECT_EQ(lying.cluster.disk.lying_fsync_probability, 1.0);
  EXPECT_EQ(lying.cluster.disk.fsync_latency_min_ns, millis(1));
  const RunOutput b = run_scenario(lying, RunOptions{lying.seed, false});
  ASSERT_EQ(b.result.verdict.outcome, properties::Outcome::kViolated);
  EXPECT_EQ(b.result.verdict.violations.front().anomaly, "inconsistent-offsets") << "the offsets were given out again";
  EXPECT_EQ(b.result.verdict.violations.front().offset, Offset(0));
}

TEST(Workload, RacksAreOnePerBroker) {
  const std::string base = R"({"name": "r", "topics": [{"name": "t"}], "cluster": {"brokers": 3, "racks": )";
  const Scenario s = parse_scenario(base + R"(["a", "b", "a"]}})", "r.json");
  EXPECT_EQ(s.cluster.racks, (std::vector<std::string>{"a", "b", "a"}));
  const ScenarioError e = error_of(base + R"(["a", "b"]}})");
  EXPECT_EQ(e.pointer(), "/cluster/racks");
  EXPECT_EQ(e.problem(), "found 2 racks for 3 brokers");
  EXPECT_EQ(error_of(base + R"(["a", "", "c"]}})").pointer(), "/cluster/racks/1");
}

// ---- properties

std::string reorder_scenario(const std::string& properties, const std::string& expect) {
  return R"({"name": "reorder", "duration": "15s", "seed": 11,
    "cluster": {"brokers": 3, "network": {"latency_min": "2ms", "latency_mean": "1ms"}, "config": {"default.replication.factor": 3, "min.insync.replicas": 2}},
    "topics": [{"name": "payments", "partitions": 1}],
    "producers": [{"name": "checkout", "topic": "payments", "rate_per_sec": 200, "count": 2000, "keys": {"uniform": 10},
      "config": {"acks": "all", "enable.idempotence": false, "max.in.flight.requests.per.connection": 5, "retries": 2147483647,
                 "request.timeout.ms": 1000, "delivery.timeout.ms": 10000}}],
    "consumers": [{"name": "ledger", "topics": ["payments"], "config": {"auto.offset.reset": "earliest"}}],
    "timeline": [{"at": "3s", "action": "partition", "groups": [["checkout"], ["broker-1", "broker-2", "broker-3"]]}, {"at": "3150ms", "action": "heal"}])" +
         properties + R"(, "expect": )" + expect + "}";
}

TEST(Workload, ARealtimeLagBoundIsAPropertyAndItsFigureAStat) {
  // The reordering scenario's consumer reads every record soon after it is acknowledged: the
  // figure is in the stats; a bound below it is a liveness failure, one above it passes.
  const Scenario plain = parse_scenario(reorder_scenario(R"(, "properties": {"ignore": ["nonmonotonic-send"]})", R"({"verdict": "pass"})"), "r.json");
  EXPECT_FALSE(plain.max_realtime_lag.has_value());
  const RunOutput a = run_scenario(plain, RunOptions{plain.seed, false});
  ASSERT_TRUE(a.result.stats.contains("realtime-lag.max_ms"));
  const std::int64_t lag = a.result.stats.at("realtime-lag.max_ms");
  ASSERT_GE(lag, 2) << "the consumer reads past the producer's cut: some record waits";
  const auto bounded = [&](std::int64_t ms) {
    return parse_scenario(reorder_scenario(R"(, "properties": {"ignore": ["nonmonotonic-send"], "max_realtime_lag": ")" +
                                               std::to_string(ms) + R"(ms"})",
                                           R"({"verdict": "liveness"})"),
                          "r.json");
  };
  const Scenario tight = bounded(lag / 2);
  EXPECT_EQ(tight.max_realtime_lag, millis(lag / 2));
  const RunOutput b = run_scenario(tight, RunOptions{tight.seed, false});
  EXPECT_EQ(b.result.verdict.outcome, properties::Outcome::kLiveness);
  ASSERT_FALSE(b.result.verdict.violations.empty());
  EXPECT_EQ(b.result.verdict.violations[0].anomaly, "realtime-lag");
  const Scenario loose = bounded(lag + 1000);
  EXPECT_EQ(run_scenario(loose, RunOptions{loose.seed, false}).result.verdict.outcome, properties::Outcome::kPass);
  // A bound alone is a valid "properties"; neither a bound nor a list is not.
  EXPECT_NO_THROW(parse_scenario(reorder_scenario(R"(, "properties": {"max_realtime_lag": "5s"})", R"({"verdict": "violated"})"), "r.json"));
  const ScenarioError e = error_of(reorder_scenario(R"(, "properties": {})", R"({"verdict": "pass"})"));
  EXPECT_EQ(e.pointer(), "/properties");
}

TEST(Workload, AnIgnoredAnomalyIsNeitherReportedNorAllowedInExpect) {
  // Without properties the reordering is found (the library's retries-reorder-without-idempotence).
  const Scenario found = parse_scenario(reorder_scenario("", R"({"verdict": "violated", "anomalies": ["nonmonotonic-send"]})"), "r.json");
  const RunOutput a = run_scenario(found, RunOptions{found.seed, false});
  EXPECT_EQ(a.result.verdict.outcome, properties::Outcome::kViolated);
  EXPECT_TRUE(a.result.ignored.empty());

  const Scenario ignored = parse_scenario(reorder_scenario(R"(, "properties": {"ignore": ["nonmonotonic-send"]})", R"({"verdict": "pass"})"), "r.json");
  EXPECT_EQ(ignored.ignored, (std::set<std::string>{"nonmonotonic-send"}));
  const RunOutput b = run_scenario(ignored, RunOptions{ignored.seed, false});
  EXPECT_EQ(b.result.verdict.outcome, properties::Outcome::kPass);
  EXPECT_EQ(b.result.ignored, (std::vector<std::string>{"nonmonotonic-send"}));
  EXPECT_EQ(b.result.trace_hash, a.result.trace_hash) << "checking less changes nothing in the run";

  const Scenario only = parse_scenario(reorder_scenario(R"(, "properties": {"check": ["nonmonotonic-send"]})",
                                                        R"({"verdict": "violated", "anomalies": ["nonmonotonic-send"]})"), "r.json");
  EXPECT_EQ(only.ignored.size(), properties::anomaly_names().size() - 1);
  EXPECT_EQ(run_scenario(only, RunOptions{only.seed, false}).result.verdict.outcome, properties::Outcome::kViolated);

  const ScenarioError e = error_of(reorder_scenario(R"(, "properties": {"ignore": ["nonmonotonic-send"]})",
                                                    R"({"verdict": "violated", "anomalies": ["nonmonotonic-send"]})"));
  EXPECT_EQ(e.pointer(), "/expect/anomalies/0");
  EXPECT_EQ(e.problem(), "\"nonmonotonic-send\" is not checked (see /properties)");
}

TEST(Workload, PropertiesMistakesAreReportedWhereTheyAre) {
  const auto with = [](const std::string& properties) { return one_producer(R"("count": 1)", R"(, "properties": )" + properties); };
  EXPECT_EQ(error_of(with(R"({})")).problem(), "found neither \"check\" nor \"ignore\"");
  EXPECT_EQ(error_of(with(R"({"check": []})")).problem(), "found no anomalies to check");
  const ScenarioError unseen = error_of(with(R"({"check": ["unseen"]})"));
  EXPECT_EQ(unseen.pointer(), "/properties/check/0");
  EXPECT_EQ(unseen.problem(), "unseen is checked only after a quiet period");
  EXPECT_EQ(error_of(with(R"({"ignore": ["dupliate"]})")).expected(), "did you mean \"duplicate\"?");
}

}  // namespace
}  // namespace logsim::scenarios

// The scenario loader: sections, Kafka config keys with Kafka's defaults, cross-checks. The
// client sections are read in loader_clients.cc, the timeline and the faults section in
// loader_timeline.cc.
#include "scenarios/loader.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "engine/controller/topic_config.h"
#include "properties/verdict.h"
#include "scenarios/json_reader.h"
#include "scenarios/loader_internal.h"

namespace logsim::scenarios {
namespace {
using namespace detail;  // what the section readers share (loader_internal.h)
}  // namespace

namespace detail {

// The topic config keys a scenario accepts (Kafka's names).
const std::vector<std::string> kTopicConfigKeys = {
    "min.insync.replicas", "unclean.leader.election.enable", "retention.ms", "retention.bytes", "segment.bytes",
    "segment.ms", "cleanup.policy", "delete.retention.ms", "min.compaction.lag.ms", "flush.messages", "flush.ms",
    "message.timestamp.type"};

sim::LinkOptions read_network(const JsonReader& r, const sim::LinkOptions& base) {
  r.expect_object({"latency_min", "latency_mean", "loss_probability", "duplicate_probability", "reorder"});
  sim::LinkOptions o = base;
  if (auto v = r.get("latency_min")) o.latency_min_ns = v->duration();
  if (auto v = r.get("latency_mean")) o.latency_mean_ns = v->duration();
  if (auto v = r.get("loss_probability")) o.loss_probability = v->number(0, 1);
  if (auto v = r.get("duplicate_probability")) o.duplicate_probability = v->number(0, 1);
  if (auto v = r.get("reorder")) o.reorder = v->boolean();
  return o;
}

}  // namespace detail

namespace {

// As for __consumer_offsets and groups: a transactional producer needs __transaction_state,
// which a cluster with fewer brokers than its replication factor cannot create.
void check_transaction_log(const JsonReader& root, const Scenario& s) {
  const BrokerSettings& c = s.cluster.config;
  const bool transactional = std::any_of(s.producers.begin(), s.producers.end(),
                                         [](const ProducerSpec& p) { return p.config.transactional_id.has_value(); }) ||
                             std::any_of(s.groups.begin(), s.groups.end(), [](const GroupSpec& g) { return g.exactly_once.has_value(); });
  if (!transactional || c.transaction_state_log_replication_factor <= s.cluster.brokers) return;
  const bool set = root.has("cluster") && root.at("cluster").has("config") &&
                   root.at("cluster").at("config").has("transaction.state.log.replication.factor");
  (set ? root.at("cluster").at("config").at("transaction.state.log.replication.factor") : root)
      .fail("transaction.state.log.replication.factor is " + std::to_string(c.transaction_state_log_replication_factor) +
                " but the cluster has " + std::to_string(s.cluster.brokers) +
                " broker(s), so __transaction_state cannot be created and no transactional producer would ever get a coordinator",
            "/cluster/config/transaction.state.log.replication.factor at most /cluster/brokers (Kafka's default is 3; "
            "lower transaction.state.log.min.isr with it)");
}

void read_broker_config(const JsonReader& r, BrokerSettings& c) {
  r.expect_object({"default.replication.factor", "min.insync.replicas", "unclean.leader.election.enable",
                   "replica.lag.time.max.ms", "replica.fetch.wait.max.ms", "broker.session.timeout.ms",
                   "broker.heartbeat.interval.ms", "auto.leader.rebalance.enable",
                   "leader.imbalance.check.interval.seconds", "log.retention.check.interval.ms", "num.partitions",
                   "offsets.topic.num.partitions", "offsets.topic.replication.factor", "group.initial.rebalance.delay.ms",
                   "group.min.session.timeout.ms", "group.max.session.timeout.ms", "offsets.commit.timeout.ms",
                   "offsets.retention.minutes", "offsets.retention.check.interval.ms",
                   "transaction.state.log.num.partitions", "transaction.state.log.replication.factor",
                   "transaction.state.log.min.isr", "transaction.max.timeout.ms",
                   "transaction.abort.timed.out.transaction.cleanup.interval.ms"});
  if (auto v = r.get("default.replication.factor")) c.default_replication_factor = config_int(*v, 1);
  if (auto v = r.get("min.insync.replicas")) c.min_insync_replicas = config_int(*v, 1);
  if (auto v = r.get("unclean.leader.election.enable")) c.unclean_leader_election_enable = config_bool(*v);
  if (auto v = r.get("replica.lag.time.max.ms")) c.replica_lag_time_max_ms = config_int(*v, 1);
  if (auto v = r.get("replica.fetch.wait.max.ms")) c.replica_fetch_wait_max_ms = config_int(*v, 0);
  if (auto v = r.get("broker.session.timeout.ms")) c.broker_session_timeout_ms = config_int(*v, 1);
  if (auto v = r.get("broker.heartbeat.interval.ms")) c.broker_heartbeat_interval_ms = config_int(*v, 1);
  if (auto v = r.get("auto.leader.rebalance.enable")) c.auto_leader_rebalance_enable = config_bool(*v);
  if (auto v = r.get("leader.imbalance.check.interval.seconds")) c.leader_imbalance_check_interval_seconds = config_int(*v, 1);
  if (auto v = r.get("log.retention.check.interval.ms")) c.log_retention_check_interval_ms = config_int(*v, 1);
  if (auto v = r.get("num.partitions")) c.num_partitions = config_int(*v, 1);
  if (auto v = r.get("offsets.topic.num.partitions")) c.offsets_topic_num_partitions = config_int(*v, 1);
  if (auto v = r.get("offsets.topic.replication.factor")) c.offsets_topic_replication_factor = config_int(*v, 1);
  if (auto v = r.get("group.initial.rebalance.delay.ms")) c.group_initial_rebalance_delay_ms = config_int(*v, 0);
  if (auto v = r.get("group.min.session.timeout.ms")) c.group_min_session_timeout_ms = config_int(*v, 0);
  if (auto v = r.get("group.max.session.timeout.ms")) c.group_max_session_timeout_ms = config_int(*v, 0);
  if (auto v = r.get("offsets.commit.timeout.ms")) c.offsets_commit_timeout_ms = config_int(*v, 1);
  if (auto v = r.get("offsets.retention.minutes")) c.offsets_retention_minutes = config_int(*v, 1);
  if (auto v = r.get("offsets.retention.check.interval.ms")) c.offsets_retention_check_interval_ms = config_int(*v, 1);
  if (auto v = r.get("transaction.state.log.num.partitions")) c.transaction_state_log_num_partitions = config_int(*v, 1);
  if (auto v = r.get("transaction.state.log.replication.factor")) c.transaction_state_log_replication_factor = config_int(*v, 1);
  if (auto v = r.get("transaction.state.log.min.isr")) c.transaction_state_log_min_isr = config_int(*v, 1);
  if (auto v = r.get("transaction.max.timeout.ms")) c.transaction_max_timeout_ms = config_int(*v, 1);
  if (auto v = r.get("transaction.abort.timed.out.transaction.cleanup.interval.ms")) {
    c.transaction_abort_timed_out_transaction_cleanup_interval_ms = config_int(*v, 1);
  }
}

// A size: bytes as an integer (Kafka's unit) or a string with a unit ("16KiB", "1GiB").
std::int64_t config_size(const JsonReader& r, std::int64_t lo) {
  if (r.json().is_string()) {
    const std::string s = r.json().get<std::string>();
    const std::vector<std::pair<std::string, std::int64_t>> units = {
        {"GiB", 1LL << 30}, {"MiB", 1LL << 20}, {"KiB", 1LL << 10}, {"B", 1}};
    for (const auto& [u, scale] : units) {
      if (s.size() > u.size() && s.compare(s.size() - u.size(), u.size(), u) == 0) {
        const std::string num = s.substr(0, s.size() - u.size());
        if (!num.empty() && num.find_first_not_of("0123456789") == std::string::npos && num.size() < 12) {
          const std::int64_t v = std::stoll(num) * scale;
          if (v >= lo) return v;
        }
      }
    }
    if (s.find_first_not_of("0123456789") != std::string::npos) {
      r.fail("found \"" + s + "\"", "a size in bytes, or with a unit: \"16KiB\", \"64MiB\", \"1GiB\"");
    }
  }
  return r.config_integer(lo, INT64_MAX);
}

// A topic's log configs, with Kafka's keys.
void read_topic_log_config(const JsonReader& c, LogConfig& log) {
  if (auto v = c.get("retention.ms")) log.retention_ms = v->config_integer(-1, INT64_MAX);
  if (auto v = c.get("retention.bytes")) {
    const bool unlimited = (v->json().is_number_integer() && v->json().get<std::int64_t>() == -1) ||
                           (v->json().is_string() && v->json().get<std::string>() == "-1");
    log.retention_bytes = unlimited ? -1 : config_size(*v, 0);
  }
  if (auto v = c.get("segment.bytes")) log.segment_bytes = config_size(*v, 14);
  if (auto v = c.get("segment.ms")) log.segment_ms = v->config_integer(1, INT64_MAX);
  if (auto v = c.get("delete.retention.ms")) log.delete_retention_ms = v->config_integer(0, INT64_MAX);
  if (auto v = c.get("min.compaction.lag.ms")) log.min_compaction_lag_ms = v->config_integer(0, INT64_MAX);
  if (auto v = c.get("flush.messages")) log.flush_messages = v->config_integer(1, INT64_MAX);
  if (auto v = c.get("flush.ms")) log.flush_ms = v->config_integer(0, INT64_MAX);
  if (auto v = c.get("cleanup.policy")) {
    const std::string s = v->string();
    if (s == "delete") log.cleanup_policy = CleanupPolicy::kDelete;
    else if (s == "compact") log.cleanup_policy = CleanupPolicy::kCompact;
    else if (s == "compact,delete" || s == "delete,compact") log.cleanup_policy = CleanupPolicy::kCompactDelete;
    else v->fail("found \"" + s + "\"", "\"delete\", \"compact\" or \"compact,delete\"");
  }
  if (auto v = c.get("message.timestamp.type")) {
    const std::string s = v->string();
    if (s == "CreateTime") log.timestamp_type = TimestampType::kCreateTime;
    else if (s == "LogAppendTime") log.timestamp_type = TimestampType::kLogAppendTime;
    else v->fail("found \"" + s + "\"", "\"CreateTime\" or \"LogAppendTime\"");
  }
}

// The brokers' and the controller's disks (sim/disk.h's fault model).
sim::SimDiskOptions read_disk(const JsonReader& r) {
  r.expect_object({"fsync_latency_min", "fsync_latency_mean", "torn_write_probability", "torn_corrupt_probability",
                   "lying_fsync_probability"});
  sim::SimDiskOptions d;
  if (auto v = r.get("fsync_latency_min")) d.fsync_latency_min_ns = v->duration();
  if (auto v = r.get("fsync_latency_mean")) d.fsync_latency_mean_ns = v->duration();
  if (auto v = r.get("torn_write_probability")) d.torn_write_probability = v->number(0, 1);
  if (auto v = r.get("torn_corrupt_probability")) d.torn_corrupt_probability = v->number(0, 1);
  if (auto v = r.get("lying_fsync_probability")) d.lying_fsync_probability = v->number(0, 1);
  return d;
}

void read_cluster(const JsonReader& r, Scenario& s) {
  r.expect_object({"brokers", "racks", "network", "disk", "config"});
  if (auto v = r.get("brokers")) s.cluster.brokers = static_cast<std::int32_t>(v->integer(1, 100));
  if (auto v = r.get("racks")) {
    for (const auto& item : v->items()) {
      s.cluster.racks.push_back(item.string());
      if (s.cluster.racks.back().empty()) item.fail("found an empty rack name", "a rack name such as \"us-east-1a\"");
    }
    if (static_cast<std::int32_t>(s.cluster.racks.size()) != s.cluster.brokers) {
      v->fail("found " + std::to_string(s.cluster.racks.size()) + " racks for " + std::to_string(s.cluster.brokers) + " brokers",
              "one rack name per broker (broker.rack of broker-1, broker-2, ...)");
    }
  }
  if (auto v = r.get("network")) s.cluster.network = read_network(*v);
  if (auto v = r.get("disk")) s.cluster.disk = read_disk(*v);
  if (auto v = r.get("config")) read_broker_config(*v, s.cluster.config);
  if (s.cluster.config.default_replication_factor > s.cluster.brokers) {
    r.at("config").at("default.replication.factor").fail(
        "default.replication.factor " + std::to_string(s.cluster.config.default_replication_factor) + " exceeds the " +
            std::to_string(s.cluster.brokers) + " brokers",
        "at most the number of brokers");
  }
}

// A topic's configs (Kafka's keys) into `spec`.
}  // namespace

namespace detail {

void read_topic_config(const JsonReader& c, TopicSpec& spec) {
  c.expect_object(kTopicConfigKeys);
  if (auto v = c.get("min.insync.replicas")) spec.min_insync_replicas = config_int(*v, 1);
  if (auto v = c.get("unclean.leader.election.enable")) spec.unclean_leader_election = config_bool(*v);
  read_topic_log_config(c, spec.log);
}

// One topic: under /topics, or in a create-topic step.
TopicSpec read_topic(const JsonReader& t, const Scenario& s) {
  t.expect_object({"name", "partitions", "replication_factor", "config"});
  TopicSpec spec;
  spec.name = t.at("name").string();
  if (spec.name.empty()) t.at("name").fail("found an empty name", "a topic name");
  if (spec.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != std::string::npos ||
      spec.name == "." || spec.name == ".." || spec.name.size() > 249) {
    t.at("name").fail("\"" + spec.name + "\" is not a legal Kafka topic name",
                      "1 to 249 of the characters a-z A-Z 0-9 . _ - (and not \".\" or \"..\")");
  }
  if (auto v = t.get("partitions")) spec.partitions = static_cast<std::int32_t>(v->integer(1, 10'000));
  else spec.partitions = s.cluster.config.num_partitions;
  spec.replication_factor = s.cluster.config.default_replication_factor;
  if (auto v = t.get("replication_factor")) {
    spec.replication_factor = static_cast<std::int32_t>(v->integer(1, s.cluster.brokers));
  }
  spec.min_insync_replicas = s.cluster.config.min_insync_replicas;
  if (auto c = t.get("config")) read_topic_config(*c, spec);
  return spec;
}

}  // namespace detail

namespace {

void read_topics(const JsonReader& r, Scenario& s) {
  for (const auto& t : r.items()) {
    TopicSpec spec = read_topic(t, s);
    for (const auto& other : s.topics) {
      if (other.name == spec.name) t.at("name").fail("topic \"" + spec.name + "\" is defined twice", "unique topic names");
    }
    s.topics.push_back(spec);
  }
}

// The names of the topics create-topic steps make, read leniently ahead of the producers and
// consumers that may use them (the timeline itself is checked strictly later).
void scan_created_topics(const JsonReader& root, Scenario& s) {
  const auto timeline = root.get("timeline");
  if (!timeline || !timeline->json().is_array()) return;
  for (const auto& step : timeline->json()) {
    if (!step.is_object() || step.value("action", nlohmann::json()) != "create-topic") continue;
    const auto topic = step.find("topic");
    if (topic == step.end() || !topic->is_object() || !topic->contains("name") || !(*topic)["name"].is_string()) continue;
    s.created_topics.push_back((*topic)["name"].get<std::string>());
  }
}

std::string check_anomaly(const JsonReader& r) {
  const std::string name = r.string();
  const auto& names = properties::anomaly_names();
  if (std::find(names.begin(), names.end(), name) != names.end()) return name;
  if (auto guess = did_you_mean(name, names)) r.fail("unknown anomaly \"" + name + "\"", "did you mean \"" + *guess + "\"?");
  std::string all;
  for (const auto& n : names) all += " " + n;
  r.fail("unknown anomaly \"" + name + "\"", "one of:" + all);
}

Found read_found(const JsonReader& r) {
  r.expect_object({"verdict", "anomalies", "trace_hash", "by"});
  Found f;
  f.verdict = r.at("verdict").string();
  if (f.verdict != "violated" && f.verdict != "liveness" && f.verdict != "internal-error") {
    r.at("verdict").fail("found \"" + f.verdict + "\"", "\"violated\", \"liveness\" or \"internal-error\" (the failure logsim fuzz saw)");
  }
  if (auto v = r.get("anomalies")) {
    for (const auto& a : v->items()) f.anomalies.push_back(check_anomaly(a));
  }
  if (auto v = r.get("trace_hash")) {
    f.trace_hash = v->string();
    if (f.trace_hash.size() != 16 || f.trace_hash.find_first_not_of("0123456789abcdef") != std::string::npos) {
      v->fail("found \"" + f.trace_hash + "\"", "16 lowercase hex digits, as summary.json's trace_hash");
    }
  }
  if (auto v = r.get("by")) f.by = v->string();
  return f;
}

// "properties": which anomalies are checked — {"check": [...]} (only these) or {"ignore": [...]}
// (all but these) — and bounds: {"max_realtime_lag": "10s"}, {"write_isolation": true}.
void read_properties(const JsonReader& r, Scenario& s) {
  r.expect_object({"check", "ignore", "max_realtime_lag", "write_isolation"});
  if (auto v = r.get("max_realtime_lag")) s.max_realtime_lag = v->duration();
  if (auto v = r.get("write_isolation")) s.write_isolation = v->boolean();
  if (!r.has("check") && !r.has("ignore")) {
    if (s.max_realtime_lag || r.has("write_isolation")) return;
    r.fail("found neither \"check\" nor \"ignore\"",
           "one of {\"check\": [anomalies to check]} or {\"ignore\": [anomalies not to check]}, or a bound such as "
           "{\"max_realtime_lag\": \"10s\"} or {\"write_isolation\": true}");
  }
  if (r.has("check") && r.has("ignore")) {
    r.fail("found both \"check\" and \"ignore\"",
           "one of {\"check\": [anomalies to check]} or {\"ignore\": [anomalies not to check]}");
  }
  const bool only = r.has("check");
  const JsonReader list = r.at(only ? "check" : "ignore");
  std::set<std::string> named;
  for (const auto& a : list.items()) {
    const std::string name = check_anomaly(a);
    if ((name == "unseen" || name == "liveness") && only && s.quiesce == 0) {
      a.fail(name + " is checked only after a quiet period", "a top-level \"quiesce\" (e.g. \"15s\") or a \"heal-and-quiesce\" phase to check it");
    }
    named.insert(name);
  }
  if (only && named.empty()) list.fail("found no anomalies to check", "at least one anomaly (or no \"properties\": check them all)");
  for (const auto& name : properties::anomaly_names()) {
    if (named.contains(name) != only) s.ignored.insert(name);
  }
}

void read_expect(const JsonReader& r, Scenario& s) {
  r.expect_object({"verdict", "anomalies"});
  if (auto v = r.get("verdict")) {
    s.expect.verdict = v->string();
    if (s.expect.verdict != "pass" && s.expect.verdict != "violated" && s.expect.verdict != "liveness") {
      v->fail("found \"" + s.expect.verdict + "\"", "\"pass\", \"violated\" or \"liveness\"");
    }
  }
  if (auto v = r.get("anomalies")) {
    for (const auto& a : v->items()) {
      s.expect.anomalies.push_back(check_anomaly(a));
      if (s.ignored.contains(s.expect.anomalies.back())) {
        a.fail("\"" + s.expect.anomalies.back() + "\" is not checked (see /properties)", "an anomaly the scenario checks");
      }
    }
  }
}

// Fails at the second use of a node name, saying where the first one is.
void check_unique_names(const JsonReader& root, const Scenario& s) {
  std::map<std::string, std::string> first;  // name -> where it is defined
  for (std::int32_t b = 1; b <= s.cluster.brokers; ++b) first["broker-" + std::to_string(b)] = "/cluster/brokers";
  first["controller"] = "/cluster (the controller node)";
  first["admin"] = "the admin client node (it carries out topic admin steps)";
  auto check = [&](const char* section, std::size_t count, auto name_of) {
    if (!root.has(section)) return;
    const auto items = root.at(section).items();
    for (std::size_t i = 0; i < count; ++i) {
      const std::string& name = name_of(i);
      const JsonReader at = items[i].at("name");
      auto [it, fresh] = first.emplace(name, at.pointer());
      if (!fresh) at.fail("the name \"" + name + "\" is already used at " + it->second, "a name no other broker, producer or consumer has");
    }
  };
  check("producers", s.producers.size(), [&](std::size_t i) -> const std::string& { return s.producers[i].name; });
  check("consumers", s.consumers.size(), [&](std::size_t i) -> const std::string& { return s.consumers[i].name; });
  if (!root.has("groups")) return;
  const auto items = root.at("groups").items();
  for (std::size_t i = 0; i < s.groups.size(); ++i) {
    for (std::int32_t m = 1; m <= s.groups[i].members; ++m) {
      const std::string name = s.groups[i].member_name(m);
      const JsonReader at = items[i].at("name");
      auto [it, fresh] = first.emplace(name, at.pointer() + " (member " + std::to_string(m) + ")");
      if (!fresh) {
        at.fail("the group's member " + std::to_string(m) + " would be named \"" + name + "\", which is already used at " +
                    it->second,
                "a group name whose members' names (" + s.groups[i].name + "-1, ...) no other node has");
      }
    }
  }
}

}  // namespace

std::string expected_clause(std::string_view expected) {
  // A guess reads as a question of its own: "...; did you mean "acks"?".
  if (expected.starts_with("did you mean")) return "; " + std::string(expected);
  return "; expected " + std::string(expected);
}

ScenarioError::ScenarioError(std::string file, std::string pointer, std::string problem, std::string expected)
    : std::runtime_error(file + ": " + pointer + ": " + problem + expected_clause(expected)),
      file_(std::move(file)), pointer_(std::move(pointer)), problem_(std::move(problem)), expected_(std::move(expected)) {}

std::optional<Nanos> parse_duration(std::string_view text) {
  std::size_t i = 0;
  std::int64_t value = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    if (value > (INT64_MAX / 10) - 10) return std::nullopt;
    value = value * 10 + (text[i] - '0');
    ++i;
  }
  if (i == 0) return std::nullopt;
  const std::string_view unit = text.substr(i);
  const std::vector<std::pair<std::string_view, Nanos>> units = {
      {"ns", 1}, {"us", kNanosPerMicro}, {"ms", kNanosPerMilli}, {"s", kNanosPerSecond},
      {"m", 60 * kNanosPerSecond}, {"h", 3600 * kNanosPerSecond}, {"d", 86400 * kNanosPerSecond}};
  for (const auto& [u, scale] : units) {
    if (unit == u) {
      if (value > INT64_MAX / scale) return std::nullopt;
      return value * scale;
    }
  }
  return std::nullopt;
}

std::optional<std::string> did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  // A word that begins exactly one candidate is short for it ("rate" for "rate_per_sec").
  std::optional<std::string> prefix_of;
  for (const auto& c : candidates) {
    if (word.size() < 3 || c.size() <= word.size() || !c.starts_with(word)) continue;
    if (prefix_of) {
      prefix_of.reset();
      break;
    }
    prefix_of = c;
  }
  if (prefix_of) return prefix_of;
  std::optional<std::string> best;
  std::size_t best_distance = word.size() / 3 + 2;  // closer than this counts as a typo
  for (const auto& c : candidates) {
    // Levenshtein distance, one row at a time.
    std::vector<std::size_t> row(c.size() + 1);
    for (std::size_t j = 0; j <= c.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= word.size(); ++i) {
      std::size_t diag = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= c.size(); ++j) {
        const std::size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (word[i - 1] == c[j - 1] ? 0 : 1)});
        diag = up;
      }
    }
    if (row[c.size()] < best_distance) {
      best_distance = row[c.size()];
      best = c;
    }
  }
  return best;
}

namespace {

// `phases`: the run as a fault phase and then, optionally, a heal-and-quiesce phase; the same
// run as `duration` plus `quiesce`, written the way the run unfolds.
void read_phases(const JsonReader& root, const JsonReader& phases, Scenario& s) {
  for (const char* key : {"duration", "quiesce"}) {
    if (root.has(key)) {
      root.at(key).fail(std::string("\"") + key + "\" and \"phases\" both give the run's length",
                        "one of them: a \"faults\" phase is the duration, a \"heal-and-quiesce\" phase the quiesce");
    }
  }
  const auto items = phases.items();
  if (items.empty() || items.size() > 2) {
    phases.fail("found " + std::to_string(items.size()) + " phases",
                "a \"faults\" phase, optionally followed by a \"heal-and-quiesce\" phase");
  }
  constexpr std::array<std::string_view, 2> kKinds{"faults", "heal-and-quiesce"};
  for (std::size_t i = 0; i < items.size(); ++i) {
    const JsonReader& item = items[i];
    item.expect_object({"phase", "for"});
    const JsonReader kind = item.at("phase");
    const std::string name = kind.string();
    if (name != kKinds[i]) {
      const bool known = name == kKinds[0] || name == kKinds[1];
      kind.fail(known ? "found the \"" + name + "\" phase in position " + std::to_string(i + 1)
                      : "unknown phase \"" + name + "\"",
                i == 0 ? "\"faults\" first (the phase with the timeline and the fault schedule)"
                       : "\"heal-and-quiesce\" second (faults heal, then every group must catch up)");
    }
    const JsonReader length = item.at("for");
    const Nanos d = length.duration();
    if (d <= 0) length.fail("found a zero duration", "a positive duration");
    (i == 0 ? s.duration : s.quiesce) = d;
  }
}

}  // namespace

Scenario parse_scenario(std::string_view text, const std::string& file, const std::vector<std::string>& apps) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw ScenarioError(file, "/", "not valid JSON (byte " + std::to_string(e.byte) + ")", "a JSON object");
  } catch (const nlohmann::json::exception& e) {
    // e.g. a number too large for a double (1e309): found by the loader's libFuzzer target.
    throw ScenarioError(file, "/", std::string("not valid JSON: ") + e.what(), "a JSON object with numbers in range");
  }
  const JsonReader root(j, "", file);
  root.expect_object({"$schema", "name", "description", "duration", "quiesce", "phases", "seed", "cluster", "topics",
                      "producers", "consumers", "groups", "timeline", "faults", "properties", "expect", "plant", "found"});
  Scenario s;
  s.file = file;
  s.name = root.at("name").string();
  if (auto v = root.get("description")) s.description = v->string();
  if (auto v = root.get("duration")) s.duration = v->duration();
  if (s.duration <= 0) root.at("duration").fail("found a zero duration", "a positive duration");
  if (auto v = root.get("quiesce")) s.quiesce = v->duration();
  if (auto v = root.get("phases")) read_phases(root, *v, s);
  if (auto v = root.get("seed")) s.seed = static_cast<std::uint64_t>(v->integer(0, INT64_MAX));
  if (auto v = root.get("cluster")) read_cluster(*v, s);
  read_topics(root.at("topics"), s);
  scan_created_topics(root, s);
  if (auto v = root.get("producers")) read_producers(*v, s, apps);
  if (auto v = root.get("consumers")) read_consumers(*v, s);
  if (root.has("groups")) read_groups(root, s, apps);
  check_transaction_log(root, s);
  check_unique_names(root, s);
  if (auto v = root.get("timeline")) read_timeline(*v, s);
  if (auto v = root.get("faults")) s.faults = read_faults(*v, s);
  if (auto v = root.get("properties")) read_properties(*v, s);
  if (auto v = root.get("expect")) read_expect(*v, s);
  if (auto v = root.get("found")) s.found = read_found(*v);
  if (auto v = root.get("plant")) {
    for (const auto& item : v->items()) {
      const std::string name = item.string();
      auto p = plant_by_name(name);
      if (!p) {
        std::vector<std::string> names;
        for (const auto& info : all_plants()) names.emplace_back(info.name);
        auto guess = did_you_mean(name, names);
        std::string all;
        for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
        item.fail("unknown plant \"" + name + "\"", guess ? "did you mean \"" + *guess + "\"?" : "one of " + all);
      }
      s.plants.add(*p);
    }
  }
  return s;
}

Scenario load_scenario_file(const std::string& path, const std::vector<std::string>& apps) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw ScenarioError(path, "/", "cannot read the file: it is a directory", "a scenario file (.json)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError(path, "/", "cannot open the file", "a readable scenario file");
  std::ostringstream buf;
  buf << in.rdbuf();
  return parse_scenario(buf.str(), path, apps);
}

}  // namespace logsim::scenarios

// The scenario loader's client sections: producers (with their keys and Kafka producer
// configs), manually assigned consumers and consumer groups (their Kafka consumer configs,
// processing, commit strategy and failure handling). Internal to the loader.
#include <algorithm>
#include <map>
#include <set>

#include "scenarios/json_reader.h"
#include "scenarios/loader.h"
#include "scenarios/loader_internal.h"

namespace logsim::scenarios::detail {

std::int32_t config_int(const JsonReader& r, std::int64_t lo) {
  return static_cast<std::int32_t>(r.config_integer(lo, INT32_MAX));
}

bool config_bool(const JsonReader& r) {
  const auto& j = r.json();
  if (j.is_boolean()) return j.get<bool>();
  if (j.is_string() && (j.get<std::string>() == "true" || j.get<std::string>() == "false")) return j.get<std::string>() == "true";
  r.fail("found " + j.dump(), "true or false");
}

namespace {

using engine::OffsetReset;

// Kafka's producer rules for enable.idempotence (KIP-679): it defaults to true, but is quietly
// turned off when another setting conflicts (acks other than all, retries 0, more than five
// requests in flight); set explicitly to true with such a setting it is a configuration error.
// A transactional.id needs idempotence: it cannot be turned off, and a conflict is an error.
// The setting that rules idempotence out, if any.
std::string idempotence_conflict(const engine::ProducerConfig& c) {
  if (c.acks != -1) return "acks=" + std::to_string(c.acks);
  if (c.retries == 0) return "retries=0";
  if (c.max_in_flight > 5) return "max.in.flight.requests.per.connection=" + std::to_string(c.max_in_flight);
  return "";
}

void resolve_idempotence(const JsonReader& r, engine::ProducerConfig& c, std::optional<bool> explicit_idempotence) {
  const std::string conflict = idempotence_conflict(c);
  if (c.transactional_id) {
    if (explicit_idempotence == false) {
      r.at("enable.idempotence").fail("enable.idempotence=false with a transactional.id",
                                      "enable.idempotence=true (or unset): a transactional producer is idempotent");
    }
    if (!conflict.empty()) {
      r.at("transactional.id").fail("a transactional.id conflicts with " + conflict,
                                    "acks=all, retries > 0 and max.in.flight.requests.per.connection <= 5 "
                                    "(a transactional producer is idempotent)");
    }
  }
  if (explicit_idempotence.value_or(false) && !conflict.empty()) {
    r.at("enable.idempotence").fail("enable.idempotence=true conflicts with " + conflict,
                                    "acks=all, retries > 0 and max.in.flight.requests.per.connection <= 5 "
                                    "(Kafka's producer refuses this configuration)");
  }
  c.enable_idempotence = explicit_idempotence.value_or(conflict.empty());
}

void read_producer_config(const JsonReader& r, engine::ProducerConfig& c) {
  r.expect_object({"acks", "retries", "retry.backoff.ms", "request.timeout.ms", "delivery.timeout.ms", "batch.size",
                   "linger.ms", "max.in.flight.requests.per.connection", "enable.idempotence",
                   "metadata.max.age.ms", "partitioner.ignore.keys", "partitioner.adaptive.partitioning.enable",
                   "partitioner.availability.timeout.ms", "transactional.id", "transaction.timeout.ms"});
  if (auto v = r.get("acks")) {
    const auto& j = v->json();
    const std::string s = j.is_string() ? j.get<std::string>() : j.dump();
    if (s == "all" || s == "-1") c.acks = -1;
    else if (s == "0") c.acks = 0;
    else if (s == "1") c.acks = 1;
    else v->fail("found " + j.dump(), "\"all\", -1, 0 or 1");
  }
  if (auto v = r.get("retries")) c.retries = static_cast<std::int32_t>(v->config_integer(0, INT32_MAX));
  if (auto v = r.get("retry.backoff.ms")) c.retry_backoff_ms = static_cast<std::int32_t>(v->config_integer(0, INT32_MAX));
  if (auto v = r.get("request.timeout.ms")) c.request_timeout_ms = static_cast<std::int32_t>(v->config_integer(1, INT32_MAX));
  if (auto v = r.get("delivery.timeout.ms")) c.delivery_timeout_ms = static_cast<std::int32_t>(v->config_integer(1, INT32_MAX));
  if (auto v = r.get("batch.size")) c.batch_size = static_cast<std::int32_t>(v->config_integer(0, INT32_MAX));
  if (auto v = r.get("linger.ms")) c.linger_ms = static_cast<std::int32_t>(v->config_integer(0, INT32_MAX));
  if (auto v = r.get("max.in.flight.requests.per.connection")) {
    c.max_in_flight = static_cast<std::int32_t>(v->config_integer(1, INT32_MAX));
  }
  if (auto v = r.get("metadata.max.age.ms")) c.metadata_max_age_ms = static_cast<std::int32_t>(v->config_integer(0, INT32_MAX));
  if (auto v = r.get("partitioner.ignore.keys")) c.partitioner_ignore_keys = config_bool(*v);
  if (auto v = r.get("partitioner.adaptive.partitioning.enable")) c.partitioner_adaptive = config_bool(*v);
  if (auto v = r.get("partitioner.availability.timeout.ms")) {
    c.partitioner_availability_timeout_ms = static_cast<std::int32_t>(v->config_integer(0, INT32_MAX));
  }
  if (auto v = r.get("transactional.id")) {
    c.transactional_id = v->string();
    if (c.transactional_id->empty()) v->fail("found an empty transactional.id", "a non-empty id, or no transactional.id");
  }
  if (auto v = r.get("transaction.timeout.ms")) {
    c.transaction_timeout_ms = static_cast<std::int32_t>(v->config_integer(1, INT32_MAX));
  }
  std::optional<bool> idempotence;
  if (auto v = r.get("enable.idempotence")) idempotence = config_bool(*v);
  resolve_idempotence(r, c, idempotence);
  if (c.delivery_timeout_ms < c.request_timeout_ms + c.linger_ms) {
    r.fail("delivery.timeout.ms (" + std::to_string(c.delivery_timeout_ms) + ") is below request.timeout.ms (" +
               std::to_string(c.request_timeout_ms) + ")" + (c.linger_ms > 0 ? " + linger.ms (" + std::to_string(c.linger_ms) + ")" : ""),
           "delivery.timeout.ms >= request.timeout.ms + linger.ms, as Kafka's producer requires");
  }
}

const std::vector<std::string> kConsumerConfigKeys = {
    "max.poll.records", "auto.offset.reset", "fetch.max.wait.ms", "request.timeout.ms", "retry.backoff.ms",
    "metadata.max.age.ms", "isolation.level"};
// Only for group members (/groups): membership and commits.
const std::vector<std::string> kGroupConsumerConfigKeys = {
    "session.timeout.ms", "heartbeat.interval.ms", "max.poll.interval.ms", "partition.assignment.strategy",
    "auto.commit.interval.ms", "default.api.timeout.ms", "group.instance.id"};

void read_consumer_config(const JsonReader& r, engine::ConsumerConfig& c, bool group = false) {
  std::vector<std::string> keys = kConsumerConfigKeys;
  if (group) keys.insert(keys.end(), kGroupConsumerConfigKeys.begin(), kGroupConsumerConfigKeys.end());
  r.expect_object(keys);
  if (auto v = r.get("max.poll.records")) c.max_poll_records = static_cast<std::int32_t>(v->config_integer(1, INT32_MAX));
  if (auto v = r.get("auto.offset.reset")) {
    const std::string s = v->string();
    if (s == "earliest") c.auto_offset_reset = OffsetReset::kEarliest;
    else if (s == "latest") c.auto_offset_reset = OffsetReset::kLatest;
    else if (s == "none") c.auto_offset_reset = OffsetReset::kNone;
    else v->fail("found \"" + s + "\"", "\"earliest\", \"latest\" or \"none\"");
  }
  if (auto v = r.get("isolation.level")) {
    const std::string s = v->string();
    if (s == "read_uncommitted") c.isolation_level = IsolationLevel::kReadUncommitted;
    else if (s == "read_committed") c.isolation_level = IsolationLevel::kReadCommitted;
    else v->fail("found \"" + s + "\"", "\"read_uncommitted\" or \"read_committed\"");
  }
  if (auto v = r.get("fetch.max.wait.ms")) c.fetch_max_wait_ms = static_cast<std::int32_t>(v->config_integer(0, INT32_MAX));
  if (auto v = r.get("request.timeout.ms")) c.request_timeout_ms = static_cast<std::int32_t>(v->config_integer(1, INT32_MAX));
  if (auto v = r.get("retry.backoff.ms")) c.retry_backoff_ms = static_cast<std::int32_t>(v->config_integer(0, INT32_MAX));
  if (auto v = r.get("metadata.max.age.ms")) c.metadata_max_age_ms = static_cast<std::int32_t>(v->config_integer(1, INT32_MAX));
  if (!group) return;
  if (auto v = r.get("session.timeout.ms")) c.session_timeout_ms = static_cast<std::int32_t>(v->config_integer(1, INT32_MAX));
  if (auto v = r.get("heartbeat.interval.ms")) c.heartbeat_interval_ms = static_cast<std::int32_t>(v->config_integer(1, INT32_MAX));
  if (auto v = r.get("max.poll.interval.ms")) c.max_poll_interval_ms = static_cast<std::int32_t>(v->config_integer(1, INT32_MAX));
  if (auto v = r.get("auto.commit.interval.ms")) c.auto_commit_interval_ms = static_cast<std::int32_t>(v->config_integer(0, INT32_MAX));
  if (auto v = r.get("default.api.timeout.ms")) c.default_api_timeout_ms = static_cast<std::int32_t>(v->config_integer(1, INT32_MAX));
  if (auto v = r.get("group.instance.id")) {
    c.group_instance_id = v->string();
    if (c.group_instance_id->empty()) v->fail("found an empty group.instance.id", "a non-empty id, or no group.instance.id (a dynamic member)");
  }
  if (auto v = r.get("partition.assignment.strategy")) {
    // Kafka's list type: a comma-separated string, or here also a JSON list.
    std::vector<std::pair<std::string, JsonReader>> names;
    if (v->json().is_array()) {
      for (const auto& item : v->items()) names.emplace_back(item.string(), item);
    } else {
      const std::string text = v->string();
      std::size_t start = 0;
      while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        std::string name = text.substr(start, comma - start);
        name.erase(0, name.find_first_not_of(' '));
        name.erase(name.find_last_not_of(' ') + 1);
        names.emplace_back(name, *v);
        start = comma + 1;
      }
    }
    c.partition_assignment_strategy.clear();
    const std::vector<std::string> known = {"range", "roundrobin", "sticky", "cooperative-sticky"};
    for (const auto& [name, at] : names) {
      if (!engine::assignor_by_name(name)) {
        auto guess = did_you_mean(name, known);
        at.fail("unknown assignor \"" + name + "\"",
                guess ? "did you mean \"" + *guess + "\"?" : "range, roundrobin, sticky or cooperative-sticky (or Kafka's class names)");
      }
      c.partition_assignment_strategy.push_back(name);
    }
    if (c.partition_assignment_strategy.empty()) v->fail("found no assignor", "at least one assignor");
  }
  if (c.heartbeat_interval_ms >= c.session_timeout_ms) {
    r.at(r.has("heartbeat.interval.ms") ? "heartbeat.interval.ms" : "session.timeout.ms")
        .fail("heartbeat.interval.ms " + std::to_string(c.heartbeat_interval_ms) + " is not below session.timeout.ms " +
                  std::to_string(c.session_timeout_ms),
              "heartbeat.interval.ms lower than session.timeout.ms (Kafka: \"Heartbeat must be set lower than the session timeout\")");
  }
}

// The network options given, over `base` (a step changes only what it names).

KeySpec read_keys(const JsonReader& r) {
  KeySpec k;
  if (r.json().is_null()) return k;
  r.expect_object({"uniform", "list", "zipf", "exponent", "hot", "share"});
  const int bases = int{r.has("uniform")} + int{r.has("list")} + int{r.has("zipf")};
  if (bases != 1) {
    r.fail("a key choice needs exactly one of \"uniform\", \"list\" or \"zipf\"",
           "{\"uniform\": N}, {\"list\": [\"k1\", ...]} or {\"zipf\": N, \"exponent\": 1.1}, optionally with "
           "{\"hot\": \"key\", \"share\": 0.7}");
  }
  if (auto v = r.get("uniform")) {
    k.kind = KeySpec::Kind::kUniform;
    k.uniform = static_cast<std::int32_t>(v->integer(1, 10'000'000));
  }
  if (auto v = r.get("list")) {
    k.kind = KeySpec::Kind::kList;
    for (const auto& item : v->items()) k.list.push_back(item.string());
    if (k.list.empty()) v->fail("found an empty list", "at least one key");
  }
  if (auto v = r.get("zipf")) {
    k.kind = KeySpec::Kind::kZipf;
    k.uniform = static_cast<std::int32_t>(v->integer(1, 1'000'000));
    if (auto e = r.get("exponent")) k.exponent = e->number(0, 10);
  } else if (auto e = r.get("exponent")) {
    e->fail("\"exponent\" is for \"zipf\" keys", "no \"exponent\", or {\"zipf\": N, \"exponent\": S}");
  }
  if (r.has("hot") != r.has("share")) {
    r.fail("a hot key needs both \"hot\" and \"share\"", "{\"hot\": \"user-celebrity\", \"share\": 0.7} besides the other keys");
  }
  if (auto v = r.get("hot")) {
    k.hot = v->string();
    k.hot_share = r.at("share").number(0, 1);
  }
  return k;
}

std::vector<std::string> topic_names(const Scenario& s) {
  std::vector<std::string> out;
  for (const auto& t : s.topics) out.push_back(t.name);
  out.insert(out.end(), s.created_topics.begin(), s.created_topics.end());
  return out;
}

// The "app" key of a producer or group: a registered user's application, which decides what
// the built-in application's keys (`builtin_keys`) would have, so those are refused beside it.
std::string read_app(const JsonReader& r, const std::vector<std::string>& apps, const std::vector<std::string>& builtin_keys) {
  const JsonReader v = r.at("app");
  const std::string name = v.string();
  if (std::find(apps.begin(), apps.end(), name) == apps.end()) {
    std::string all;
    for (const auto& a : apps) all += (all.empty() ? "\"" : ", \"") + a + "\"";
    auto guess = did_you_mean(name, apps);
    v.fail("no application named \"" + name + "\" is registered in this program",
           guess ? "did you mean \"" + *guess + "\"? (registered: " + all + ")"
           : apps.empty() ? "no \"app\" (this program registers no applications: run the scenario from a binary "
                            "that calls logsim::register_app(\"" + name + "\", ...), api/app.h)"
                          : "one of the registered applications: " + all);
  }
  for (const auto& key : builtin_keys) {
    if (r.has(key)) {
      r.at(key).fail("\"" + key + "\" is for logsim's own application, but app \"" + name + "\" runs here",
                     "no \"" + key + "\": the app decides it");
    }
  }
  return name;
}

std::string check_topic(const JsonReader& r, const Scenario& s) {
  const std::string name = r.string();
  const auto names = topic_names(s);
  if (std::find(names.begin(), names.end(), name) != names.end()) return name;
  auto guess = did_you_mean(name, names);
  r.fail("unknown topic \"" + name + "\"",
         guess ? "did you mean \"" + *guess + "\"?" : "a topic defined under /topics or created by a create-topic step");
}

}  // namespace

void read_producers(const JsonReader& r, Scenario& s, const std::vector<std::string>& apps) {
  for (const auto& p : r.items()) {
    p.expect_object({"name", "topic", "rate_per_sec", "count", "for", "start", "keys", "value_bytes", "tombstones", "config", "app",
                     "transactions"});
    ProducerSpec spec;
    if (p.has("app")) {
      spec.app = read_app(p, apps, {"rate_per_sec", "count", "for", "start", "keys", "value_bytes", "tombstones", "transactions"});
    }
    spec.name = p.at("name").string();
    spec.topic = check_topic(p.at("topic"), s);
    if (auto v = p.get("rate_per_sec")) spec.rate_per_sec = v->number(0.001, 10'000'000);
    if (auto v = p.get("count")) spec.count = v->integer(0, 1'000'000'000);
    if (auto v = p.get("for")) {
      // As many records as the rate sends in that time: the first at `start`, then one per interval.
      if (p.has("count")) v->fail("found both \"count\" and \"for\"", "one of them: how many records, or for how long");
      const Nanos length = v->duration();
      const auto interval = static_cast<Nanos>(std::llround(1e9 / spec.rate_per_sec));
      spec.count = std::min<std::int64_t>(1'000'000'000, (length + interval - 1) / interval);
    }
    if (auto v = p.get("start")) spec.start = v->duration();
    if (auto v = p.get("keys")) spec.keys = read_keys(*v);
    if (auto v = p.get("value_bytes")) spec.value_bytes = static_cast<std::int32_t>(v->integer(0, 10 * 1024 * 1024));
    if (auto v = p.get("tombstones")) spec.tombstones = v->number(0, 1);
    if (auto v = p.get("config")) read_producer_config(*v, spec.config);
    if (auto v = p.get("transactions")) {
      if (!spec.config.transactional_id) {
        v->fail("found \"transactions\" without a transactional.id", "\"config\": {\"transactional.id\": ...} to send in transactions");
      }
      v->expect_object({"records", "aborts"});
      if (auto n = v->get("records")) spec.transactions.records = n->integer(1, 1'000'000);
      if (auto a = v->get("aborts")) spec.transactions.aborts = a->number(0, 1);
    }
    s.producers.push_back(std::move(spec));
  }
}

void read_consumers(const JsonReader& r, Scenario& s) {
  for (const auto& c : r.items()) {
    c.expect_object({"name", "topics", "poll_interval", "config"});
    ConsumerSpec spec;
    spec.name = c.at("name").string();
    for (const auto& t : c.at("topics").items()) spec.topics.push_back(check_topic(t, s));
    if (spec.topics.empty()) c.at("topics").fail("found an empty list", "at least one topic");
    if (auto v = c.get("poll_interval")) spec.poll_interval = v->duration();
    if (spec.poll_interval <= 0) c.at("poll_interval").fail("found a zero interval", "a positive duration");
    if (auto v = c.get("config")) read_consumer_config(*v, spec.config);
    s.consumers.push_back(std::move(spec));
  }
}

namespace {

Nanos read_processing(const JsonReader& r, Nanos& max) {
  if (r.json().is_object()) {
    r.expect_object({"min", "max"});
    const Nanos min = r.at("min").duration();
    max = r.at("max").duration();
    if (max < min) r.at("max").fail("found a maximum below the minimum", "max at least min");
    return min;
  }
  max = r.duration();
  return max;
}

FailureSpec read_failures(const JsonReader& r, const Scenario& s) {
  r.expect_object({"poison_probability", "transient_probability", "on_failure", "retries", "retry_backoff",
                   "dead_letter_topic"});
  FailureSpec f;
  if (auto v = r.get("poison_probability")) f.poison_probability = v->number(0, 1);
  if (auto v = r.get("transient_probability")) f.transient_probability = v->number(0, 1);
  if (auto v = r.get("retries")) f.retries = static_cast<std::int32_t>(v->integer(0, 1000));
  if (auto v = r.get("retry_backoff")) f.retry_backoff = v->duration();
  if (auto v = r.get("on_failure")) {
    const std::string p = v->string();
    if (p == "retry") f.on_failure = FailureSpec::Policy::kRetry;
    else if (p == "dead-letter") f.on_failure = FailureSpec::Policy::kDeadLetter;
    else if (p == "skip") f.on_failure = FailureSpec::Policy::kSkip;
    else {
      auto guess = did_you_mean(p, {"retry", "dead-letter", "skip"});
      v->fail("unknown failure policy \"" + p + "\"", guess ? "did you mean \"" + *guess + "\"?" : "retry, dead-letter or skip");
    }
  }
  if (auto v = r.get("dead_letter_topic")) f.dead_letter_topic = check_topic(*v, s);
  if (f.on_failure == FailureSpec::Policy::kDeadLetter && f.dead_letter_topic.empty()) {
    r.fail("on_failure is dead-letter but no dead_letter_topic is given", "a dead_letter_topic defined under /topics");
  }
  if (f.on_failure != FailureSpec::Policy::kDeadLetter && !f.dead_letter_topic.empty()) {
    r.at("dead_letter_topic").fail("a dead_letter_topic is given but on_failure is not dead-letter", "on_failure: \"dead-letter\", or no dead_letter_topic");
  }
  return f;
}

// A group's "exactly_once": the output topic and the members' producer configs.
ExactlyOnceSpec read_exactly_once(const JsonReader& r, const Scenario& s) {
  r.expect_object({"to", "config", "group_metadata"});
  ExactlyOnceSpec e;
  e.to = check_topic(r.at("to"), s);
  if (auto v = r.get("group_metadata")) e.group_metadata = v->boolean();
  if (r.has("config") && r.at("config").has("transactional.id")) {
    r.at("config").at("transactional.id").fail("each member of an exactly-once group has its own transactional.id (its name)",
                                                "no transactional.id here");
  }
  if (auto v = r.get("config")) {
    read_producer_config(*v, e.config);
    std::string conflict = idempotence_conflict(e.config);
    if (conflict.empty() && v->has("enable.idempotence") && !e.config.enable_idempotence) conflict = "enable.idempotence=false";
    if (!conflict.empty()) {
      v->fail("the members' producers are transactional, which " + conflict + " rules out",
              "acks=all, retries > 0, max.in.flight.requests.per.connection <= 5 and enable.idempotence unset or true");
    }
  }
  e.config.enable_idempotence = true;  // transactional.id: each member's name, set by the run
  return e;
}

// What an exactly-once group decides itself, refused beside it.
void check_exactly_once_group(const JsonReader& g, GroupSpec& spec) {
  for (const char* key : {"commit", "failures", "app"}) {
    if (g.has(key)) {
      g.at(key).fail(std::string("\"") + key + "\" beside \"exactly_once\": an exactly-once pipeline commits its positions "
                         "in each transaction and handles every record",
                     std::string("no \"") + key + "\"");
    }
  }
  for (const std::string& t : spec.topics) {
    if (t == spec.exactly_once->to) {
      g.at("exactly_once").at("to").fail("the pipeline would copy its own output (\"" + t + "\" is also under topics)",
                                         "an output topic the group does not read");
    }
  }
  spec.commit = CommitStrategy::kInTransaction;
  // As Kafka Streams with exactly-once: its consumers read only committed transactions.
  const bool isolation_given = g.has("config") && g.at("config").has("isolation.level");
  if (!isolation_given) spec.config.isolation_level = IsolationLevel::kReadCommitted;
}

}  // namespace

void read_groups(const JsonReader& root, Scenario& s, const std::vector<std::string>& apps) {
  const JsonReader r = root.at("groups");
  for (const auto& g : r.items()) {
    g.expect_object({"name", "topics", "members", "static_membership", "start", "poll_interval", "processing", "commit",
                     "failures", "config", "app", "exactly_once"});
    GroupSpec spec;
    if (g.has("app")) {
      spec.app = read_app(g, apps, {"poll_interval", "processing", "commit", "failures"});
      spec.commit = CommitStrategy::kAfterEachBatch;  // not auto: the app's consumer commits when the app says
    }
    spec.name = g.at("name").string();
    if (spec.name.empty()) g.at("name").fail("found an empty group id", "a group.id");
    for (const auto& t : g.at("topics").items()) spec.topics.push_back(check_topic(t, s));
    if (spec.topics.empty()) g.at("topics").fail("found an empty list", "at least one topic");
    if (auto v = g.get("members")) spec.members = static_cast<std::int32_t>(v->integer(1, 1000));
    if (auto v = g.get("static_membership")) spec.static_membership = v->boolean();
    if (auto v = g.get("start")) spec.start = v->duration();
    if (auto v = g.get("poll_interval")) spec.poll_interval = v->duration();
    if (spec.poll_interval <= 0) g.at("poll_interval").fail("found a zero interval", "a positive duration");
    if (auto v = g.get("processing")) spec.processing_min = read_processing(*v, spec.processing_max);
    if (auto v = g.get("commit")) {
      const std::string c = v->string();
      const std::vector<std::pair<std::string, CommitStrategy>> strategies = {
          {"auto", CommitStrategy::kAuto},
          {"after-each-message", CommitStrategy::kAfterEachMessage},
          {"after-each-batch", CommitStrategy::kAfterEachBatch},
          {"after-each-batch-async", CommitStrategy::kAfterEachBatchAsync},
          {"before-processing", CommitStrategy::kBeforeProcessing}};
      auto it = std::find_if(strategies.begin(), strategies.end(), [&](const auto& kv) { return kv.first == c; });
      if (it == strategies.end()) {
        std::vector<std::string> names;
        for (const auto& kv : strategies) names.push_back(kv.first);
        auto guess = did_you_mean(c, names);
        v->fail("unknown commit strategy \"" + c + "\"",
                guess ? "did you mean \"" + *guess + "\"?" : "auto, after-each-message, after-each-batch, after-each-batch-async or before-processing");
      }
      spec.commit = it->second;
    }
    if (auto v = g.get("failures")) spec.failures = read_failures(*v, s);
    if (auto v = g.get("config")) read_consumer_config(*v, spec.config, true);
    if (auto v = g.get("exactly_once")) {
      spec.exactly_once = read_exactly_once(*v, s);
      check_exactly_once_group(g, spec);
    }
    if (spec.static_membership && spec.config.group_instance_id) {
      g.at("config").at("group.instance.id").fail(
          "static_membership gives each member its own group.instance.id (its name), so a group.instance.id for every member contradicts it",
          "either static_membership: true, or one group.instance.id shared by every member (a misconfiguration whose members fence each other)");
    }
    const BrokerSettings& b = s.cluster.config;
    if (spec.config.session_timeout_ms < b.group_min_session_timeout_ms ||
        spec.config.session_timeout_ms > b.group_max_session_timeout_ms) {
      g.at("config").fail("session.timeout.ms " + std::to_string(spec.config.session_timeout_ms) +
                              " is outside the brokers' group.min.session.timeout.ms .. group.max.session.timeout.ms (" +
                              std::to_string(b.group_min_session_timeout_ms) + " .. " +
                              std::to_string(b.group_max_session_timeout_ms) + "): every JoinGroup would fail with INVALID_SESSION_TIMEOUT",
                          "a session.timeout.ms within the brokers' range");
    }
    for (const auto& other : s.groups) {
      if (other.name == spec.name) g.at("name").fail("group \"" + spec.name + "\" is defined twice", "unique group ids");
    }
    s.groups.push_back(std::move(spec));
  }
  if (!s.groups.empty() && s.cluster.config.offsets_topic_replication_factor > s.cluster.brokers) {
    const JsonReader at = root.has("cluster") && root.at("cluster").has("config") &&
                                  root.at("cluster").at("config").has("offsets.topic.replication.factor")
                              ? root.at("cluster").at("config").at("offsets.topic.replication.factor")
                              : r;
    at.fail("offsets.topic.replication.factor is " + std::to_string(s.cluster.config.offsets_topic_replication_factor) +
                " but the cluster has " + std::to_string(s.cluster.brokers) +
                " broker(s), so __consumer_offsets cannot be created and no group would ever get a coordinator",
            "/cluster/config/offsets.topic.replication.factor at most /cluster/brokers (Kafka's default is 3)");
  }
}

// An anomaly's name, as the checkers report it (did-you-mean for a misspelling).

}  // namespace logsim::scenarios::detail

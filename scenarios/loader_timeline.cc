// The scenario loader's timeline and faults sections: every action with its keys, targets
// checked against the scenario's nodes, groups and topics (with did-you-mean), admin steps
// checked in time order, and the random fault schedule's bounds.
#include <algorithm>
#include <concepts>
#include <map>
#include <optional>
#include <tuple>

#include "engine/controller/topic_config.h"
#include "scenarios/loader.h"
#include "scenarios/loader_internal.h"

namespace logsim::scenarios::detail {
namespace {

std::vector<std::string> node_names(const Scenario& s) {
  std::vector<std::string> out;
  for (std::int32_t b = 1; b <= s.cluster.brokers; ++b) out.push_back("broker-" + std::to_string(b));
  out.push_back("controller");
  for (const auto& p : s.producers) out.push_back(p.name);
  for (const auto& c : s.consumers) out.push_back(c.name);
  for (const auto& g : s.groups) {
    for (std::int32_t i = 1; i <= g.member_count(); ++i) out.push_back(g.member_name(i));
  }
  return out;
}

// Which topics each node that consumes reads: group members (their group's) and consumers.
std::map<std::string, std::vector<std::string>> readers(const Scenario& s) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& c : s.consumers) out[c.name] = c.topics;
  for (const auto& g : s.groups) {
    for (std::int32_t i = 1; i <= g.member_count(); ++i) out[g.member_name(i)] = g.topics;
  }
  return out;
}

std::string check_node(const JsonReader& r, const std::vector<std::string>& names) {
  const std::string name = r.string();
  if (std::find(names.begin(), names.end(), name) != names.end()) return name;
  auto guess = did_you_mean(name, names);
  std::string expected = guess ? "did you mean \"" + *guess + "\"?" : "one of:";
  if (!guess) for (const auto& n : names) expected += " " + n;
  r.fail("unknown target \"" + name + "\"", expected);
}

// A target that must be of one kind (a producer for produce, a group member for
// remove-member, ...): unknown names get check_node's did-you-mean, known ones of the wrong
// kind the list of the right ones.
std::string check_node_of(const JsonReader& r, const std::vector<std::string>& names, const std::vector<std::string>& allowed,
                          const std::string& action, const std::string& kind) {
  const std::string name = check_node(r, names);
  if (std::find(allowed.begin(), allowed.end(), name) != allowed.end()) return name;
  std::string expected = allowed.empty() ? "a " + kind + ", but the scenario has none" : "a " + kind + ":";
  for (const auto& n : allowed) expected += " " + n;
  r.fail(action + " is aimed at \"" + name + "\", which is not a " + kind, expected);
}

// Members added by add-member steps take the names after their group's last ones (<group>-4,
// <group>-5, ... for a group of three), in time order, so that later steps can aim at them.
// Read before the other steps; the steps themselves are checked with the others.
std::vector<std::string> name_added_members(const JsonReader& r, Scenario& s) {
  struct Added {
    Nanos at;
    std::size_t item;
    std::size_t group;
  };
  std::vector<Added> added;
  const auto items = r.items();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const nlohmann::json& j = items[i].json();
    if (!j.is_object() || j.value("action", nlohmann::json()) != "add-member") continue;
    const auto at = j.find("at");
    const auto group = j.find("group");
    if (at == j.end() || !at->is_string() || group == j.end() || !group->is_string()) continue;
    const auto when = parse_duration(at->get<std::string>());
    const auto g = std::find_if(s.groups.begin(), s.groups.end(), [&](const GroupSpec& x) { return x.name == *group; });
    if (!when || g == s.groups.end()) continue;  // reported with the step
    added.push_back(Added{*when, i, static_cast<std::size_t>(g - s.groups.begin())});
  }
  std::stable_sort(added.begin(), added.end(), [](const Added& a, const Added& b) { return a.at < b.at; });
  std::vector<std::string> names(items.size());
  std::vector<std::string> taken = node_names(s);
  for (const Added& a : added) {
    GroupSpec& g = s.groups[a.group];
    g.added_at.push_back(a.at);
    names[a.item] = g.member_name(g.member_count());
    if (std::find(taken.begin(), taken.end(), names[a.item]) != taken.end()) {
      items[a.item].at("group").fail("the added member would be named \"" + names[a.item] + "\", which another node already has",
                                     "a group whose members' names no other node has");
    }
    taken.push_back(names[a.item]);
  }
  return names;
}

// alter-config's "config": each key set to a value (validated as under /topics, then passed
// on as Kafka's string), or null to go back to the default (IncrementalAlterConfigs' DELETE).
std::vector<AlterableConfig> read_alter_configs(const JsonReader& c, const Scenario& s, const std::string& file) {
  c.expect_object(kTopicConfigKeys);
  if (c.json().empty()) c.fail("found no configs", "at least one topic config to set (or null to reset)");
  std::vector<AlterableConfig> out;
  for (const auto& [key, value] : c.json().items()) {
    if (value.is_null()) {
      out.push_back(AlterableConfig{key, AlterConfigOp::kDelete, ""});
      continue;
    }
    const nlohmann::json one = nlohmann::json::object({{key, value}});
    TopicSpec spec;
    spec.min_insync_replicas = s.cluster.config.min_insync_replicas;
    read_topic_config(JsonReader(one, c.pointer(), file), spec);
    const engine::TopicConfigs configs{spec.min_insync_replicas, spec.unclean_leader_election.value_or(false), spec.log};
    out.push_back(AlterableConfig{key, AlterConfigOp::kSet, engine::topic_config_value(configs, key)});
  }
  return out;
}

// The topic an admin step acts on, if it names one that must exist then.
std::optional<std::string> existing_topic(const TimelineStep& step) {
  return std::visit(overloaded{
                        [](const steps::DeleteTopic& t) -> std::optional<std::string> { return t.topic; },
                        [](const steps::AddPartitions& t) -> std::optional<std::string> { return t.topic; },
                        [](const steps::AlterConfig& t) -> std::optional<std::string> { return t.topic; },
                        [](const steps::DeleteOffsets& t) -> std::optional<std::string> { return t.topic; },
                        [](const steps::ResetOffsets& t) -> std::optional<std::string> {
                          if (t.topic().empty()) return std::nullopt;  // --all-topics
                          return t.topic();
                        },
                        [](const steps::Seek& t) -> std::optional<std::string> { return t.topic; },
                        [](const auto&) -> std::optional<std::string> { return std::nullopt; },
                    },
                    step.action);
}

// Admin steps in time order must act on topics that exist then: create-topic on a new name,
// the others on a topic that exists, add-partitions growing it; and a seek on a partition
// its topic has then.
void check_admin_steps(Scenario& s) {
  std::map<std::string, std::int32_t> partitions;  // topics that exist, with their partition counts
  for (const auto& t : s.topics) partitions[t.name] = t.partitions;
  auto fail = [&](const TimelineStep& step, const std::string& where, const std::string& problem, const std::string& expected) {
    throw ScenarioError(s.file, step.pointer + where, problem, expected);
  };
  for (auto& step : s.timeline) {
    const std::string when = " at " + std::to_string(to_millis(step.at)) + "ms";
    if (const auto* create = step.as<steps::CreateTopic>()) {
      if (partitions.contains(create->topic.name)) {
        fail(step, "/topic/name", "topic \"" + create->topic.name + "\" already exists" + when,
             "a new topic name (or a delete-topic step before this one)");
      }
      partitions[create->topic.name] = create->topic.partitions;
      continue;
    }
    const std::optional<std::string> topic = existing_topic(step);
    if (!topic) continue;
    auto it = partitions.find(*topic);
    if (it == partitions.end()) {
      fail(step, "/topic", "topic \"" + *topic + "\" does not exist" + when,
           "a topic defined under /topics or created by an earlier create-topic step");
    }
    const std::string has = "topic \"" + *topic + "\" has " + std::to_string(it->second) + " partitions" + when;
    if (const auto* seek = step.as<steps::Seek>(); seek && seek->partition >= it->second) {
      fail(step, "/partition", has,
           "a partition from 0 to " + std::to_string(it->second - 1) + " (or no \"partition\": every one the target holds)");
    } else if (auto* offsets = std::get_if<steps::DeleteOffsets>(&step.action)) {
      offsets->partitions = it->second;  // --topic T: every partition the topic has then
    } else if (step.is<steps::DeleteTopic>()) {
      partitions.erase(it);
    } else if (auto* add = std::get_if<steps::AddPartitions>(&step.action)) {
      if (add->partitions <= it->second) fail(step, "/partitions", has, "a larger total (Kafka can only add partitions)");
      it->second = add->partitions;
    }
  }
}

// A member that an add-member step starts cannot be the target of a step before that.
void check_added_members(const Scenario& s) {
  std::map<std::string, Nanos> starts;  // added member -> when
  for (const auto& g : s.groups) {
    for (std::size_t i = 0; i < g.added_at.size(); ++i) {
      starts[g.member_name(g.members + 1 + static_cast<std::int32_t>(i))] = g.added_at[i];
    }
  }
  if (starts.empty()) return;
  for (const auto& step : s.timeline) {
    if (step.is<steps::AddMember>()) continue;
    for (const auto& name : step.nodes()) {
      auto it = starts.find(name);
      if (it == starts.end() || it->second <= step.at) continue;
      throw ScenarioError(s.file, step.pointer + (step.is<steps::Partition>() ? "/groups" : "/target"),
                          "\"" + name + "\" is added at " + std::to_string(to_millis(it->second)) + "ms, after this step (at " +
                              std::to_string(to_millis(step.at)) + "ms)",
                          "a time at or after its add-member step");
    }
  }
}

std::string check_group(const JsonReader& r, const Scenario& s) {
  const std::string name = r.string();
  std::vector<std::string> names;
  for (const auto& g : s.groups) names.push_back(g.name);
  if (std::find(names.begin(), names.end(), name) != names.end()) return name;
  auto guess = did_you_mean(name, names);
  r.fail("unknown group \"" + name + "\"", guess ? "did you mean \"" + *guess + "\"?" : "a group defined under /groups");
}

// The group a group admin step names: one under /groups; or, in a scenario without groups (one
// for logsim serve, whose groups are its real clients'), any.
std::string check_admin_group(const JsonReader& r, const Scenario& s) {
  if (!s.groups.empty()) return check_group(r, s);
  std::string name = r.string();
  if (name.empty()) r.fail("an empty group name", "the group.id of the group the step acts on");
  return name;
}

// A reset's or a seek's "to": the mode and its value, as in ResetOffsetsRequest.
std::pair<engine::ResetMode, std::int64_t> read_reset_to(const JsonReader& to) {
  const std::string expected =
      "\"earliest\", \"latest\", \"current\", or one of {\"offset\": N}, {\"shift_by\": N}, {\"datetime\": \"10s\"} "
      "(a simulated instant), {\"by_duration\": \"5s\"}";
  if (to.json().is_string()) {
    const std::string m = to.string();
    if (m == "earliest") return {engine::ResetMode::kToEarliest, 0};
    if (m == "latest") return {engine::ResetMode::kToLatest, 0};
    if (m == "current") return {engine::ResetMode::kToCurrent, 0};
    auto guess = did_you_mean(m, {"earliest", "latest", "current"});
    to.fail("unknown reset \"" + m + "\"", guess ? "did you mean \"" + *guess + "\"?" : expected);
  }
  if (!to.json().is_object() || to.json().size() != 1) to.fail("found " + std::string(to.json().type_name()), expected);
  to.expect_object({"offset", "shift_by", "datetime", "by_duration"});
  if (auto v = to.get("offset")) return {engine::ResetMode::kToOffset, v->integer(0, INT64_MAX)};
  if (auto v = to.get("shift_by")) return {engine::ResetMode::kShiftBy, v->integer(INT64_MIN / 2, INT64_MAX / 2)};
  if (auto v = to.get("datetime")) return {engine::ResetMode::kToDatetime, to_millis(v->duration())};
  return {engine::ResetMode::kByDuration, to_millis(to.at("by_duration").duration())};
}

// A duration that may be negative: "-2s" (a clock behind), "500ms".
Nanos signed_duration(const JsonReader& r) {
  if (r.json().is_string()) {
    const std::string text = r.json().get<std::string>();
    if (!text.empty() && text.front() == '-') {
      const nlohmann::json rest = text.substr(1);
      return -JsonReader(rest, r.pointer(), r.file()).duration();
    }
  }
  return r.duration();
}

// What a step's reader checks names against: the scenario's nodes of each kind.
struct StepContext {
  const Scenario& s;
  std::vector<std::string> names;      // every node
  std::map<std::string, std::vector<std::string>> reads;  // consuming node -> the topics it reads
  std::vector<std::string> producers;
  std::vector<std::string> members;    // group members, added ones too
  std::vector<std::string> consuming;  // group members and consumers
  std::string added_name;              // add-member: the name the new member takes
};

template <class T>
struct Tag {};

// Each action: the keys it takes besides "at" and "action", and how it is read. Node faults
// take a target.
template <class T>
concept NodeFault = std::same_as<T, steps::Crash> || std::same_as<T, steps::PowerLoss> || std::same_as<T, steps::Stop> ||
                    std::same_as<T, steps::Restart> || std::same_as<T, steps::Pause> || std::same_as<T, steps::Resume> ||
                    std::same_as<T, steps::Isolate>;
using Keys = std::vector<std::string>;

template <NodeFault T>
Keys keys(Tag<T>) { return {"target"}; }
template <NodeFault T>
T read(Tag<T>, const JsonReader& step, const StepContext& c) { return T{check_node(step.at("target"), c.names)}; }

Keys keys(Tag<steps::Partition>) { return {"groups", "one_way"}; }
steps::Partition read(Tag<steps::Partition>, const JsonReader& step, const StepContext& c) {
  steps::Partition p;
  std::map<std::string, std::string> seen;  // node -> where it was named first
  for (const auto& g : step.at("groups").items()) {
    std::vector<std::string> group;
    for (const auto& n : g.items()) {
      const std::string name = check_node(n, c.names);
      if (auto [it, fresh] = seen.emplace(name, n.pointer()); !fresh) {
        n.fail("\"" + name + "\" is already named at " + it->second, "each node in at most one group");
      }
      group.push_back(name);
    }
    if (group.empty()) g.fail("found an empty group", "one or more node names");
    p.groups.push_back(std::move(group));
  }
  if (p.groups.size() < 2) step.at("groups").fail("found fewer than two groups", "two or more groups of node names");
  if (auto v = step.get("one_way")) p.one_way = v->boolean();
  return p;
}

Keys keys(Tag<steps::Heal>) { return {}; }
steps::Heal read(Tag<steps::Heal>, const JsonReader&, const StepContext&) { return {}; }

Keys keys(Tag<steps::Clog>) { return {"target", "for"}; }
steps::Clog read(Tag<steps::Clog>, const JsonReader& step, const StepContext& c) {
  steps::Clog clog{check_node(step.at("target"), c.names), step.at("for").duration()};
  if (clog.length <= 0) step.at("for").fail("found a clog of no length", "a duration above zero, e.g. \"2s\"");
  return clog;
}

// The errors a client-faults step may answer with: those a broker gives a healthy client now
// and then, which a client must retry.
constexpr ErrorCode kInjectableErrors[] = {
    ErrorCode::NOT_LEADER_OR_FOLLOWER, ErrorCode::LEADER_NOT_AVAILABLE, ErrorCode::REQUEST_TIMED_OUT,
    ErrorCode::NOT_ENOUGH_REPLICAS,    ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, ErrorCode::BROKER_NOT_AVAILABLE,
    ErrorCode::NETWORK_EXCEPTION,      ErrorCode::NOT_COORDINATOR,          ErrorCode::COORDINATOR_NOT_AVAILABLE,
    ErrorCode::UNKNOWN_SERVER_ERROR};

Keys keys(Tag<steps::ClientFaults>) { return {"target", "for", "delay", "drop", "reset", "error", "error_share"}; }
steps::ClientFaults read(Tag<steps::ClientFaults>, const JsonReader& step, const StepContext& c) {
  steps::ClientFaults f;
  if (step.has("target")) {
    f.target = check_node(step.at("target"), c.names);
    if (f.target->rfind("broker-", 0) != 0) step.at("target").fail("\"" + *f.target + "\" is not a broker", "a broker (clients connect to brokers)");
  }
  f.length = step.at("for").duration();
  if (f.length <= 0) step.at("for").fail("found client faults of no length", "a duration above zero, e.g. \"10s\"");
  if (auto d = step.get("delay")) f.delay = d->duration();
  if (auto d = step.get("drop")) f.drop = d->number(0, 1);
  if (auto r = step.get("reset")) f.reset = r->number(0, 1);
  if (auto e = step.get("error")) {
    const std::string name = e->string();
    std::string known;
    for (const ErrorCode code : kInjectableErrors) {
      known += (known.empty() ? "" : ", ") + std::string(error_name(code));
      if (error_name(code) == name) f.error = code;
    }
    if (f.error == ErrorCode::NONE) e->fail("\"" + name + "\" is not an error client-faults answers with", "one of " + known);
    f.error_share = 1;
  }
  if (auto s = step.get("error_share")) {
    if (!step.has("error")) s->fail("an error_share without an error", "\"error\" too, e.g. \"NOT_LEADER_OR_FOLLOWER\"");
    f.error_share = s->number(0, 1);
  }
  if (f.delay == 0 && f.drop == 0 && f.reset == 0 && f.error_share == 0) {
    step.fail("client faults that do nothing", "at least one of delay, drop, reset, error");
  }
  return f;
}

Keys keys(Tag<steps::SetNetwork>) { return {"target", "network"}; }
steps::SetNetwork read(Tag<steps::SetNetwork>, const JsonReader& step, const StepContext& c) {
  // Without a target: every link's default; with one: the links to and from that node.
  steps::SetNetwork set;
  if (step.has("target")) set.target = check_node(step.at("target"), c.names);
  set.network = read_network(step.at("network"), c.s.cluster.network);
  return set;
}

Keys keys(Tag<steps::ClockSkew>) { return {"target", "offset", "drift_ppm"}; }
steps::ClockSkew read(Tag<steps::ClockSkew>, const JsonReader& step, const StepContext& c) {
  steps::ClockSkew skew{check_node(step.at("target"), c.names), signed_duration(step.at("offset")), 0};
  if (auto d = step.get("drift_ppm")) skew.drift_ppm = d->number(-100'000, 100'000);
  return skew;
}

Keys keys(Tag<steps::CreateTopic>) { return {"topic"}; }
steps::CreateTopic read(Tag<steps::CreateTopic>, const JsonReader& step, const StepContext& c) {
  return {read_topic(step.at("topic"), c.s)};
}

Keys keys(Tag<steps::DeleteTopic>) { return {"topic"}; }
steps::DeleteTopic read(Tag<steps::DeleteTopic>, const JsonReader& step, const StepContext&) {
  return {step.at("topic").string()};  // checked against the topics existing then (check_admin_steps)
}

Keys keys(Tag<steps::AddPartitions>) { return {"topic", "partitions"}; }
steps::AddPartitions read(Tag<steps::AddPartitions>, const JsonReader& step, const StepContext&) {
  const std::string topic = step.at("topic").string();
  return {topic, static_cast<std::int32_t>(step.at("partitions").integer(1, 10'000))};
}

Keys keys(Tag<steps::AlterConfig>) { return {"topic", "config"}; }
steps::AlterConfig read(Tag<steps::AlterConfig>, const JsonReader& step, const StepContext& c) {
  const std::string topic = step.at("topic").string();
  return {topic, read_alter_configs(step.at("config"), c.s, c.s.file)};
}

// reset-offsets: kafka-consumer-groups --reset-offsets --group G [--topic T] <mode> [--execute].
Keys keys(Tag<steps::ResetOffsets>) { return {"group", "topic", "to", "execute"}; }
steps::ResetOffsets read(Tag<steps::ResetOffsets>, const JsonReader& step, const StepContext& c) {
  steps::ResetOffsets reset;
  reset.group = check_admin_group(step.at("group"), c.s);
  reset.request.group_id = reset.group;
  if (auto v = step.get("topic")) reset.request.topics.push_back({v->string(), {}});  // checked with the admin steps
  reset.request.execute = true;
  if (auto v = step.get("execute")) reset.request.execute = v->boolean();
  std::tie(reset.request.mode, reset.request.value) = read_reset_to(step.at("to"));
  return reset;
}

Keys keys(Tag<steps::DeleteOffsets>) { return {"group", "topic"}; }
steps::DeleteOffsets read(Tag<steps::DeleteOffsets>, const JsonReader& step, const StepContext& c) {
  steps::DeleteOffsets del;
  del.group = check_admin_group(step.at("group"), c.s);
  del.topic = step.at("topic").string();
  return del;
}

Keys keys(Tag<steps::DeleteGroup>) { return {"group"}; }
steps::DeleteGroup read(Tag<steps::DeleteGroup>, const JsonReader& step, const StepContext& c) {
  return {check_admin_group(step.at("group"), c.s)};
}

Keys keys(Tag<steps::DescribeGroup>) { return {"group"}; }
steps::DescribeGroup read(Tag<steps::DescribeGroup>, const JsonReader& step, const StepContext& c) {
  return {check_admin_group(step.at("group"), c.s)};
}

Keys keys(Tag<steps::RemoveStaticMembers>) { return {"group", "instances"}; }
steps::RemoveStaticMembers read(Tag<steps::RemoveStaticMembers>, const JsonReader& step, const StepContext& c) {
  steps::RemoveStaticMembers r;
  r.group = check_admin_group(step.at("group"), c.s);
  for (const auto& v : step.at("instances").items()) {
    r.instances.push_back(v.string());
    if (r.instances.back().empty()) v.fail("found an empty group.instance.id", "a member's group.instance.id");
  }
  if (r.instances.empty()) step.at("instances").fail("found an empty list", "at least one group.instance.id");
  return r;
}

Keys keys(Tag<steps::Produce>) { return {"target", "count", "rate", "keys", "tombstones"}; }
steps::Produce read(Tag<steps::Produce>, const JsonReader& step, const StepContext& c) {
  steps::Produce p;
  p.target = check_node_of(step.at("target"), c.names, c.producers, "produce", "producer");
  p.count = step.at("count").integer(1, 1'000'000'000);
  if (auto v = step.get("rate")) {
    p.rate_per_sec = v->number(0, 1e9);
    if (p.rate_per_sec <= 0) v->fail("found a rate of 0", "records per second above zero (or no \"rate\": all at once)");
  } else if (p.count > 1'000'000) {
    // All at once, every record is in the client's memory together (Kafka's producer would
    // block on buffer.memory long before).
    step.at("count").fail("found a burst of " + std::to_string(p.count) + " records all at once",
                          "at most 1000000 at once, or a \"rate\" to send them at");
  }
  if (auto v = step.get("keys")) {
    for (const auto& k : v->items()) p.keys.push_back(k.string());
    if (p.keys.empty()) v->fail("found an empty list", "at least one key (the burst's records take them in turn)");
  }
  if (auto v = step.get("tombstones")) p.tombstones = v->number(0, 1);
  return p;
}

Keys keys(Tag<steps::Seek>) { return {"target", "topic", "partition", "to"}; }
steps::Seek read(Tag<steps::Seek>, const JsonReader& step, const StepContext& c) {
  steps::Seek seek;
  seek.target = check_node_of(step.at("target"), c.names, c.consuming, "seek", "group member or consumer");
  const JsonReader topic = step.at("topic");
  seek.topic = topic.string();
  const auto& topics = c.reads.at(seek.target);
  if (std::find(topics.begin(), topics.end(), seek.topic) == topics.end()) {
    std::string expected = "a topic it reads:";
    for (const auto& n : topics) expected += " " + n;
    topic.fail(seek.target + " does not read topic \"" + seek.topic + "\"", expected);
  }
  if (auto v = step.get("partition")) seek.partition = static_cast<std::int32_t>(v->integer(0, 9'999));
  std::tie(seek.mode, seek.value) = read_reset_to(step.at("to"));
  return seek;
}

Keys keys(Tag<steps::AddMember>) { return {"group"}; }
steps::AddMember read(Tag<steps::AddMember>, const JsonReader& step, const StepContext& c) {
  return {check_group(step.at("group"), c.s), c.added_name};
}

Keys keys(Tag<steps::RemoveMember>) { return {"target"}; }
steps::RemoveMember read(Tag<steps::RemoveMember>, const JsonReader& step, const StepContext& c) {
  return {check_node_of(step.at("target"), c.names, c.members, "remove-member", "group member")};
}

// The table of actions, one entry per alternative of Action (in its order): a new action
// without its keys() and read() does not compile.
struct ActionSpec {
  std::string_view name;
  Keys keys;
  Action (*read)(const JsonReader& step, const StepContext& c);
};

template <class... Ts>
std::vector<ActionSpec> action_table(Tag<std::variant<Ts...>>) {
  return {ActionSpec{Ts::kName, keys(Tag<Ts>{}),
                     [](const JsonReader& step, const StepContext& c) -> Action { return read(Tag<Ts>{}, step, c); }}...};
}

const std::vector<ActionSpec>& actions() {
  static const std::vector<ActionSpec> table = action_table(Tag<Action>{});
  return table;
}

const ActionSpec& read_action(const JsonReader& action) {
  const std::string name = action.string();
  for (const ActionSpec& a : actions()) {
    if (a.name == name) return a;
  }
  auto guess = did_you_mean(name, action_names());
  std::string expected = guess ? "did you mean \"" + *guess + "\"?" : "one of:";
  if (!guess) for (const auto& a : action_names()) expected += " " + a;
  action.fail("unknown action \"" + name + "\"", expected);
}

// The keys some action takes, in the order a step's keys are checked.
const Keys kStepKeys = {"target", "groups", "topic", "partitions", "config", "group", "to", "execute", "for", "network",
                        "offset", "drift_ppm", "count", "rate", "partition", "one_way", "delay", "drop", "reset",
                        "error", "error_share", "instances", "keys", "tombstones"};

// A key this action does not take.
void check_keys(const JsonReader& step, const ActionSpec& action) {
  for (const std::string& key : kStepKeys) {
    if (!step.has(key) || std::find(action.keys.begin(), action.keys.end(), key) != action.keys.end()) continue;
    std::string expected = "only";
    for (const auto& k : action.keys) expected += " \"" + k + "\"";
    expected = action.keys.empty() ? "no keys but \"at\" and \"action\" (heal ends every network fault)"
                                   : expected + " besides \"at\" and \"action\"";
    step.at(key).fail(std::string(action.name) + " takes no \"" + key + "\"", expected);
  }
}

}  // namespace

void read_timeline(const JsonReader& r, Scenario& s) {
  const std::vector<std::string> added_names = name_added_members(r, s);
  StepContext c{s, node_names(s), readers(s), {}, {}, {}, {}};
  for (const auto& p : s.producers) c.producers.push_back(p.name);
  for (const auto& g : s.groups) {
    for (std::int32_t i = 1; i <= g.member_count(); ++i) c.members.push_back(g.member_name(i));
  }
  c.consuming = c.members;
  for (const auto& consumer : s.consumers) c.consuming.push_back(consumer.name);
  Keys all = {"at", "action"};
  all.insert(all.end(), kStepKeys.begin(), kStepKeys.end());
  const auto items = r.items();
  for (std::size_t index = 0; index < items.size(); ++index) {
    const JsonReader& step = items[index];
    step.expect_object(all);
    TimelineStep t;
    t.pointer = step.pointer();
    t.at = step.at("at").duration();
    if (t.at > s.duration) {
      step.at("at").fail("the step is after the end of the run (duration " + std::to_string(to_millis(s.duration)) + "ms)",
                         "a time no later than the scenario's duration");
    }
    const ActionSpec& action = read_action(step.at("action"));
    check_keys(step, action);
    c.added_name = added_names[index];
    t.action = action.read(step, c);
    s.timeline.push_back(std::move(t));
  }
  std::stable_sort(s.timeline.begin(), s.timeline.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
  check_admin_steps(s);
  check_added_members(s);
}

// The "faults" section: a random fault schedule the runner draws from the seed.
FaultSchedule read_faults(const JsonReader& r, const Scenario& s) {
  r.expect_object({"kinds", "every", "for", "from", "until", "concurrency"});
  FaultSchedule f;
  std::int32_t members = 0;
  for (const auto& g : s.groups) members += g.members;
  auto usable = [&](FaultKind k) -> std::string {  // why a kind cannot be used here, or ""
    const bool producers_too = (k == FaultKind::kMemberCrash || k == FaultKind::kMemberPause) &&
                               std::any_of(s.producers.begin(), s.producers.end(),
                                           [](const ProducerSpec& p) { return p.config.transactional_id.has_value(); });
    if (is_member_fault(k) && members == 0 && !producers_too) return "the scenario has no group members to aim it at";
    if (k == FaultKind::kPartition && s.cluster.brokers < 2) return "a partition needs two brokers or more";
    return "";
  };
  if (auto v = r.get("kinds")) {
    std::string all;
    for (const auto& n : fault_kind_names()) all += (all.empty() ? "" : ", ") + n;
    const auto items = v->items();
    if (items.empty()) v->fail("found no kinds", "one or more of: " + all);
    for (const auto& item : items) {
      const std::string name = item.string();
      FaultKind k{};
      if (!fault_kind_by_name(name, k)) {
        auto guess = did_you_mean(name, fault_kind_names());
        item.fail("unknown fault kind \"" + name + "\"", guess ? "did you mean \"" + *guess + "\"?" : "one of " + all);
      }
      if (auto why = usable(k); !why.empty()) item.fail("cannot use " + name + ": " + why, "kinds this scenario has targets for");
      if (std::find(f.kinds.begin(), f.kinds.end(), k) == f.kinds.end()) f.kinds.push_back(k);
    }
  } else {
    for (FaultKind k : safe_fault_kinds()) {
      if (usable(k).empty()) f.kinds.push_back(k);
    }
  }
  auto positive = [](const JsonReader& v, const char* what) {
    const Nanos d = v.duration();
    if (d <= 0) v.fail("found a zero " + std::string(what), "a duration above zero, e.g. \"5s\"");
    return d;
  };
  if (auto v = r.get("every")) f.every = positive(*v, "interval");
  if (auto v = r.get("for")) f.length = positive(*v, "fault length");
  if (auto v = r.get("from")) {
    f.from = v->duration();
    if (f.from >= s.duration) v->fail("faults would start after the end of the run", "a time before the scenario's duration");
  }
  if (auto v = r.get("until")) {
    f.until = v->duration();
    if (f.until > s.duration) v->fail("found a time after the end of the run", "a time no later than the scenario's duration");
    if (f.until <= f.from) v->fail("found a time not after \"from\"", "a time after \"from\"");
  }
  if (auto v = r.get("concurrency")) f.concurrency = static_cast<std::int32_t>(v->integer(1, 100));
  return f;
}

}  // namespace logsim::scenarios::detail

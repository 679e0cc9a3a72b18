// The scenario loader's timeline and faults sections: every action with its keys, targets
// checked against the scenario's nodes, groups and topics (with did-you-mean), admin steps
// checked in time order, and the random fault schedule's bounds.
#include <algorithm>
#include <map>

#include "engine/controller/topic_config.h"
#include "scenarios/loader.h"
#include "scenarios/loader_internal.h"

namespace logsim::scenarios::detail {
namespace {

const std::vector<std::string> kTimelineActions = {"crash", "power-loss", "stop", "restart", "pause",
                                                   "resume", "isolate", "partition", "heal", "clog",
                                                   "set-network", "clock-skew",
                                                   "create-topic", "delete-topic", "add-partitions", "alter-config",
                                                   "reset-offsets", "delete-offsets", "delete-group", "describe-group",
                                                   "produce", "seek", "add-member", "remove-member"};

// The keys each timeline action takes besides "at" and "action".
std::vector<std::string> step_keys(const std::string& action) {
  if (action == "partition") return {"groups", "one_way"};
  if (action == "heal") return {};
  if (action == "clog") return {"target", "for"};
  if (action == "set-network") return {"target", "network"};
  if (action == "clock-skew") return {"target", "offset", "drift_ppm"};
  if (action == "create-topic" || action == "delete-topic") return {"topic"};
  if (action == "add-partitions") return {"topic", "partitions"};
  if (action == "alter-config") return {"topic", "config"};
  if (action == "reset-offsets") return {"group", "topic", "to", "execute"};
  if (action == "delete-offsets") return {"group", "topic"};
  if (action == "delete-group" || action == "describe-group" || action == "add-member") return {"group"};
  if (action == "produce") return {"target", "count", "rate"};
  if (action == "seek") return {"target", "topic", "partition", "to"};
  return {"target"};
}



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

// Admin steps in time order must act on topics that exist then: create-topic on a new name,
// the others on a topic that exists, add-partitions growing it.
void check_admin_steps(Scenario& s) {
  std::map<std::string, std::int32_t> partitions;  // topics that exist, with their partition counts
  for (const auto& t : s.topics) partitions[t.name] = t.partitions;
  auto fail = [&](const TimelineStep& step, const std::string& where, const std::string& problem, const std::string& expected) {
    throw ScenarioError(s.file, step.pointer + where, problem, expected);
  };
  for (auto& step : s.timeline) {
    const std::string when = " at " + std::to_string(to_millis(step.at)) + "ms";
    if (step.action == "seek") {
      auto it = partitions.find(step.topic);
      if (it == partitions.end()) {
        fail(step, "/topic", "topic \"" + step.topic + "\" does not exist" + when,
             "a topic defined under /topics or created by an earlier create-topic step");
      }
      if (step.partition >= it->second) {
        fail(step, "/partition", "topic \"" + step.topic + "\" has " + std::to_string(it->second) + " partitions" + when,
             "a partition from 0 to " + std::to_string(it->second - 1) + " (or no \"partition\": every one the target holds)");
      }
      continue;
    }
    if (!step.is_admin() || (step.is_group_admin() && step.topic.empty())) continue;
    if (step.action == "create-topic") {
      if (partitions.contains(step.topic)) {
        fail(step, "/topic/name", "topic \"" + step.topic + "\" already exists" + when,
             "a new topic name (or a delete-topic step before this one)");
      }
      partitions[step.topic] = step.create->partitions;
      continue;
    }
    auto it = partitions.find(step.topic);
    if (it == partitions.end()) {
      fail(step, "/topic", "topic \"" + step.topic + "\" does not exist" + when,
           "a topic defined under /topics or created by an earlier create-topic step");
    }
    if (step.action == "delete-offsets") {
      step.partitions = it->second;  // --topic T: every partition the topic has then
    } else if (step.action == "delete-topic") {
      partitions.erase(it);
    } else if (step.action == "add-partitions") {
      if (step.partitions <= it->second) {
        fail(step, "/partitions", "topic \"" + step.topic + "\" has " + std::to_string(it->second) + " partitions" + when,
             "a larger total (Kafka can only add partitions)");
      }
      it->second = step.partitions;
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
    if (step.action == "add-member") continue;
    for (std::size_t g = 0; g < step.targets.size(); ++g) {
      for (const auto& name : step.action == "partition" ? step.group_names(g) : std::vector{step.targets[g]}) {
        auto it = starts.find(name);
        if (it == starts.end() || it->second <= step.at) continue;
        throw ScenarioError(s.file, step.pointer + (step.action == "partition" ? "/groups" : "/target"),
                            "\"" + name + "\" is added at " + std::to_string(to_millis(it->second)) + "ms, after this step (at " +
                                std::to_string(to_millis(step.at)) + "ms)",
                            "a time at or after its add-member step");
      }
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

// reset-offsets: kafka-consumer-groups --reset-offsets --group G --topic T <mode> [--execute].
engine::ResetOffsetsRequest read_reset(const JsonReader& step, TimelineStep& t, const Scenario& s) {
  engine::ResetOffsetsRequest req;
  req.group_id = t.group;
  if (auto v = step.get("topic")) {
    t.topic = v->string();  // checked against the topics existing then, with the other admin steps
    req.topics.push_back({t.topic, {}});
  }
  req.execute = true;
  if (auto v = step.get("execute")) req.execute = v->boolean();
  const JsonReader to = step.at("to");
  const std::string expected =
      "\"earliest\", \"latest\", \"current\", or one of {\"offset\": N}, {\"shift_by\": N}, {\"datetime\": \"10s\"} "
      "(a simulated instant), {\"by_duration\": \"5s\"}";
  if (to.json().is_string()) {
    const std::string m = to.string();
    if (m == "earliest") req.mode = engine::ResetMode::kToEarliest;
    else if (m == "latest") req.mode = engine::ResetMode::kToLatest;
    else if (m == "current") req.mode = engine::ResetMode::kToCurrent;
    else {
      auto guess = did_you_mean(m, {"earliest", "latest", "current"});
      to.fail("unknown reset \"" + m + "\"", guess ? "did you mean \"" + *guess + "\"?" : expected);
    }
  } else if (to.json().is_object() && to.json().size() == 1) {
    to.expect_object({"offset", "shift_by", "datetime", "by_duration"});
    if (auto v = to.get("offset")) {
      req.mode = engine::ResetMode::kToOffset;
      req.value = v->integer(0, INT64_MAX);
    } else if (auto v2 = to.get("shift_by")) {
      req.mode = engine::ResetMode::kShiftBy;
      req.value = v2->integer(INT64_MIN / 2, INT64_MAX / 2);
    } else if (auto v3 = to.get("datetime")) {
      req.mode = engine::ResetMode::kToDatetime;
      req.value = to_millis(v3->duration());
    } else if (auto v4 = to.get("by_duration")) {
      req.mode = engine::ResetMode::kByDuration;
      req.value = to_millis(v4->duration());
    }
  } else {
    to.fail("found " + std::string(to.json().type_name()), expected);
  }
  (void)s;
  return req;
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

}  // namespace

void read_timeline(const JsonReader& r, Scenario& s) {
  const std::vector<std::string> added_names = name_added_members(r, s);
  const auto names = node_names(s);
  const auto reads = readers(s);
  std::vector<std::string> producers;
  for (const auto& p : s.producers) producers.push_back(p.name);
  std::vector<std::string> members;
  for (const auto& g : s.groups) {
    for (std::int32_t i = 1; i <= g.member_count(); ++i) members.push_back(g.member_name(i));
  }
  std::vector<std::string> consuming = members;
  for (const auto& c : s.consumers) consuming.push_back(c.name);
  const auto items = r.items();
  for (std::size_t index = 0; index < items.size(); ++index) {
    const JsonReader& step = items[index];
    step.expect_object({"at", "action", "target", "groups", "topic", "partitions", "config", "group", "to", "execute", "for",
                        "network", "offset", "drift_ppm", "count", "rate", "partition", "one_way"});
    TimelineStep t;
    t.pointer = step.pointer();
    t.at = step.at("at").duration();
    if (t.at > s.duration) {
      step.at("at").fail("the step is after the end of the run (duration " + std::to_string(to_millis(s.duration)) + "ms)",
                         "a time no later than the scenario's duration");
    }
    const auto action = step.at("action");
    t.action = action.string();
    if (std::find(kTimelineActions.begin(), kTimelineActions.end(), t.action) == kTimelineActions.end()) {
      auto guess = did_you_mean(t.action, kTimelineActions);
      std::string expected = guess ? "did you mean \"" + *guess + "\"?" : "one of:";
      if (!guess) for (const auto& a : kTimelineActions) expected += " " + a;
      action.fail("unknown action \"" + t.action + "\"", expected);
    }
    const std::vector<std::string> keys = step_keys(t.action);
    for (const std::string key : {"target", "groups", "topic", "partitions", "config", "group", "to", "execute", "for", "network",
                                  "offset", "drift_ppm", "count", "rate", "partition", "one_way"}) {
      if (!step.has(key) || std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
      std::string expected = "only";
      for (const auto& k : keys) expected += " \"" + k + "\"";
      expected = keys.empty() ? "no keys but \"at\" and \"action\" (heal ends every network fault)"
                              : expected + " besides \"at\" and \"action\"";
      step.at(key).fail(t.action + " takes no \"" + key + "\"", expected);
    }
    if (t.action == "partition") {
      std::map<std::string, std::string> seen;  // node -> where it was named first
      for (const auto& g : step.at("groups").items()) {
        std::string group;
        for (const auto& n : g.items()) {
          const std::string name = check_node(n, names);
          if (auto [it, fresh] = seen.emplace(name, n.pointer()); !fresh) {
            n.fail("\"" + name + "\" is already named at " + it->second, "each node in at most one group");
          }
          group += (group.empty() ? "" : ",") + name;
        }
        if (group.empty()) g.fail("found an empty group", "one or more node names");
        t.targets.push_back(group);
      }
      if (t.targets.size() < 2) step.at("groups").fail("found fewer than two groups", "two or more groups of node names");
      if (auto v = step.get("one_way")) t.one_way = v->boolean();
    } else if (t.action == "produce") {
      t.targets.push_back(check_node_of(step.at("target"), names, producers, t.action, "producer"));
      t.count = step.at("count").integer(1, 1'000'000'000);
      if (auto v = step.get("rate")) {
        t.rate_per_sec = v->number(0, 1e9);
        if (t.rate_per_sec <= 0) v->fail("found a rate of 0", "records per second above zero (or no \"rate\": all at once)");
      } else if (t.count > 1'000'000) {
        // All at once, every record is in the client's memory together (Kafka's producer would
        // block on buffer.memory long before).
        step.at("count").fail("found a burst of " + std::to_string(t.count) + " records all at once",
                              "at most 1000000 at once, or a \"rate\" to send them at");
      }
    } else if (t.action == "seek") {
      t.targets.push_back(check_node_of(step.at("target"), names, consuming, t.action, "group member or consumer"));
      const JsonReader topic = step.at("topic");
      t.topic = topic.string();
      const auto& topics = reads.at(t.targets.front());
      if (std::find(topics.begin(), topics.end(), t.topic) == topics.end()) {
        std::string expected = "a topic it reads:";
        for (const auto& n : topics) expected += " " + n;
        topic.fail(t.targets.front() + " does not read topic \"" + t.topic + "\"", expected);
      }
      if (auto v = step.get("partition")) t.partition = static_cast<std::int32_t>(v->integer(0, 9'999));
      t.reset = read_reset(step, t, s);
      t.reset->group_id.clear();
      t.reset->topics.clear();
    } else if (t.action == "add-member") {
      t.group = check_group(step.at("group"), s);
      t.targets.push_back(added_names[index]);
    } else if (t.action == "remove-member") {
      t.targets.push_back(check_node_of(step.at("target"), names, members, t.action, "group member"));
    } else if (t.action == "create-topic") {
      t.create = read_topic(step.at("topic"), s);
      t.topic = t.create->name;
    } else if (t.is_group_admin()) {
      t.group = check_group(step.at("group"), s);
      if (t.action == "reset-offsets") t.reset = read_reset(step, t, s);
      if (t.action == "delete-offsets") t.topic = step.at("topic").string();
    } else if (t.is_admin()) {
      t.topic = step.at("topic").string();
      if (t.action == "add-partitions") t.partitions = static_cast<std::int32_t>(step.at("partitions").integer(1, 10'000));
      if (t.action == "alter-config") t.configs = read_alter_configs(step.at("config"), s, s.file);
    } else if (t.action == "set-network") {
      // Without a target: every link's default; with one: the links to and from that node.
      if (step.has("target")) t.targets.push_back(check_node(step.at("target"), names));
      t.network = read_network(step.at("network"), s.cluster.network);
    } else if (std::find(keys.begin(), keys.end(), "target") != keys.end()) {
      t.targets.push_back(check_node(step.at("target"), names));
      if (t.action == "clog") {
        t.for_duration = step.at("for").duration();
        if (t.for_duration <= 0) step.at("for").fail("found a clog of no length", "a duration above zero, e.g. \"2s\"");
      } else if (t.action == "clock-skew") {
        t.clock_offset = signed_duration(step.at("offset"));
        if (auto d = step.get("drift_ppm")) t.drift_ppm = d->number(-100'000, 100'000);
      }
    }
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
    if (is_member_fault(k) && members == 0) return "the scenario has no group members to aim it at";
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

// What the scenario loader's files share (loader.cc reads the sections, loader_clients.cc the
// producers, consumers and groups, loader_timeline.cc the timeline and the faults section).
// Internal to the loader.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/json_reader.h"
#include "scenarios/faults.h"
#include "scenarios/scenario.h"
#include "sim/network.h"

namespace logsim::scenarios::detail {

// The topic config keys a scenario accepts (Kafka's names).
extern const std::vector<std::string> kTopicConfigKeys;
// Link options as under /cluster/network, over `base` (keys not given keep its value).
sim::LinkOptions read_network(const JsonReader& r, const sim::LinkOptions& base = {});
// A topic's "config" object into `spec`.
void read_topic_config(const JsonReader& c, TopicSpec& spec);
// A topic object as under /topics (or a create-topic step's "topic").
TopicSpec read_topic(const JsonReader& t, const Scenario& s);

// A Kafka config value: an int32 from lo up, or a boolean (true, false, "true", "false").
std::int32_t config_int(const JsonReader& r, std::int64_t lo);
bool config_bool(const JsonReader& r);

// The client sections (loader_clients.cc): "producers", "consumers", and "groups" (read from
// the root, which its cross-checks need). `apps`: the registered users' applications an "app"
// key may name.
void read_producers(const JsonReader& r, Scenario& s, const std::vector<std::string>& apps);
void read_consumers(const JsonReader& r, Scenario& s);
void read_groups(const JsonReader& root, Scenario& s, const std::vector<std::string>& apps);

// The "timeline" section, sorted by time, with the admin steps checked in order.
void read_timeline(const JsonReader& r, Scenario& s);
// The "faults" section.
FaultSchedule read_faults(const JsonReader& r, const Scenario& s);

}  // namespace logsim::scenarios::detail

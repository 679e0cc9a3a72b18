// What the scenario loader's two files share (loader.cc reads the sections, loader_timeline.cc
// the timeline and the faults section). Internal to the loader.
#pragma once

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

// The "timeline" section, sorted by time, with the admin steps checked in order.
void read_timeline(const JsonReader& r, Scenario& s);
// The "faults" section.
FaultSchedule read_faults(const JsonReader& r, const Scenario& s);

}  // namespace logsim::scenarios::detail

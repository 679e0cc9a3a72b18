// The cluster a scenario describes, as the engine's configurations: the same brokers and
// controller whichever world runs them (sim::World in logsim run, live::LiveWorld in logsim
// serve). Node ids are given in order of addition: broker-1..N are 0..N-1, then the
// controller is N.
#pragma once

#include <vector>

#include "engine/broker/broker.h"
#include "engine/controller/controller.h"
#include "scenarios/scenario.h"

namespace logsim::scenarios {

struct ClusterIds {
  std::vector<NodeId> brokers;
  NodeId controller;
};

ClusterIds cluster_ids(const Scenario& scenario);
// Every broker's configuration (the cluster's config section, the plants).
engine::BrokerConfig broker_config(const Scenario& scenario, const ClusterIds& ids);
// The controller's: the brokers and their racks, topic defaults, and the scenario's topics.
engine::ControllerConfig controller_config(const Scenario& scenario, const ClusterIds& ids);

}  // namespace logsim::scenarios

// The cluster as sampled at regular simulated times during a run, for the report's timeline:
// each node's state, and each user partition's leader, leader epoch, log end offset, high
// watermark and ISR size as its leader sees them. Sampling only reads: the runner runs the
// World in chunks and looks between them, so the simulation (and its trace hash) is the same
// with or without it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/base/types.h"

namespace logsim::scenarios {

struct PartitionSample {
  std::int32_t leader = -1;        // index into Samples::nodes; -1: no live leader
  std::int32_t leader_epoch = -1;
  std::int64_t log_end = -1;       // -1: unknown (no live leader)
  std::int64_t high_watermark = -1;
  std::int32_t isr = 0;
  std::int64_t last_stable = -1;   // the last stable offset: below the high watermark while a transaction is undecided
};

struct Sample {
  Nanos at = 0;
  std::string node_states;  // one letter per node: U up, C crashed, P paused, D down (stopped or not started)
  std::vector<PartitionSample> partitions;  // in Samples::partitions order
};

struct Samples {
  Nanos interval = 0;
  std::vector<std::string> nodes;       // every node, in id order
  std::vector<std::string> node_roles;  // "broker", "controller", "producer", "member", "consumer", "admin"
  std::vector<std::string> partitions;  // "topic/partition", user topics only, in order of first sight
  std::vector<Sample> samples;
};

// The sampling interval for a run of `total` simulated time: about 400 samples, at least 1 ms.
Nanos sample_interval(Nanos total);

}  // namespace logsim::scenarios

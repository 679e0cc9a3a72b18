// samples.json: the cluster as sampled over a run (scenarios/samples.h), the report's source
// for lanes that the history cannot tell (node states, leaders, log end, high watermark).
//
// Version 1: {"version": 1, "interval_ms", "nodes": [name...], "roles": [role...],
// "partitions": ["topic/partition"...], "samples": [{"at_ms", "states": "UUCP...",
// "leader": [node index or -1...], "epoch": [...], "log_end": [...], "hw": [...], "isr": [...]}]}
// Arrays in a sample follow "partitions"; a sample taken before a partition was first seen has
// shorter arrays.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "scenarios/samples.h"

namespace logsim::reports {

constexpr int kSamplesVersion = 1;

nlohmann::json samples_json(const scenarios::Samples& samples);
// Reads samples.json's document back; throws std::runtime_error naming what is wrong.
scenarios::Samples samples_from_json(const nlohmann::json& j);

}  // namespace logsim::reports

// What the checkers conclude: the anomalies found, each with the first event that shows it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "engine/base/types.h"

namespace logsim::properties {

// One violated property. Anomaly names are Jepsen's where Jepsen has one (DESIGN.md).
struct Violation {
  std::string anomaly;           // e.g. "nonmonotonic-poll"
  std::uint64_t first_event = 0; // index of the history event that shows it
  Nanos at = 0;
  std::string process;
  std::string topic;
  std::optional<PartitionId> partition;
  std::optional<Offset> offset;
  std::optional<std::string> key;
  std::vector<std::string> members;  // the processes involved
  std::string explanation;           // one sentence
};

enum class Outcome : std::uint8_t {
  kPass,       // every property held
  kViolated,   // a safety property was violated
  kLiveness,   // the run did not catch up after faults healed
};

struct Verdict {
  Outcome outcome = Outcome::kPass;
  std::vector<Violation> violations;
  // Measured figures, by name (e.g. "realtime-lag.max_ms"): what the checkers measured, for the
  // report; a bound on one is a property of its own.
  std::map<std::string, std::int64_t> figures;
};

std::string_view outcome_name(Outcome o);

// Every anomaly a checker can report, by its name (DESIGN.md), in a fixed order.
const std::vector<std::string>& anomaly_names();

}  // namespace logsim::properties

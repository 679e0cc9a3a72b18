// A scenario's random fault schedule (the "faults" section): which kinds of fault, how often,
// how long, and between which times. The loader checks it; the runner draws the concrete steps
// from the run's seed (its own "faults" stream, so nothing else in the run moves when the
// schedule changes) and applies them like timeline steps. The same seed draws the same
// schedule; another seed, another one — FoundationDB's and Jepsen's nemesis, in a scenario file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/client/group_admin.h"
#include "engine/env/rng.h"
#include "engine/base/types.h"

namespace logsim::scenarios {

struct Scenario;
struct TimelineStep;

// The kinds, as named in "kinds" (and in `logsim fuzz --faults`).
enum class FaultKind : std::uint8_t {
  kCrash,            // a broker crashes; restarted when the fault ends
  kPowerLoss,        // a broker loses power (unflushed writes are lost); restarted when it ends
  kIsolate,          // every link to and from a broker is cut; healed when it ends
  kPartition,        // a broker is cut from the other brokers and the controller; healed
  kPause,            // a broker stops (a long GC pause); resumed
  kClog,             // messages to and from a broker wait until the fault ends
  kControllerCrash,  // the controller crashes; restarted
  kMemberCrash,      // a group member (or a transactional producer) crashes; restarted
  kMemberPause,      // a group member (or a transactional producer: a zombie) stops; resumed
  kMemberStop,       // a group member shuts down cleanly (leaves its group); started again
  kMemberSeek,       // a group member seeks one of its topics (earliest, latest, or back a few)
  kMemberPowerLoss,  // a group member's machine loses power (its disk keeps only what was synced); restarted
};

std::string_view fault_kind_name(FaultKind k);
const std::vector<std::string>& fault_kind_names();  // every kind, in declaration order
bool fault_kind_by_name(std::string_view name, FaultKind& out);
// The kinds under which Kafka promises safety (every kind but power-loss, KIP-966).
std::vector<FaultKind> safe_fault_kinds();
// Faults aimed at a group member (member-crash, member-pause, member-stop, member-seek,
// member-power-loss), not at the cluster.
bool is_member_fault(FaultKind k);
// Where a member-seek goes, from one number drawn for it: earliest, latest, or back by 1 to 100
// records from the position (as a seek step's `to`: a reset mode and value).
engine::ResetOffsetsRequest member_seek_to(std::uint64_t draw);

struct FaultSchedule {
  std::vector<FaultKind> kinds;  // what may happen (chosen uniformly per fault)
  Nanos every = seconds(10);     // mean time between the starts of two faults (exponential; one
                                 // that finds `concurrency` faults running waits for a repair)
  Nanos length = seconds(3);     // "for": mean length of a fault (uniform in [0.5, 1.5] of it)
  Nanos from = 0;                // no fault starts before this
  Nanos until = -1;              // every fault has ended by this (-1: the scenario's duration)
  std::int32_t concurrency = 1;  // at most this many faults at once
};

// The steps one fault comes to: its start at `start` and its repair at `end` (clog carries its
// length instead, member-seek has none). `brokers` are the scenario's broker names (a partition
// cuts the target from the others and the controller); for member-seek, `topics` are the target
// member's group's topics and `draw` a number drawn for the fault (which topic, where to).
// The runner's schedule and `logsim fuzz` both render faults with it.
std::vector<TimelineStep> fault_steps(FaultKind kind, const std::string& target, Nanos start, Nanos end,
                                      const std::vector<std::string>& brokers, const std::vector<std::string>& topics,
                                      std::uint64_t draw);

// The steps a schedule comes to for one seed: each fault a start step and (except clog, which
// carries its length) an end step, sorted by time. A node is never the target of two faults at
// once, and one network fault (isolate, partition) runs at a time, since heal ends them all.
std::vector<TimelineStep> draw_faults(const FaultSchedule& schedule, const Scenario& scenario, Rng& rng);

}  // namespace logsim::scenarios

// RapidCheck generators of whole test cases for `logsim fuzz`: a cluster, a topic, producers,
// consumer groups with their application behaviour and client configuration, and a fault
// schedule. Swarm testing (as FoundationDB does with its knobs): each case turns on a random
// subset of fault kinds and draws its configuration, so different seeds stress different
// corners instead of every seed averaging over everything.
//
// A case is plain data, which fuzz.cc renders as an ordinary scenario file. Every value is within the range Kafka accepts and within the
// rules under which Kafka promises no loss, order per partition and one owner per partition
// (acks=all, replication factor 3, min.insync.replicas=2, no unclean election; ordering-safe
// producer settings; no commit-before-processing; no handler that fails), so a correct engine
// passes every case and a violation is a finding.
//
// Generation is a pure function of a seed: `case_for_seed(seed)` is the same value on every
// machine (RapidCheck's splittable random generator, keyed by the seed). Shrinking follows
// RapidCheck's shrink tree: fewer faults, fewer kinds, fewer members and groups, smaller
// numbers, all towards the simplest case.
#pragma once

#include <rapidcheck/Gen.h>
#include <rapidcheck/Shrinkable.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/faults.h"

namespace logsim::fuzz {

// What a fault does: the kinds of a scenario's "faults" section (scenarios/faults.h), one list
// for both. Broker-side faults never overlap each other (the next starts after the previous one
// is repaired), and neither do member-side ones; the two lanes run side by side.
using scenarios::FaultKind;
using scenarios::fault_kind_name;
using scenarios::safe_fault_kinds;  // the kinds a case draws from when none are named

struct Fault {
  FaultKind kind = FaultKind::kCrash;  // clog: its length is the clog's "for"
  std::int32_t target = 0;        // index of the broker or member (taken modulo how many there are)
  std::int64_t gap_ms = 0;        // quiet time after the previous fault of its lane was repaired
  std::int64_t length_ms = 100;   // from the fault to its repair
};

enum class Commit : std::uint8_t { kAuto, kAfterEachMessage, kAfterEachBatch, kAfterEachBatchAsync };
std::string_view commit_name(Commit c);

struct Group {
  std::int32_t members = 1;
  Commit commit = Commit::kAuto;
  std::string assignor = "range";         // partition.assignment.strategy
  bool static_membership = false;         // group.instance.id
  std::int32_t processing_ms = 0;         // the most one record takes (uniform from 0)
  std::int32_t session_timeout_ms = 6000; // session.timeout.ms (heartbeat.interval.ms a third)
  std::int32_t auto_commit_interval_ms = 5000;
  std::int32_t max_poll_records = 500;
};

struct Producer {
  std::int32_t rate_per_sec = 100;
  bool idempotent = true;                 // enable.idempotence (off: max.in.flight 1, so order holds)
  std::int32_t max_in_flight = 5;         // max.in.flight.requests.per.connection
  std::int32_t keys = 10;                 // uniform over this many keys
};

struct Case {
  std::int32_t brokers = 3;
  std::int32_t partitions = 1;
  std::int32_t offsets_partitions = 1;    // offsets.topic.num.partitions
  std::int32_t replica_lag_time_max_ms = 10000;
  std::vector<Producer> producers;
  std::vector<Group> groups;
  std::vector<FaultKind> kinds;           // the swarm: the kinds this case may use
  std::vector<Fault> faults;
};

// The shape of every case: how long faults last and where they fall.
struct Shape {
  std::int64_t faults_from_ms = 2'000;
  std::int64_t faults_until_ms = 20'000;  // the fault phase; the quiet period follows
  std::int64_t quiesce_ms = 60'000;  // long enough for the slowest group to catch up
  std::int32_t max_faults = 10;
  std::vector<FaultKind> kinds = safe_fault_kinds();  // the swarm draws a subset of these
};

// A whole case: topology, workload, groups and faults.
rc::Gen<Case> gen_case(const Shape& shape);
// Only a fault schedule, for a template scenario that brings the rest.
rc::Gen<Case> gen_faults_only(const Shape& shape);

// The case a seed stands for, with its shrink tree.
rc::Shrinkable<Case> case_for_seed(const rc::Gen<Case>& gen, std::uint64_t seed);

// A fault laid out on the timeline.
struct PlacedFault {
  Fault fault;
  std::int64_t start_ms = 0;
  std::int64_t end_ms = 0;
};
// Faults in order per lane, each `gap_ms` after the previous one of its lane was repaired;
// faults of kinds outside the case's swarm, and faults not repaired by the end of the fault
// phase, are dropped, so shrinking only ever makes a schedule sparser.
std::vector<PlacedFault> place_faults(const Case& c, const Shape& shape);

}  // namespace logsim::fuzz

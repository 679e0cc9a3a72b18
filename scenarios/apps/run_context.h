// What the simulated applications share with the harness: the history they record into, the
// world's true clock (history times are true simulated time, not a node's skewed clock; live,
// the live world's), and
// workload progress that survives an application's restart (the test driver's memory, not
// the application's).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/plants.h"
#include "engine/env/rng.h"
#include "engine/protocol/messages.h"
#include "properties/history.h"
#include "engine/base/types.h"

namespace logsim::scenarios {

struct ProducerProgress {
  std::int64_t sent = 0;  // records of the workload handed to the client so far
  Rng workload;           // key choices
  std::map<std::size_t, std::int64_t> burst_left{};  // produce steps begun (by application-step index): records still to send
};

struct RunContext {
  properties::History& history;
  std::function<Nanos()> now;  // the world's true time
  std::map<std::string, ProducerProgress> producers;  // by producer name
  std::uint64_t last_value_id = 0;  // values are numbered 1, 2, ... across all producers
  std::uint64_t poison_salt = 0;    // which records are poison (drawn from the seed)
  Plants plants{};                  // planted bugs the clients honour
  // Dead-letter copies are numbered from 2^48, apart from the producers' values, so that
  // dead-lettering does not renumber (and so re-draw the failures of) the records after it.
  std::uint64_t last_dead_letter_id = std::uint64_t{1} << 48;
  // Exactly-once pipelines' copies are numbered from 2^49, for the same reason.
  std::uint64_t last_copy_id = std::uint64_t{2} << 48;
  // The application steps (produce, seek; from the timeline and the fault schedule) that have
  // begun, by index in the run's list of them: each is carried out once, whatever restarts its
  // application goes through.
  std::vector<std::uint8_t> step_begun{};
  // Applications' assertion events recorded this run (what happened, then the message): each
  // is recorded once a run, whatever restarts its application goes through.
  std::set<std::string> assertions_recorded{};

  properties::HistoryEvent event(properties::OpKind kind, const std::string& process) const {
    properties::HistoryEvent e;
    e.at = now();
    e.kind = kind;
    e.process = process;
    return e;
  }
};

// Whether the record with this value id is poison for a group with this probability: the same
// answer on every member and every attempt.
bool is_poison(std::uint64_t value_id, std::uint64_t salt, double probability);

// The record header that carries a record's value id when its value cannot: a tombstone (null
// value) or a value too short to start with the id.
inline constexpr std::string_view kValueIdHeader = "logsim.value_id";

// The value a producer sends: its unique id in decimal, a space, then padding to `bytes`; or,
// when the id and its space do not fit in `bytes`, `bytes` of padding alone.
std::string make_value(std::uint64_t value_id, std::int32_t bytes);
// The record a producer sends: a value of `bytes` made by make_value, or none (a tombstone). A
// record whose value does not start with its id carries the id in the kValueIdHeader header.
Record make_record(std::optional<std::string> key, std::uint64_t value_id, std::int32_t bytes, bool tombstone,
                   std::int64_t timestamp_ms);
// The id of a record made by make_record (its kValueIdHeader header, else the start of its
// value), or 0 if there is none.
std::uint64_t parse_value_id(const Record& record);

}  // namespace logsim::scenarios

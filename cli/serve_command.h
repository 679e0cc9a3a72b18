// logsim serve: the engine as a live Kafka cluster on loopback, for real clients, with the
// scenario's cluster faults applied in real time (docs/live.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace logsim::cli {

struct ServeArgs {
  std::string scenario;               // optional: its cluster, topics and timeline
  std::int32_t brokers = 3;           // without a scenario
  std::string listen = "127.0.0.1:9092";  // the first broker's address; the others take the next ports
  bool allow_remote = false;          // a non-loopback --listen must be asked for
  std::string bootstrap_file;         // also write the bootstrap line here
  std::string duration;               // e.g. "30s" (none: until SIGINT or SIGTERM)
  std::string data;                   // a directory for the brokers' logs (none: in memory)
  bool in_memory = false;
  std::int32_t num_partitions = -1;   // num.partitions of auto-created topics (-1: the scenario's, or 1)
  bool quiet = false;                 // no log lines on stderr
  std::string out;                    // write the run's history, summary and reports here at the end
  std::string history;                // also write the history to this file
};

int serve_command(const ServeArgs& args);

}  // namespace logsim::cli

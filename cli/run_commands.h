// logsim run (one scenario and seed, or many scenarios and seeds for CI) and logsim report.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace logsim::cli {

struct RunArgs {
  std::vector<std::string> files;   // scenario files, or directories of them
  std::optional<std::uint64_t> seed;  // --seed (none: each scenario's own "seed")
  std::string seeds;                // "N" (seeds per scenario: seed, seed+1, ...) or "A..B"
  int jobs = 1;                     // runs in parallel (many runs only)
  bool check_determinism = false;
  std::string out;
  bool json = false;
  bool quiet = false;
  bool trace = false;
  std::string history;              // --history FILE
  std::vector<std::string> plants;  // --plant NAME ...
  bool list_plants = false;
  std::optional<std::string> shard;  // --shard I/N (cli/shard.h): run only shard I of N of the runs
};

int run_command(const RunArgs& args);
// Rebuilds DIR/report.html from the JSON files a run wrote into DIR.
int report_command(const std::string& dir);

}  // namespace logsim::cli

// logsim fuzz and logsim replay.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace logsim::cli {

struct FuzzArgs {
  std::string template_file;        // optional: a scenario to add fault schedules to
  std::int64_t seeds = 0;           // 0: 100, or as many as --time allows
  std::string time;                 // a wall-clock budget ("30s", "5m")
  std::uint64_t first_seed = 1;
  int jobs = 1;
  std::vector<std::string> plants;
  std::string faults;               // comma-separated fault kinds (default: every safe kind)
  std::string out = "logsim-fuzz";
  bool keep_going = false;
  bool no_shrink = false;
  std::int64_t shrink_runs = 400;
  bool quiet = false;
  bool json = false;
  bool list_plants = false;
  std::int64_t show_case = -1;      // print the scenario this seed stands for, and exit
  std::optional<std::string> shard;  // --shard I/N (cli/shard.h): run only shard I of N of the seeds
};

int fuzz_command(const FuzzArgs& args);
// The summary's line for an application's `sometimes` assertion: in how many seeds it was
// evaluated and held ("NEVER HELD" when it was evaluated and never held). logsim merge prints
// the same for a campaign's shards together.
std::string sometimes_line(const std::string& message, std::int64_t reached, std::int64_t held);

// Re-runs a failure saved by logsim fuzz and confirms its verdict and trace hash.
int replay_command(const std::string& file);

}  // namespace logsim::cli

// logsim merge: puts the shards of one sweep back together (cli/shard.h). Each DIR is the --out
// directory of `logsim run --shard I/N` or `logsim fuzz --shard I/N`; the merged directory holds
// what one machine running the whole sweep would have written (runs.json and junit.xml in the
// sweep's order with every failing run's report, or fuzz.json with every shard's failures), plus
// merge.json, and the exit code is the one that single run would have had.
//
// It refuses (exit 2) shards of different sweeps, a shard given twice or overlapping another,
// and a sweep with shards missing unless --partial is given.
#pragma once

#include <string>
#include <vector>

namespace logsim::cli {

struct MergeArgs {
  std::vector<std::string> dirs;  // the shards' --out directories
  std::string out;                // where the merged files go
  bool partial = false;           // merge even when shards are missing (and say which)
  bool quiet = false;
};

int merge_command(const MergeArgs& args);

}  // namespace logsim::cli

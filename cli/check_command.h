// logsim check FILE: the default checkers over a recorded history (docs/history.md), read as a
// stream so that a history of millions of events needs memory only for the checkers' state.
#pragma once

#include <string>

namespace logsim::cli {

struct CheckArgs {
  std::string file;
  bool json = false;
};

// Exit codes: 0 every property held, 1 a violation, 4 a liveness failure, 2 a malformed file
// (HistoryFileError, thrown), an empty one, or one with nothing to judge (no send-ok and no
// process event) and no violation.
int check_command(const CheckArgs& args);

}  // namespace logsim::cli

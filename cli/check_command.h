// logsim check FILE: the default checkers over a recorded history (docs/history.md), read as a
// stream so that a history of millions of events needs memory only for the checkers' state.
#pragma once

#include "engine/base/types.h"

#include <optional>
#include <string>
#include <vector>

namespace logsim::cli {

struct CheckArgs {
  std::string file;
  bool json = false;
  // Topics whose cleanup.policy includes compact, besides those the history's admin events show.
  std::vector<std::string> compacted;
  bool any_compacted = false;  // any topic may be compacted (lenient: see docs/history.md)
  std::optional<Nanos> max_lag;  // realtime-lag's bound (none: the figure only)
  bool write_isolation = false;  // int-send-skip is a violation (else the figure only)
};

// Exit codes: 0 every property held, 1 a violation, 4 a liveness failure, 2 a malformed file
// (HistoryFileError, thrown), an empty one, or one with nothing to judge (no send-ok and no
// process event) and no violation.
int check_command(const CheckArgs& args);

}  // namespace logsim::cli

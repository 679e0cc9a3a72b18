// Builds the message of a failed invariant.
#include "engine/base/assert.h"

namespace logsim {

void invariant_failed(const char* expr, const char* file, int line, const std::string& message) {
  throw InvariantError(std::string("invariant failed: ") + expr + " (" + file + ":" +
                       std::to_string(line) + ")" + (message.empty() ? "" : ": " + message));
}

}  // namespace logsim

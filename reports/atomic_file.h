// Writes a file atomically: to a temporary file beside it, flushed, then renamed over the
// target, so an interrupted run leaves the complete old file or the complete new one.
#pragma once

#include <string>
#include <string_view>

namespace logsim::reports {

// Returns an empty string on success, else what went wrong (with the path).
std::string write_file_atomically(const std::string& path, std::string_view contents);

}  // namespace logsim::reports

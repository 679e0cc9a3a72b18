// What one run leaves in a directory: summary.json, history.jsonl, junit.xml, samples.json,
// report.html and, when asked, trace.jsonl. `logsim run --out`, the failing runs of a CI batch,
// the failure `logsim fuzz` saved and the API's write_report all write it here, so they agree.
// Every file is written atomically (reports/atomic_file.h): an interrupted write leaves the old
// file or the new one, never half of one.
#pragma once

#include <string>

#include "scenarios/runner.h"

namespace logsim::reports {

struct RunDirOptions {
  double wall_ms = 0;         // the run's wall-clock time, for summary.json and junit.xml
  std::string junit_suite;    // junit.xml's test suite ("logsim run"); empty: no junit.xml
  bool trace = false;         // also trace.jsonl (the run must have recorded its trace)
};

// Writes the run into `dir` (created if missing). `result` is what summary.json and junit.xml
// say: out.result, or a copy the caller adjusted (the file a fuzz failure was saved as).
// Returns an empty string, or what could not be written; files written before that stay.
std::string write_run_dir(const std::string& dir, const scenarios::RunResult& result, const scenarios::RunOutput& out,
                          const RunDirOptions& options);

// trace.jsonl: one JSON object per trace entry (index, at_ns, kind, node, peer, detail, text).
std::string trace_jsonl(const sim::Trace& trace);

}  // namespace logsim::reports

// The files of one run's directory, in a fixed order: summary.json first, report.html last.
#include "reports/run_dir.h"

#include "reports/atomic_file.h"
#include "reports/history_jsonl.h"
#include "reports/html.h"
#include "reports/junit.h"
#include "reports/samples_json.h"
#include "reports/summary.h"

namespace logsim::reports {

std::string trace_jsonl(const sim::Trace& trace) {
  std::string out;
  for (const auto& e : trace.entries()) {
    nlohmann::json j{{"index", e.index}, {"at_ns", e.at}, {"kind", sim::trace_kind_name(e.kind)},
                     {"node", e.node}, {"peer", e.peer}, {"detail", e.detail}, {"text", e.text}};
    out += j.dump() + "\n";
  }
  return out;
}

std::string write_run_dir(const std::string& dir, const scenarios::RunResult& result, const scenarios::RunOutput& out,
                          const RunDirOptions& options) {
  nlohmann::json summary = summary_json(result, options.wall_ms);
  std::string err = write_file_atomically(dir + "/summary.json", summary.dump(2) + "\n");
  if (err.empty()) err = write_file_atomically(dir + "/history.jsonl", history_jsonl(out.history));
  if (err.empty() && !options.junit_suite.empty()) {
    err = write_file_atomically(dir + "/junit.xml", junit_xml(options.junit_suite, {{result, options.wall_ms}}));
  }
  if (err.empty()) err = write_file_atomically(dir + "/samples.json", samples_json(out.samples).dump() + "\n");
  if (err.empty()) err = write_file_atomically(dir + "/report.html", report_html(summary, out.history, out.samples));
  if (err.empty() && options.trace) err = write_file_atomically(dir + "/trace.jsonl", trace_jsonl(out.trace));
  return err;
}

}  // namespace logsim::reports

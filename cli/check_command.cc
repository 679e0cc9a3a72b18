// logsim check: streams the history through the default checkers, with a progress line on a
// terminal. The wall clock is read here only, for the progress line (never in properties/).
#include "cli/check_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "api/app_registry.h"
#include "cli/exit_codes.h"
#include "properties/checker.h"
#include "cli/progress_line.h"
#include "reports/history_jsonl.h"
#include "reports/summary.h"

namespace logsim::cli {
namespace {

using properties::HistoryEvent;
using properties::OpKind;

// Bytes read of the file, events and events per second on stderr while a check takes long, on
// a terminal only, at most four times a second.
class ReadProgress {
 public:
  explicit ReadProgress(const std::string& file) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    total_ = ec ? 0 : size;
  }
  void update(std::uint64_t bytes, std::uint64_t events) {
    const auto wall = line_.due();
    if (!wall) return;
    const double done = total_ > 0 ? static_cast<double>(bytes) / static_cast<double>(total_) : 0.0;
    line_.draw(done, fmt::format("{:.1f} of {:.1f} MB  {:.2f} M events  {:.2f} M events/s", static_cast<double>(bytes) / 1e6,
                                 static_cast<double>(total_) / 1e6, static_cast<double>(events) / 1e6,
                                 static_cast<double>(events) / *wall / 1e6));
  }

 private:
  ProgressLine line_{true, std::chrono::milliseconds(250), std::chrono::milliseconds(250)};
  std::uint64_t total_ = 0;
};

constexpr const char* kNothingToJudge = "nothing to judge: no acknowledged sends (send-ok) and no processed records (process)";

void print_json(const CheckArgs& args, std::uint64_t events, bool judged, const properties::Verdict& v) {
  nlohmann::json j{{"file", args.file}, {"events", events}, {"judged", judged}, {"verdict", properties::outcome_name(v.outcome)}};
  j["figures"] = v.figures;
  j["violations"] = nlohmann::json::array();
  for (const auto& x : v.violations) {
    j["violations"].push_back({{"anomaly", x.anomaly}, {"first_event", x.first_event}, {"at_ns", x.at},
                               {"process", x.process}, {"topic", x.topic}, {"partition", reports::nullable(x.partition)},
                               {"offset", reports::nullable(x.offset)}, {"members", x.members}, {"explanation", x.explanation}});
  }
  std::cout << j.dump(2) << "\n";
}

void print_text(const CheckArgs& args, std::uint64_t events, bool judged, const properties::Verdict& v) {
  std::string verdict(properties::outcome_name(v.outcome));
  for (auto& c : verdict) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::cout << fmt::format("logsim check: {} ({} events)\n  verdict    {}\n", args.file, events, verdict);
  if (!judged) std::cout << "  " << kNothingToJudge << "\n";
  for (const auto& [name, value] : v.figures) std::cout << fmt::format("  figure     {} = {}\n", name, value);
  for (const auto& x : v.violations) {
    std::cout << fmt::format("  VIOLATION  {} at {:.3f}s (event #{}): {}\n", x.anomaly, static_cast<double>(x.at) / 1e9,
                             x.first_event, x.explanation);
  }
}

}  // namespace

int check_command(const CheckArgs& args) {
  properties::CheckerOptions checker_options;
  checker_options.max_realtime_lag = args.max_lag;
  checker_options.write_isolation = args.write_isolation;
  if (args.any_compacted) {
    checker_options.compacted_topics.reset();
  } else {
    checker_options.compacted_topics->insert(args.compacted.begin(), args.compacted.end());
  }
  properties::CheckerSet checkers = properties::default_checkers(checker_options);
  for (const auto& make : logsim::detail::registered_user_code().checkers) checkers.add(make());  // a logsim::main binary's own
  std::uint64_t judgeable = 0;  // send-ok and process events: what the main properties are about
  std::uint64_t events = 0;
  {
    ReadProgress progress(args.file);
    reports::HistoryReadOptions options;
    options.on_chunk = [&progress](std::uint64_t bytes, std::uint64_t n) { progress.update(bytes, n); };
    events = reports::read_history_file(
        args.file,
        [&](const HistoryEvent& e) {
          if (e.kind == OpKind::kSendOk || e.kind == OpKind::kProcess) ++judgeable;
          checkers.observe(e);
        },
        options);
  }
  if (events == 0) {
    std::fprintf(stderr, "logsim: %s holds no events: nothing to judge; a recording that failed?\n", args.file.c_str());
    return kExitBadInput;
  }
  const properties::Verdict v = checkers.finish();
  // A violation is a judgement even without sends or processed records (a stale commit).
  const bool judged = judgeable > 0 || !v.violations.empty();
  if (args.json) {
    print_json(args, events, judged, v);
  } else {
    print_text(args, events, judged, v);
  }
  return judged ? exit_code(v.outcome) : kExitBadInput;
}

}  // namespace logsim::cli

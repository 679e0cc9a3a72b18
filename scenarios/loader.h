// Loading scenario files: strict, with errors a person can act on.
//
// Every problem is reported as `file: /json/pointer: what is wrong; expected what is right`,
// with a did-you-mean for misspelled keys and names. Unknown keys, wrong types, impossible
// values, unknown targets and steps after the end of the run are all errors. Loading throws
// ScenarioError (an edge of the program: the CLI turns it into exit code 2).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "scenarios/scenario.h"

namespace logsim::scenarios {

class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(std::string file, std::string pointer, std::string problem, std::string expected);
  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }
  const std::string& problem() const { return problem_; }
  const std::string& expected() const { return expected_; }

 private:
  std::string file_, pointer_, problem_, expected_;
};

// Reads and validates a scenario file. `apps`: the names of the users' applications the
// running binary has registered (api/app.h), which an "app" key may name; logsim's own binary
// registers none, so it refuses a scenario that names one.
Scenario load_scenario_file(const std::string& path, const std::vector<std::string>& apps = {});
// Validates scenario JSON text; `file` names it in errors.
Scenario parse_scenario(std::string_view text, const std::string& file, const std::vector<std::string>& apps = {});

// Parses "250ms", "5s", "2m", "1h", "7d" (also "ns", "us"); nothing if malformed.
std::optional<Nanos> parse_duration(std::string_view text);
// The one of `candidates` that `word` begins (an abbreviation), else the closest to it if close
// enough to be a likely misspelling.
std::optional<std::string> did_you_mean(std::string_view word, const std::vector<std::string>& candidates);
// How an error message goes on after its problem: "; expected <what>", or "; did you mean ...?"
// when `expected` is a guess.
std::string expected_clause(std::string_view expected);

}  // namespace logsim::scenarios

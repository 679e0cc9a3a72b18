// GoogleTest assertions over a run, for users' own test suites (header only: link GTest
// yourself, as your tests already do).
//
//   EXPECT_TRUE(logsim::testing::Passed(out));
//   EXPECT_TRUE(logsim::testing::AsExpected(out));                   // the scenario's "expect"
//   EXPECT_TRUE(logsim::testing::Found(out, {"lost-write"}));
//
// A failing assertion says why, then what `logsim run` prints (verdict, trace hash, counts, the
// first violations with the event that shows each, the replay command), and writes the run's
// report (report.html and the files beside it) into report_dir_for(out) unless a report
// directory is given: "" writes none. So a red test leaves a page to open.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <exception>
#include <initializer_list>
#include <string>
#include <string_view>

#include "api/logsim.h"

namespace logsim::testing {

// Where a failing assertion in the current test writes its report:
// $LOGSIM_REPORT_DIR (default "logsim-reports", in the working directory) /<Suite>.<Test>/seed-N.
inline std::string report_dir_for(const RunOutput& out) {
  const char* root = std::getenv("LOGSIM_REPORT_DIR");
  std::string dir = root != nullptr && *root != '\0' ? root : "logsim-reports";
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string test = info != nullptr ? std::string(info->test_suite_name()) + "." + info->name() : "outside-a-test";
  for (char& c : test) c = c == '/' ? '_' : c;  // parameterized tests: Suite/Test/0
  return dir + "/" + test + "/seed-" + std::to_string(out.result.seed);
}

namespace detail {

inline ::testing::AssertionResult failure(const RunOutput& out, const std::string& why, const std::string& report_dir) {
  ::testing::AssertionResult r = ::testing::AssertionFailure();
  r << why << "\n" << describe(out);
  if (report_dir.empty()) return r;
  try {
    r << "  report     " << write_report(out, report_dir) << "\n";
  } catch (const std::exception& e) {
    r << "  report     not written: " << e.what() << "\n";
  }
  return r;
}

inline std::string anomaly_list(const RunOutput& out) {
  std::string s = "{";
  for (const auto& a : anomalies(out)) s += " " + a;
  return s + " }";
}

}  // namespace detail

// Every property held.
inline ::testing::AssertionResult Passed(const RunOutput& out, const std::string& report_dir) {
  if (passed(out)) return ::testing::AssertionSuccess() << "every property held (seed " << out.result.seed << ")";
  return detail::failure(out, "expected every property to hold; the verdict is " + std::string(properties::outcome_name(out.result.verdict.outcome)) +
                                  ", found " + detail::anomaly_list(out),
                         report_dir);
}
inline ::testing::AssertionResult Passed(const RunOutput& out) { return Passed(out, report_dir_for(out)); }

// The verdict is what the scenario's "expect" says.
inline ::testing::AssertionResult AsExpected(const RunOutput& out, const std::string& report_dir) {
  if (as_expected(out)) return ::testing::AssertionSuccess() << "as the scenario expects (seed " << out.result.seed << ")";
  return detail::failure(out, "not as the scenario expects: " + out.result.expectation_detail, report_dir);
}
inline ::testing::AssertionResult AsExpected(const RunOutput& out) { return AsExpected(out, report_dir_for(out)); }

// Each of `wanted` was found at least once (others may have been found too).
inline ::testing::AssertionResult Found(const RunOutput& out, std::initializer_list<std::string_view> wanted, const std::string& report_dir) {
  std::string missing;
  for (const auto a : wanted) {
    if (!found(out, a)) missing += " " + std::string(a);
  }
  if (missing.empty()) return ::testing::AssertionSuccess() << "found " << detail::anomaly_list(out) << " (seed " << out.result.seed << ")";
  return detail::failure(out, "expected to find {" + missing + " }; found " + detail::anomaly_list(out), report_dir);
}
inline ::testing::AssertionResult Found(const RunOutput& out, std::initializer_list<std::string_view> wanted) {
  return Found(out, wanted, report_dir_for(out));
}

}  // namespace logsim::testing

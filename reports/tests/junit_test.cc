// junit.xml: a passing run is a test case without a failure; a failing one carries the
// anomaly, the explanation and the command that reproduces it; text is escaped.
#include <gtest/gtest.h>

#include "reports/junit.h"

namespace logsim::reports {
namespace {

scenarios::RunResult result(bool failing) {
  scenarios::RunResult r;
  r.scenario = "orders <fan-out>";
  r.file = "scenarios/orders.json";
  r.seed = 42;
  r.trace_hash = 0xabcdef;
  if (failing) {
    r.expectation_met = false;
    r.verdict.outcome = properties::Outcome::kViolated;
    properties::Violation v;
    v.anomaly = "lost-write";
    v.explanation = "value 7 was acknowledged & then lost";
    v.at = 1'500'000'000;
    v.first_event = 12;
    r.verdict.violations.push_back(v);
  }
  return r;
}

TEST(JUnit, APassingRunIsATestCaseWithoutAFailure) {
  const std::string xml = junit_xml("logsim run", {{result(false), 12.0}});
  EXPECT_NE(xml.find("tests=\"1\" failures=\"0\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"orders &lt;fan-out&gt; seed 42\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<property name=\"trace_hash\" value=\"0000000000abcdef\"/>"), std::string::npos) << xml;
  EXPECT_EQ(xml.find("<failure"), std::string::npos);
}

TEST(JUnit, AFailingRunCarriesTheAnomalyTheExplanationAndTheReplayCommand) {
  const std::string xml = junit_xml("logsim run", {{result(false), 1.0}, {result(true), 2.0}});
  EXPECT_NE(xml.find("tests=\"2\" failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure type=\"lost-write\" message=\"lost-write: value 7 was acknowledged &amp; then lost\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("lost-write at 1.500s (event #12)"), std::string::npos) << xml;
  EXPECT_NE(xml.find("reproduce: logsim run scenarios/orders.json --seed 42"), std::string::npos) << xml;
}

TEST(JUnit, EscapesWhatXmlCannotHoldAsIs) {
  EXPECT_EQ(xml_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
  EXPECT_EQ(xml_escape(std::string("x\x01y\tz")), "x?y\tz");
}

}  // namespace
}  // namespace logsim::reports

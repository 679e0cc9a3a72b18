// junit.xml: the result of runs in the JUnit XML format CI systems read (Jenkins, GitLab,
// GitHub Actions' test reporters). One <testcase> per scenario and seed; a failing one carries
// the anomaly (type), a one-line explanation (message) and, in its text, the violations and the
// exact command that reproduces it. reports/junit.xsd describes the subset written here, and a
// test checks the output against it with xmllint.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/runner.h"

namespace logsim::reports {

struct JUnitCase {
  scenarios::RunResult result;
  double wall_ms = 0;
};

// `suite` names the <testsuite> (e.g. "logsim run").
std::string junit_xml(const std::string& suite, const std::vector<JUnitCase>& cases);
// The same document from <testcase> elements already written (each as junit_xml writes it,
// from its "    <testcase " line to its "    </testcase>" line): `logsim merge` joins the
// junit.xml files of a sweep's shards with it. The totals are counted again from the cases.
std::string junit_xml_from_cases(const std::string& suite, const std::vector<std::string>& cases);
// The <testcase> elements of a junit.xml that junit_xml wrote, in order; nothing when the text
// is not such a file.
std::optional<std::vector<std::string>> junit_cases(std::string_view xml);

// XML-escapes text for an attribute or element content.
std::string xml_escape(std::string_view text);

}  // namespace logsim::reports

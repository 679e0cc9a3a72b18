// junit.xml (see junit.h).
#include "reports/junit.h"

#include <fmt/format.h>

#include <cstdlib>

#include "reports/summary.h"

namespace logsim::reports {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 allows no control characters but tab, newline and carriage return.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
  return out;
}

namespace {

std::string case_xml(const JUnitCase& c) {
  const scenarios::RunResult& r = c.result;
  std::string out = fmt::format("    <testcase classname=\"logsim.{}\" name=\"{} seed {}\" file=\"{}\" time=\"{:.3f}\">\n",
                                xml_escape(r.scenario), xml_escape(r.scenario), r.seed, xml_escape(r.file), c.wall_ms / 1000.0);
  out += "      <properties>\n";
  out += fmt::format("        <property name=\"seed\" value=\"{}\"/>\n", r.seed);
  out += fmt::format("        <property name=\"trace_hash\" value=\"{}\"/>\n", trace_hash_hex(r.trace_hash));
  out += fmt::format("        <property name=\"verdict\" value=\"{}\"/>\n", properties::outcome_name(r.verdict.outcome));
  out += "      </properties>\n";
  if (!r.expectation_met) {
    std::string type = std::string(properties::outcome_name(r.verdict.outcome));
    std::string message = r.expectation_detail;
    if (!r.verdict.violations.empty()) {
      const auto& v = r.verdict.violations.front();
      type = v.anomaly;
      message = v.anomaly + ": " + v.explanation;
    }
    std::string text;
    for (const auto& v : r.verdict.violations) {
      text += fmt::format("{} at {:.3f}s (event #{}): {}\n", v.anomaly, static_cast<double>(v.at) / 1e9, v.first_event, v.explanation);
    }
    if (!r.expectation_detail.empty()) text += "expected: " + r.expectation_detail + "\n";
    text += "reproduce: " + replay_command(r) + "\n";
    out += fmt::format("      <failure type=\"{}\" message=\"{}\">{}</failure>\n", xml_escape(type), xml_escape(message), xml_escape(text));
  }
  out += fmt::format("      <system-out>{}</system-out>\n", xml_escape("reproduce: " + replay_command(r)));
  out += "    </testcase>\n";
  return out;
}

constexpr std::string_view kCaseOpen = "    <testcase ";
constexpr std::string_view kCaseClose = "    </testcase>\n";

// A written case's time attribute, in seconds (0 when it has none).
double case_time_s(std::string_view c) {
  const auto at = c.find(" time=\"");
  if (at == std::string_view::npos || at > c.find('>')) return 0;
  const auto start = at + 7;
  return std::strtod(std::string(c.substr(start, c.find('"', start) - start)).c_str(), nullptr);
}

std::string document(const std::string& suite, const std::vector<std::string>& cases, int failures, double total_s) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" time=\"{:.3f}\">\n", xml_escape(suite),
                     cases.size(), failures, total_s);
  out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" time=\"{:.3f}\">\n",
                     xml_escape(suite), cases.size(), failures, total_s);
  for (const auto& c : cases) out += c;
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace

std::string junit_xml(const std::string& suite, const std::vector<JUnitCase>& cases) {
  int failures = 0;
  double total_s = 0;
  std::vector<std::string> written;
  for (const auto& c : cases) {
    failures += c.result.expectation_met ? 0 : 1;
    total_s += c.wall_ms / 1000.0;
    written.push_back(case_xml(c));
  }
  return document(suite, written, failures, total_s);
}

std::string junit_xml_from_cases(const std::string& suite, const std::vector<std::string>& cases) {
  int failures = 0;
  double total_s = 0;
  for (const auto& c : cases) {
    failures += c.find("\n      <failure ") != std::string::npos ? 1 : 0;
    total_s += case_time_s(c);
  }
  return document(suite, cases, failures, total_s);
}

std::optional<std::vector<std::string>> junit_cases(std::string_view xml) {
  if (!xml.starts_with("<?xml") || xml.find("<testsuites ") == std::string_view::npos) return std::nullopt;
  std::vector<std::string> cases;
  for (std::size_t at = xml.find(kCaseOpen); at != std::string_view::npos; at = xml.find(kCaseOpen, at)) {
    const std::size_t end = xml.find(kCaseClose, at);
    if (end == std::string_view::npos) return std::nullopt;
    cases.emplace_back(xml.substr(at, end + kCaseClose.size() - at));
    at = end + kCaseClose.size();
  }
  return cases;
}

}  // namespace logsim::reports

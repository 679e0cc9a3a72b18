// junit.xml (see junit.h).
#include "reports/junit.h"

#include <fmt/format.h>

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

std::string junit_xml(const std::string& suite, const std::vector<JUnitCase>& cases) {
  int failures = 0;
  double total_s = 0;
  for (const auto& c : cases) {
    failures += c.result.expectation_met ? 0 : 1;
    total_s += c.wall_ms / 1000.0;
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" time=\"{:.3f}\">\n", xml_escape(suite),
                     cases.size(), failures, total_s);
  out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" time=\"{:.3f}\">\n",
                     xml_escape(suite), cases.size(), failures, total_s);
  for (const auto& c : cases) {
    const scenarios::RunResult& r = c.result;
    out += fmt::format("    <testcase classname=\"logsim.{}\" name=\"{} seed {}\" file=\"{}\" time=\"{:.3f}\">\n", xml_escape(r.scenario),
                       xml_escape(r.scenario), r.seed, xml_escape(r.file), c.wall_ms / 1000.0);
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
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace logsim::reports

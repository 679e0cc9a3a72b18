// Rendering report.html: the page around the timeline (reports/html_timeline.h draws that, as
// SVG, so the page needs no script to show it): the verdict and how to reproduce the run, the
// first violation with the events around it, every violation, the counts, and the inline CSS
// and the script, which only shows a hovered mark's event and copies the replay command.
#include "reports/html.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "reports/html_text.h"
#include "reports/html_timeline.h"

namespace logsim::reports {
namespace {

using html::esc;
using html::event_line;
using html::ms_of;
using html::seconds;
using html::str;
using html::int_or;

constexpr int kEventsAround = 8;  // events shown before and after the first violation

std::string verdict_class(const std::string& verdict) {
  if (verdict == "pass") return "pass";
  if (verdict == "liveness") return "liveness";
  return "violated";
}

const char* const kStyle = R"(
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:20px;color:#222;background:#fff}
h1{font-size:20px;margin:0 0 8px} h2{font-size:16px;margin:22px 0 8px}
.verdict{display:inline-block;padding:2px 10px;border-radius:4px;color:#fff;font-weight:600;letter-spacing:.04em}
.verdict.pass{background:#2a7d2e}.verdict.violated{background:#c62828}.verdict.liveness{background:#ef6c00}
.meta td{padding:1px 12px 1px 0;vertical-align:top} .meta td:first-child{color:#666}
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;background:#f4f4f4;padding:2px 4px;border-radius:3px}
button{font-size:12px;margin-left:6px}
.layout{display:flex;gap:20px;align-items:flex-start}
.explain{border-left:4px solid #c62828;background:#fff5f5;padding:8px 12px;max-width:1180px}
table.events{border-collapse:collapse;font:12px ui-monospace,monospace;margin-top:6px}
table.events td{padding:1px 8px;border-bottom:1px solid #eee;white-space:nowrap}
table.events tr.first{background:#ffd7d7;font-weight:600}
table.violations td{white-space:normal;vertical-align:top} table.violations td:nth-child(-n+3){white-space:nowrap}
table.stats td{padding:1px 14px 1px 0}
#timeline text{font-size:11px;fill:#333} #timeline .heading{font-weight:600;font-size:12px}
.lane-bg{fill:#fafafa;stroke:#e4e4e4} .grid{stroke:#eee} .axis text{fill:#666}
.st-U{fill:#d9f0d9}.st-C{fill:#ef9a9a}.st-P{fill:#ffe082}.st-D{fill:#cfcfcf}
.cut{fill:url(#hatch);stroke:#6a1b9a;stroke-width:.5}
.fault{stroke:#6a1b9a;stroke-width:2} .fault.quiesce{stroke:#2a7d2e;stroke-width:3}
.log-end{fill:none;stroke:#bbb;stroke-width:3} .hw{fill:none;stroke:#263238;stroke-width:1.2}
.member .st{opacity:.85}
.committed{fill:none;stroke-width:1.5;stroke-dasharray:4 2} .lag-line{fill:none;stroke-width:2}
.leader-change{stroke:#000;stroke-width:1;stroke-dasharray:2 2} .offline{fill:#333}
.rebalance{stroke:#ef6c00;stroke-width:2}
.txn-commit{fill:#81c784}.txn-abort{fill:#e57373}.txn-info,.txn-open{fill:#bdbdbd}
.lso{fill:none;stroke:#8e24aa;stroke-width:1.2;stroke-dasharray:4 2}
.txn-abort-record{fill:#c62828}.txn-info-record,.txn-open-record{fill:#757575}
.band.gen-even{fill:#90caf9}.band.gen-odd{fill:#64b5f6}.band.churn{fill:#ffb74d}
.band-label{font-size:10px !important;pointer-events:none}
.violation-line{stroke:#c62828;stroke-width:2} .violation-dot{fill:#c62828;stroke:#fff;stroke-width:1.5}
#violation-mark{fill:#c62828}
[data-tip]:hover{opacity:.75}
#tip{position:absolute;max-width:520px;background:#222;color:#fff;font:12px ui-monospace,monospace;padding:4px 8px;border-radius:4px;pointer-events:none;white-space:pre-wrap;z-index:10}
.legend span{display:inline-block;margin-right:14px} .legend i{display:inline-block;width:14px;height:10px;margin-right:4px;vertical-align:middle}
)";

const char* const kScript = R"(
(function(){
  var tip=document.getElementById('tip');
  var svg=document.getElementById('timeline');
  if(svg){
    svg.addEventListener('mousemove',function(ev){
      var el=ev.target.closest('[data-tip]');
      if(!el){tip.hidden=true;return;}
      tip.textContent=el.getAttribute('data-tip');
      tip.style.left=(ev.pageX+14)+'px';tip.style.top=(ev.pageY+14)+'px';tip.hidden=false;
    });
    svg.addEventListener('mouseleave',function(){tip.hidden=true;});
  }
  var copy=document.getElementById('copy-replay');
  if(copy){copy.addEventListener('click',function(){
    var text=document.getElementById('replay').textContent;
    try{navigator.clipboard.writeText(text).then(function(){copy.textContent='copied';},function(){copy.textContent='select and copy';});}
    catch(e){copy.textContent='select and copy';}
  });}
  document.body.setAttribute('data-lanes',String(document.querySelectorAll('#timeline .lane').length));
  document.body.setAttribute('data-ready','1');
})();
)";

// The page's head (title, style) and the opening of its body, with the script that counts
// script errors first, so that an error in any later script is counted (the browser test reads
// the count).
std::string page_head(const nlohmann::json& summary, const std::string& verdict) {
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">";
  h += fmt::format("<title>logsim: {} (seed {}) {}</title>", esc(str(summary, "scenario")), esc(str(summary, "seed")), esc(verdict));
  h += "<style>" + std::string(kStyle) + "</style></head>\n";
  h += "<body data-script-errors=\"0\" data-ready=\"0\">\n";
  h += "<script>window.addEventListener('error',function(){var b=document.body;"
       "b.setAttribute('data-script-errors',String(Number(b.getAttribute('data-script-errors'))+1));});</script>\n";
  return h;
}

// The heading with the verdict, whether it was what the scenario expects, and the run's facts:
// its file, seed, trace hash, times and the command that reproduces it.
std::string run_header(const nlohmann::json& summary, const std::string& verdict) {
  std::string h;
  h += fmt::format("<h1>logsim: {} <span class=\"verdict {}\" id=\"verdict\">{}</span></h1>\n", esc(str(summary, "scenario")),
                   verdict_class(verdict), esc(verdict));
  if (!summary.value("expectation_met", true)) {
    h += "<p><b>Not as expected:</b> " + esc(str(summary, "expectation_detail")) + "</p>\n";
  } else if (verdict != "pass") {
    h += "<p>As this scenario expects: it demonstrates the failure below.</p>\n";
  }
  h += "<table class=\"meta\">";
  h += fmt::format("<tr><td>scenario file</td><td><code>{}</code></td></tr>", esc(str(summary, "file")));
  h += fmt::format("<tr><td>seed</td><td>{}</td></tr>", esc(str(summary, "seed")));
  h += fmt::format("<tr><td>trace hash</td><td><code>{}</code> ({} events)</td></tr>", esc(str(summary, "trace_hash")), esc(str(summary, "trace_events")));
  h += fmt::format("<tr><td>time</td><td>{} simulated, {:.0f} ms wall</td></tr>", seconds(summary.value("simulated_ms", 0.0)),
                   summary.value("wall_ms", 0.0));
  h += fmt::format("<tr><td>reproduce</td><td><code id=\"replay\">{}</code><button id=\"copy-replay\" type=\"button\">copy</button></td></tr>",
                   esc(str(summary, "replay")));
  h += "</table>\n";
  return h;
}

// The members a violation names, each once, in the order given.
std::string members_text(const nlohmann::json& members) {
  std::string text;
  std::set<std::string> seen;
  for (const auto& m : members) {
    const std::string name = m.is_string() ? m.get<std::string>() : m.dump();
    if (seen.insert(name).second) text += (text.empty() ? "" : ", ") + name;
  }
  return text;
}

// The kEventsAround events before and after event `index` (which must be in the history), the
// event itself highlighted.
std::string events_around(const properties::History& history, std::uint64_t index) {
  std::string h = "<table class=\"events\">";
  const std::uint64_t lo = index >= static_cast<std::uint64_t>(kEventsAround) ? index - kEventsAround : 0;
  const std::uint64_t hi = std::min<std::uint64_t>(history.size() - 1, index + kEventsAround);
  for (std::uint64_t i = lo; i <= hi; ++i) {
    h += fmt::format("<tr{}><td>{}</td></tr>", i == index ? " class=\"first\"" : "", esc(event_line(history.events()[i])));
  }
  h += "</table>";
  return h;
}

// The first violation explained: anomaly, time, event, where, and the events around it.
std::string first_violation_section(const nlohmann::json& first, const properties::History& history) {
  std::string h = "<h2>First violation</h2>\n<div class=\"explain\" id=\"violation\">";
  h += fmt::format("<b>{}</b> at {} (event #{}", esc(str(first, "anomaly")), seconds(first.value("at_ms", 0.0)), esc(str(first, "first_event")));
  if (!str(first, "topic").empty()) h += fmt::format(", {}/{}", esc(str(first, "topic")), esc(str(first, "partition")));
  if (int_or(first, "offset", -1) >= 0) h += fmt::format(" offset {}", esc(str(first, "offset")));
  if (!str(first, "key").empty()) h += ", key " + esc(str(first, "key"));
  h += ")<br>" + esc(str(first, "explanation"));
  if (first.contains("members") && first["members"].is_array() && !first["members"].empty()) {
    h += "<br>members: " + esc(members_text(first["members"]));
  }
  const auto index = first.value("first_event", std::uint64_t{0});
  if (index < history.size()) h += events_around(history, index);
  h += "</div>\n";
  return h;
}

// The timeline's heading and legend: what each colour and line means.
const char* const kTimelineLegend =
    "<h2>Timeline</h2>\n<p class=\"legend\">"
    "<span><i style=\"background:#d9f0d9\"></i>up</span><span><i style=\"background:#ef9a9a\"></i>crashed</span>"
    "<span><i style=\"background:#ffe082\"></i>paused</span><span><i style=\"background:#cfcfcf\"></i>down</span>"
    "<span><i style=\"background:#f3e5f5;border:1px solid #6a1b9a\"></i>cut off by the network</span>"
    "<span><i style=\"background:#bbb;height:3px\"></i>log end</span><span><i style=\"background:#263238;height:2px\"></i>high watermark</span>"
    "<span>- - committed (group colour)</span><span style=\"color:#8e24aa\">- - last stable offset (when a transaction holds it back)</span>"
    "<span><i style=\"background:#c62828;width:5px;height:5px;border-radius:50%\"></i>/"
    "<i style=\"background:#757575;width:5px;height:5px;border-radius:50%\"></i>record of an aborted / unknown transaction</span>"
    "<span><i style=\"background:#ef6c00;width:3px\"></i>rebalance</span>"
    "<span><i style=\"background:#c62828;width:3px\"></i>first violation</span> Hover any mark for its event.</p>\n";

// Every violation, in a collapsed table of at most kMaxRows rows (summary.json lists them all).
std::string all_violations_section(const nlohmann::json& violations) {
  constexpr std::size_t kMaxRows = 50;
  std::string h = fmt::format("<details id=\"all-violations\"><summary><b>All violations ({})</b></summary><table class=\"events violations\" id=\"violations\">",
                              violations.size());
  for (std::size_t i = 0; i < violations.size() && i < kMaxRows; ++i) {
    const auto& v = violations[i];
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>#{}</td><td>{}</td></tr>", esc(str(v, "anomaly")), seconds(v.value("at_ms", 0.0)),
                     esc(str(v, "first_event")), esc(str(v, "explanation")));
  }
  if (violations.size() > kMaxRows) h += fmt::format("<tr><td colspan=\"4\">... and {} more (summary.json lists them all)</td></tr>", violations.size() - kMaxRows);
  h += "</table></details>\n";
  return h;
}

// The run's counters, and how many history events and samples the page was drawn from.
std::string counts_section(const nlohmann::json& summary, const properties::History& history, const scenarios::Samples& samples) {
  std::string h = "<h2>Counts</h2><table class=\"stats\">";
  if (summary.contains("stats") && summary["stats"].is_object()) {
    for (const auto& [k, v] : summary["stats"].items()) h += fmt::format("<tr><td>{}</td><td>{}</td></tr>", esc(k), esc(v.dump()));
  }
  h += fmt::format("<tr><td>history events</td><td>{}</td></tr><tr><td>samples</td><td>{} (every {})</td></tr></table>\n", history.size(),
                   samples.samples.size(), seconds(ms_of(samples.interval)));
  return h;
}

}  // namespace

std::string report_html(const nlohmann::json& summary, const properties::History& history, const scenarios::Samples& samples) {
  double end_ms = summary.value("simulated_ms", 0.0);
  if (!samples.samples.empty()) end_ms = std::max(end_ms, ms_of(samples.samples.back().at));
  const nlohmann::json violations = summary.value("violations", nlohmann::json::array());
  const nlohmann::json first = violations.empty() ? nlohmann::json() : violations[0];
  const std::string verdict = summary.value("verdict", std::string("?"));

  std::string h = page_head(summary, verdict);
  h += run_header(summary, verdict);
  if (first.is_object()) h += first_violation_section(first, history);
  h += kTimelineLegend;
  h += html::timeline_svg(history, samples, first, end_ms) + "\n";
  // Every violation, after the timeline (a cascade must not push it off the first screen).
  if (violations.size() > 1) h += all_violations_section(violations);
  if (summary.contains("findings") && summary["findings"].is_array()) {
    h += "<h2>Client findings</h2>\n<p class=\"legend\">What a client did that no Kafka client should; not part of the verdict.</p><ul id=\"findings\">";
    for (const auto& f : summary["findings"]) h += "<li>" + esc(f.is_string() ? f.get<std::string>() : f.dump()) + "</li>";
    h += "</ul>\n";
  }
  h += counts_section(summary, history, samples);
  h += "<div id=\"tip\" hidden></div>\n<script>" + std::string(kScript) + "</script>\n</body></html>\n";
  return h;
}

}  // namespace logsim::reports

// Rendering report.html: the timeline is drawn here, as SVG, so the page needs no script to
// show it; the script only shows a hovered mark's event and copies the replay command.
#include "reports/html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace logsim::reports {
namespace {

using properties::HistoryEvent;
using properties::OpKind;

constexpr double kLabelWidth = 190;  // the lane names, left of the plot
constexpr double kPlotWidth = 1000;
constexpr double kRightMargin = 20;
constexpr double kSvgWidth = kLabelWidth + kPlotWidth + kRightMargin;
constexpr std::size_t kMaxMarks = 400;          // per lane; beyond this, every k-th is drawn
constexpr std::size_t kMaxPartitionLanes = 48;  // beyond this, the rest are counted, not drawn
constexpr std::size_t kMaxMemberRows = 32;      // per group
constexpr int kEventsAround = 8;                // events shown before and after the first violation

// Colours by index (brokers, groups): distinct on white, readable as thin lines. No red: red
// means a violation, a crash or an offline partition.
const char* const kPalette[] = {"#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"};
const char* colour(std::size_t i) { return kPalette[i % std::size(kPalette)]; }

std::string esc(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string seconds(double ms) { return fmt::format("{:.3f}s", ms / 1000.0); }
// An axis label: as few digits as the tick step needs.
std::string axis_label(double ms, double step_ms) {
  if (step_ms >= 1000 && std::fmod(ms, 1000.0) == 0) return fmt::format("{:.0f}s", ms / 1000.0);
  if (step_ms >= 1) return fmt::format("{:.0f}ms", ms);
  return fmt::format("{:.3f}ms", ms);
}
double ms_of(Nanos t) { return static_cast<double>(t) / 1e6; }

std::string str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return {};
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// One event as one line of text, for tooltips and the table around a violation.
std::string event_line(const HistoryEvent& e) {
  std::string s = fmt::format("#{} {} {}", e.index, seconds(ms_of(e.at)), properties::op_kind_name(e.kind));
  if (!e.process.empty()) s += " " + e.process;
  if (!e.group.empty()) s += fmt::format(" group {}", e.group);
  if (e.generation >= 0) s += fmt::format(" gen {}", e.generation);
  if (!e.topic.empty()) s += e.partition >= 0 ? fmt::format(" {}/{}", e.topic, e.partition) : " " + e.topic;
  if (e.offset >= 0) s += fmt::format(" @{}", e.offset);
  if (e.key) s += " key=" + *e.key;
  if (e.value_id != 0) s += fmt::format(" value#{}", e.value_id);
  if (e.kind == OpKind::kAssign) {
    s += " [";
    for (std::size_t i = 0; i < e.assignment.size(); ++i) s += fmt::format("{}{}/{}", i ? " " : "", e.assignment[i].topic, e.assignment[i].partition.value());
    s += "]";
  }
  if (!e.error.empty()) s += " " + e.error;
  if (!e.note.empty()) s += " (" + e.note + ")";
  return s;
}

struct Interval {
  double from = 0, to = 0;
  std::string what;
};

struct Assignment {
  double at = 0;
  std::int32_t generation = -1;
  std::string parts;  // "orders/0 orders/2"
  std::uint64_t index = 0;
};

struct GroupView {
  std::vector<std::string> members;  // in order of first assignment
  std::map<std::string, std::vector<Assignment>> assignments;
  std::vector<std::pair<double, std::int32_t>> generations;  // when each new generation first showed
  std::map<std::string, std::vector<std::pair<double, std::int64_t>>> committed;  // "topic/p" -> (ms, offset)
  std::set<std::string> partitions;  // ever assigned
};

// What the history tells the report, in one pass.
struct HistoryView {
  std::vector<HistoryEvent> faults;
  std::map<std::string, std::vector<Interval>> cuts;  // node -> isolated / partitioned intervals
  std::vector<std::string> group_order;
  std::map<std::string, GroupView> groups;
  double quiesce_at = -1;
};

std::vector<std::string> split_names(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

HistoryView read_history(const properties::History& history, double end_ms) {
  HistoryView v;
  std::map<std::string, Interval> open_cuts;
  const auto close_cuts = [&](double at) {
    for (auto& [node, cut] : open_cuts) {
      cut.to = at;
      v.cuts[node].push_back(cut);
    }
    open_cuts.clear();
  };
  for (const auto& e : history.events()) {
    const double at = ms_of(e.at);
    if (e.kind == OpKind::kFault) {
      v.faults.push_back(e);
      if (e.note.rfind("isolate ", 0) == 0) {
        const std::string node = e.note.substr(8);
        open_cuts.try_emplace(node, Interval{at, at, "isolated from every other node"});
      } else if (e.note.rfind("partition ", 0) == 0) {
        for (const auto& side : split_names(e.note.substr(10), '|')) {
          for (const auto& node : split_names(side, ',')) open_cuts.try_emplace(node, Interval{at, at, "partitioned: " + e.note.substr(10)});
        }
      } else if (e.note == "heal" || e.note.rfind("quiesce", 0) == 0) {
        close_cuts(at);
        if (e.note.rfind("quiesce", 0) == 0) v.quiesce_at = at;
      }
      continue;
    }
    if (e.group.empty()) continue;
    if (!v.groups.contains(e.group)) v.group_order.push_back(e.group);
    GroupView& g = v.groups[e.group];
    if (e.kind == OpKind::kAssign) {
      if (!g.assignments.contains(e.process)) g.members.push_back(e.process);
      Assignment a{at, e.generation, {}, e.index};
      for (const auto& tp : e.assignment) {
        const std::string name = tp.topic + "/" + std::to_string(tp.partition.value());
        a.parts += (a.parts.empty() ? "" : " ") + name;
        g.partitions.insert(name);
      }
      g.assignments[e.process].push_back(std::move(a));
      if (g.generations.empty() || e.generation > g.generations.back().second) g.generations.emplace_back(at, e.generation);
    } else if ((e.kind == OpKind::kCommitOk || (e.kind == OpKind::kSeek && e.process == "admin")) && e.partition >= 0 && e.offset >= 0) {
      g.committed[e.topic + "/" + std::to_string(e.partition)].emplace_back(at, e.offset);
    }
  }
  close_cuts(end_ms);
  return v;
}

// Draws into one SVG, top to bottom.
class Timeline {
 public:
  explicit Timeline(double end_ms) : end_ms_(std::max(end_ms, 1.0)) {}

  double x(double ms) const { return kLabelWidth + std::clamp(ms / end_ms_, 0.0, 1.0) * kPlotWidth; }
  double y() const { return y_; }

  void axis() {
    const double raw = end_ms_ / 10;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
      if (mag * m >= raw) {
        step = mag * m;
        break;
      }
    }
    svg_ += fmt::format(R"(<g class="axis">)");
    for (double t = 0; t <= end_ms_ + 1e-9; t += step) {
      svg_ += fmt::format(R"(<line x1="{0:.1f}" x2="{0:.1f}" y1="{1}" y2="100%" class="grid"/><text x="{0:.1f}" y="{2}" text-anchor="middle">{3}</text>)",
                          x(t), y_ + 16, y_ + 12, axis_label(t, step));
    }
    svg_ += "</g>";
    y_ += 22;
  }

  // A section heading across the label column.
  void heading(const std::string& text) {
    svg_ += fmt::format(R"(<text class="heading" x="4" y="{}">{}</text>)", y_ + 14, esc(text));
    y_ += 20;
  }

  // A lane: name on the left, a faint band across the plot. Returns its top.
  double lane(const std::string& cls, const std::string& name, double height, const std::string& tip = {}) {
    const double top = y_;
    svg_ += fmt::format(R"(<g class="lane {}" data-lane="{}">)", cls, esc(name));
    svg_ += fmt::format(R"(<text class="lane-name" x="{}" y="{:.1f}" text-anchor="end"{}>{}</text>)", kLabelWidth - 8,
                        top + height / 2 + 4, tip.empty() ? "" : " data-tip=\"" + esc(tip) + "\"", esc(name));
    svg_ += fmt::format(R"(<rect class="lane-bg" x="{}" y="{:.1f}" width="{}" height="{:.1f}"/>)", kLabelWidth, top, kPlotWidth, height);
    y_ += height + 4;
    return top;
  }
  void end_lane() { svg_ += "</g>"; }

  void rect(const std::string& cls, double from_ms, double to_ms, double top, double height, const std::string& tip,
            const std::string& fill = {}) {
    const double x0 = x(from_ms);
    const double w = std::max(x(to_ms) - x0, 1.0);
    svg_ += fmt::format(R"(<rect class="{}" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}"{} data-tip="{}"/>)", cls, x0, top, w,
                        height, fill.empty() ? "" : " fill=\"" + fill + "\"", esc(tip));
  }
  void mark(const std::string& cls, double at_ms, double top, double height, const std::string& tip) {
    svg_ += fmt::format(R"(<line class="{}" x1="{:.1f}" x2="{:.1f}" y1="{:.1f}" y2="{:.1f}" data-tip="{}"/>)", cls, x(at_ms), x(at_ms),
                        top, top + height, esc(tip));
  }
  void text(const std::string& cls, double x_px, double y_px, const std::string& s) {
    svg_ += fmt::format(R"(<text class="{}" x="{:.1f}" y="{:.1f}">{}</text>)", cls, x_px, y_px, esc(s));
  }
  // A line through (ms, value) points scaled into [top, top+height] by 0..max; breaks at gaps.
  void series(const std::string& cls, const std::vector<std::pair<double, double>>& points, double max, double top, double height,
              const std::string& tip, const std::string& stroke = {}) {
    std::string path;
    bool pen = false;
    for (const auto& [t, v] : points) {
      if (v < 0) {
        pen = false;
        continue;
      }
      const double yy = top + height - (max <= 0 ? 0 : v / max) * height;
      path += fmt::format("{}{:.1f},{:.1f} ", pen ? "L" : "M", x(t), yy);
      pen = true;
    }
    if (path.empty()) return;
    svg_ += fmt::format(R"(<path class="{}" d="{}"{} data-tip="{}"/>)", cls, path, stroke.empty() ? "" : " stroke=\"" + stroke + "\"", esc(tip));
  }
  void raw(const std::string& s) { svg_ += s; }

  std::string finish() const {
    return fmt::format(R"(<svg id="timeline" xmlns="http://www.w3.org/2000/svg" width="{}" height="{:.0f}" viewBox="0 0 {} {:.0f}">{}</svg>)",
                       kSvgWidth, y_ + 8, kSvgWidth, y_ + 8, svg_);
  }

 private:
  double end_ms_;
  double y_ = 0;
  std::string svg_;
};

// Draws at most kMaxMarks of `n` marks: every k-th. Returns k.
std::size_t thin_step(std::size_t n) { return n <= kMaxMarks ? 1 : (n + kMaxMarks - 1) / kMaxMarks; }

std::string state_name(char c) {
  switch (c) {
    case 'U': return "up";
    case 'C': return "crashed";
    case 'P': return "paused";
    case 'D': return "down";
    default: return "?";
  }
}

// Shades a node's crashed / paused / down intervals from the samples.
void node_states(Timeline& tl, const scenarios::Samples& s, std::size_t node, double top, double height, double end_ms, bool shade_up) {
  if (s.samples.empty()) return;
  std::size_t i = 0;
  while (i < s.samples.size()) {
    const char c = s.samples[i].node_states[node];
    std::size_t j = i + 1;
    while (j < s.samples.size() && s.samples[j].node_states[node] == c) ++j;
    const double from = ms_of(s.samples[i].at);
    const double to = j < s.samples.size() ? ms_of(s.samples[j].at) : end_ms;
    if (c != 'U' || shade_up) {
      tl.rect(std::string("st st-") + c, from, to, top, height,
              fmt::format("{} {} from {} to {}", s.nodes[node], state_name(c), seconds(from), seconds(to)));
    }
    i = j;
  }
}

void draw_faults(Timeline& tl, const HistoryView& hv) {
  const double top = tl.lane("faults", fmt::format("faults ({})", hv.faults.size()), 18,
                             "every fault the timeline injected, and the start of the quiet period");
  const std::size_t step = thin_step(hv.faults.size());
  for (std::size_t i = 0; i < hv.faults.size(); i += step) {
    const HistoryEvent* e = &hv.faults[i];
    tl.mark(e->note.rfind("quiesce", 0) == 0 ? "fault quiesce" : "fault", ms_of(e->at), top, 18, event_line(*e));
  }
  tl.end_lane();
}

void draw_nodes(Timeline& tl, const scenarios::Samples& s, const HistoryView& hv, double end_ms) {
  tl.heading("Brokers and controller");
  for (std::size_t n = 0; n < s.nodes.size(); ++n) {
    if (s.node_roles[n] != "broker" && s.node_roles[n] != "controller") continue;
    const double top = tl.lane(s.node_roles[n], s.nodes[n], 16);
    node_states(tl, s, n, top, 16, end_ms, true);
    if (auto it = hv.cuts.find(s.nodes[n]); it != hv.cuts.end()) {
      for (const auto& cut : it->second) {
        tl.rect("cut", cut.from, cut.to, top, 16, fmt::format("{} {} from {} to {}", s.nodes[n], cut.what, seconds(cut.from), seconds(cut.to)));
      }
    }
    tl.end_lane();
  }
}

// The committed offset of a group on a partition at each sample time (-1 before its first).
std::vector<std::pair<double, double>> committed_at_samples(const std::vector<std::pair<double, std::int64_t>>& commits,
                                                            const scenarios::Samples& s) {
  std::vector<std::pair<double, double>> out;
  std::size_t k = 0;
  double value = -1;
  for (const auto& sample : s.samples) {
    const double at = ms_of(sample.at);
    while (k < commits.size() && commits[k].first <= at) value = static_cast<double>(commits[k++].second);
    out.emplace_back(at, value);
  }
  return out;
}

void draw_partitions(Timeline& tl, const scenarios::Samples& s, const HistoryView& hv, const nlohmann::json& first_violation, double end_ms) {
  tl.heading("Partitions: log end, high watermark, committed offsets; the leader below");
  const std::size_t drawn = std::min(s.partitions.size(), kMaxPartitionLanes);
  constexpr double kHeight = 54;
  constexpr double kLeaderBand = 6;
  for (std::size_t p = 0; p < drawn; ++p) {
    std::vector<std::pair<double, double>> log_end, hw;
    double max = 1;
    for (const auto& sample : s.samples) {
      const double at = ms_of(sample.at);
      const bool known = p < sample.partitions.size() && sample.partitions[p].leader >= 0;
      log_end.emplace_back(at, known ? static_cast<double>(sample.partitions[p].log_end) : -1.0);
      hw.emplace_back(at, known ? static_cast<double>(sample.partitions[p].high_watermark) : -1.0);
      if (known) max = std::max(max, static_cast<double>(sample.partitions[p].log_end));
    }
    const double top = tl.lane("partition", s.partitions[p], kHeight + kLeaderBand);
    const double plot_h = kHeight - 4;
    tl.series("log-end", log_end, max, top + 2, plot_h, s.partitions[p] + ": log end offset on the leader");
    tl.series("hw", hw, max, top + 2, plot_h, s.partitions[p] + ": high watermark");
    for (std::size_t g = 0; g < hv.group_order.size(); ++g) {
      const GroupView& gv = hv.groups.at(hv.group_order[g]);
      auto it = gv.committed.find(s.partitions[p]);
      if (it == gv.committed.end()) continue;
      tl.series("committed", committed_at_samples(it->second, s), max, top + 2, plot_h,
                fmt::format("{}: committed offset of group {}", s.partitions[p], hv.group_order[g]), colour(g));
    }
    // The leader, as a band of its colour (red hatching when there is none), and its changes.
    std::size_t i = 0;
    std::int32_t previous_epoch = -1;
    std::string previous_leader;
    std::vector<std::pair<double, std::string>> changes;
    while (i < s.samples.size()) {
      const auto leader_of = [&](std::size_t k) {
        return p < s.samples[k].partitions.size() ? s.samples[k].partitions[p] : scenarios::PartitionSample{};
      };
      const auto first = leader_of(i);
      std::size_t j = i + 1;
      while (j < s.samples.size() && leader_of(j).leader == first.leader && leader_of(j).leader_epoch == first.leader_epoch) ++j;
      const double from = ms_of(s.samples[i].at);
      const double to = j < s.samples.size() ? ms_of(s.samples[j].at) : end_ms;
      const std::string who = first.leader >= 0 ? s.nodes[static_cast<std::size_t>(first.leader)] : "";
      if (first.leader >= 0) {
        tl.rect("leader", from, to, top + kHeight, kLeaderBand,
                fmt::format("{}: leader {} (epoch {}, ISR {}) from {} to {}", s.partitions[p], who, first.leader_epoch, first.isr,
                            seconds(from), seconds(to)),
                colour(static_cast<std::size_t>(first.leader)));
        if (previous_epoch >= 0 && first.leader_epoch != previous_epoch) {
          changes.emplace_back(from, fmt::format("{}: leadership {} (epoch {}) -> {} (epoch {}) by {}", s.partitions[p], previous_leader,
                                                 previous_epoch, who, first.leader_epoch, seconds(from)));
        }
        previous_epoch = first.leader_epoch;
        previous_leader = who;
      } else if (previous_epoch >= 0) {
        tl.rect("offline", from, to, top + kHeight, kLeaderBand,
                fmt::format("{}: no live leader from {} to {}", s.partitions[p], seconds(from), seconds(to)));
      }
      i = j;
    }
    for (const auto& [at, tip] : changes) tl.mark("leader-change", at, top, kHeight + kLeaderBand, tip);
    if (first_violation.is_object() && str(first_violation, "topic") + "/" + str(first_violation, "partition") == s.partitions[p]) {
      const double at = first_violation.value("at_ms", 0.0);
      const double off = first_violation.value("offset", std::int64_t{-1}) >= 0 ? first_violation.value("offset", 0.0) : max;
      tl.raw(fmt::format(R"(<circle class="violation-dot" cx="{:.1f}" cy="{:.1f}" r="5" data-tip="{}"/>)", tl.x(at),
                         top + 2 + plot_h - std::min(off / max, 1.0) * plot_h,
                         esc(str(first_violation, "anomaly") + " at offset " + str(first_violation, "offset") + ": " +
                             str(first_violation, "explanation"))));
    }
    tl.end_lane();
  }
  if (drawn < s.partitions.size()) {
    tl.heading(fmt::format("... and {} more partitions (not drawn)", s.partitions.size() - drawn));
  }
}

void draw_groups(Timeline& tl, const scenarios::Samples& s, const HistoryView& hv, double end_ms) {
  for (std::size_t g = 0; g < hv.group_order.size(); ++g) {
    const std::string& name = hv.group_order[g];
    const GroupView& gv = hv.groups.at(name);
    tl.heading("Group " + name + ": assignments by generation");
    const double top = tl.lane("group-rebalances", fmt::format("rebalances ({})", gv.generations.size()), 14,
                               "each mark: the first time a member of " + name + " reported a new generation");
    const std::size_t step = thin_step(gv.generations.size());
    for (std::size_t i = 0; i < gv.generations.size(); i += step) {
      tl.mark("rebalance", gv.generations[i].first, top, 14, fmt::format("group {}: generation {} from {}", name, gv.generations[i].second, seconds(gv.generations[i].first)));
    }
    tl.end_lane();
    const std::size_t rows = std::min(gv.members.size(), kMaxMemberRows);
    for (std::size_t m = 0; m < rows; ++m) {
      const std::string& member = gv.members[m];
      const double row = tl.lane("member", member, 14);
      const auto& as = gv.assignments.at(member);
      // Bands too narrow to see are merged with their neighbours into one "churn" band.
      double churn_from = -1, churn_to = -1;
      std::size_t churn_count = 0;
      const auto flush_churn = [&] {
        if (churn_count == 0) return;
        tl.rect("band churn", churn_from, churn_to, row + 1, 12,
                fmt::format("{}: {} assignments between {} and {}", member, churn_count, seconds(churn_from), seconds(churn_to)));
        churn_count = 0;
      };
      for (std::size_t i = 0; i < as.size(); ++i) {
        const double from = as[i].at;
        const double to = i + 1 < as.size() ? as[i + 1].at : end_ms;
        if (tl.x(to) - tl.x(from) < 1.5) {
          if (churn_count == 0) churn_from = from;
          churn_to = to;
          ++churn_count;
          continue;
        }
        flush_churn();
        if (as[i].parts.empty()) continue;
        const std::string cls = as[i].generation % 2 == 0 ? "band gen-even" : "band gen-odd";
        tl.rect(cls, from, to, row + 1, 12,
                fmt::format("{} generation {} from {} to {}: {} (event #{})", member, as[i].generation, seconds(from), seconds(to),
                            as[i].parts, as[i].index));
        if (tl.x(to) - tl.x(from) > 7.0 * static_cast<double>(as[i].parts.size()) + 8) tl.text("band-label", tl.x(from) + 3, row + 11, as[i].parts);
      }
      flush_churn();
      // The member's process crashed, paused or stopped: shaded over its bands.
      const auto node = std::find(s.nodes.begin(), s.nodes.end(), member);
      if (node != s.nodes.end()) node_states(tl, s, static_cast<std::size_t>(node - s.nodes.begin()), row, 14, end_ms, false);
      tl.end_lane();
    }
    if (rows < gv.members.size()) tl.heading(fmt::format("... and {} more members (not drawn)", gv.members.size() - rows));
  }
}

// Lag: for each group, the sum over the partitions it was ever assigned of high watermark minus
// committed offset (no commit yet counts from 0), at each sample.
void draw_lag(Timeline& tl, const scenarios::Samples& s, const HistoryView& hv) {
  if (hv.group_order.empty() || s.samples.empty()) return;
  tl.heading("Consumer lag: high watermark minus committed offset, summed over each group's partitions");
  std::vector<std::vector<std::pair<double, double>>> lines;
  double max = 1;
  for (const auto& name : hv.group_order) {
    const GroupView& gv = hv.groups.at(name);
    std::vector<std::pair<double, double>> line(s.samples.size());
    for (std::size_t k = 0; k < s.samples.size(); ++k) line[k] = {ms_of(s.samples[k].at), 0.0};
    for (const auto& part : gv.partitions) {
      const auto idx = std::find(s.partitions.begin(), s.partitions.end(), part);
      if (idx == s.partitions.end()) continue;
      const auto p = static_cast<std::size_t>(idx - s.partitions.begin());
      static const std::vector<std::pair<double, std::int64_t>> kNone;
      auto c = gv.committed.find(part);
      const auto committed = committed_at_samples(c == gv.committed.end() ? kNone : c->second, s);
      double last_hw = 0;
      for (std::size_t k = 0; k < s.samples.size(); ++k) {
        if (p < s.samples[k].partitions.size() && s.samples[k].partitions[p].leader >= 0) {
          last_hw = static_cast<double>(s.samples[k].partitions[p].high_watermark);
        }
        line[k].second += std::max(0.0, last_hw - std::max(0.0, committed[k].second));
      }
    }
    for (const auto& pt : line) max = std::max(max, pt.second);
    lines.push_back(std::move(line));
  }
  const double top = tl.lane("lag", fmt::format("lag (max {:.0f})", max), 90);
  for (std::size_t g = 0; g < lines.size(); ++g) {
    tl.series("lag-line", lines[g], max, top + 2, 86, "lag of group " + hv.group_order[g], colour(g));
  }
  tl.end_lane();
}

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

}  // namespace

std::string report_html(const nlohmann::json& summary, const properties::History& history, const scenarios::Samples& samples) {
  double end_ms = summary.value("simulated_ms", 0.0);
  if (!samples.samples.empty()) end_ms = std::max(end_ms, ms_of(samples.samples.back().at));
  const HistoryView hv = read_history(history, end_ms);
  const nlohmann::json violations = summary.value("violations", nlohmann::json::array());
  const nlohmann::json first = violations.empty() ? nlohmann::json() : violations[0];
  const std::string verdict = summary.value("verdict", std::string("?"));

  Timeline tl(end_ms);
  tl.raw(R"svg(<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">)svg"
         R"svg(<rect width="6" height="6" fill="#f3e5f5"/><line x1="0" y1="0" x2="0" y2="6" stroke="#6a1b9a" stroke-width="2"/></pattern></defs>)svg");
  tl.axis();
  draw_faults(tl, hv);
  draw_nodes(tl, samples, hv, end_ms);
  draw_partitions(tl, samples, hv, first, end_ms);
  draw_groups(tl, samples, hv, end_ms);
  draw_lag(tl, samples, hv);
  if (first.is_object()) {
    const double at = first.value("at_ms", 0.0);
    const std::string tip = fmt::format("first violation: {} at {} (event #{}): {}", str(first, "anomaly"), seconds(at),
                                        str(first, "first_event"), str(first, "explanation"));
    tl.raw(fmt::format(R"(<g class="violation"><line class="violation-line" x1="{0:.1f}" x2="{0:.1f}" y1="0" y2="{1:.0f}" data-tip="{2}"/>)"
                       R"(<path id="violation-mark" d="M{3:.1f},0 L{4:.1f},0 L{0:.1f},9 Z" data-tip="{2}"/></g>)",
                       tl.x(at), tl.y(), esc(tip), tl.x(at) - 7, tl.x(at) + 7));
  }

  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">";
  h += fmt::format("<title>logsim: {} (seed {}) {}</title>", esc(str(summary, "scenario")), esc(str(summary, "seed")), esc(verdict));
  h += "<style>" + std::string(kStyle) + "</style></head>\n";
  h += "<body data-script-errors=\"0\" data-ready=\"0\">\n";
  // First, so that an error in any later script is counted (the browser test reads this).
  h += "<script>window.addEventListener('error',function(){var b=document.body;"
       "b.setAttribute('data-script-errors',String(Number(b.getAttribute('data-script-errors'))+1));});</script>\n";
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

  if (first.is_object()) {
    h += "<h2>First violation</h2>\n<div class=\"explain\" id=\"violation\">";
    h += fmt::format("<b>{}</b> at {} (event #{}", esc(str(first, "anomaly")), seconds(first.value("at_ms", 0.0)), esc(str(first, "first_event")));
    if (!str(first, "topic").empty()) h += fmt::format(", {}/{}", esc(str(first, "topic")), esc(str(first, "partition")));
    if (first.value("offset", std::int64_t{-1}) >= 0) h += fmt::format(" offset {}", esc(str(first, "offset")));
    if (!str(first, "key").empty()) h += ", key " + esc(str(first, "key"));
    h += ")<br>" + esc(str(first, "explanation"));
    if (first.contains("members") && first["members"].is_array() && !first["members"].empty()) {
      std::string members;
      std::set<std::string> seen;
      for (const auto& m : first["members"]) {
        const std::string name = m.is_string() ? m.get<std::string>() : m.dump();
        if (seen.insert(name).second) members += (members.empty() ? "" : ", ") + name;
      }
      h += "<br>members: " + esc(members);
    }
    const auto index = first.value("first_event", std::uint64_t{0});
    if (index < history.size()) {
      h += "<table class=\"events\">";
      const std::uint64_t lo = index >= static_cast<std::uint64_t>(kEventsAround) ? index - kEventsAround : 0;
      const std::uint64_t hi = std::min<std::uint64_t>(history.size() - 1, index + kEventsAround);
      for (std::uint64_t i = lo; i <= hi; ++i) {
        h += fmt::format("<tr{}><td>{}</td></tr>", i == index ? " class=\"first\"" : "", esc(event_line(history.events()[i])));
      }
      h += "</table>";
    }
    h += "</div>\n";
  }

  h += "<h2>Timeline</h2>\n<p class=\"legend\">"
       "<span><i style=\"background:#d9f0d9\"></i>up</span><span><i style=\"background:#ef9a9a\"></i>crashed</span>"
       "<span><i style=\"background:#ffe082\"></i>paused</span><span><i style=\"background:#cfcfcf\"></i>down</span>"
       "<span><i style=\"background:#f3e5f5;border:1px solid #6a1b9a\"></i>cut off by the network</span>"
       "<span><i style=\"background:#bbb;height:3px\"></i>log end</span><span><i style=\"background:#263238;height:2px\"></i>high watermark</span>"
       "<span>- - committed (group colour)</span><span><i style=\"background:#ef6c00;width:3px\"></i>rebalance</span>"
       "<span><i style=\"background:#c62828;width:3px\"></i>first violation</span> Hover any mark for its event.</p>\n";
  h += tl.finish() + "\n";
  // Every violation, after the timeline (a cascade must not push it off the first screen).
  if (violations.size() > 1) {
    constexpr std::size_t kMaxRows = 50;
    h += fmt::format("<details id=\"all-violations\"><summary><b>All violations ({})</b></summary><table class=\"events violations\" id=\"violations\">",
                     violations.size());
    for (std::size_t i = 0; i < violations.size() && i < kMaxRows; ++i) {
      const auto& v = violations[i];
      h += fmt::format("<tr><td>{}</td><td>{}</td><td>#{}</td><td>{}</td></tr>", esc(str(v, "anomaly")), seconds(v.value("at_ms", 0.0)),
                       esc(str(v, "first_event")), esc(str(v, "explanation")));
    }
    if (violations.size() > kMaxRows) h += fmt::format("<tr><td colspan=\"4\">... and {} more (summary.json lists them all)</td></tr>", violations.size() - kMaxRows);
    h += "</table></details>\n";
  }

  h += "<h2>Counts</h2><table class=\"stats\">";
  if (summary.contains("stats") && summary["stats"].is_object()) {
    for (const auto& [k, v] : summary["stats"].items()) h += fmt::format("<tr><td>{}</td><td>{}</td></tr>", esc(k), esc(v.dump()));
  }
  h += fmt::format("<tr><td>history events</td><td>{}</td></tr><tr><td>samples</td><td>{} (every {})</td></tr></table>\n", history.size(),
                   samples.samples.size(), seconds(ms_of(samples.interval)));
  h += "<div id=\"tip\" hidden></div>\n<script>" + std::string(kScript) + "</script>\n</body></html>\n";
  return h;
}

}  // namespace logsim::reports

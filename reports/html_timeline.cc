// Drawing report.html's timeline (see html_timeline.h). The history is read once into a
// HistoryView (the faults, each node's network cuts, each group's members, assignments,
// generations and commits); a Timeline appends SVG lane by lane, top to bottom, and knows how
// far down it is; each draw_* function draws one section of lanes from the view and the samples.
#include "reports/html_timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "reports/html_text.h"

namespace logsim::reports::html {
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

// Colours by index (brokers, groups): distinct on white, readable as thin lines. No red: red
// means a violation, a crash or an offline partition.
const char* const kPalette[] = {"#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"};
const char* colour(std::size_t i) { return kPalette[i % std::size(kPalette)]; }

// An axis label: as few digits as the tick step needs.
std::string axis_label(double ms, double step_ms) {
  if (step_ms >= 1000 && std::fmod(ms, 1000.0) == 0) return fmt::format("{:.0f}s", ms / 1000.0);
  if (step_ms >= 1) return fmt::format("{:.0f}ms", ms);
  return fmt::format("{:.3f}ms", ms);
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

// A transactional producer's transactions, from txn-begin to its end.
struct TxnLane {
  struct Span {
    double from = 0, to = 0;
    std::string outcome;  // the class: txn-commit, txn-abort, txn-info, txn-open (never ended)
    std::string error;
    std::int64_t sends = 0;
  };
  // A record of the open transaction, as its send-ok placed it.
  struct Ack {
    std::string partition;  // "topic/p"
    double at = 0;
    std::int64_t offset = 0;
    std::uint64_t value = 0;
  };
  std::vector<Span> spans;
  std::optional<Span> open;
  std::vector<Ack> open_acks;
  std::map<std::string, std::int64_t> counts;  // by outcome
};

// A record of a transaction that did not (surely) commit, on its partition's lane.
struct TxnRecord {
  double at = 0;
  std::int64_t offset = 0;
  std::uint64_t value = 0;
  std::string process;
  std::string outcome;  // txn-abort, txn-info, txn-open
};

// What the history tells the report, in one pass.
struct HistoryView {
  std::vector<HistoryEvent> faults;
  std::map<std::string, std::vector<Interval>> cuts;  // node -> isolated / partitioned intervals
  std::vector<std::string> group_order;
  std::map<std::string, GroupView> groups;
  std::vector<std::string> txn_order;  // transactional producers, in order of first transaction
  std::map<std::string, TxnLane> txns;
  std::map<std::string, std::vector<TxnRecord>> txn_records;  // "topic/p" -> records of aborted or unknown transactions
  double quiesce_at = -1;
};

bool is_txn_event(OpKind k) {
  return k == OpKind::kTxnBegin || k == OpKind::kTxnCommit || k == OpKind::kTxnAbort || k == OpKind::kTxnInfo;
}

// One txn-* event, or a send inside an open transaction, of the producer's lane.
void note_txn(HistoryView& v, const HistoryEvent& e, double at) {
  const auto close = [&v, &e](TxnLane& t, double to, std::string outcome, std::string error) {
    if (!t.open) return;
    if (outcome != "txn-commit") {
      for (const TxnLane::Ack& a : t.open_acks) v.txn_records[a.partition].push_back({a.at, a.offset, a.value, e.process, outcome});
    }
    t.open_acks.clear();
    t.open->to = to;
    t.open->outcome = std::move(outcome);
    t.open->error = std::move(error);
    ++t.counts[t.open->outcome];
    t.spans.push_back(std::move(*t.open));
    t.open.reset();
  };
  if (e.kind == OpKind::kSendInvoke || e.kind == OpKind::kSendOk) {
    auto it = v.txns.find(e.process);
    if (it == v.txns.end() || !it->second.open) return;
    if (e.kind == OpKind::kSendInvoke) {
      ++it->second.open->sends;
    } else if (e.partition && e.offset) {
      it->second.open_acks.push_back({e.topic + "/" + to_string(*e.partition), at, e.offset->value(), e.value_id});
    }
    return;
  }
  if (!v.txns.contains(e.process)) v.txn_order.push_back(e.process);
  TxnLane& t = v.txns[e.process];
  if (e.kind == OpKind::kTxnBegin) {
    close(t, at, "txn-open", "");  // left open: it never ended (a crash or restart)
    t.open = TxnLane::Span{at, at, "", "", 0};
  } else {
    close(t, at, std::string(properties::op_kind_name(e.kind)), e.error);
  }
}

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
    if (is_txn_event(e.kind) || ((e.kind == OpKind::kSendInvoke || e.kind == OpKind::kSendOk) && !v.txns.empty())) {
      note_txn(v, e, at);
      if (is_txn_event(e.kind)) continue;
    }
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
      const std::int32_t generation = properties::History::packed(e.generation);
      Assignment a{at, generation, {}, e.index};
      for (const auto& tp : e.assignment) {
        const std::string name = tp.topic + "/" + std::to_string(tp.partition.value());
        a.parts += (a.parts.empty() ? "" : " ") + name;
        g.partitions.insert(name);
      }
      g.assignments[e.process].push_back(std::move(a));
      if (g.generations.empty() || generation > g.generations.back().second) g.generations.emplace_back(at, generation);
    } else if ((e.kind == OpKind::kCommitOk || (e.kind == OpKind::kSeek && e.process == "admin")) && e.partition && e.offset) {
      g.committed[e.topic + "/" + to_string(*e.partition)].emplace_back(at, e.offset->value());
    }
  }
  close_cuts(end_ms);
  for (auto& [name, t] : v.txns) {
    if (!t.open) continue;
    for (const TxnLane::Ack& a : t.open_acks) v.txn_records[a.partition].push_back({a.at, a.offset, a.value, name, "txn-open"});
    t.open_acks.clear();
    t.open->to = end_ms;
    t.open->outcome = "txn-open";
    ++t.counts["txn-open"];
    t.spans.push_back(std::move(*t.open));
    t.open.reset();
  }
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

// The records of aborted (red) and unknown or never-ended (grey) transactions, where they were
// acknowledged: a dot at (acknowledgement, offset). Every k-th past kMaxMarks.
void draw_txn_records(Timeline& tl, const std::vector<TxnRecord>& records, double max, double top, double height,
                      const std::string& partition) {
  const std::size_t every = records.size() > kMaxMarks ? (records.size() + kMaxMarks - 1) / kMaxMarks : 1;
  for (std::size_t i = 0; i < records.size(); i += every) {
    const TxnRecord& r = records[i];
    const char* what = r.outcome == "txn-abort" ? "aborted" : r.outcome == "txn-info" ? "outcome unknown" : "never ended";
    tl.raw(fmt::format(R"(<circle class="{}-record" cx="{:.1f}" cy="{:.1f}" r="2" data-tip="{}"/>)", r.outcome, tl.x(r.at),
                       top + height - std::min(static_cast<double>(r.offset) / max, 1.0) * height,
                       esc(fmt::format("{} offset {}: value {} of a transaction of {} ({}), acknowledged at {}", partition, r.offset,
                                       r.value, r.process, what, seconds(r.at)))));
  }
}

void draw_partitions(Timeline& tl, const scenarios::Samples& s, const HistoryView& hv, const nlohmann::json& first_violation, double end_ms) {
  tl.heading("Partitions: log end, high watermark, committed offsets; the leader below");
  const std::size_t drawn = std::min(s.partitions.size(), kMaxPartitionLanes);
  constexpr double kHeight = 54;
  constexpr double kLeaderBand = 6;
  for (std::size_t p = 0; p < drawn; ++p) {
    std::vector<std::pair<double, double>> log_end, hw, lso;
    double max = 1;
    for (const auto& sample : s.samples) {
      const double at = ms_of(sample.at);
      const bool known = p < sample.partitions.size() && sample.partitions[p].leader >= 0;
      log_end.emplace_back(at, known ? static_cast<double>(sample.partitions[p].log_end) : -1.0);
      hw.emplace_back(at, known ? static_cast<double>(sample.partitions[p].high_watermark) : -1.0);
      lso.emplace_back(at, known ? static_cast<double>(sample.partitions[p].last_stable) : -1.0);
      if (known) max = std::max(max, static_cast<double>(sample.partitions[p].log_end));
    }
    const double top = tl.lane("partition", s.partitions[p], kHeight + kLeaderBand);
    const double plot_h = kHeight - 4;
    tl.series("log-end", log_end, max, top + 2, plot_h, s.partitions[p] + ": log end offset on the leader");
    tl.series("hw", hw, max, top + 2, plot_h, s.partitions[p] + ": high watermark");
    bool held_back = false;  // drawn only where a transaction held the last stable offset back
    for (std::size_t k = 0; k < lso.size(); ++k) held_back = held_back || (lso[k].second >= 0 && lso[k].second < hw[k].second);
    if (held_back) {
      tl.series("lso", lso, max, top + 2, plot_h,
                s.partitions[p] + ": last stable offset (read_committed consumers read below it; an open transaction holds it back)");
    }
    if (auto recs = hv.txn_records.find(s.partitions[p]); recs != hv.txn_records.end()) {
      draw_txn_records(tl, recs->second, max, top + 2, plot_h, s.partitions[p]);
    }
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
      const std::int64_t offset = int_or(first_violation, "offset", -1);
      const double off = offset >= 0 ? static_cast<double>(offset) : max;
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

// One lane per transactional producer: each transaction from its txn-begin to its end, coloured
// by outcome. Committed ones are thinned past kMaxMarks; aborted and unknown ones are all drawn.
void draw_transactions(Timeline& tl, const HistoryView& hv) {
  if (hv.txn_order.empty()) return;
  tl.heading("Transactions: each from txn-begin to its end (green committed, red aborted, grey unknown)");
  for (const auto& name : hv.txn_order) {
    const TxnLane& t = hv.txns.at(name);
    const auto count = [&](const char* k) {
      auto it = t.counts.find(k);
      return it == t.counts.end() ? std::int64_t{0} : it->second;
    };
    const double top = tl.lane("txns", fmt::format("{} ({} txns)", name, t.spans.size()), 14,
                               fmt::format("{}: {} committed, {} aborted, {} unknown, {} never ended", name, count("txn-commit"),
                                           count("txn-abort"), count("txn-info"), count("txn-open")));
    const std::size_t step = thin_step(static_cast<std::size_t>(count("txn-commit")));
    std::size_t committed = 0;
    for (const TxnLane::Span& s : t.spans) {
      if (s.outcome == "txn-commit" && committed++ % step != 0) continue;
      const std::string how = s.outcome == "txn-commit"  ? "committed"
                              : s.outcome == "txn-abort" ? "aborted"
                              : s.outcome == "txn-info"  ? "outcome unknown"
                                                         : "never ended";
      tl.rect("txn " + s.outcome, s.from, s.to, top + 2, 10,
              fmt::format("{}: a transaction of {} send(s) from {} to {}: {}{}", name, s.sends, seconds(s.from), seconds(s.to), how,
                          s.error.empty() ? "" : " (" + s.error + ")"));
    }
    tl.end_lane();
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

// The first violation: a red line across the whole timeline, with a mark at its top.
void draw_first_violation(Timeline& tl, const nlohmann::json& first) {
  const double at = first.value("at_ms", 0.0);
  const std::string tip = fmt::format("first violation: {} at {} (event #{}): {}", str(first, "anomaly"), seconds(at),
                                      str(first, "first_event"), str(first, "explanation"));
  tl.raw(fmt::format(R"(<g class="violation"><line class="violation-line" x1="{0:.1f}" x2="{0:.1f}" y1="0" y2="{1:.0f}" data-tip="{2}"/>)"
                     R"(<path id="violation-mark" d="M{3:.1f},0 L{4:.1f},0 L{0:.1f},9 Z" data-tip="{2}"/></g>)",
                     tl.x(at), tl.y(), esc(tip), tl.x(at) - 7, tl.x(at) + 7));
}

}  // namespace

std::string timeline_svg(const properties::History& history, const scenarios::Samples& samples, const nlohmann::json& first_violation,
                         double end_ms) {
  const HistoryView hv = read_history(history, end_ms);
  Timeline tl(end_ms);
  tl.raw(R"svg(<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">)svg"
         R"svg(<rect width="6" height="6" fill="#f3e5f5"/><line x1="0" y1="0" x2="0" y2="6" stroke="#6a1b9a" stroke-width="2"/></pattern></defs>)svg");
  tl.axis();
  draw_faults(tl, hv);
  draw_nodes(tl, samples, hv, end_ms);
  draw_partitions(tl, samples, hv, first_violation, end_ms);
  draw_transactions(tl, hv);
  draw_groups(tl, samples, hv, end_ms);
  draw_lag(tl, samples, hv);
  if (first_violation.is_object()) draw_first_violation(tl, first_violation);
  return tl.finish();
}

}  // namespace logsim::reports::html

// report.html: one self-contained page (inline SVG and CSS, a little JavaScript; nothing
// fetched) that shows what happened in a run: the verdict and how to reproduce it; a timeline
// with a lane per broker and the controller (up, crashed, paused, stopped, cut off by the
// network), per partition (log end, high watermark, each group's committed offset, the leader
// and its changes), per group (each member's assignments as bands coloured by generation,
// rebalances marked) and the lag of each group; the first violation marked across the
// timeline and explained beside it, with the events around it. Hovering a mark shows its event.
//
// Built from the three files a run writes (summary.json, history.jsonl, samples.json), so
// `logsim report DIR` rebuilds the same page. Large runs stay readable: what is drawn is
// thinned (one point per sample, adjacent tiny bands merged, at most kMaxMarks marks per
// lane), what is counted never is.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "properties/history.h"
#include "scenarios/samples.h"

namespace logsim::reports {

std::string report_html(const nlohmann::json& summary, const properties::History& history, const scenarios::Samples& samples);

}  // namespace logsim::reports

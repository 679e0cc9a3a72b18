// report.html's timeline: one inline SVG, drawn from the history and the samples so the page
// needs no script to show it. Top to bottom: a time axis; the faults; a lane per broker and the
// controller (up, crashed, paused, down, cut off by the network); per partition its log end,
// high watermark, each group's committed offset, and its leader as a band below with the
// leadership changes marked; per group its rebalances and each member's assignments as bands
// coloured by generation; each group's lag; and the first violation as a red line across it
// all. Every mark carries its event as text in data-tip, which the page's script shows on
// hover. What is drawn is bounded (kMaxMarks marks a lane, kMaxPartitionLanes partitions,
// kMaxMemberRows members a group); the rest is counted, not drawn.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "properties/history.h"
#include "scenarios/samples.h"

namespace logsim::reports::html {

// The <svg id="timeline"> element for a run that ended at `end_ms`; `first_violation` is the
// summary's first violation object, or null when the run had none.
std::string timeline_svg(const properties::History& history, const scenarios::Samples& samples, const nlohmann::json& first_violation,
                         double end_ms);

}  // namespace logsim::reports::html

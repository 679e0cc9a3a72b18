// The poll-skip checker: holes in a consumer's run of offsets, judged at the end against the
// acknowledged sends.
#include "properties/poll_skip_checker.h"

#include <algorithm>
#include <tuple>

namespace logsim::properties {

void PollSkipChecker::on_event(const HistoryEvent& e, const EventIds& ids) {
  compaction_.observe(e, ids, symbols());
  txns_.observe(e, ids);
  switch (e.kind) {
    case OpKind::kPoll:
      if (ids.process >= polls_.size()) polls_.resize(ids.process + 1);
      ++polls_[ids.process];
      return;
    case OpKind::kAssign:
      if (ids.process < runs_.size()) runs_[ids.process].clear();
      return;
    case OpKind::kSeek:
      if (ids.process < runs_.size()) {
        auto& runs = runs_[ids.process];
        const auto it = std::lower_bound(runs.begin(), runs.end(), ids.tp, [](const Run& r, Id tp) { return r.tp < tp; });
        if (it != runs.end() && it->tp == ids.tp) {
          note_reset_past_truncation(e, ids, *it);
          it->offset = kNoRun;
        }
      }
      return;
    case OpKind::kSendOk:
      if (!e.offset) return;
      if (ids.tp >= acks_.size()) acks_.resize(ids.tp + 1);
      acks_[ids.tp].push_back(Ack{e.offset->value(), e.index, e.value_id, ids.key, ids.process});
      return;
    case OpKind::kProcess:
      break;
    default:
      return;
  }
  if (!e.offset) return;
  const std::int64_t offset = e.offset->value();
  if (ids.process >= runs_.size()) runs_.resize(ids.process + 1);
  if (ids.process >= polls_.size()) polls_.resize(ids.process + 1);
  const std::uint32_t poll = polls_[ids.process];
  auto& runs = runs_[ids.process];
  auto it = std::lower_bound(runs.begin(), runs.end(), ids.tp, [](const Run& r, Id tp) { return r.tp < tp; });
  if (it == runs.end() || it->tp != ids.tp) {
    runs.insert(it, Run{ids.tp, offset, e.index, poll});  // the start of a run
    return;
  }
  if (it->offset != kNoRun && offset > it->offset + 1) {
    holes_.push_back(Hole{ids.process, ids.tp, it->offset + 1, offset, e.index, e.at, it->event, poll > 0 && it->poll == poll});
  }
  // At or below the last offset: nonmonotonic-poll (the order checker's); the run goes on from
  // here. After a seek (kNoRun) this is the start of a new run.
  it->offset = offset;
  it->event = e.index;
  it->poll = poll;
}

// A reset whose out-of-range answer put the log end below the reader's position: its records
// past that end were truncated away (an unclean election, an acks=1 write lost in a failover),
// and the new leader's records from the end on are new ones. A reset that lands above the end
// (auto.offset.reset=latest) skips those: a consumer without KIP-320's truncation detection.
void PollSkipChecker::note_reset_past_truncation(const HistoryEvent& e, const EventIds& ids, const Run& run) {
  if (!e.high_watermark || !e.offset || run.offset == kNoRun) return;
  const std::int64_t end = e.high_watermark->value();
  if (run.offset + 1 <= end || e.offset->value() <= end) return;
  holes_.push_back(Hole{ids.process, ids.tp, end, e.offset->value(), e.index, e.at, run.event, false, true, run.offset + 1});
}

void PollSkipChecker::finish() {
  // Per partition with a hole, its acknowledgements by offset, sorted when first needed.
  std::vector<std::vector<std::pair<std::int64_t, std::size_t>>> sorted(acks_.size());
  for (const Hole& h : holes_) {
    if (h.tp >= acks_.size() || acks_[h.tp].empty()) continue;
    auto& by_offset = sorted[h.tp];
    const auto& acks = acks_[h.tp];
    if (by_offset.empty()) {
      by_offset.reserve(acks.size());
      for (std::size_t i = 0; i < acks.size(); ++i) by_offset.emplace_back(acks[i].offset, i);
      std::sort(by_offset.begin(), by_offset.end());  // (offset, history order): unique
    }
    const auto& p = by_offset;
    const bool compact = compaction_.may_compact(symbols().topic_of(h.tp), symbols());
    // Compaction could have removed the record before the fetch that passed it (see the header).
    const auto excused = [&](const Ack& ack) {
      if (txns_.excused(ack.value_id)) return true;  // a transaction that did not (surely) commit
      if (compact && ack.value_id == 0) return true;  // no value id: perhaps a tombstone, which compaction removes in time
      return compaction_.may_have_removed(h.tp, ack.key, ack.offset, h.event, symbols());
    };
    std::int64_t skipped = 0;
    const Ack* first = nullptr;
    auto it = std::lower_bound(p.begin(), p.end(), std::pair<std::int64_t, std::size_t>{h.from, 0});
    for (; it != p.end() && it->first < h.to; ++it) {
      const Ack& ack = acks[it->second];
      if (h.after_truncation) {
        // Only the new leader's records count: acknowledged after the reader's last record (it
        // may have read the truncated ones at these offsets).
        if (ack.event <= h.previous_event) continue;
      } else if (it != p.begin() && std::prev(it)->first == it->first) {
        continue;  // only the first acknowledgement counts
      }
      if (excused(ack)) continue;
      ++skipped;
      if (first == nullptr) first = &ack;
    }
    if (first == nullptr) continue;
    const Ack& ack = *first;
    const std::string& process = symbols().process(h.process);
    const std::string& acked_to = symbols().process(ack.process);
    Violation v = violation_of(h.one_poll ? "int-poll-skip" : "poll-skip", h.event, h.at, h.process, h.tp, Offset(ack.offset), ack.key);
    if (ack.process != h.process) v.members.push_back(acked_to);
    if (h.after_truncation) {
      v.explanation = process + " had read " + symbols().where(h.tp) + " to offset " + std::to_string(h.from_position - 1) +
                      ", past the log end " + std::to_string(h.from) + " its out-of-range answer reported (a truncation), and reset to offset " +
                      std::to_string(h.to) + " (event #" + std::to_string(h.event) + "), skipping " + std::to_string(skipped) +
                      " record(s) acknowledged after its last read, the first at offset " + std::to_string(ack.offset) +
                      " (value " + std::to_string(ack.value_id) + ", acknowledged to " + acked_to + " at event #" +
                      std::to_string(ack.event) + "): KIP-320's truncation detection would have resumed at the divergence point";
      report(std::move(v));
      continue;
    }
    v.explanation = process + " processed " + symbols().where(h.tp) + " offset " + std::to_string(h.to) + " (event #" +
                    std::to_string(h.event) + ") right after offset " + std::to_string(h.from - 1) + " (event #" +
                    std::to_string(h.previous_event) + (h.one_poll ? ") in the same poll" : ") within one assignment") +
                    ", with no seek in between, "
                    "skipping " + std::to_string(skipped) + " acknowledged record(s), the first at offset " +
                    std::to_string(ack.offset) + " (value " + std::to_string(ack.value_id) + ", acknowledged to " +
                    acked_to + " at event #" + std::to_string(ack.event) + ")" +
                    (compact ? ", which no later record of its key could have compacted away" : "");
    report(std::move(v));
  }
}

}  // namespace logsim::properties

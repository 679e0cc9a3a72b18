// The realtime-lag checker: the longest wait of an acknowledged record for each group.
#include "properties/realtime_lag_checker.h"

#include <algorithm>

namespace logsim::properties {

void RealtimeLagChecker::on_event(const HistoryEvent& e, const EventIds& ids) {
  if (!e.offset) return;
  const std::int64_t offset = e.offset->value();
  if (e.kind == OpKind::kSendOk) {
    if (ids.tp >= acked_at_.size()) acked_at_.resize(ids.tp + std::size_t{1});
    acked_at_[ids.tp].emplace(offset, e.at);  // the first acknowledgement counts
    return;
  }
  if (e.kind != OpKind::kProcess) return;
  const bool alone = ids.group == kNoId;
  const Id slot = alone ? alone_slots_.slot(ids.process, ids.tp) : slots_.slot(ids.group, ids.tp);
  std::vector<OffsetSet>& processed = alone ? alone_processed_ : processed_;
  if (slot >= processed.size()) processed.resize(std::size_t{slot} + 1);
  if (!processed[slot].insert(offset)) return;  // only the reader's first processing of an offset
  const Nanos* acked = ids.tp < acked_at_.size() ? acked_at_[ids.tp].find(offset) : nullptr;
  const Nanos lag = acked == nullptr ? 0 : std::max<Nanos>(0, e.at - *acked);
  std::vector<Worst>& table = alone ? worst_alone_ : worst_;
  const Id who = alone ? ids.process : ids.group;
  if (who >= table.size()) table.resize(std::size_t{who} + 1);
  Worst& w = table[who];
  w.lag = std::max(w.lag, lag);
  if (!bound_ || lag <= *bound_ || w.reported) return;
  w.reported = true;
  Violation v = violation_at("realtime-lag", e);
  v.explanation = (alone ? e.process : "group " + e.group) + " first processed " + symbols().where(ids.tp) + " offset " + std::to_string(offset) +
                  " " + std::to_string(to_millis(lag)) + " ms after it was acknowledged, more than the bound of " +
                  std::to_string(to_millis(*bound_)) + " ms";
  report(std::move(v));
}

void RealtimeLagChecker::figures(std::map<std::string, std::int64_t>& out) const {
  std::int64_t overall = -1;
  const auto add = [&](const std::string& name, const Worst& w) {
    if (w.lag < 0) return;
    const std::int64_t ms = to_millis(w.lag);
    auto& slot = out["realtime-lag.max_ms." + name];
    slot = std::max(slot, ms);  // incarnations of one group name: the worst
    overall = std::max(overall, ms);
  };
  for (Id g = 0; g < worst_.size(); ++g) add(symbols().group(g), worst_[g]);
  for (Id p = 0; p < worst_alone_.size(); ++p) add(symbols().process(p), worst_alone_[p]);
  if (overall >= 0) out["realtime-lag.max_ms"] = overall;
}

}  // namespace logsim::properties

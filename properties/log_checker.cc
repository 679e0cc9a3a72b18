// The log-integrity checker: inconsistent offsets online, lost writes at the end.
#include "properties/log_checker.h"

#include <algorithm>

namespace logsim::properties {

LogChecker::Partition& LogChecker::partition(Id tp) {
  if (tp >= partitions_.size()) partitions_.resize(tp + std::size_t{1});
  return partitions_[tp];
}

void LogChecker::note(Partition& p, const HistoryEvent& e, const EventIds& ids, bool processed) {
  const std::int64_t offset = e.offset->value();
  auto [seen, fresh] = p.at.emplace(offset, Seen{e.value_id, e.index, ids.process, false, processed});
  if (fresh) return;
  if (processed) seen->processed = true;
  if (seen->value == e.value_id || seen->conflicted) return;
  seen->conflicted = true;
  Violation v = violation_at("inconsistent-offsets", e);
  v.members = {symbols().process(seen->process), e.process};
  v.explanation = symbols().where(ids.tp) + " offset " + std::to_string(offset) + " held value " +
                  std::to_string(seen->value) + " (event #" + std::to_string(seen->event) +
                  ") and then value " + std::to_string(e.value_id) +
                  ": one offset was given to two records, as when a new leader lacked records the old one "
                  "had acknowledged";
  report(std::move(v));
}

void LogChecker::add_pending(Partition& p, const Pending& pending) {
  // Acknowledgements mostly come in offset order: usually an append.
  if (p.head == p.pending.size() || p.pending.back().offset <= pending.offset) {
    p.pending.push_back(pending);
    return;
  }
  const auto at = std::upper_bound(p.pending.begin() + static_cast<std::ptrdiff_t>(p.head), p.pending.end(),
                                   pending.offset, [](std::int64_t o, const Pending& q) { return o < q.offset; });
  p.pending.insert(at, pending);
}

void LogChecker::claim(Partition& p, const HistoryEvent& e, Id reader, std::int64_t from) {
  const auto begin = p.pending.begin() + static_cast<std::ptrdiff_t>(p.head);
  const auto lo = std::lower_bound(begin, p.pending.end(), from,
                                   [](const Pending& q, std::int64_t o) { return q.offset < o; });
  auto kept = lo;
  auto it = lo;
  const std::int64_t offset = e.offset->value();
  for (; it != p.pending.end() && it->offset <= offset; ++it) {
    Ack* ack = acks_.find(value_key(it->value));
    if (ack == nullptr || ack->number != it->number) continue;  // processed or acknowledged again
    if (e.index <= ack->event) {  // not after the acknowledgement (only out-of-order histories)
      *kept++ = *it;
      continue;
    }
    ack->shown = true;
    ack->reader = reader;
    ack->read_from = from;
    ack->shown_offset = offset;
    ack->shown_event = e.index;
    ack->shown_at = e.at;
  }
  if (kept == it) return;
  if (lo == begin && kept == lo) {
    p.head = static_cast<std::size_t>(it - p.pending.begin());
  } else {
    p.pending.erase(kept, it);
  }
  // Drop the spent front once it is most of the vector.
  if (p.head >= 1024 && 2 * p.head >= p.pending.size()) {
    p.pending.erase(p.pending.begin(), p.pending.begin() + static_cast<std::ptrdiff_t>(p.head));
    p.head = 0;
  }
}

void LogChecker::on_event(const HistoryEvent& e, const EventIds& ids) {
  switch (e.kind) {
    case OpKind::kAssign:
      if (ids.process < read_from_.size()) read_from_[ids.process].clear();
      return;
    case OpKind::kSeek:
      if (e.high_watermark && e.log_start_offset && *e.log_start_offset > *e.high_watermark) {
        const std::int64_t from = e.high_watermark->value(), to = e.log_start_offset->value();
        // The same answer seen by several consumers is one range (the first to report it).
        const bool known = std::any_of(deleted_above_hw_.begin(), deleted_above_hw_.end(), [&](const DeletedAboveHw& d) {
          return d.tp == ids.tp && d.from == from && d.to == to;
        });
        if (!known) deleted_above_hw_.push_back(DeletedAboveHw{ids.tp, from, to, e.index, e.at, ids.process});
      }
      if (ids.process >= read_from_.size()) read_from_.resize(ids.process + std::size_t{1});
      if (e.offset) read_from_[ids.process][ids.tp] = e.offset->value();
      else read_from_[ids.process].erase(ids.tp);
      return;
    case OpKind::kCommitOk:
      if (e.offset) {
        Partition& p = partition(ids.tp);
        p.committed = std::max(p.committed, e.offset->value());
      }
      return;
    case OpKind::kSendOk:
    case OpKind::kProcess:
      break;
    default:
      return;
  }
  if (e.value_id == 0 || !e.offset) return;
  const std::int64_t offset = e.offset->value();
  Partition& p = partition(ids.tp);
  const std::int64_t value = value_key(e.value_id);
  if (e.kind == OpKind::kSendOk) {
    note(p, e, ids, false);
    const std::uint64_t number = ++acks_seen_;
    if (processed_.contains(value)) return;  // never reported: nothing to keep
    const auto [ack, fresh] = acks_.emplace(value, Ack{});
    const std::uint64_t order = fresh ? number : ack->order;  // a later acknowledgement keeps the first's place
    *ack = Ack{e.value_id, ids.tp, ids.key, ids.process, kNoId, offset, e.index, e.at, order, number};
    add_pending(p, Pending{offset, e.value_id, number});
    return;
  }
  if (processed_.insert(value)) acks_.erase(value);
  if (ids.process >= read_from_.size()) read_from_.resize(ids.process + std::size_t{1});
  const std::int64_t from = *read_from_[ids.process].try_emplace(ids.tp, offset).first;
  claim(p, e, ids.process, from);
  note(p, e, ids, true);
}

void LogChecker::finish() {
  const Symbols& s = symbols();
  // In value order, as the reports have always come.
  std::vector<const Ack*> unprocessed;
  unprocessed.reserve(acks_.size());
  acks_.for_each_from(INT64_MIN, [&](std::int64_t, const Ack& a) {
    unprocessed.push_back(&a);
    return true;
  });
  std::sort(unprocessed.begin(), unprocessed.end(), [](const Ack* a, const Ack* b) { return a->value < b->value; });
  OffsetSet reported;  // values already reported as lost
  for (const Ack* ack : unprocessed) {
    if (!ack->shown) continue;  // not read through that far: unseen, not lost
    const Partition& p = partitions_[ack->tp];
    const std::int64_t offset = ack->offset;
    // Nobody processed anything at that offset, and a group committed past it: the group
    // skipped the record (lost-commit explains it), which says nothing about the log.
    const Seen* seen = p.at.find(offset);
    if ((seen == nullptr || !seen->processed) && p.committed > offset) continue;
    const std::string& acker = s.process(ack->process);
    const std::string& reader = s.process(ack->reader);
    Violation v = violation_of("lost-write", ack->shown_event, ack->shown_at, ack->reader, ack->tp, Offset(offset), ack->key);
    v.members = {acker, reader};
    v.explanation = "value " + std::to_string(ack->value) + " was acknowledged to " + acker + " at " + s.where(ack->tp) +
                    " offset " + std::to_string(offset) + " (event #" + std::to_string(ack->event) +
                    "), but no consumer ever processed it, although " + reader + " read that partition from offset " +
                    std::to_string(ack->read_from) + " to offset " + std::to_string(ack->shown_offset) +
                    " after the acknowledgement";
    report(std::move(v));
    reported.insert(value_key(ack->value));
  }
  report_deleted_above_hw(unprocessed, reported);
}

void LogChecker::report_deleted_above_hw(const std::vector<const Ack*>& unprocessed, const OffsetSet& reported) {
  if (deleted_above_hw_.empty()) return;
  // In the order of the values' first acknowledgements.
  std::vector<const Ack*> acked = unprocessed;
  std::sort(acked.begin(), acked.end(), [](const Ack* a, const Ack* b) { return a->order < b->order; });
  const Symbols& s = symbols();
  // The ranges of each partition, in history order; one pass over the acknowledgements gives
  // each lost value to the first range that holds it.
  std::vector<std::vector<std::size_t>> ranges_of(partitions_.size());
  for (std::size_t i = 0; i < deleted_above_hw_.size(); ++i) {
    const Id tp = deleted_above_hw_[i].tp;
    if (tp >= ranges_of.size()) ranges_of.resize(tp + std::size_t{1});
    ranges_of[tp].push_back(i);
  }
  struct Lost {
    const Ack* first = nullptr;  // lowest offset
    std::int64_t count = 0;
  };
  std::vector<Lost> lost(deleted_above_hw_.size());
  for (const Ack* ack : acked) {
    const Ack& a = *ack;
    if (a.tp >= ranges_of.size() || ranges_of[a.tp].empty()) continue;
    if (reported.contains(value_key(a.value))) continue;
    for (const std::size_t i : ranges_of[a.tp]) {
      const DeletedAboveHw& gap = deleted_above_hw_[i];
      if (a.offset < gap.from || a.offset >= gap.to) continue;
      ++lost[i].count;
      if (lost[i].first == nullptr || a.offset < lost[i].first->offset) lost[i].first = &a;
      break;
    }
  }
  for (std::size_t i = 0; i < deleted_above_hw_.size(); ++i) {
    const DeletedAboveHw& gap = deleted_above_hw_[i];
    const Ack* first = lost[i].first;
    if (first == nullptr) continue;
    const bool seek_last = gap.event > first->event;
    Violation v = violation_of("lost-write", seek_last ? gap.event : first->event, seek_last ? gap.at : first->at,
                               seek_last ? gap.process : first->process, gap.tp, Offset(first->offset), first->key);
    const std::string& acker = s.process(first->process);
    const std::string& reader = s.process(gap.process);
    v.members = {acker, reader};
    v.explanation = "value " + std::to_string(first->value) + " was acknowledged to " + acker + " at " +
                    s.where(gap.tp) + " offset " + std::to_string(first->offset) + " (event #" +
                    std::to_string(first->event) + "), but " + reader + "'s fetch was answered with log start offset " +
                    std::to_string(gap.to) + " above high watermark " + std::to_string(gap.from) + " (event #" +
                    std::to_string(gap.event) + "): the leader deleted offsets " + std::to_string(gap.from) + " to " +
                    std::to_string(gap.to - 1) + " before they were committed, and " + std::to_string(lost[i].count) +
                    " acknowledged record(s) there were never processed";
    report(std::move(v));
  }
}

}  // namespace logsim::properties

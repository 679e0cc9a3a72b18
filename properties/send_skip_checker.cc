// The int-send-skip checker (see send_skip_checker.h).
#include "properties/send_skip_checker.h"

#include <algorithm>

namespace logsim::properties {

void SendSkipChecker::on_event(const HistoryEvent& e, const EventIds& ids) {
  const auto open = [&]() -> std::int64_t& {
    if (ids.process >= open_.size()) open_.resize(std::size_t{ids.process} + 1, -1);
    return open_[ids.process];
  };
  switch (e.kind) {
    case OpKind::kTxnBegin:
      any_txn_ = true;
      open() = static_cast<std::int64_t>(txns_.size());
      txns_.push_back(Txn{ids.process, {}});
      return;
    case OpKind::kTxnCommit:
    case OpKind::kTxnAbort:
    case OpKind::kTxnInfo:
      open() = -1;
      return;
    case OpKind::kSendInvoke:
      if (const std::int64_t t = open(); t >= 0) in_txn_[e.value_id] = {static_cast<std::size_t>(t), ++invokes_};
      return;
    case OpKind::kSendOk: {
      if (!any_txn_ || !e.offset || ids.tp == kNoId) return;
      if (ids.tp >= stored_.size()) stored_.resize(std::size_t{ids.tp} + 1);
      stored_[ids.tp].emplace(e.offset->value(), e.value_id);
      const auto it = in_txn_.find(e.value_id);
      if (it == in_txn_.end()) return;
      txns_[it->second.first].sends[ids.tp].push_back({it->second.second, e.offset->value(), e.value_id, e.index, e.at, ids.key});
      in_txn_.erase(it);  // a retry's second acknowledgement is the same record
      return;
    }
    default:
      return;
  }
}

void SendSkipChecker::finish() {
  std::vector<std::uint64_t> own;  // the value ids of a transaction's sends to one partition, sorted
  for (Txn& txn : txns_) {
    bool reported = false;
    for (auto& [tp, sends] : txn.sends) {
      std::sort(sends.begin(), sends.end(), [](const Sent& a, const Sent& b) { return a.order < b.order; });
      own.clear();
      for (const Sent& s : sends) own.push_back(s.value_id);
      std::sort(own.begin(), own.end());
      for (std::size_t i = 1; i < sends.size(); ++i) {
        const Sent& a = sends[i - 1];
        const Sent& b = sends[i];
        if (b.offset <= a.offset + 1) continue;  // adjacent, or out of order (nonmonotonic-send's)
        // The first record between them that is not this transaction's.
        std::uint64_t between = 0;
        std::int64_t at = -1;
        stored_[tp].for_each_in(a.offset + 1, b.offset, [&](std::int64_t offset, std::uint64_t value) {
          if (std::binary_search(own.begin(), own.end(), value)) return true;
          between = value;
          at = offset;
          return false;
        });
        if (at < 0) continue;
        ++count_;
        if (!write_isolation_ || reported) continue;
        reported = true;
        Violation v = violation_of("int-send-skip", b.event, b.at, txn.process, tp, Offset(b.offset), b.key);
        v.explanation = symbols().process(txn.process) + "'s transaction wrote offsets " + std::to_string(a.offset) + " and " +
                        std::to_string(b.offset) + " of " + symbols().where(tp) + " with two successive sends, and value " +
                        std::to_string(between) + " of another send was stored between them at offset " + std::to_string(at) +
                        ": the transaction's writes were not isolated";
        report(std::move(v));
      }
    }
  }
}

void SendSkipChecker::figures(std::map<std::string, std::int64_t>& out) const {
  if (any_txn_) out["int-send-skip.count"] = count_;
}

}  // namespace logsim::properties

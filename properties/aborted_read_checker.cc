// The aborted-read checker (`aborted-read`, Jepsen's G1a).
#include "properties/aborted_read_checker.h"

#include <string>

namespace logsim::properties {

void AbortedReadChecker::on_event(const HistoryEvent& e, const EventIds& ids) {
  if (e.kind == OpKind::kTxnAbort) {
    for (const std::uint64_t v : txns_.open_values(ids.process)) {
      if (const std::uint64_t* read = first_rc_read_.find(value_key(v))) report_txn_read(e, v, *read, e.index, true);
    }
  }
  if (e.kind == OpKind::kTxnCommitInvoke) report_precommitted(e, ids.process);
  txns_.observe(e, ids);
  if (e.value_id == 0) return;
  const std::int64_t value = value_key(e.value_id);
  switch (e.kind) {
    case OpKind::kSendInvoke:
    case OpKind::kSendOk:
    case OpKind::kSendInfo:
      if (Failure* f = failed_.find(value); f != nullptr && !f->reported) failed_.erase(value);  // tried again: maybe written
      return;
    case OpKind::kSendFail: {
      Failure& f = *failed_.emplace(value, Failure{}).first;
      if (f.reported) return;
      f = Failure{e.index, ids.process, false};
      if (const std::uint64_t* read = first_read_.find(value)) report_read(e, f, *read, true);
      return;
    }
    case OpKind::kProcess: {
      first_read_.emplace(value, e.index);
      if (e.read_committed) {
        first_rc_read_.emplace(value, e.index);
        if (txns_.aborted(e.value_id)) report_txn_read(e, e.value_id, e.index, txns_.abort_event(e.value_id), false);
      }
      if (Failure* f = failed_.find(value); f != nullptr && !f->reported) report_read(e, *f, e.index, false);
      return;
    }
    default:
      return;
  }
}

// The process asked to commit its transaction: a value of it that a read_committed reader has
// already processed was served before anything was decided.
void AbortedReadChecker::report_precommitted(const HistoryEvent& invoke, Id process) {
  for (const std::uint64_t v : txns_.open_values(process)) {
    const std::uint64_t* read = first_rc_read_.find(value_key(v));
    if (read == nullptr) continue;
    Violation x = violation_at("precommitted-read", invoke);
    x.explanation = "a read_committed consumer processed value " + std::to_string(v) + " (event #" + std::to_string(*read) +
                    ") of a transaction of " + invoke.process + " before " + invoke.process +
                    " asked to commit it (event #" + std::to_string(invoke.index) +
                    "): a record past the last stable offset was served";
    report(std::move(x));
    return;  // one report per transaction
  }
}

// `e` is the later of the two: the failure (read_first) or the processing.
void AbortedReadChecker::report_read(const HistoryEvent& e, Failure& failed, std::uint64_t read_event, bool read_first) {
  failed.reported = true;
  const std::string& sender = symbols().process(failed.process);
  Violation v = violation_at("aborted-read", e);
  v.members = read_first ? std::vector<std::string>{e.process} : std::vector<std::string>{sender, e.process};
  v.explanation = read_first
      ? "the send of value " + std::to_string(e.value_id) + " by " + e.process + " failed (" +
            (e.error.empty() ? std::string("send-fail") : e.error) + ", event #" + std::to_string(e.index) +
            "), but a consumer had already processed it (event #" + std::to_string(read_event) +
            "): a record whose send definitely failed was in the log"
      : e.process + " processed value " + std::to_string(e.value_id) + " at " + e.topic + "/" +
            std::to_string(History::packed(e.partition)) + " offset " + std::to_string(History::packed(e.offset)) +
            ", whose send by " + sender + " definitely failed (event #" + std::to_string(failed.event) +
            "): a record whose send failed was in the log";
  report(std::move(v));
}

void AbortedReadChecker::report_txn_read(const HistoryEvent& e, std::uint64_t value, std::uint64_t read_event,
                                         std::uint64_t abort_event, bool read_first) {
  if (!txn_reported_.insert(value_key(value))) return;
  Violation v = violation_at("aborted-read", e);
  v.explanation = read_first
      ? e.process + "'s transaction aborted (txn-abort, event #" + std::to_string(abort_event) +
            "), but a read_committed consumer had processed value " + std::to_string(value) + " of it (event #" +
            std::to_string(read_event) + "): a record of an aborted transaction was served under read_committed"
      : e.process + " processed value " + std::to_string(value) + " at " + e.topic + "/" +
            std::to_string(History::packed(e.partition)) + " offset " + std::to_string(History::packed(e.offset)) +
            " under read_committed, but it was sent in a transaction that aborted (txn-abort, event #" +
            std::to_string(abort_event) + "): the last stable offset or the aborted-transaction list should have hidden it";
  report(std::move(v));
}

}  // namespace logsim::properties

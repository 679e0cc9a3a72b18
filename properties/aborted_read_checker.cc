// The aborted-read checker (`aborted-read`, Jepsen's G1a).
#include "properties/aborted_read_checker.h"

#include <string>

namespace logsim::properties {

void AbortedReadChecker::on_event(const HistoryEvent& e, const EventIds& ids) {
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
      if (Failure* f = failed_.find(value); f != nullptr && !f->reported) report_read(e, *f, e.index, false);
      return;
    }
    default:
      return;
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

}  // namespace logsim::properties

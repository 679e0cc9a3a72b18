// The send-order checker (`nonmonotonic-send`).
#include "properties/send_order_checker.h"

#include <algorithm>

namespace logsim::properties {

void SendOrderChecker::on_event(const HistoryEvent& e, const EventIds& ids) {
  if (e.value_id == 0) return;
  const Send send{ids.process, e.value_id};
  switch (e.kind) {
    case OpKind::kSendInvoke:
      invoked_[send] = Invoked{e.index, e.idempotent};
      if (ids.process >= in_flight_.size()) in_flight_.resize(ids.process + std::size_t{1});
      in_flight_[ids.process].emplace_back(e.value_id, e.index);
      return;
    case OpKind::kSendFail:
    case OpKind::kSendInfo:
      invoked_.erase(send);
      return;
    case OpKind::kSendOk:
      break;
    default:
      return;
  }
  const std::optional<Invoked> invoke = invoked_.take(send);
  if (!invoke) return;  // an acknowledgement without its invoke: nothing to order by
  if (e.offset) on_ack(e, ids, *invoke);  // acks=0 gives no offset
}

void SendOrderChecker::on_ack(const HistoryEvent& e, const EventIds& ids, const Invoked& invoked) {
  auto& run = acked_[Group{ids.process, ids.tp, invoked.idempotent ? kAnyKey : ids.key}];
  const std::int64_t offset = e.offset->value();
  const std::uint64_t invoke = invoked.event;
  const Acked acked{invoke, offset, e.value_id, e.index};
  auto at = run.end();
  if (!run.empty() && run.back().invoke >= invoke) {
    at = std::lower_bound(run.begin(), run.end(), invoke, [](const Acked& a, std::uint64_t i) { return a.invoke < i; });
    if (at != run.end() && at->invoke == invoke) return;
  }
  at = run.insert(at, acked);
  // One report per acknowledgement: the earlier neighbour first.
  if (at != run.begin() && std::prev(at)->offset > offset) {
    report_pair(e, *std::prev(at), *at, invoked.idempotent);
  } else if (const auto next = std::next(at); next != run.end() && next->offset < offset) {
    report_pair(e, *at, *next, invoked.idempotent);
  }
  // Every later acknowledgement of this process comes from a send invoked at or after its
  // oldest one in flight: of the ones before it, only the last can still be a neighbour.
  const std::uint64_t oldest = oldest_in_flight(ids.process);
  const auto first_kept =
      std::partition_point(run.begin(), run.end(), [&](const Acked& a) { return a.invoke < oldest; });
  if (first_kept - run.begin() > 1) run.erase(run.begin(), std::prev(first_kept));
}

std::uint64_t SendOrderChecker::oldest_in_flight(Id process) {
  auto& sends = in_flight_[process];
  while (!sends.empty() && !invoked_.contains(Send{process, sends.front().first})) sends.pop_front();
  return sends.empty() ? UINT64_MAX : sends.front().second;
}

// `later` was invoked after `earlier` but acknowledged at a lower offset; `e` completes the pair.
void SendOrderChecker::report_pair(const HistoryEvent& e, const Acked& earlier, const Acked& later, bool idempotent) {
  const std::string where = e.topic + "/" + std::to_string(History::packed(e.partition));
  const std::string key = e.key ? "key " + *e.key : "no key";
  Violation v = violation_at("nonmonotonic-send", e);
  v.explanation = e.process + " sent value " + std::to_string(earlier.value) + " (event #" +
                  std::to_string(earlier.invoke) + ") before value " + std::to_string(later.value) + " (event #" +
                  std::to_string(later.invoke) + ")" + (idempotent ? " with enable.idempotence" : ", both with " + key) +
                  ", but " + where + " acknowledged them at offsets " + std::to_string(earlier.offset) + " and " +
                  std::to_string(later.offset) +
                  (idempotent ? ": the later send landed first, although an idempotent producer's sequence numbers keep "
                                "its records of a partition in send order"
                              : ": the later send landed first, as when a failed batch is retried behind a later one with "
                                "max.in.flight.requests.per.connection > 1 and no idempotence");
  report(std::move(v));
}

}  // namespace logsim::properties

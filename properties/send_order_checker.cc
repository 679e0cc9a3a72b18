// The send-order checker (`nonmonotonic-send`).
#include "properties/send_order_checker.h"

#include <iterator>

namespace logsim::properties {

void SendOrderChecker::on_event(const HistoryEvent& e, const EventIds& /*ids*/) {
  if (e.value_id == 0) return;
  const std::pair<std::string, std::uint64_t> send{e.process, e.value_id};
  switch (e.kind) {
    case OpKind::kSendInvoke:
      invoked_[send] = e.index;
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
  auto it = invoked_.find(send);
  if (it == invoked_.end()) return;  // an acknowledgement without its invoke: nothing to order by
  const std::uint64_t invoke = it->second;
  invoked_.erase(it);
  if (e.offset >= 0) on_ack(e, invoke);  // acks=0 gives no offset
}

void SendOrderChecker::on_ack(const HistoryEvent& e, std::uint64_t invoke) {
  auto& run = acked_[Group{e.process, e.topic, e.partition, e.key}];
  const auto [it, fresh] = run.emplace(invoke, Acked{e.offset, e.value_id, e.index});
  if (!fresh) return;
  if (it != run.begin()) {
    const auto prev = std::prev(it);
    if (prev->second.offset > e.offset) return report_pair(e, prev->first, prev->second, invoke, it->second);
  }
  const auto next = std::next(it);
  if (next != run.end() && next->second.offset < e.offset) report_pair(e, invoke, it->second, next->first, next->second);
}

// `later` was invoked after `earlier` but acknowledged at a lower offset; `e` completes the pair.
void SendOrderChecker::report_pair(const HistoryEvent& e, std::uint64_t earlier_invoke, const Acked& earlier,
                                   std::uint64_t later_invoke, const Acked& later) {
  const std::string where = e.topic + "/" + std::to_string(e.partition);
  const std::string key = e.key ? "key " + *e.key : "no key";
  Violation v = violation_at("nonmonotonic-send", e);
  v.explanation = e.process + " sent value " + std::to_string(earlier.value) + " (event #" +
                  std::to_string(earlier_invoke) + ") before value " + std::to_string(later.value) + " (event #" +
                  std::to_string(later_invoke) + "), both with " + key + ", but " + where + " acknowledged them at offsets " +
                  std::to_string(earlier.offset) + " and " + std::to_string(later.offset) +
                  ": the later send landed first, as when a failed batch is retried behind a later one with "
                  "max.in.flight.requests.per.connection > 1 and no idempotence";
  report(std::move(v));
}

}  // namespace logsim::properties

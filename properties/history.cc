// History append and op names.
#include "properties/history.h"

#include <array>

namespace logsim::properties {
namespace {
constexpr std::array<std::pair<OpKind, std::string_view>, 12> kNames{{
    {OpKind::kSendInvoke, "send-invoke"},
    {OpKind::kSendOk, "send-ok"},
    {OpKind::kSendFail, "send-fail"},
    {OpKind::kSendInfo, "send-info"},
    {OpKind::kAssign, "assign"},
    {OpKind::kSeek, "seek"},
    {OpKind::kProcess, "process"},
    {OpKind::kFault, "fault"},
    {OpKind::kAdmin, "admin"},
    {OpKind::kCommitInvoke, "commit-invoke"},
    {OpKind::kCommitOk, "commit-ok"},
    {OpKind::kCommitFail, "commit-fail"},
}};
}  // namespace

std::string_view op_kind_name(OpKind kind) {
  for (const auto& [k, n] : kNames) {
    if (k == kind) return n;
  }
  return "?";
}

std::optional<OpKind> op_kind_from_name(std::string_view name) {
  for (const auto& [k, n] : kNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

const HistoryEvent& History::append(HistoryEvent event) {
  event.index = events_.size();
  events_.push_back(std::move(event));
  for (const auto& o : observers_) o(events_.back());
  return events_.back();
}

}  // namespace logsim::properties

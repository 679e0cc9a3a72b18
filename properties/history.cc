// History append and op names.
#include "properties/history.h"

#include <array>

namespace logsim::properties {
namespace {
constexpr std::array<std::pair<OpKind, std::string_view>, kOpKinds> kNames{{
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
    {OpKind::kPoll, "poll"},
    {OpKind::kAssert, "assert"},
    {OpKind::kTxnBegin, "txn-begin"},
    {OpKind::kTxnCommit, "txn-commit"},
    {OpKind::kTxnAbort, "txn-abort"},
    {OpKind::kTxnInfo, "txn-info"},
    {OpKind::kTxnCommitInvoke, "txn-commit-invoke"},
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

History::History() {
  text_.intern("");  // text id 0: most events' error and note, and manual assignment's group
  contexts_.intern(Context{});  // id 0 of each table: every field empty
  wheres_.intern(Where{});
  texts_.intern(Texts{});
}

std::uint64_t History::append(HistoryEvent event) {
  event.index = entries_.size();
  Entry& e = entries_.emplace_back();
  e.at = event.at;
  e.offset = packed(event.offset);
  // The value slot holds a poll's record count, and a commit's id when the commit has no value
  // id and nothing else rare (always, from logsim's apps): commits, a fifth of a group-heavy
  // history's events, then need no Extra.
  const bool rare = event.source_value_id != 0 || event.log_start_offset || event.high_watermark ||
                    !event.assignment.empty();
  const bool commit_in_slot = is_commit(event.kind) && event.value_id == 0 && !rare;
  e.value_id = event.kind == OpKind::kPoll ? event.records : commit_in_slot ? event.commit_id : event.value_id;
  TextIds ids;
  ids.process = text_id(last_process_, event.process);
  ids.group = text_id(last_group_, event.group);
  ids.topic = text_id(last_topic_, event.topic);
  if (event.key) e.key = ids.key = event.key->empty() ? Id{0} : text_.intern(*event.key);
  e.context = contexts_.intern(Context{ids.process, ids.group, packed(event.generation)});
  e.where = wheres_.intern(Where{ids.topic, packed(event.partition)});
  e.texts = texts_.intern(Texts{text_id(last_error_, event.error), text_id(last_note_, event.note)});
  e.kind = event.kind;
  e.idempotent = event.idempotent;
  e.tombstone = event.tombstone;
  e.read_committed = event.read_committed;
  if (rare || (event.commit_id != 0 && !commit_in_slot)) {
    e.extra = static_cast<std::uint32_t>(extras_.size());
    extras_.push_back(Extra{event.commit_id, event.source_value_id, event.log_start_offset, event.high_watermark, event.assignment});
  }
  for (const auto& o : observers_) o(event, ids);
  return event.index;
}

Id History::text_id(LastText& last, std::string_view s) {
  if (s.empty()) return 0;  // text id 0
  if (s != last.text) {
    last.id = text_.intern(s);
    last.text.assign(s);
  }
  return last.id;
}

HistoryEvent History::at(std::size_t i) const {
  const Entry& e = entries_[i];
  HistoryEvent out;
  out.index = i;
  out.at = e.at;
  out.kind = e.kind;
  const Context& c = contexts_[e.context];
  out.process = text_.name(c.process);
  out.group = text_.name(c.group);
  out.generation = unpacked<GenerationId>(c.generation);
  const Where& w = wheres_[e.where];
  out.topic = text_.name(w.topic);
  out.partition = unpacked<PartitionId>(w.partition);
  out.offset = unpacked<Offset>(e.offset);
  if (e.key != kNoId) out.key = text_.name(e.key);
  if (e.kind == OpKind::kPoll) {
    out.records = static_cast<std::uint32_t>(e.value_id);
  } else if (is_commit(e.kind) && e.extra == kNoId) {
    out.commit_id = e.value_id;
  } else {
    out.value_id = e.value_id;
  }
  out.idempotent = e.idempotent;
  out.tombstone = e.tombstone;
  out.read_committed = e.read_committed;
  const Texts& t = texts_[e.texts];
  out.error = text_.name(t.error);
  out.note = text_.name(t.note);
  if (e.extra != kNoId) {
    const Extra& x = extras_[e.extra];
    out.commit_id = x.commit_id;
    out.source_value_id = x.source_value_id;
    out.log_start_offset = x.log_start_offset;
    out.high_watermark = x.high_watermark;
    out.assignment = x.assignment;
  }
  return out;
}

}  // namespace logsim::properties
